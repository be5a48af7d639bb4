// The vocabulary's X-macro lists (casebook/verdict_list.h,
// casebook/family_list.h) and what is generated from them: the enums follow
// the rows, and every name parses back to its row.
#include <gtest/gtest.h>

#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "casebook/diagnosis.h"
#include "casebook/family.h"
#include "casebook/verdict.h"

namespace casebook {
namespace {

TEST(VerdictRows, EveryNameParsesBackToItsVerdict) {
  size_t rows = 0;
#define CASEBOOK_CHECK_VERDICT(enumerator, name, success, colour, junit) \
  ++rows;                                                                \
  EXPECT_EQ(verdict_name(Verdict::enumerator), name);                    \
  EXPECT_EQ(parse_verdict(name), Verdict::enumerator) << name;
  CASEBOOK_FOR_EACH_VERDICT(CASEBOOK_CHECK_VERDICT)
#undef CASEBOOK_CHECK_VERDICT
  EXPECT_EQ(rows, 9u);
}

TEST(VerdictRows, ParseTakesOnlyAWholeNameAsSpelt) {
  EXPECT_EQ(parse_verdict("NOT RUN"), Verdict::kNotRun);
  for (std::string_view name : {"NOT", "RUN", "pass", "Pass", "PASS ", "",
                                "internal", "FAIL index_out_of_range"}) {
    EXPECT_EQ(parse_verdict(name), std::nullopt) << "'" << name << "'";
  }
}

TEST(FamilyRows, TheEnumIsNoneThenTheRowsInTheirOrder) {
  std::vector<std::pair<Family, std::string_view>> rows;
#define CASEBOOK_FAMILY_ROW(enumerator, name) \
  rows.emplace_back(Family::enumerator, name);
  CASEBOOK_FOR_EACH_FAMILY(CASEBOOK_FAMILY_ROW)
#undef CASEBOOK_FAMILY_ROW
  ASSERT_EQ(rows.size(), all_families().size());
  EXPECT_EQ(kFamilyCount, rows.size() + 1);  // and kNone
  EXPECT_EQ(static_cast<size_t>(Family::kNone), 0u);
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& [family, name] = rows[i];
    EXPECT_EQ(static_cast<size_t>(family), i + 1) << name;
    EXPECT_EQ(all_families()[i], family) << name;
    EXPECT_EQ(family_name(family), name);
    EXPECT_EQ(parse_family(name), family) << name;
  }
}

// advice.cpp's static_assert keeps one advice row per family in the enum's
// order; each row is the advice of its own family.
TEST(FamilyRows, EveryFamilyHasItsOwnAdviceRow) {
  for (size_t i = 0; i < kFamilyCount; ++i) {
    const auto family = static_cast<Family>(i);
    EXPECT_EQ(advice_for(family).family, family) << family_name(family);
  }
}

}  // namespace
}  // namespace casebook
