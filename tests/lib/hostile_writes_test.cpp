// Issue 49: a merge request cannot write outside the repository. For each
// command that writes, a link is planted at a path the command touches (the
// evidence folder, the target file, its lock, the fixtures' expected/ folder,
// the bundle's report); the file outside keeps its bytes, nothing is made
// outside, and the command says what it refused. Every command runs the
// real executable in a scratch repository.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "run_command.h"
#include "tensors/fixtures.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;
using testing_support::CommandResult;
using testing_support::read_text;
using testing_support::run_shell;
using testing_support::TempFolder;
using testing_support::write_file;

// A case that fails with a mismatch (evidence is written for it), and one
// whose output is larger than `show` writes inline (a fixture).
const char kMismatch[] =
    "casebook: 1\nsummary: s\nop: torch.neg\nbackends: [cpu]\n"
    "inputs:\n  input: {dtype: float32, values: [1, 2]}\n"
    "outputs:\n  0: {dtype: float32, values: [-1.0, -3.0]}\n";
const char kLarge[] =
    "casebook: 1\nsummary: s\nop: torch.neg\nbackends: [cpu]\n"
    "inputs:\n  input: {dtype: float32, shape: [100], fill: {arange: {start: "
    "0, step: 1}}}\n";

class PlantedLinks : public testing::Test {
 protected:
  void SetUp() override {
    repo_ = scratch_.path() / "repo";
    outside_ = scratch_.path() / "outside";
    victim_ = outside_ / "victim.txt";
    write_file(victim_, "untouched");
    write_file(repo_ / "cases" / "neg" / "mismatch.yaml", kMismatch);
    write_file(repo_ / "cases" / "neg" / "large.yaml", kLarge);
    fs::create_directories(repo_ / "fixtures");
  }
  CommandResult casebook(const std::string& arguments) const {
    return run_shell("cd '" + repo_.string() + "' && '" + CASEBOOK_EXECUTABLE +
                     "' " + arguments);
  }
  // Nothing outside but the victim, with its bytes.
  void expect_outside_untouched(const CommandResult& result) const {
    EXPECT_EQ(read_text(victim_), "untouched") << result.output;
    size_t entries = 0;
    for (const auto& entry : fs::recursive_directory_iterator(outside_)) {
      ++entries;
      EXPECT_EQ(entry.path(), victim_) << result.output;
    }
    EXPECT_EQ(entries, 1u) << result.output;
  }

  TempFolder scratch_;
  fs::path repo_;
  fs::path outside_;
  fs::path victim_;
};

TEST_F(PlantedLinks, ALinkedEvidenceFolderReceivesNothing) {
  fs::create_directory_symlink(outside_, repo_ / "casebook-evidence");
  const CommandResult run = casebook("run cases --backend cpu");
  EXPECT_EQ(run.status, 1) << run.output;
  EXPECT_NE(run.output.find("casebook-evidence: a link"), std::string::npos)
      << run.output;
  expect_outside_untouched(run);
}

TEST_F(PlantedLinks, ALinkedSummaryOrReportIsReplacedNotWrittenThrough) {
  fs::create_symlink(victim_, repo_ / "summary.md");
  fs::create_symlink(victim_, repo_ / "report.md");
  const CommandResult run =
      casebook("run cases --backend cpu --evidence '' --summary summary.md");
  EXPECT_EQ(run.status, 1) << run.output;
  EXPECT_FALSE(fs::is_symlink(repo_ / "summary.md"));
  EXPECT_NE(read_text(repo_ / "summary.md").find("## casebook"),
            std::string::npos);
  const CommandResult report =
      casebook("report cases/neg/mismatch.yaml --backend cpu -o report.md");
  EXPECT_FALSE(fs::is_symlink(repo_ / "report.md")) << report.output;
  expect_outside_untouched(report);
}

TEST_F(PlantedLinks, ADanglingLinkWhereANewFileGoesIsNeverFollowed) {
  fs::create_symlink(outside_ / "new.yaml", repo_ / "cases" / "made.yaml");
  const CommandResult made = casebook("new torch.neg made");
  EXPECT_EQ(made.status, 2) << made.output;
  EXPECT_NE(made.output.find("exists"), std::string::npos) << made.output;
  expect_outside_untouched(made);

  fs::create_directories(repo_ / "bundle");
  fs::create_symlink(outside_ / "report.md", repo_ / "bundle" / "report.md");
  const CommandResult bundle =
      casebook("report cases/neg/mismatch.yaml --backend cpu --bundle bundle");
  EXPECT_EQ(bundle.status, 2) << bundle.output;
  expect_outside_untouched(bundle);
}

TEST_F(PlantedLinks, ANameCannotLeaveCases) {
  const std::string absolute = (outside_ / "absolute").string();
  for (const std::string& name :
       {std::string("../../outside/escaped"), absolute,
        std::string("'bad\nPASS forged'")}) {
    const CommandResult made = casebook("new torch.neg " + name);
    EXPECT_EQ(made.status, 2) << made.output;
    expect_outside_untouched(made);
  }
}

TEST_F(PlantedLinks, ShowWritesThroughNeitherALockNorALinkedFixturesFolder) {
  fs::create_symlink(victim_, repo_ / "cases" / "neg" / "large.yaml.lock");
  const CommandResult locked =
      casebook("show cases/neg/large.yaml --write-expected");
  EXPECT_NE(locked.status, 0) << locked.output;
  EXPECT_NE(locked.output.find("large.yaml.lock: exists"), std::string::npos)
      << locked.output;
  expect_outside_untouched(locked);
  fs::remove(repo_ / "cases" / "neg" / "large.yaml.lock");

  fs::create_directory_symlink(outside_, repo_ / "fixtures" / "expected");
  const CommandResult linked =
      casebook("show cases/neg/large.yaml --write-expected");
  EXPECT_NE(linked.status, 0) << linked.output;
  EXPECT_NE(linked.output.find("a link"), std::string::npos) << linked.output;
  expect_outside_untouched(linked);
  EXPECT_EQ(read_text(repo_ / "cases" / "neg" / "large.yaml"), kLarge);
}

TEST_F(PlantedLinks, NeighborsWriteNoFileThroughADanglingLink) {
  write_file(repo_ / "cases" / "labels.yaml",
             "casebook: 1\nsummary: s\nop: torch.cross_entropy\n"
             "backends: [cpu]\ninputs:\n"
             "  input: {dtype: float32, shape: [2, 3], fill: {normal: {mean: "
             "0, std: 1}}}\n"
             "  target: {dtype: int64, values: [0, 2]}\n"
             "neighbors: [label_limits]\n");
  // The files it writes, learnt by writing them once elsewhere; then a
  // dangling link planted at each.
  const CommandResult probe =
      casebook("neighbors cases/labels.yaml --write probe");
  size_t planted = 0;
  fs::create_directories(repo_ / "out");
  for (const auto& entry : fs::directory_iterator(repo_ / "probe")) {
    const fs::path name = entry.path().filename();
    fs::create_symlink(outside_ / name, repo_ / "out" / name);
    ++planted;
  }
  ASSERT_GT(planted, 0u) << probe.output;
  const CommandResult written =
      casebook("neighbors cases/labels.yaml --write out");
  EXPECT_EQ(written.output.find("wrote "), std::string::npos) << written.output;
  expect_outside_untouched(written);
}

TEST_F(PlantedLinks, AFullDiskOrAFullStdoutIsExitTwo) {
  const CommandResult summary = casebook(
      "run cases/neg/mismatch.yaml --backend cpu --evidence '' --summary "
      "/dev/full");
  EXPECT_EQ(summary.status, 2) << summary.output;
  EXPECT_NE(summary.output.find("not written: --summary"), std::string::npos)
      << summary.output;
  const CommandResult junit = casebook(
      "run cases/neg/mismatch.yaml --backend cpu --evidence '' --junit "
      "/dev/full");
  EXPECT_EQ(junit.status, 2) << junit.output;
  // Standard output alone to the full device; its error to the pipe.
  const CommandResult stdout_full =
      run_shell("{ cd '" + repo_.string() + "' && '" + CASEBOOK_EXECUTABLE +
                "' run cases/neg/mismatch.yaml --backend cpu --evidence '' "
                ">/dev/full; }");
  EXPECT_EQ(stdout_full.status, 2) << stdout_full.output;
  EXPECT_NE(stdout_full.output.find("standard output"), std::string::npos)
      << stdout_full.output;
}

// Expected outputs of two cases of one file name in different folders are
// two fixtures (the second used to overwrite the first, which then failed
// its sha256), and a case that would not load with `outputs` added is left
// as it was (a document end `...`).
TEST_F(PlantedLinks, ShowWritesDistinctFixturesAndNoFileThatWouldNotLoad) {
  write_file(repo_ / "cases" / "a" / "large.yaml", kLarge);
  write_file(repo_ / "cases" / "b" / "large.yaml", kLarge);
  for (const char* folder : {"a", "b"}) {
    const CommandResult written = casebook(std::string("show cases/") + folder +
                                           "/large.yaml --write-expected");
    EXPECT_EQ(written.status, 0) << written.output;
    EXPECT_TRUE(fs::exists(repo_ / "fixtures" / "expected" / folder /
                           "large_output0.npy"))
        << written.output;
  }
  const CommandResult both =
      casebook("run cases/a cases/b --backend cpu --evidence ''");
  EXPECT_EQ(both.status, 0) << both.output;
  const std::string ended = std::string(kLarge) + "...\n";
  write_file(repo_ / "cases" / "ended.yaml", ended);
  const CommandResult refused =
      casebook("show cases/ended.yaml --write-expected");
  EXPECT_NE(refused.status, 0) << refused.output;
  EXPECT_EQ(read_text(repo_ / "cases" / "ended.yaml"), ended);
}

// A 238-byte case may ask for gigabytes: the evidence stays within its
// limit (here 1 MiB), the rest is left out, and the failure says so.
TEST_F(PlantedLinks, EvidenceIsBoundedAndSaysWhatItLeftOut) {
  write_file(repo_ / "cases" / "big.yaml",
             "casebook: 1\nsummary: s\nop: torch.sum\nbackends: [cpu]\n"
             "inputs:\n  input: {dtype: float32, shape: [1000000], fill: "
             "{full: 1}}\noutputs:\n  0: {dtype: float32, shape: [], "
             "values: 5}\n");
  const CommandResult run =
      casebook("run cases/big.yaml --backend cpu --evidence ev");
  EXPECT_EQ(run.status, 1) << run.output;
  const CommandResult bounded = run_shell(
      "cd '" + repo_.string() + "' && CASEBOOK_MAX_EVIDENCE_BYTES=1M '" +
      CASEBOOK_EXECUTABLE + "' run cases/big.yaml --backend cpu --evidence ev");
  EXPECT_EQ(bounded.status, 1) << bounded.output;
  EXPECT_NE(bounded.output.find("left out, over the evidence limits"),
            std::string::npos)
      << bounded.output;
  const fs::path folder = repo_ / "ev" / "big.cpu";
  EXPECT_FALSE(fs::exists(folder / "input_input.npy")) << bounded.output;
  EXPECT_TRUE(fs::exists(folder / "seeds.txt")) << bounded.output;
  EXPECT_NE(read_text(folder / "seeds.txt").find("input_input.npy"),
            std::string::npos);
}

// Two cases whose ids differ only where a file name cannot (`a/b`, `a_b`)
// keep their own evidence: the second run no longer deletes the first's.
TEST_F(PlantedLinks, TwoCasesNeverShareAnEvidenceFolder) {
  write_file(repo_ / "cases" / "a" / "b.yaml", kMismatch);
  write_file(repo_ / "cases" / "a_b.yaml", kMismatch);
  const CommandResult run =
      casebook("run cases/a cases/a_b.yaml --backend cpu --evidence ev");
  EXPECT_EQ(run.status, 1) << run.output;
  EXPECT_TRUE(fs::exists(repo_ / "ev" / "a%2Fb.cpu" / "seeds.txt"))
      << run.output;
  EXPECT_TRUE(fs::exists(repo_ / "ev" / "a_b.cpu" / "seeds.txt")) << run.output;
}

// capture writes neither through a linked op folder nor through a planted
// lock of the case it writes.
TEST_F(PlantedLinks, CaptureWritesThroughNeitherALinkedFolderNorALock) {
  write_npy(repo_ / "x.npy", at::ones({3}));
  const std::string capture =
      "capture --op torch.neg --tensor input=x.npy --no-run --cases cases "
      "--name ";
  fs::rename(repo_ / "cases" / "neg", repo_ / "neg_kept");
  fs::create_directory_symlink(outside_, repo_ / "cases" / "neg");
  const CommandResult linked = casebook(capture + "one");
  EXPECT_NE(linked.status, 0) << linked.output;
  EXPECT_NE(linked.output.find("a link"), std::string::npos) << linked.output;
  expect_outside_untouched(linked);
  fs::remove(repo_ / "cases" / "neg");
  fs::create_directories(repo_ / "cases" / "neg");
  fs::create_symlink(victim_, repo_ / "cases" / "neg" / "two.yaml.lock");
  const CommandResult locked = casebook(capture + "two");
  EXPECT_EQ(locked.status, 2) << locked.output;
  EXPECT_NE(locked.output.find("two.yaml.lock: exists"), std::string::npos)
      << locked.output;
  expect_outside_untouched(locked);
}

}  // namespace
}  // namespace casebook
