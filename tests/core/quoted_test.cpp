// The one double-quoted literal (casebook/quoted.h): every byte a case file's
// text can hold reads back from YAML as it was written, control characters
// included, and the text is one line (a Python literal's rule too).
#include "casebook/quoted.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <string>

namespace casebook {
namespace {

TEST(DoubleQuoted, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(double_quoted("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(double_quoted("line\nnext\tcell"), "\"line\\nnext\\tcell\"");
  EXPECT_EQ(double_quoted(std::string("\x01\x1b\x7f", 3)),
            "\"\\x01\\x1b\\x7f\"");
  EXPECT_EQ(double_quoted("caf\xc3\xa9"), "\"caf\xc3\xa9\"") << "UTF-8 kept";
  EXPECT_EQ(double_quoted(""), "\"\"");
}

TEST(DoubleQuoted, EveryAsciiByteReadsBackFromYamlOnOneLine) {
  std::string all;
  for (int byte = 1; byte < 128; ++byte) all += static_cast<char>(byte);
  const std::string written = double_quoted(all);
  EXPECT_EQ(written.find('\n'), std::string::npos);
  EXPECT_EQ(written.find('\r'), std::string::npos);
  EXPECT_EQ(YAML::Load("value: " + written)["value"].as<std::string>(), all);
  EXPECT_EQ(YAML::Load("[" + written + "]")[0].as<std::string>(), all)
      << "in flow style too";
}

}  // namespace
}  // namespace casebook
