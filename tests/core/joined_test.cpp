// joined (casebook/joined.h): the one join of messages and case text.
#include "casebook/joined.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace casebook {
namespace {

TEST(Joined, SeparatesItemsAndAddsNothingAroundThem) {
  EXPECT_EQ(joined(std::vector<std::string>{"a", "b", "c"}), "a, b, c");
  EXPECT_EQ(joined(std::vector<std::string>{"only"}), "only");
  EXPECT_EQ(joined(std::vector<std::string>{}), "");
  EXPECT_EQ(joined(std::vector<std::string_view>{"x", "y"}, " | "), "x | y");
  // An empty item keeps its place.
  EXPECT_EQ(joined(std::vector<std::string>{"", "b"}), ", b");
}

TEST(Joined, WritesEachItemByItsFunction) {
  const std::vector<int64_t> sizes{2, -3, 4};
  EXPECT_EQ(
      joined(sizes, ", ", [](int64_t size) { return std::to_string(size); }),
      "2, -3, 4");
  const std::map<std::string, int> counts{{"FAIL", 1}, {"PASS", 3}};
  EXPECT_EQ(joined(counts, "; ",
                   [](const auto& entry) {
                     return entry.first + "=" + std::to_string(entry.second);
                   }),
            "FAIL=1; PASS=3");
}

}  // namespace
}  // namespace casebook
