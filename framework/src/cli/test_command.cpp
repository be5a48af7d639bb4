// gtest mode: every (case, backend) becomes a gtest test, registered at run
// time through testing::RegisterTest before RUN_ALL_TESTS. The runs happen in
// one batch (children in parallel) when the test program starts, after gtest
// has applied its filter; each test then reports its verdict.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "casebook/diagnosis.h"
#include "casebook/printable.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/filter_check.h"
#include "runner/judge.h"
#include "runner/output.h"
#include "runner/session.h"

namespace casebook {
namespace {

// gtest names: [A-Za-z0-9_] only ("cross_entropy/label-4" ->
// "cross_entropy_label_4").
std::string gtest_name(const std::string& text) {
  std::string out;
  for (char c : text)
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

struct Batch {
  Plan plan;
  RunOptions options;
  std::map<std::pair<std::string, Backend>, CaseVerdict> verdicts;
  Environment environment;
  // The verdicts of the runs gtest selected (RunSummary::exit_code and
  // exit_status_of read them).
  RunSummary summary;
};

// Runs every test gtest will run, once, before the first of them.
class BatchEnvironment : public testing::Environment {
 public:
  explicit BatchEnvironment(Batch* batch) : batch_(batch) {}
  void SetUp() override {
    std::set<std::pair<std::string, Backend>> wanted;
    const testing::UnitTest& unit = *testing::UnitTest::GetInstance();
    for (int s = 0; s < unit.total_test_suite_count(); ++s) {
      const testing::TestSuite& suite = *unit.GetTestSuite(s);
      for (int t = 0; t < suite.total_test_count(); ++t) {
        const testing::TestInfo& info = *suite.GetTestInfo(t);
        if (!info.should_run()) continue;
        if (auto backend = parse_backend(info.name())) {
          wanted.emplace(info.test_suite_name(), *backend);
        }
      }
    }
    Selection selected = [&wanted](const PlannedCase& planned,
                                   Backend backend) {
      return wanted.count({gtest_name(planned.loaded.id), backend}) > 0;
    };
    Execution execution =
        execute_plan(batch_->plan, batch_->options, selected, nullptr);
    for (const CaseVerdict& verdict : execution.summary.verdicts) {
      auto key = std::make_pair(gtest_name(verdict.case_id), verdict.backend);
      batch_->verdicts[key] = verdict;
    }
    batch_->summary = std::move(execution.summary);
    batch_->environment = run_environment(execution.backends);
    for (const auto& [key, value] : batch_->environment) {
      testing::Test::RecordProperty(key, value);
    }
  }

 private:
  Batch* batch_;
};

class CaseTest : public testing::Test {
 public:
  CaseTest(const Batch* batch, std::string suite, Backend backend)
      : batch_(batch), suite_(std::move(suite)), backend_(backend) {}

  void TestBody() override {
    auto it = batch_->verdicts.find({suite_, backend_});
    ASSERT_NE(it, batch_->verdicts.end())
        << "internal error: no verdict for " << suite_ << "/"
        << backend_name(backend_) << "; please report";
    const CaseVerdict& v = it->second;
    RecordProperty("verdict", std::string(verdict_name(v.verdict)));
    RecordProperty("family", std::string(family_name(v.family)));
    RecordProperty("case_file", v.file.string());
    if (v.verdict == Verdict::kSkip) GTEST_SKIP() << v.message;
    if (verdict_is_success(v.verdict)) return;
    std::ostringstream text;
    text << verdict_name(v.verdict) << " " << v.case_id << " "
         << backend_name(v.backend);
    if (v.family != Family::kNone)
      text << "  family: " << family_name(v.family);
    text << "\nrerun: " << v.rerun_command;
    text << "\n" << v.message << "\n";
    if (!v.details.empty()) text << v.details << "\n";
    for (const std::string& later : v.consequences) {
      text << "possible consequence (not a cause): " << later << "\n";
    }
    // At the line that decided it, so that an IDE or CI annotation points
    // at the expectation, not at the top of the file.
    ADD_FAILURE_AT(v.file.string().c_str(), v.line > 0 ? v.line : 1)
        << text.str();
  }

 private:
  const Batch* batch_;
  std::string suite_;
  Backend backend_;
};

// GoogleTest's sharding protocol (GTEST_TOTAL_SHARDS, GTEST_SHARD_INDEX,
// GTEST_SHARD_STATUS_FILE; Bazel's test runner sets them too), applied by
// case id as `--shard` is, so that a case's runs stay together on one shard
// and a case keeps its shard as others come and go. gtest itself would deal
// the tests out by their position, so the variables are taken from it.
bool take_gtest_sharding(RunOptions* options) {
  const char* total = std::getenv("GTEST_TOTAL_SHARDS");
  const char* index = std::getenv("GTEST_SHARD_INDEX");
  if (total == nullptr || index == nullptr) return true;
  if (!parse_shard(std::string(index) + "/" + total, &options->shard_index,
                   &options->shard_count)) {
    std::cerr << "casebook test: GTEST_SHARD_INDEX=" << index
              << " and GTEST_TOTAL_SHARDS=" << total
              << ": expected 0 <= index < total\n";
    return false;
  }
  unsetenv("GTEST_TOTAL_SHARDS");
  unsetenv("GTEST_SHARD_INDEX");
  // The runner asks the test program to say that it shards.
  if (const char* status = std::getenv("GTEST_SHARD_STATUS_FILE")) {
    std::ofstream touched(status, std::ios::app);
  }
  return true;
}

// After gtest's summary, which names a failed run only by its gtest name: a
// line per run that did not pass, with its case, backend, family and the
// file:line that decided it, then its rerun command. ctest's post-test hook
// (cmake/CasebookCtestFailures.cmake) shows these lines under plain
// `ctest`, which prints nothing else of a failed test.
void print_failed_runs(std::ostream& out, const Batch& batch) {
  for (const auto& [key, verdict] : batch.verdicts) {
    if (verdict.verdict == Verdict::kSkip ||
        verdict_is_success(verdict.verdict))
      continue;
    out << "casebook test: " << verdict_name(verdict.verdict) << " "
        << printable_line(verdict.case_id) << " "
        << backend_name(verdict.backend);
    if (verdict.family != Family::kNone) {
      out << " (" << family_name(verdict.family) << ")";
    }
    if (verdict.verdict == Verdict::kInternal) {
      out << " (casebook's own error, not the case's: please report it)";
    }
    out << " at " << printable_line(verdict.file.string()) << ":"
        << (verdict.line > 0 ? verdict.line : 1) << "\n"
        << "casebook test:   rerun: " << verdict.rerun_command << "\n";
  }
}

// After RUN_ALL_TESTS: --gtest_filter (or $GTEST_FILTER) left none of the
// tests registered (gtest's sharding is casebook's own, so nothing else
// does), said as --filter's typo is: a usage error, never Skipped.
bool gtest_filter_selected_nothing() {
  const testing::UnitTest& unit = *testing::UnitTest::GetInstance();
  if (unit.total_test_count() == 0 || unit.test_to_run_count() > 0) {
    return false;
  }
  std::cerr << "casebook test: --gtest_filter='"
            << printable_line(GTEST_FLAG_GET(filter))
            << "' selects none of the " << unit.total_test_count()
            << " tests (named <case id>.<backend>, each character not in "
               "[A-Za-z0-9_] as _, e.g. "
            << unit.GetTestSuite(0)->name() << "."
            << unit.GetTestSuite(0)->GetTestInfo(0)->name() << ")\n";
  return true;
}

}  // namespace

int test_command(const CommonArguments& arguments,
                 std::vector<std::string> gtest_arguments) {
  static Batch batch;  // outlives RUN_ALL_TESTS and gtest's teardown
  std::vector<std::filesystem::path> paths;
  if (!to_run_options(arguments, &batch.options, &paths)) return kExitUsage;
  if (!take_gtest_sharding(&batch.options)) return kExitUsage;
  batch.plan = load_plan(paths, batch.options);
  if (selection_is_empty(batch.plan, batch.options, "casebook test")) {
    return kExitUsage;
  }
  for (const PlannedCase& planned : batch.plan.cases) {
    const std::string suite = gtest_name(planned.loaded.id);
    for (Backend backend : planned.reported) {
      if (!selected_by(batch.options, planned, backend)) continue;
      // At the line that decides it, as its failure is: gtest's XML
      // (`--gtest_output=xml`) gives each test's file and line.
      const int line = deciding_line(planned, backend);
      testing::RegisterTest(
          suite.c_str(), std::string(backend_name(backend)).c_str(), nullptr,
          nullptr, planned.loaded.file.string().c_str(), line > 0 ? line : 1,
          [suite, backend]() -> testing::Test* {
            return new CaseTest(&batch, suite, backend);
          });
    }
  }
  std::vector<char*> argv;
  static std::string program = "casebook test";
  argv.push_back(program.data());
  for (std::string& argument : gtest_arguments) argv.push_back(argument.data());
  int argc = static_cast<int>(argv.size());
  // argv[argc] is null, as main's: gtest moves argc + 1 entries when it
  // removes its flags (found by AddressSanitizer).
  argv.push_back(nullptr);
  testing::InitGoogleTest(&argc, argv.data());
  testing::AddGlobalTestEnvironment(new BatchEnvironment(&batch));
  if (RUN_ALL_TESTS() != 0) {
    print_failed_runs(std::cout, batch);
    return 1;
  }
  if (GTEST_FLAG_GET(list_tests)) return 0;
  if (gtest_filter_selected_nothing()) return kExitUsage;
  // A lane that ran nothing (no case runs on its backends, an empty shard)
  // or whose every run was skipped (its backend is absent) tested nothing:
  // Skipped, never Passed, so that "0 tests, PASSED" cannot stand for a
  // lane (ctest: SKIP_RETURN_CODE); an error when a backend is required.
  if (batch.summary.verdicts.empty() && !batch.options.required.empty()) {
    std::cerr << "casebook test: no run selected on the required backends\n";
    return 1;
  }
  return exit_status_of(batch.summary, arguments.allow_skipped,
                        "casebook test");
}

Command add_test(CLI::App& app) {
  auto arguments = std::make_shared<CommonArguments>();
  CLI::App* test = app.add_subcommand(
      "test",
      "gtest mode for ctest: each case x backend is a gtest test "
      "(<case_id>.<backend>, non [A-Za-z0-9_] as _); gtest flags such as "
      "--gtest_filter=... and --gtest_output=xml:FILE are passed to gtest");
  add_common_options(test, arguments.get());
  add_evidence_option(test, arguments.get());
  // Anything casebook does not know (--gtest_*) is passed to gtest.
  test->allow_extras();
  return {test, [arguments, test] {
            return test_command(*arguments, test->remaining());
          }};
}

}  // namespace casebook
