// What a run writes for people and CI: the table sorted by id with absent
// backends said once, the Markdown summary, JUnit written as results arrive
// (valid against tests/data/junit/junit.xsd after every result, and after a
// crash), shards that partition the cases, and `check`.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "casebook/runner.h"
#include "run_command.h"
#include "runner/junit.h"
#include "runner/progress.h"
#include "runner/verdict_table.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;
using testing_support::has_line;
using testing_support::run_casebook;
using testing_support::run_shell;
using testing_support::TempFolder;

CaseVerdict make_verdict(const std::string& id, Backend backend,
                         Verdict verdict, Family family = Family::kNone,
                         const std::string& message = "") {
  CaseVerdict v;
  v.case_id = id;
  v.backend = backend;
  v.verdict = verdict;
  v.family = family;
  v.message = message;
  v.file = "cases/" + id + ".yaml";
  v.rerun_command = "casebook run " + v.file.string() + " --backend " +
                    std::string(backend_name(backend));
  v.seconds = 0.00001;  // fixed notation in JUnit, never 1e-05
  return v;
}

// Verdicts in the order runs might finish: not by id.
RunSummary scrambled_summary() {
  RunSummary summary;
  summary.verdicts.push_back(make_verdict("b/second", Backend::kCpu,
                                          Verdict::kFail, Family::kMismatch,
                                          "mismatched elements: 1 / 4"));
  CaseVerdict absent = make_verdict("b/second", Backend::kCuda, Verdict::kSkip,
                                    Family::kNone, "no CUDA device: none");
  absent.backend_absent = true;
  summary.verdicts.push_back(absent);
  summary.verdicts.push_back(
      make_verdict("a/first", Backend::kCpu, Verdict::kPass));
  absent.case_id = "a/first";
  summary.verdicts.push_back(absent);
  summary.verdicts.push_back(make_verdict("c/third <&>", Backend::kCpu,
                                          Verdict::kError, Family::kInvalidCase,
                                          "bad `key`"));
  return summary;
}

std::string read_file(const fs::path& file) {
  std::ifstream in(file);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// xmllint against the JUnit layout Jenkins and GitLab read.
void expect_valid_junit(const fs::path& file) {
  const auto result =
      run_shell("xmllint --noout --schema '" + std::string(CASEBOOK_TEST_DATA) +
                "/junit/junit.xsd' '" + file.string() + "'");
  EXPECT_EQ(result.status, 0) << "xmllint (libxml2-utils, installed by "
                                 "ci/install-deps.sh): "
                              << result.output << "\n"
                              << read_file(file);
}

TEST(VerdictTable, RowsSortedByIdAbsentBackendsOnceFailuresWithRerunFirst) {
  std::ostringstream out;
  TableStyle style;
  print_verdict_table(out, scrambled_summary(), style);
  const std::string text = out.str();
  EXPECT_TRUE(has_line(text, "^cuda absent: 2 runs skipped$")) << text;
  EXPECT_TRUE(has_line(text, "^case +cpu$")) << text;  // no cuda column
  const size_t first = text.find("\na/first ");
  const size_t second = text.find("\nb/second ");
  const size_t third = text.find("\nc/third <&> ");
  ASSERT_NE(first, std::string::npos) << text;
  EXPECT_LT(first, second);
  EXPECT_LT(second, third);
  EXPECT_TRUE(has_line(text, "^b/second +FAIL mismatch$")) << text;
  EXPECT_TRUE(has_line(text,
                       "^FAIL  b/second  cpu\n +rerun: casebook run "
                       "cases/b/second.yaml --backend cpu\n +mismatch: "
                       "mismatched elements"))
      << text;
  // The runs that happened, then the absent backend's skips apart.
  EXPECT_TRUE(has_line(
      text, "^1 PASS, 1 FAIL, 1 ERROR \\(3 runs; 2 skipped: cuda absent\\)$"))
      << text;
  EXPECT_EQ(text.find("\033["), std::string::npos) << "colour off";
}

TEST(VerdictTable, VerboseShowsTheAbsentColumnQuietOnlyFailuresAndCounts) {
  std::ostringstream verbose;
  TableStyle style;
  style.every_run = true;
  print_verdict_table(verbose, scrambled_summary(), style);
  EXPECT_TRUE(has_line(verbose.str(), "^case +cpu +cuda$")) << verbose.str();

  std::ostringstream quiet;
  style = TableStyle{};
  style.quiet = true;
  print_verdict_table(quiet, scrambled_summary(), style);
  EXPECT_FALSE(has_line(quiet.str(), "^a/first")) << quiet.str();
  EXPECT_TRUE(has_line(quiet.str(),
                       "^cuda absent: 2 runs skipped \\(no CUDA "
                       "device: none\\)$"))
      << quiet.str();
  EXPECT_TRUE(has_line(quiet.str(), "^FAIL  b/second  cpu$")) << quiet.str();
}

TEST(VerdictTable, ColourOnlyOnATerminalAndNeverWithNoColor) {
  // The test's output is not a terminal (ctest captures it)...
  const int fd = open("/dev/null", O_WRONLY);
  EXPECT_FALSE(colour_wanted(fd));
  close(fd);
  std::ostringstream out;
  TableStyle style;
  style.colour = true;
  print_verdict_table(out, scrambled_summary(), style);
  EXPECT_NE(out.str().find("\033[1;31mFAIL mismatch\033[0m"),
            std::string::npos);
  // ...and NO_COLOR wins over a terminal.
  setenv("NO_COLOR", "1", 1);
  EXPECT_FALSE(colour_wanted(STDOUT_FILENO));
  unsetenv("NO_COLOR");
}

TEST(Progress, ATerminalGetsOneStatusLineOtherwisePlainFailureLines) {
  const RunSummary summary = scrambled_summary();
  std::ostringstream terminal;
  {
    Progress progress(terminal, true, false, summary.verdicts.size());
    progress.case_started("b/second");
    progress.case_started("a/first");
    progress.verdict_landed(summary.verdicts[2]);  // a/first PASS
    EXPECT_NE(terminal.str().find("\r\033[K[1/5] 0 failed, "),
              std::string::npos);
    EXPECT_NE(terminal.str().find("running b/second ("), std::string::npos)
        << terminal.str();
    progress.verdict_landed(summary.verdicts[0]);  // b/second FAIL
    progress.finish();
  }
  EXPECT_TRUE(has_line(terminal.str(), "FAIL  b/second  cpu$"))
      << terminal.str();
  EXPECT_NE(terminal.str().find("[2/5] 1 failed"), std::string::npos);

  std::ostringstream plain;
  Progress progress(plain, false, false, summary.verdicts.size());
  for (const CaseVerdict& verdict : summary.verdicts) {
    progress.verdict_landed(verdict);
  }
  progress.finish();
  EXPECT_EQ(plain.str().find('\r'), std::string::npos);
  EXPECT_TRUE(has_line(plain.str(),
                       "^FAIL  b/second  cpu  mismatched "
                       "elements: 1 / 4$"))
      << plain.str();
  EXPECT_FALSE(has_line(plain.str(), "a/first")) << "passes stay quiet";
}

TEST(MarkdownSummary, TableOfCasesAndBackendsAndEachFailureWithItsRerun) {
  TempFolder folder;
  const fs::path file = folder.path() / "summary.md";
  write_markdown_summary(file, scrambled_summary(), "casebook 0.1.0");
  const std::string md = read_file(file);
  EXPECT_TRUE(has_line(md, "^## casebook: failed$")) << md;
  EXPECT_TRUE(has_line(md, "^\\| case \\| cpu \\|$")) << md;
  EXPECT_TRUE(has_line(md, "^\\| a/first \\| PASS \\|$")) << md;
  EXPECT_TRUE(has_line(md, "^\\| b/second \\| \\*\\*FAIL mismatch\\*\\* \\|$"))
      << md;
  EXPECT_TRUE(has_line(md,
                       "^- \\*\\*cuda\\*\\* absent: no CUDA device: none "
                       "\\(2 runs skipped\\)$"))
      << md;
  EXPECT_TRUE(has_line(md, "^#### b/second on cpu: FAIL mismatch$")) << md;
  EXPECT_TRUE(has_line(md, "^casebook run cases/b/second.yaml --backend cpu$"))
      << md;
  EXPECT_TRUE(has_line(md, "^bad \\\\`key\\\\`$")) << md;  // escaped
  // The failures first, the table of every case after them (issue 47: on
  // 10,000 cases the failures started at line 10,013).
  EXPECT_LT(md.find("### Failures"), md.find("| case |")) << md;
  EXPECT_THROW(write_markdown_summary(folder.path() / "no/such/dir.md",
                                      scrambled_summary(), ""),
               std::runtime_error);
}

// A CPU lane's JUnit says once which backends were absent, and lists no
// test case for their runs (two skipped ones per case before).
TEST(Junit, AbsentBackendsAreOnePropertyNotTestCases) {
  TempFolder folder;
  const fs::path file = folder.path() / "junit.xml";
  write_junit(file, scrambled_summary(),
              {{"cuda", "absent: no CUDA device: none"},
               {"hip", "absent: no HIP runtime"}});
  const std::string xml = read_file(file);
  EXPECT_NE(xml.find("<property name=\"casebook.absent_backends\" "
                     "value=\"cuda, hip\"/>"),
            std::string::npos)
      << xml;
  EXPECT_EQ(xml.find("<skipped"), std::string::npos) << xml;
  expect_valid_junit(file);
}

TEST(Junit, ValidAfterEveryResultAndNotRunIsAnError) {
  TempFolder folder;
  const fs::path file = folder.path() / "junit.xml";
  JunitWriter writer(file, {{"libtorch", "1.13 <cpu>"}});
  expect_valid_junit(file);
  RunSummary summary = scrambled_summary();
  summary.verdicts.push_back(make_verdict("d/late", Backend::kCpu,
                                          Verdict::kNotRun, Family::kNone,
                                          "not run: interrupted by signal 2"));
  for (const CaseVerdict& verdict : summary.verdicts) {
    writer.add(verdict);
    expect_valid_junit(file);
  }
  const std::string xml = read_file(file);
  // The absent backend's two runs are no test cases (issue 47).
  EXPECT_NE(xml.find("tests=\"4\" failures=\"1\" errors=\"2\" skipped=\"0\""),
            std::string::npos)
      << xml;
  EXPECT_EQ(xml.find("name=\"cuda\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<error type=\"NOT RUN\" message=\"NOT RUN: not run: "
                     "interrupted by signal 2\">rerun: casebook run"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("classname=\"c/third &lt;&amp;&gt;\""), std::string::npos);
  EXPECT_NE(xml.find("time=\"0.000010\""), std::string::npos) << xml;
}

TEST(Junit, ACrashOfTheWriterLosesNoFinishedResult) {
  TempFolder folder;
  const fs::path file = folder.path() / "junit.xml";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    JunitWriter writer(file, {});
    const RunSummary summary = scrambled_summary();
    for (size_t i = 0; i < 3; ++i) writer.add(summary.verdicts[i]);
    abort();  // no destructor, no flush, no closing step
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  expect_valid_junit(file);
  const std::string xml = read_file(file);
  // Three added, one of them an absent backend's skip: two test cases.
  EXPECT_NE(xml.find("tests=\"2\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("classname=\"a/first\""), std::string::npos) << xml;
}

TEST(Junit, TheRunnersFileIsValid) {
  TempFolder folder;
  const fs::path junit = folder.path() / "run.xml";
  const auto run = run_casebook(
      "run tests/data/e2e --backend cpu -q "
      "--evidence '' --junit " +
      junit.string());
  EXPECT_EQ(run.status, 1) << run.output;
  expect_valid_junit(junit);
  EXPECT_NE(read_file(junit).find("tests=\"11\""), std::string::npos);
}

TEST(Shards, PartitionTheCasesByIdStably) {
  std::set<std::string> all;
  std::set<std::string> dealt;
  const auto every = run_casebook("list cases --backend cpu");
  ASSERT_EQ(every.status, 0) << every.output;
  std::istringstream lines(every.output);
  for (std::string line; std::getline(lines, line);) {
    all.insert(line.substr(0, line.find("  ")));
  }
  ASSERT_GT(all.size(), 50u);
  for (int shard = 0; shard < 3; ++shard) {
    const auto part = run_casebook("list cases --backend cpu --shard " +
                                   std::to_string(shard) + "/3");
    ASSERT_EQ(part.status, 0) << part.output;
    std::istringstream part_lines(part.output);
    size_t count = 0;
    for (std::string line; std::getline(part_lines, line); ++count) {
      const std::string id = line.substr(0, line.find("  "));
      EXPECT_TRUE(dealt.insert(id).second) << id << " on two shards";
      EXPECT_TRUE(in_shard(id, shard, 3));
    }
    EXPECT_GT(count, all.size() / 6) << "a shard far from a third";
  }
  EXPECT_EQ(dealt, all);
  EXPECT_EQ(run_casebook("list cases --shard 3/3").status, 2);
  EXPECT_EQ(run_casebook("list cases --shard x").status, 2);
}

TEST(Shards, GtestModeTakesGoogleTestsShardingVariables) {
  TempFolder folder;
  const fs::path status_file = folder.path() / "shard-status";
  size_t passed = 0;
  for (int shard = 0; shard < 2; ++shard) {
    const auto run = run_shell(
        "cd '" + std::string(CASEBOOK_SOURCE_DIR) +
        "' && GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=" + std::to_string(shard) +
        " GTEST_SHARD_STATUS_FILE='" + status_file.string() + "' '" +
        CASEBOOK_EXECUTABLE + "' test cases/validate --backend cpu");
    EXPECT_EQ(run.status, 0) << run.output;
    std::istringstream lines(run.output);
    for (std::string line; std::getline(lines, line);) {
      passed += line.rfind("[       OK ]", 0) == 0 ? 1 : 0;
    }
  }
  // Every validate case, each on one shard.
  size_t cases = 0;
  for (const auto& entry : fs::directory_iterator(
           fs::path(CASEBOOK_SOURCE_DIR) / "cases" / "validate")) {
    cases += entry.path().extension() == ".yaml" ? 1 : 0;
  }
  EXPECT_GT(cases, 2u);
  EXPECT_EQ(passed, cases);
  EXPECT_TRUE(fs::exists(status_file));
}

TEST(Shards, MergeResultsJoinsEveryShardsJunitAndSummary) {
  TempFolder folder;
  for (int shard = 0; shard < 2; ++shard) {
    const fs::path dir = folder.path() / ("shard-" + std::to_string(shard));
    fs::create_directories(dir);
    const auto run = run_casebook(
        "run cases/validate cases/cross_entropy --backend cpu -q --shard " +
        std::to_string(shard) + "/2 --junit " + (dir / "cases.xml").string() +
        " --summary " + (dir / "cases.md").string());
    ASSERT_EQ(run.status, 0) << run.output;
  }
  const fs::path merged = folder.path() / "merged";
  const auto merge =
      run_shell(std::string(CASEBOOK_SOURCE_DIR) + "/ci/merge-results.sh " +
                merged.string() + " " + (folder.path() / "shard-0").string() +
                " " + (folder.path() / "shard-1").string());
  ASSERT_EQ(merge.status, 0) << merge.output;
  expect_valid_junit(merged / "cases.xml");
  const std::string xml = read_file(merged / "cases.xml");
  size_t testcases = 0;
  for (size_t at = xml.find("<testcase "); at != std::string::npos;
       at = xml.find("<testcase ", at + 1)) {
    ++testcases;
  }
  // Every case of the two folders, each once.
  const auto every = run_casebook(
      "list cases/validate cases/cross_entropy "
      "--backend cpu");
  const size_t cases = static_cast<size_t>(
      std::count(every.output.begin(), every.output.end(), '\n'));
  EXPECT_EQ(testcases, cases) << xml;
  const std::string md = read_file(merged / "cases.md");
  EXPECT_TRUE(has_line(md, "^## shard-0$")) << md;
  EXPECT_TRUE(has_line(md, "^## shard-1$")) << md;
  // A shard that wrote nothing fails the merge.
  fs::create_directories(folder.path() / "empty");
  EXPECT_EQ(
      run_shell(std::string(CASEBOOK_SOURCE_DIR) + "/ci/merge-results.sh " +
                merged.string() + " " + (folder.path() / "empty").string())
          .status,
      1);
}

// The CI templates of ci/templates/ parse and call only what the installed
// package puts on PATH (casebook, casebook-merge-results), none of
// casebook's own scripts, which a user's repository does not have (issue
// 47: `ci/test.sh: No such file or directory`). tests/ci/templates_test.sh
// runs their steps in such a repository.
TEST(CiTemplates, ParseAndCallNoScriptOfCasebooksOwn) {
  const std::regex script("[A-Za-z0-9_./-]+\\.sh\\b");
  for (const char* name : {"github-actions.yml", "gitlab-ci.yml"}) {
    const fs::path file =
        fs::path(CASEBOOK_SOURCE_DIR) / "ci" / "templates" / name;
    YAML::Node root;
    ASSERT_NO_THROW(root = YAML::LoadFile(file.string())) << file;
    const std::string text = read_file(file);
    std::smatch found;
    EXPECT_FALSE(std::regex_search(text, found, script))
        << name << " calls " << found.str();
    EXPECT_NE(text.find("casebook run \"$CASES\""), std::string::npos) << name;
    EXPECT_NE(text.find("casebook-merge-results merged shards/*"),
              std::string::npos)
        << name;
  }
}

TEST(Check, EveryProblemOfEveryFileAndExitOne) {
  const auto bad = run_casebook("check tests/data/e2e");
  EXPECT_EQ(bad.status, 1) << bad.output;
  EXPECT_TRUE(has_line(bad.output, "^tests/data/e2e/bad_dtype.yaml:5:18: "))
      << bad.output;
  EXPECT_TRUE(has_line(bad.output, "^11 case files checked, 2 invalid$"))
      << bad.output;
  const auto good = run_casebook("check cases");
  EXPECT_EQ(good.status, 0) << good.output;
  EXPECT_EQ(run_casebook("list tests/data/e2e").status, 1);
}

}  // namespace
}  // namespace casebook
