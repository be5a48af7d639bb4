// Nothing selected, nothing green (issue 34, part 5 and part 7's selection):
// an --id or --gtest_filter that selects nothing is a usage error, a run
// whose every run was skipped exits 77 unless --allow-skipped, and the
// choices a test tool gives: several --filter, --exclude, --fail-fast,
// --last-failed. Each drives the real executable.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "device/backend_readiness.h"
#include "run_command.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;
using testing_support::CommandResult;
using testing_support::has_line;
using testing_support::read_text;
using testing_support::run_casebook;
using testing_support::run_shell;
using testing_support::TempFolder;
using testing_support::write_file;

constexpr const char* kSelectionCliPassing =
    "casebook: 1\n"
    "summary: valid labels (PASS)\n"
    "op: torch.cross_entropy\n"
    "backends: [cpu]\n"
    "inputs:\n"
    "  input:  {shape: [2, 4], dtype: float32, fill: {full: 0.5}}\n"
    "  target: {dtype: int64, values: [0, 3]}\n";

constexpr const char* kFailing =
    "casebook: 1\n"
    "summary: expects an error from valid labels (FAIL)\n"
    "op: torch.cross_entropy\n"
    "backends: [cpu]\n"
    "inputs:\n"
    "  input:  {shape: [2, 4], dtype: float32, fill: {full: 0.5}}\n"
    "  target: {dtype: int64, values: [0, 3]}\n"
    "expect:\n"
    "  cpu: {error: index_out_of_range}\n";

// casebook with CASEBOOK_CACHE_DIR set (the record of --last-failed).
CommandResult run_with_cache(const fs::path& cache,
                             const std::string& arguments) {
  return run_shell("cd '" + std::string(CASEBOOK_SOURCE_DIR) +
                   "' && CASEBOOK_CACHE_DIR='" + cache.string() + "' '" +
                   CASEBOOK_EXECUTABLE + "' " + arguments);
}

TEST(SelectionCli, AnIdThatNamesNoCaseIsAUsageErrorWithTheNearestIds) {
  const auto typo = run_casebook(
      "run --backend cpu cases/cross_entropy --id "
      "cross_entropy/label_out_of_rnage");
  EXPECT_EQ(typo.status, 2) << typo.output;
  EXPECT_TRUE(has_line(typo.output,
                       "^casebook run: --id 'cross_entropy/label_out_of_rnage' "
                       "is none of the [0-9]+ cases found; did you mean "
                       "`cross_entropy/label_out_of_range`"))
      << typo.output;
  EXPECT_EQ(typo.output.find("no case selected"), std::string::npos)
      << typo.output;
  const auto right = run_casebook(
      "run --backend cpu cases/cross_entropy --id "
      "cross_entropy/label_out_of_range");
  EXPECT_EQ(right.status, 0) << right.output;
}

TEST(SelectionCli, ARunWhoseEveryRunWasSkippedExits77UnlessAllowed) {
  if (device_node_present(Backend::kCuda)) GTEST_SKIP() << "a CUDA host";
  const std::string only_cuda =
      "run --backend cuda cases/cross_entropy/label_out_of_range.yaml";
  const auto skipped = run_casebook(only_cuda);
  EXPECT_EQ(skipped.status, 77) << skipped.output;
  EXPECT_TRUE(has_line(skipped.output,
                       "^casebook run: nothing was tested: every one of the "
                       "7 selected runs was skipped; exit 77 "
                       "\\(--allow-skipped to exit 0\\)$"))
      << skipped.output;
  EXPECT_EQ(run_casebook(only_cuda + " --allow-skipped").status, 0);
  // One run that ran is enough: the cpu runs pass, cuda's are skipped.
  EXPECT_EQ(run_casebook("run --backend cpu,cuda "
                         "cases/cross_entropy/label_out_of_range.yaml")
                .status,
            0);
}

TEST(SelectionCli, AGtestFilterThatSelectsNothingIsAUsageErrorNotSkipped) {
  const auto typo = run_casebook(
      "test --backend cpu cases/cross_entropy --gtest_filter='nonexistent*'");
  EXPECT_EQ(typo.status, 2) << typo.output;
  EXPECT_TRUE(has_line(typo.output,
                       "^casebook test: --gtest_filter='nonexistent\\*' "
                       "selects none of the [0-9]+ tests \\(named <case "
                       "id>.<backend>"))
      << typo.output;
  const auto one = run_casebook(
      "test --backend cpu cases/cross_entropy "
      "--gtest_filter='cross_entropy_valid_labels.*'");
  EXPECT_EQ(one.status, 0) << one.output;
}

TEST(SelectionCli, SeveralFiltersSelectAnyAndAnExclusionLeavesOut) {
  const auto two = run_casebook(
      "run --verbose --backend cpu cases/cross_entropy --filter valid_labels "
      "--filter logits_from_npy");
  EXPECT_EQ(two.status, 0) << two.output;
  EXPECT_TRUE(has_line(two.output, "^PASS +cross_entropy/valid_labels +cpu"))
      << two.output;
  EXPECT_TRUE(has_line(two.output, "^PASS +cross_entropy/logits_from_npy +cpu"))
      << two.output;
  EXPECT_FALSE(has_line(two.output, "cross_entropy/label_out_of_range "))
      << two.output;

  const auto excluded = run_casebook(
      "run --verbose --backend cpu cases/cross_entropy --filter "
      "label_out_of_range --exclude '*message*' --exclude '*~*'");
  EXPECT_EQ(excluded.status, 0) << excluded.output;
  EXPECT_TRUE(has_line(excluded.output,
                       "^XFAIL +cross_entropy/label_out_of_range +cpu|"
                       "^PASS +cross_entropy/label_out_of_range +cpu"))
      << excluded.output;
  EXPECT_FALSE(has_line(excluded.output, "label_out_of_range_message"))
      << excluded.output;
  EXPECT_FALSE(has_line(excluded.output, "label_out_of_range~"))
      << excluded.output;

  // One typo among several filters is still a typo.
  const auto typo = run_casebook(
      "run --backend cpu cases/cross_entropy --filter valid_labels "
      "--filter valid_lables");
  EXPECT_EQ(typo.status, 2) << typo.output;
  EXPECT_TRUE(has_line(typo.output, "--filter 'valid_lables' selects none"))
      << typo.output;
  // A choice that excludes everything it selected selects nothing.
  const auto nothing = run_casebook(
      "run --backend cpu cases/cross_entropy --filter valid_labels "
      "--exclude valid");
  EXPECT_EQ(nothing.status, 2) << nothing.output;
  EXPECT_TRUE(has_line(nothing.output,
                       "--filter, --exclude and --id together leave none"))
      << nothing.output;
}

TEST(SelectionCli, FailFastStopsAtTheFirstFailure) {
  TempFolder folder;
  write_file(folder.path() / "cases" / "a_fails.yaml", kFailing);
  for (int i = 0; i < 6; ++i) {
    write_file(
        folder.path() / "cases" / ("b_passes_" + std::to_string(i) + ".yaml"),
        kSelectionCliPassing);
  }
  const std::string cases = (folder.path() / "cases").string();
  const auto all = run_casebook("run -j 1 --verbose --evidence '' " + cases);
  EXPECT_EQ(all.status, 1) << all.output;
  EXPECT_TRUE(has_line(all.output, "^1 FAIL|, 1 FAIL|6 PASS, 1 FAIL"))
      << all.output;

  // `-x` is --fail-fast, as in pytest (it was --exclude: `-x a_fails`
  // left that case out and exited 0).
  for (const char* flag : {"--fail-fast", "-x"}) {
    const auto fast = run_casebook(std::string("run -j 1 ") + flag +
                                   " --verbose --evidence '' " + cases);
    EXPECT_EQ(fast.status, 1) << fast.output;
    EXPECT_TRUE(has_line(fast.output, "^FAIL +a_fails +cpu")) << fast.output;
    EXPECT_TRUE(has_line(fast.output,
                         "NOT RUN.*--fail-fast stopped the run at the first "
                         "failure"))
        << fast.output;
    EXPECT_FALSE(has_line(fast.output, "^6 PASS")) << fast.output;
  }
}

TEST(SelectionCli, LastFailedRunsOnlyWhatFailedAndKeepsItsRecordOutside) {
  TempFolder folder;
  const fs::path cases = folder.path() / "cases";
  const fs::path cache = folder.path() / "cache";
  write_file(cases / "fails.yaml", kFailing);
  write_file(cases / "passes.yaml", kSelectionCliPassing);
  const auto first =
      run_with_cache(cache, "run --verbose --evidence '' " + cases.string());
  EXPECT_EQ(first.status, 1) << first.output;
  EXPECT_EQ(read_text(cache / "last-failed"), "cpu fails\n");

  const auto again = run_with_cache(
      cache, "run --last-failed --verbose --evidence '' " + cases.string());
  EXPECT_EQ(again.status, 1) << again.output;
  EXPECT_TRUE(has_line(again.output, "^FAIL +fails +cpu")) << again.output;
  EXPECT_FALSE(has_line(again.output, "^PASS +passes +cpu")) << again.output;

  // Fixed: it passes, leaves the record, and --last-failed runs everything.
  write_file(cases / "fails.yaml", kSelectionCliPassing);
  EXPECT_EQ(
      run_with_cache(cache, "run --last-failed --evidence '' " + cases.string())
          .status,
      0);
  EXPECT_EQ(read_text(cache / "last-failed"), "");
  const auto everything = run_with_cache(
      cache, "run --last-failed --verbose --evidence '' " + cases.string());
  EXPECT_EQ(everything.status, 0) << everything.output;
  EXPECT_TRUE(has_line(everything.output,
                       "--last-failed: no run among those "
                       "selected failed when last run"))
      << everything.output;
  EXPECT_TRUE(has_line(everything.output, "^PASS +passes +cpu"))
      << everything.output;
  // Nothing was written beside the cases.
  EXPECT_FALSE(fs::exists(cases / "last-failed"));
  EXPECT_FALSE(fs::exists(cases / "casebook-cache"));
}

// Without $CASEBOOK_CACHE_DIR the record lives beside the cases, in the
// repository that holds them (as .pytest_cache), and --last-failed names it:
// it was kept in the executable's build tree, so one project's failures
// were rerun in another's folder.
TEST(SelectionCli, LastFailedKeepsItsRecordInTheCasesRepository) {
  TempFolder folder;
  const fs::path repo = folder.path() / "repo";
  fs::create_directories(repo / ".git");
  write_file(repo / "cases" / "fails.yaml", kFailing);
  write_file(repo / "cases" / "passes.yaml", kSelectionCliPassing);
  const std::string in_repo = "cd '" + repo.string() +
                              "' && env -u "
                              "CASEBOOK_CACHE_DIR '" CASEBOOK_EXECUTABLE "' ";
  const auto first = run_shell(in_repo + "run --evidence '' cases");
  EXPECT_EQ(first.status, 1) << first.output;
  EXPECT_EQ(read_text(repo / ".casebook_cache" / "last-failed"), "cpu fails\n");
  const auto again =
      run_shell(in_repo + "run --last-failed --verbose --evidence '' cases");
  EXPECT_TRUE(has_line(again.output,
                       "--last-failed: 1 runs that failed when last run "
                       "\\(\\.casebook_cache/last-failed\\)"))
      << again.output;
  EXPECT_FALSE(has_line(again.output, "^PASS +passes")) << again.output;
  // Another project (no record of its own) runs everything.
  const fs::path other = folder.path() / "other";
  fs::create_directories(other / ".git");
  write_file(other / "cases" / "fails.yaml", kFailing);
  const auto elsewhere = run_shell(
      "cd '" + other.string() + "' && env -u CASEBOOK_CACHE_DIR '" +
      CASEBOOK_EXECUTABLE + "' run --last-failed --evidence '' cases");
  EXPECT_TRUE(has_line(elsewhere.output, "no run among those selected"))
      << elsewhere.output;
}

// A rerun line names the executable as a person types it: `casebook` when
// that is the one on $PATH, else a path relative to where the run started
// (it carried the CI machine's absolute path).
TEST(SelectionCli, RerunLinesNameTheExecutableAsItIsTyped) {
  TempFolder folder;
  write_file(folder.path() / "cases" / "fails.yaml", kFailing);
  const fs::path bin = fs::path(CASEBOOK_EXECUTABLE).parent_path();
  const auto on_path =
      run_shell("cd '" + folder.path().string() + "' && PATH='" + bin.string() +
                "':\"$PATH\" casebook run --evidence '' cases");
  EXPECT_TRUE(has_line(on_path.output, "^ +rerun: casebook run cases/fails"))
      << on_path.output;
  const fs::path below = fs::path(CASEBOOK_EXECUTABLE)
                             .lexically_proximate(folder.path().parent_path());
  const auto relative = run_shell(
      "cd '" + folder.path().parent_path().string() +
      "' && env PATH=/usr/bin:/bin '" + CASEBOOK_EXECUTABLE +
      "' run --evidence '' " + (folder.path().filename() / "cases").string());
  if (*below.begin() != "..") {
    EXPECT_TRUE(has_line(relative.output, "^ +rerun: " + below.string()))
        << relative.output;
  } else {
    EXPECT_TRUE(has_line(relative.output, "^ +rerun: " CASEBOOK_EXECUTABLE))
        << relative.output;
  }
}

// A large run prints its failures and counts, not a row per passing case
// (10,087 lines at 10,000 cases); --table lists every case; --durations N
// lists the N slowest runs.
TEST(SelectionCli, ALargeRunListsItsFailuresNotEveryPassingCase) {
  TempFolder folder;
  const fs::path cases = folder.path() / "cases";
  write_file(cases / "fails.yaml", kFailing);
  for (int i = 0; i < 105; ++i) {
    write_file(cases / ("passes_" + std::to_string(i) + ".yaml"),
               kSelectionCliPassing);
  }
  const std::string run = "run --evidence '' " + cases.string();
  const auto compact = run_casebook(run);
  EXPECT_EQ(compact.status, 1) << compact.output;
  EXPECT_TRUE(has_line(compact.output, "^fails +FAIL")) << compact.output;
  EXPECT_FALSE(has_line(compact.output, "^passes_7 +PASS")) << compact.output;
  EXPECT_TRUE(has_line(compact.output,
                       "^\\(105 more cases, none failed: --table lists "
                       "every case\\)$"))
      << compact.output;
  const auto table = run_casebook(run + " --table --durations 3");
  EXPECT_TRUE(has_line(table.output, "^passes_7 +PASS")) << table.output;
  EXPECT_TRUE(has_line(table.output, "^slowest 3 runs:$")) << table.output;
  EXPECT_TRUE(has_line(table.output, "^ +[0-9]+\\.[0-9]{3}s  \\S+  cpu$"))
      << table.output;
}

}  // namespace
}  // namespace casebook
