// Hostile case files: each of the corpus in tests/data/hostile/cases is
// refused with an error that names the file and the line its `.expected`
// gives; files too large to keep in the repository (a 12 MB case, 20,000
// nested brackets, a values list past the node budget) and symbolic links
// out of the fixtures folder are made here, in a fresh temporary folder.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "casebook/limits.h"
#include "casebook/loader.h"
#include "loaded_case_checks.h"
#include "repeated_text.h"

namespace casebook {
namespace {
namespace fs = std::filesystem;

const fs::path kCorpus = fs::path(CASEBOOK_TEST_DATA) / "hostile" / "cases";

TEST(HostileCorpus, EveryFileIsRefusedAtItsLine) {
  size_t tried = 0;
  for (const auto& item : fs::directory_iterator(kCorpus)) {
    if (item.path().extension() != ".yaml") continue;
    fs::path expected_file = item.path();
    expected_file.replace_extension(".expected");
    std::ifstream expected_stream(expected_file);
    ASSERT_TRUE(expected_stream) << "no " << expected_file;
    int line = -1;
    std::string text;
    expected_stream >> line;
    expected_stream.ignore(2);  // ": "
    std::getline(expected_stream, text);
    const LoadedCase loaded = load_case_file(item.path(), kCorpus);
    EXPECT_FALSE(loaded.ok()) << item.path();
    EXPECT_FALSE(loaded.value.has_value()) << item.path();
    EXPECT_TRUE(refused_at(loaded, line, text))
        << item.path() << ": expected line " << line << ": " << text
        << "\ngot:\n"
        << all_errors(loaded);
    ++tried;
  }
  EXPECT_GE(tried, 28u) << "the corpus lost files";
}

TEST(HostileCorpus, AnchorsAreReportedEachAtItsLineAndNothingIsExpanded) {
  const LoadedCase loaded =
      load_case_file(kCorpus / "billion_laughs.yaml", kCorpus);
  // Nine anchors (lines 1-9) and 72 aliases: the first 20 refusals shown.
  ASSERT_EQ(loaded.errors.size(), 20u) << all_errors(loaded);
  EXPECT_EQ(loaded.errors[0].where.line, 1);
  EXPECT_EQ(loaded.errors[0].where.column, 4);
  EXPECT_NE(loaded.errors[1].message.find("YAML anchor `&b`"),
            std::string::npos);
  EXPECT_NE(loaded.errors[2].message.find("YAML alias `*a`"),
            std::string::npos);
  EXPECT_EQ(loaded.errors[2].where.line, 2);
}

using testing_support::repeated;

const char kHead[] = "casebook: 1\nsummary: s\nop: torch.sum\ninputs:\n";

TEST(HostileText, TwentyThousandNestedBracketsNameTheDepthLimit) {
  const std::string text =
      std::string(kHead) +
      "  x: {dtype: float32, values: " + repeated("[", 20000) + "1" +
      repeated("]", 20000) + "}\n";
  const LoadedCase loaded = load_case_text(text, "cases/deep.yaml");
  ASSERT_EQ(loaded.errors.size(), 1u) << all_errors(loaded);
  // Level 65 opens at column 31 + 61 (the tensor's map is level 3).
  EXPECT_EQ(loaded.errors[0].to_string(),
            "cases/deep.yaml:5:92: lists and maps nested more than 64 deep: "
            "over the limit for a case file (a case needs a few levels)");
}

TEST(HostileText, DeepBlockMapsNameTheDepthLimit) {
  std::string text = kHead;
  for (int level = 0; level < 100; ++level) {
    text += std::string(static_cast<size_t>(level) + 2, ' ') + "k:\n";
  }
  const LoadedCase loaded = load_case_text(text, "cases/deep.yaml");
  ASSERT_FALSE(loaded.errors.empty());
  EXPECT_NE(loaded.errors[0].message.find("nested more than 64 deep"),
            std::string::npos)
      << all_errors(loaded);
  EXPECT_GT(loaded.errors[0].where.line, 60);
}

TEST(HostileText, TwelveMegabytesAreRefusedBeforeParsing) {
  // The file: 3 million values, 12 MB. Refused at the line where
  // the first mebibyte ends, without being parsed (a parse costs 40 s).
  const std::string text = std::string(kHead) +
                           "  x: {dtype: float32, values: [" +
                           repeated("0.5,\n", 3'000'000) + "1]}\n";
  struct rusage before{};
  getrusage(RUSAGE_SELF, &before);
  const LoadedCase loaded = load_case_text(text, "cases/big.yaml");
  ASSERT_EQ(loaded.errors.size(), 1u) << all_errors(loaded);
  const std::string shown = loaded.errors[0].to_string();
  EXPECT_EQ(loaded.errors[0].where.line, 5 + (1048576 - 75) / 5) << shown;
  EXPECT_NE(shown.find("the file is 14.3 MiB, over the limit of 1 MiB for a "
                       "case file; large data belongs in a fixture"),
            std::string::npos)
      << shown;
}

TEST(HostileText, ValuesPastTheNodeBudgetNameTheLimit) {
  const std::string text = std::string(kHead) +
                           "  x: {dtype: uint8, values: [" +
                           repeated("1,", 100'001) + "1]}\n";
  ASSERT_LT(text.size(), load_limits().max_file_bytes);
  const LoadedCase loaded = load_case_text(text, "cases/many.yaml");
  ASSERT_EQ(loaded.errors.size(), 1u) << all_errors(loaded);
  EXPECT_NE(loaded.errors[0].message.find(
                "more than 100000 YAML nodes: over the limit for a case "
                "file; large data belongs in a fixture"),
            std::string::npos);
  EXPECT_EQ(loaded.errors[0].where.line, 5);
}

TEST(HostileText, ValuesWithinTheBudgetsLoad) {
  const std::string text = std::string(kHead) +
                           "  x: {dtype: uint8, values: [" +
                           repeated("1,", 90'000) + "1]}\n";
  const LoadedCase loaded = load_case_text(text, "cases/many.yaml");
  ASSERT_TRUE(loaded.ok()) << all_errors(loaded);
  EXPECT_EQ(loaded.value->inputs.at(0).int_values.size(), 90'001u);
}

TEST(HostileText, TheTensorLimitIsConfigurable) {
  const LoadLimits saved = load_limits();
  LoadLimits small = saved;
  small.max_tensor_bytes = 1024;
  set_load_limits(small);
  const std::string text = std::string(kHead) +
                           "  x: {dtype: float32, shape: [257], fill: {full: "
                           "0}}\n  y: {dtype: float32, shape: [256], fill: "
                           "{full: 0}}\n";
  const LoadedCase loaded = load_case_text(text, "cases/limit.yaml");
  set_load_limits(saved);
  ASSERT_EQ(loaded.errors.size(), 1u) << all_errors(loaded);
  EXPECT_EQ(loaded.errors[0].to_string(),
            "cases/limit.yaml:5:30: `inputs.x.shape`: a tensor of 257 "
            "elements of float32 (1.0 KiB) is over the limit of 1 KiB per "
            "tensor (CASEBOOK_MAX_TENSOR_BYTES); refused before anything is "
            "allocated. A case needs the smallest tensor that still fails");
}

TEST(Limits, ByteCountsParse) {
  EXPECT_EQ(parse_byte_count("4G"), uint64_t{4} << 30);
  EXPECT_EQ(parse_byte_count("512MiB"), uint64_t{512} << 20);
  EXPECT_EQ(parse_byte_count("1024"), 1024u);
  EXPECT_EQ(parse_byte_count("-1"), std::nullopt);
  EXPECT_EQ(parse_byte_count("1.5G"), std::nullopt);
  EXPECT_EQ(parse_byte_count("99999999999T"), std::nullopt);
  EXPECT_EQ(parse_byte_count(""), std::nullopt);
  // Issue 49: a unit with B, in any case, is the same power of 1024.
  EXPECT_EQ(parse_byte_count("512MB"), uint64_t{512} << 20);
  EXPECT_EQ(parse_byte_count("512mb"), uint64_t{512} << 20);
  EXPECT_EQ(parse_byte_count("2gib"), uint64_t{2} << 30);
  EXPECT_EQ(parse_byte_count("512 M"), std::nullopt);
  EXPECT_EQ(parse_byte_count("512MBB"), std::nullopt);
}

// Issue 49: CASEBOOK_CHILD_MEMORY=2GB and other values that did not read
// were ignored without a word (the default stayed in force).
TEST(Limits, AVariableThatDoesNotReadIsAnErrorNamingIt) {
  const char* const names[] = {"CASEBOOK_MAX_TENSOR_BYTES",
                               "CASEBOOK_MAX_OUTPUT_ELEMENTS",
                               "CASEBOOK_CHILD_MEMORY"};
  for (const char* name : names) unsetenv(name);
  EXPECT_TRUE(limit_variable_errors().empty());
  setenv("CASEBOOK_MAX_TENSOR_BYTES", "512MB", 1);
  setenv("CASEBOOK_CHILD_MEMORY", "2GB", 1);
  EXPECT_TRUE(limit_variable_errors().empty());
  setenv("CASEBOOK_MAX_TENSOR_BYTES", "half a gig\x1b[2J", 1);
  setenv("CASEBOOK_MAX_OUTPUT_ELEMENTS", "1e9", 1);
  setenv("CASEBOOK_CHILD_MEMORY", "0", 1);
  const std::vector<std::string> errors = limit_variable_errors();
  for (const char* name : names) unsetenv(name);
  const std::string expected =
      ", alone or with K, M, G or T (powers of 1024: 8G, 512M, 512MiB); got ";
  EXPECT_EQ(errors,
            (std::vector<std::string>{
                "CASEBOOK_MAX_TENSOR_BYTES: expected a whole number" +
                    expected + "`half a gig\\x1b[2J`",
                "CASEBOOK_MAX_OUTPUT_ELEMENTS: expected a whole number" +
                    expected + "`1e9`",
                "CASEBOOK_CHILD_MEMORY: expected a whole number > 0" +
                    expected + "`0`"}));
}

class HostileFolder : public testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (fs::temp_directory_path() / "casebook_hostile_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    fs::create_directories(root_ / "repo/cases");
    fs::create_directories(root_ / "repo/fixtures");
    std::ofstream(root_ / "secret.npy") << "outside";
    std::ofstream(root_ / "repo/fixtures/inside.npy") << "inside";
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  LoadedCase load_with_file(const std::string& file) {
    const fs::path path = root_ / "repo/cases/link.yaml";
    std::ofstream(path) << kHead << "  x: {dtype: float32, file: " << file
                        << "}\n";
    return load_case_file(path, root_);
  }
  fs::path root_;
};

TEST_F(HostileFolder, ALinkOutOfTheFixturesFolderIsRefused) {
  fs::create_symlink(root_ / "secret.npy", root_ / "repo/fixtures/out.npy");
  const LoadedCase loaded = load_with_file("out.npy");
  ASSERT_EQ(loaded.errors.size(), 1u) << all_errors(loaded);
  EXPECT_EQ(loaded.errors[0].where.line, 5);
  EXPECT_NE(loaded.errors[0].message.find(
                "resolves (through a symbolic link) to `" +
                fs::canonical(root_ / "secret.npy").string() +
                "`, outside the fixtures folder"),
            std::string::npos)
      << all_errors(loaded);
}

TEST_F(HostileFolder, ALinkedFolderOutOfTheFixturesFolderIsRefused) {
  fs::create_directories(root_ / "elsewhere");
  std::ofstream(root_ / "elsewhere/x.npy") << "outside";
  fs::create_directory_symlink(root_ / "elsewhere",
                               root_ / "repo/fixtures/sub");
  const LoadedCase loaded = load_with_file("sub/x.npy");
  ASSERT_EQ(loaded.errors.size(), 1u) << all_errors(loaded);
  EXPECT_NE(loaded.errors[0].message.find("outside the fixtures folder"),
            std::string::npos);
}

TEST_F(HostileFolder, ARelativeLinkThatClimbsOutIsRefused) {
  fs::create_symlink("../../secret.npy", root_ / "repo/fixtures/up.npy");
  const LoadedCase loaded = load_with_file("up.npy");
  ASSERT_EQ(loaded.errors.size(), 1u) << all_errors(loaded);
  EXPECT_NE(loaded.errors[0].message.find("outside the fixtures folder"),
            std::string::npos);
}

TEST_F(HostileFolder, ALinkInsideTheFixturesFolderIsFollowed) {
  fs::create_symlink("inside.npy", root_ / "repo/fixtures/alias.npy");
  const LoadedCase loaded = load_with_file("alias.npy");
  EXPECT_TRUE(loaded.ok()) << all_errors(loaded);
}

TEST_F(HostileFolder, ALinkedFixturesFolderIsItsOwnInside) {
  // fixtures/ itself may be a link (to a data checkout): files inside the
  // folder it points to are inside.
  fs::create_directories(root_ / "data");
  std::ofstream(root_ / "data/d.npy") << "data";
  fs::remove_all(root_ / "repo/fixtures");
  fs::create_directory_symlink(root_ / "data", root_ / "repo/fixtures");
  const LoadedCase loaded = load_with_file("d.npy");
  EXPECT_TRUE(loaded.ok()) << all_errors(loaded);
}

TEST_F(HostileFolder, AHugeFileIsReadOnlyUpToTheLimit) {
  const fs::path path = root_ / "repo/cases/huge.yaml";
  {
    std::ofstream out(path);
    out << kHead << "  x: {dtype: float32, values: [";
    for (int i = 0; i < 3'000'000; ++i) out << "0.5,\n";
    out << "1]}\n";
  }
  const LoadedCase loaded = load_case_file(path, root_);
  ASSERT_EQ(loaded.errors.size(), 1u) << all_errors(loaded);
  EXPECT_EQ(loaded.errors[0].where.line, 5 + (1048576 - 75) / 5);
  EXPECT_NE(loaded.errors[0].message.find("the file is 14.3 MiB"),
            std::string::npos)
      << all_errors(loaded);
}

}  // namespace
}  // namespace casebook
