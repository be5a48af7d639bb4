// Verdicts that rest on what the case says is right, through real child
// runs: expected values, properties, error messages, conditions, repeats,
// NaN positions, and a GPU backend that lacks its expectation.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include "casebook/loader.h"
#include "casebook/op_catalog.h"
#include "casebook/runner.h"
#include "child/execute.h"
#include "device/backend_runtime.h"
#include "runner/judge.h"
#include "test_ops.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;

class Expectations : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    testing_support::use_single_thread();
    RunOptions options;
    options.backends = {Backend::kCpu, Backend::kCuda};
    options.jobs = 2;
    options.evidence_root = "";
    options.registry = &testing_support::registry_with_test_ops();
    summary_ = new RunSummary(
        run_cases({fs::path(CASEBOOK_TEST_DATA) / "expect"}, options));
  }
  static void TearDownTestSuite() { delete summary_; }

  static const CaseVerdict& verdict(const std::string& id,
                                    Backend backend = Backend::kCpu) {
    for (const CaseVerdict& each : summary_->verdicts) {
      // The id is the path from the folder the test runs in (ctest: the
      // build folder), so only its end is fixed.
      const std::string end = "/" + id;
      if ((each.case_id == id || each.case_id.size() >= end.size()) &&
          (each.case_id == id ||
           each.case_id.compare(each.case_id.size() - end.size(), end.size(),
                                end) == 0) &&
          each.backend == backend) {
        return each;
      }
    }
    std::string seen;
    for (const CaseVerdict& each : summary_->verdicts) {
      seen += " " + each.case_id;
    }
    throw std::runtime_error("no verdict for " + id + "; verdicts:" + seen);
  }
  static RunSummary* summary_;
};
RunSummary* Expectations::summary_ = nullptr;

std::string text(const CaseVerdict& verdict) {
  return std::string(verdict_name(verdict.verdict)) + " " +
         std::string(family_name(verdict.family)) + ": " + verdict.message +
         "\n" + verdict.details;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST_F(Expectations, ExpectedValuesAndPropertiesThatHoldPass) {
  EXPECT_EQ(verdict("values_pass").verdict, Verdict::kPass)
      << text(verdict("values_pass"));
  EXPECT_EQ(verdict("property_nan_positions").verdict, Verdict::kPass)
      << text(verdict("property_nan_positions"));
  EXPECT_EQ(verdict("values_from_fixture").verdict, Verdict::kPass)
      << text(verdict("values_from_fixture"));
}

// Expected values from a fixture (`file` + `sha256`) are held to the same
// rule as inline ones: every element, the CPU included.
TEST_F(Expectations, ARunThatDiffersFromAFixturesValuesFails) {
  const CaseVerdict& wrong = verdict("values_from_fixture_wrong");
  EXPECT_EQ(wrong.verdict, Verdict::kFail) << text(wrong);
  EXPECT_EQ(wrong.family, Family::kMismatch);
  EXPECT_EQ(wrong.message,
            "output 0: mismatched elements: 20 / 20 (100 %) against the "
            "expected values");
}

// The CPU is the reference, so only the expected values can catch it.
TEST_F(Expectations, AWrongCpuResultFailsAgainstTheExpectedValues) {
  const CaseVerdict& wrong = verdict("values_wrong");
  EXPECT_EQ(wrong.verdict, Verdict::kFail) << text(wrong);
  EXPECT_EQ(wrong.family, Family::kMismatch);
  EXPECT_EQ(wrong.message,
            "output 0: mismatched elements: 1 / 2 (50 %) against the expected "
            "values");
  EXPECT_TRUE(contains(wrong.details,
                       "greatest absolute difference: 1 at index [1] "
                       "(expected 8, got 7)"))
      << wrong.details;
  EXPECT_TRUE(contains(wrong.details, "tolerance: rtol=1.3e-06, atol=1e-05"))
      << wrong.details;
}

TEST_F(Expectations, PropertiesNameTheFirstOffendingIndexAndValue) {
  const CaseVerdict& finite = verdict("property_finite");
  EXPECT_EQ(finite.verdict, Verdict::kFail) << text(finite);
  EXPECT_EQ(finite.family, Family::kNanOrInf);
  EXPECT_EQ(finite.message,
            "output 0: not finite (`finite: true`) at index [0] (value nan)");
  const CaseVerdict& max = verdict("property_max");
  EXPECT_EQ(max.family, Family::kMismatch) << text(max);
  EXPECT_EQ(max.message,
            "output 0: above `max: 0.5` at index [2] (value 0.66524094)");
  const CaseVerdict& name = verdict("output_by_missing_name");
  EXPECT_EQ(name.verdict, Verdict::kFail);
  EXPECT_EQ(name.message,
            "the case expects output `loss`, which the run did not give; its "
            "outputs: 0");
}

TEST_F(Expectations, NanPositionsAreReportedApartFromTheNumbers) {
  const CaseVerdict& nan = verdict("nan_vs_nan");
  EXPECT_EQ(nan.verdict, Verdict::kFail) << text(nan);
  EXPECT_FALSE(contains(nan.details, "greatest absolute difference: nan"))
      << nan.details;
  EXPECT_TRUE(contains(nan.details,
                       "NaN where a number is expected: 1 element, first at "
                       "index [1] (expected 0.5, got nan)"))
      << nan.details;
  EXPECT_TRUE(contains(nan.details,
                       "NaN on both sides, unequal without `equal_nan: "
                       "true`: 1 element, first at index [0]"))
      << nan.details;
  EXPECT_TRUE(contains(nan.details, "equal_nan")) << nan.details;
}

TEST_F(Expectations, AnErrorMessageMustMatchItsPattern) {
  EXPECT_EQ(verdict("message_match").verdict, Verdict::kPass)
      << text(verdict("message_match"));
  const CaseVerdict& differs = verdict("message_differs");
  EXPECT_EQ(differs.verdict, Verdict::kFail) << text(differs);
  EXPECT_TRUE(std::regex_search(
      differs.message,
      std::regex("^expected index_out_of_range with a message matching "
                 "`Target 5`; got index_out_of_range: Target 4 is out of "
                 "bounds")))
      << differs.message;
}

TEST_F(Expectations, TheFirstEntryWhoseConditionHoldsApplies) {
  // On Linux the xfail applies (its expected value is wrong on purpose).
  const CaseVerdict& xfail = verdict("conditional_xfail");
  EXPECT_EQ(xfail.verdict, Verdict::kXfail) << text(xfail);
}

TEST_F(Expectations, AMissingGpuExpectationLeavesTheCpuVerdict) {
  // The file is valid; the CPU verdict stands. (cuda is absent here: SKIP;
  // where it runs, the judge makes it an ERROR: below.)
  EXPECT_EQ(verdict("cpu_fails_gpu_silent").verdict, Verdict::kPass)
      << text(verdict("cpu_fails_gpu_silent"));
  EXPECT_NE(verdict("cpu_fails_gpu_silent", Backend::kCuda).verdict,
            Verdict::kError);
}

TEST(MissingGpuExpectation, IsAnErrorOfThatBackendWhenItRuns) {
  PlannedCase planned;
  planned.loaded = load_case_file(fs::path(CASEBOOK_TEST_DATA) / "expect" /
                                  "cpu_fails_gpu_silent.yaml");
  ASSERT_TRUE(planned.loaded.ok());
  BackendStatus present;
  present.state = Readiness::kReady;
  const JudgeInputs inputs{planned, Backend::kCuda, nullptr, nullptr,
                           pair_in_run(Plan{}, {{Backend::kCuda, present}},
                                       planned, Backend::kCuda)};
  const CaseVerdict verdict = judge(inputs);
  EXPECT_EQ(verdict.verdict, Verdict::kError);
  EXPECT_EQ(verdict.message,
            "the CPU run must fail (expect.cpu is an error), so cuda has no "
            "reference to match: add `expect.cuda` ({error: FAMILY}, {xfail: "
            "REASON} or {skip: REASON})");
}

TEST_F(Expectations, RepeatsThatAgreePass) {
  EXPECT_EQ(verdict("repeat_deterministic").verdict, Verdict::kPass)
      << text(verdict("repeat_deterministic"));
}

TEST(Determinism, RepeatsThatDifferFailNamingTheFirstIndex) {
  testing_support::use_single_thread();
  const fs::path dir = fs::temp_directory_path() /
                       ("casebook-repeat-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "drifts.yaml")
      << "casebook: 1\nsummary: s\nop: testing.call_count\nrepeat: 4\n"
         "deterministic: bitwise\ninputs:\n  input: {dtype: float32, values: "
         "[1, 2]}\n";
  RunOptions options;
  options.backends = {Backend::kCpu};
  options.registry = &testing_support::registry_with_test_ops();
  const RunSummary summary = run_cases({dir}, options);
  fs::remove_all(dir);
  ASSERT_EQ(summary.verdicts.size(), 1u);
  const CaseVerdict& verdict = summary.verdicts.front();
  EXPECT_EQ(verdict.verdict, Verdict::kFail);
  EXPECT_EQ(verdict.family, Family::kMismatch);
  EXPECT_TRUE(std::regex_search(
      verdict.message,
      std::regex("^not deterministic: run 2 of 4 differs from run 1 at "
                 "output 0 index \\[0\\] \\(run 1: [0-9]+, this run: [0-9]+; "
                 "2 of 2 elements differ, bitwise\\)")))
      << verdict.message;
}

// `deterministic: tolerance` forgives what the case's tolerance forgives and
// no more; bitwise forgives nothing.
TEST(Determinism, ToleranceForgivesLastBitsButNotADifference) {
  testing_support::use_single_thread();
  const fs::path dir = fs::temp_directory_path() /
                       ("casebook-tolerance-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string input =
      "inputs:\n  input: {dtype: float32, values: [1, 2]}\n";
  std::ofstream(dir / "drift_tolerance.yaml")
      << "casebook: 1\nsummary: s\nop: testing.drift\nrepeat: 3\n"
         "deterministic: tolerance\n"
      << input;
  std::ofstream(dir / "drift_bitwise.yaml")
      << "casebook: 1\nsummary: s\nop: testing.drift\nrepeat: 3\n"
         "deterministic: bitwise\n"
      << input;
  std::ofstream(dir / "count_tolerance.yaml")
      << "casebook: 1\nsummary: s\nop: testing.call_count\nrepeat: 3\n"
         "deterministic: tolerance\n"
      << input;
  RunOptions options;
  options.backends = {Backend::kCpu};
  options.registry = &testing_support::registry_with_test_ops();
  const RunSummary summary = run_cases({dir}, options);
  fs::remove_all(dir);
  std::map<std::string, const CaseVerdict*> by_id;
  for (const CaseVerdict& verdict : summary.verdicts) {
    by_id[verdict.case_id] = &verdict;
  }
  ASSERT_EQ(by_id.size(), 3u);
  EXPECT_EQ(by_id["drift_tolerance"]->verdict, Verdict::kPass)
      << by_id["drift_tolerance"]->message;
  EXPECT_EQ(by_id["drift_bitwise"]->verdict, Verdict::kFail);
  EXPECT_NE(by_id["drift_bitwise"]->message.find("bitwise"), std::string::npos)
      << by_id["drift_bitwise"]->message;
  EXPECT_EQ(by_id["count_tolerance"]->verdict, Verdict::kFail);
  EXPECT_EQ(by_id["count_tolerance"]->family, Family::kMismatch);
  EXPECT_TRUE(std::regex_search(
      by_id["count_tolerance"]->message,
      std::regex("^not deterministic: run 2 of 3 differs from run 1 at "
                 "output 0: mismatched elements: 2 / 2 [^]*greatest absolute "
                 "difference: 1 at index \\[0\\] \\(expected 2, got 3\\)")))
      << by_id["count_tolerance"]->message;
}

// cpu64 computes in float64 throughout: softmax(dtype: float32) of bfloat16
// logits runs as softmax(dtype: float64) on float64 inputs; the judge casts
// to the run's dtype only at the end.
TEST(Cpu64, ADtypeArgumentBecomesFloat64) {
  testing_support::use_single_thread();
  const LoadedCase loaded =
      load_case_file(fs::path(CASEBOOK_SOURCE_DIR) /
                     "cases/torch/softmax_float32_dtype_cpu64.yaml");
  ASSERT_TRUE(loaded.ok());
  const Case& kase = *loaded.value;
  const ResolvedOp resolved = resolve_op(kase, default_registry());
  const OpDef* op = resolved.def;
  ASSERT_NE(op, nullptr);
  CaseTable table;
  table.cases.push_back(&kase);
  table.ops.push_back(op);
  const fs::path dir = fs::temp_directory_path() /
                       ("casebook-cpu64-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const BackendRuntime runtime = open_backend_runtime(Backend::kCpu);
  for (const auto& [kind, dtype] : std::vector<std::pair<JobKind, std::string>>{
           {JobKind::kReferenceCpu64, "float64"}, {JobKind::kRun, "float32"}}) {
    RunRequest request;
    request.kind = kind;
    request.output_dir = dir.string();
    const ChildReport report = execute_request(table, request, runtime);
    ASSERT_EQ(report.status, ChildReport::Status::kOutputs) << report.message;
    EXPECT_EQ(report.outputs.at(0).dtype, dtype);
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace casebook
