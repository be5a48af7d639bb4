// Issue 51, item 5: a shipped case says what it checks. Its summary is what
// a reader takes on trust; where it says an input is refused or that an
// output is NaN, something in the case must check it, or the case passes
// while the claim is false (single_value_per_channel said "is refused", had
// no `expect` and passed by producing outputs).
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "casebook/loader.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;

// Words that claim the op refuses the input (not "not refused").
const std::regex kRefusal(
    R"((^|[^t] )(is |are )?(refused|rejected|rejects|refuses|fails|asserts|raises|is a contract error)\b)",
    std::regex::icase);
// Words that claim an output is NaN (not the NaN a layout fills gaps with).
const std::regex kNanOutput(R"(= NaN|makes .{0,40}NaN|gives NaN|returns NaN)");

bool expects_an_error(const Case& kase) {
  for (const auto& [backend, expectation] : kase.expect) {
    if (expectation.kind == Expectation::Kind::kError ||
        expectation.kind == Expectation::Kind::kXfail) {
      return true;
    }
  }
  return false;
}

bool checks_outputs(const Case& kase) {
  for (const auto& [backend, expectation] : kase.expect) {
    if (!expectation.outputs.empty()) return true;
  }
  // The case's `outputs`, or an independent reference, checks every run.
  return !kase.outputs.empty() || kase.reference == Case::Reference::kCpu64 ||
         kase.reference == Case::Reference::kTorch;
}

TEST(ShippedClaims, EveryRefusalOrNanASummaryClaimsIsChecked) {
  const fs::path cases = fs::path(CASEBOOK_TEST_DATA) / ".." / ".." / "cases";
  std::vector<fs::path> missing;
  const std::vector<fs::path> files = find_case_files({cases}, &missing);
  ASSERT_GT(files.size(), 100u);
  int claims = 0;
  for (const fs::path& file : files) {
    const LoadedCase loaded = load_case_file(file);
    ASSERT_TRUE(loaded.ok()) << file;
    const Case& kase = *loaded.value;
    if (std::regex_search(kase.summary, kRefusal)) {
      ++claims;
      EXPECT_TRUE(expects_an_error(kase))
          << file << ": its summary says the input is refused, and no "
          << "`expect` entry expects an error: " << kase.summary;
    }
    if (std::regex_search(kase.summary, kNanOutput)) {
      ++claims;
      EXPECT_TRUE(expects_an_error(kase) || checks_outputs(kase))
          << file << ": its summary says an output is NaN, and neither an "
          << "`expect` entry nor an independent reference checks it: "
          << kase.summary;
    }
  }
  // The rule reads real claims: the shipped cases make dozens.
  EXPECT_GT(claims, 10);
}

}  // namespace
}  // namespace casebook
