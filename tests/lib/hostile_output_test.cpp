// Output that cannot lie and faults that lose nothing (issue: hostile
// input). A case file's name and a fixture's header are the merge request's:
// a newline or escape sequence in them must not forge a verdict line or
// reach the terminal raw, a byte that is not UTF-8 must not make the JUnit
// file unparseable, and a 50 MB header must not become 50 MB of output. Two
// runs writing the same --junit path never corrupt it, and a write that fails
// (a full disk, here a file-size limit) leaves the run going and is reported
// after the table.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "hostile_files.h"
#include "run_command.h"
#include "runner/junit.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;
using testing_support::casebook_in;
using testing_support::CommandResult;
using testing_support::has_line;
using testing_support::read_text;
using testing_support::run_shell;
using testing_support::TempFolder;
using testing_support::write_file;

const char kPassing[] =
    "casebook: 1\nsummary: s\nop: torch.neg\n"
    "inputs:\n  input: {dtype: float32, values: [1, 2]}\n"
    "outputs:\n  0: {dtype: float32, values: [-1.0, -2.0]}\n";

bool valid_xml(const fs::path& file, std::string* why) {
  const CommandResult lint =
      run_shell("xmllint --noout '" + file.string() + "'");
  *why = lint.output;
  return lint.status == 0;
}

// Every byte the runner printed is printable: no escape, no carriage return,
// no byte that is not UTF-8 (the names are escaped as \x1b, \xff).
void expect_printable(const std::string& output) {
  for (const char c : output) {
    const auto byte = static_cast<unsigned char>(c);
    ASSERT_FALSE(byte < 0x20 && c != '\n' && c != '\t')
        << "raw control byte " << static_cast<int>(byte) << " in:\n"
        << output;
  }
  EXPECT_EQ(output.find('\xff'), std::string::npos);
}

TEST(HostileOutput, AFileNameCannotForgeAVerdictLineOrReachTheTerminalRaw) {
  TempFolder folder;
  fs::create_directories(folder.path() / "cases");
  write_file(folder.path() / "cases" / "evil\nPASS    forged  cpu\x1b[2J.yaml",
             std::string(kPassing).replace(std::string(kPassing).find("-2.0"),
                                           4, "-3.0"));
  write_file(folder.path() / "cases" / "bad\xff\xfe.yaml", kPassing);
  write_file(folder.path() / "cases" / "-dash.yaml", kPassing);
  const fs::path junit = folder.path() / "out.xml";
  const CommandResult run = casebook_in(
      folder.path(),
      "run --verbose --backend cpu --evidence '' --junit " + junit.string());
  EXPECT_EQ(run.status, 1) << run.output;
  expect_printable(run.output);
  EXPECT_FALSE(has_line(run.output, "^PASS +forged")) << run.output;
  EXPECT_TRUE(has_line(run.output,
                       "^FAIL +evil\\\\nPASS    forged  cpu\\\\x1b\\[2J +cpu"))
      << run.output;
  EXPECT_TRUE(has_line(run.output, "^PASS +bad\\\\xff\\\\xfe +cpu$"))
      << run.output;
  // The rerun line, pasted into bash, reruns that file.
  const std::string marker = "rerun: ";
  const size_t at = run.output.find(marker);
  ASSERT_NE(at, std::string::npos) << run.output;
  const std::string line = run.output.substr(
      at + marker.size(), run.output.find('\n', at) - at - marker.size());
  setenv("CASEBOOK_TEST_COMMAND", (line + " --evidence ''").c_str(), 1);
  const CommandResult again =
      run_shell("cd '" + folder.path().string() +
                "' && bash -c \"$CASEBOOK_TEST_COMMAND\"");
  unsetenv("CASEBOOK_TEST_COMMAND");
  EXPECT_TRUE(has_line(again.output, "^1 FAIL \\(1 runs\\)$")) << line << "\n"
                                                               << again.output;
  // A name starting with `-` is run, not taken for an option.
  const CommandResult dash = casebook_in(
      folder.path(), "run ./-dash.yaml --backend cpu --evidence ''");
  std::string why;
  EXPECT_TRUE(valid_xml(junit, &why)) << why;
  EXPECT_NE(read_text(junit).find("classname=\"bad\\xff\\xfe\""),
            std::string::npos);
}

// A header that quotes `filler` bytes in an unexpected key.
std::string npy_with_header_of(size_t filler) {
  return testing_support::npy_bytes(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': '" +
      std::string(filler, 'A') + "'}");
}

// A 50 MB header is refused by its size before it is copied; a 60 KB one,
// under that limit, is quoted in the refusal only in part.
TEST(HostileOutput, AFiftyMegabyteHeaderDoesNotBecomeFiftyMegabytesOfOutput) {
  TempFolder folder;
  fs::create_directories(folder.path() / "fixtures");
  write_file(folder.path() / "fixtures" / "huge.npy",
             npy_with_header_of(50 << 20));
  write_file(folder.path() / "fixtures" / "long.npy",
             npy_with_header_of(60 << 10));
  for (const char* name : {"huge", "long"}) {
    write_file(folder.path() / (std::string(name) + ".yaml"),
               "casebook: 1\nsummary: s\nop: torch.neg\ninputs:\n"
               "  input: {dtype: float32, shape: [2], file: " +
                   std::string(name) + ".npy}\n");
  }
  const fs::path junit = folder.path() / "out.xml";
  const CommandResult run =
      casebook_in(folder.path(),
                  "run huge.yaml long.yaml --backend cpu --evidence '' "
                  "--junit " +
                      junit.string());
  EXPECT_EQ(run.status, 1);
  EXPECT_LT(run.output.size(), 16u * 1024) << run.output.substr(0, 2000);
  EXPECT_TRUE(has_line(run.output,
                       "huge\\.npy: \\.npy header of 52428[0-9]+ "
                       "bytes is over the limit of 65536"))
      << run.output.substr(0, 2000);
  EXPECT_TRUE(has_line(run.output,
                       "unexpected key 'x' \\(header: \\{'descr'"
                       ".*\\.\\.\\. \\([0-9]+ more bytes\\)\\)"))
      << run.output.substr(0, 2000);
  EXPECT_LT(fs::file_size(junit), 16u * 1024);
}

CaseVerdict verdict_named(const std::string& id) {
  CaseVerdict verdict;
  verdict.case_id = id;
  verdict.verdict = Verdict::kPass;
  verdict.file = "cases/" + id + ".yaml";
  verdict.rerun_command = "casebook run cases/" + id + ".yaml";
  return verdict;
}

// Two runs given the same path, interleaved: the file on disk is a whole
// document at every step, and at the end it is the last finisher's, whole.
TEST(JunitFaults, TwoRunsWritingOnePathNeverCorruptIt) {
  TempFolder folder;
  const fs::path file = folder.path() / "same.xml";
  std::string why;
  {
    JunitWriter first(file, {{"run", "first"}});
    JunitWriter second(file, {{"run", "second"}});
    for (int i = 0; i < 5; ++i) {
      first.add(verdict_named("first/" + std::to_string(i)));
      ASSERT_TRUE(valid_xml(file, &why)) << why;
      second.add(verdict_named("second/" + std::to_string(i)));
      ASSERT_TRUE(valid_xml(file, &why)) << why;
    }
    first.add(verdict_named("first/last"));
    second.finish();
    first.finish();
    EXPECT_TRUE(first.write_error().empty()) << first.write_error();
  }
  ASSERT_TRUE(valid_xml(file, &why)) << why;
  const std::string xml = read_text(file);
  EXPECT_NE(xml.find("tests=\"6\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("classname=\"first/last\""), std::string::npos) << xml;
  EXPECT_EQ(xml.find("second/"), std::string::npos) << xml;
  // Nothing is left beside it: no temporary file.
  size_t files = 0;
  for ([[maybe_unused]] const auto& item :
       fs::directory_iterator(folder.path())) {
    ++files;
  }
  EXPECT_EQ(files, 1u);
}

// A full disk, made by a file-size limit on the runner (SIGXFSZ ignored, so
// a write past it fails with EFBIG as a write to a full disk fails with
// ENOSPC): every case still runs, the table and counts are printed, the
// failure is said after them, and the exit status is not 0.
TEST(JunitFaults, AFullDiskUnderJunitKeepsTheRunGoingAndSaysSoAtTheEnd) {
  TempFolder folder;
  fs::create_directories(folder.path() / "cases");
  for (int i = 0; i < 30; ++i) {
    write_file(folder.path() / "cases" / ("case" + std::to_string(i) + ".yaml"),
               kPassing);
  }
  const fs::path junit = folder.path() / "out.xml";
  const fs::path out = folder.path() / "stdout.txt";
  const fs::path err = folder.path() / "stderr.txt";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    signal(SIGXFSZ, SIG_IGN);
    // Room for the head and a few test cases, not for thirty.
    const rlimit limit{3000, 3000};
    setrlimit(RLIMIT_FSIZE, &limit);
    if (chdir(folder.path().c_str()) != 0) _exit(126);
    if (!freopen(out.c_str(), "w", stdout) ||
        !freopen(err.c_str(), "w", stderr)) {
      _exit(126);
    }
    execl(CASEBOOK_EXECUTABLE, "casebook", "run", "--backend", "cpu",
          "--evidence", "", "--junit", junit.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  const std::string printed = read_text(out);
  const std::string errors = read_text(err);
  EXPECT_EQ(WEXITSTATUS(status), 2) << printed << errors;
  EXPECT_TRUE(has_line(printed, "^30 PASS \\(30 runs\\)$")) << printed;
  EXPECT_TRUE(has_line(errors,
                       "^casebook: not written: --junit: cannot write "
                       ".*out\\.xml: "
                       "File too large, after [0-9]+ of [0-9]+ "
                       "results; the table above holds every result$"))
      << errors;
  // What is on disk is still a whole document of the results it holds.
  std::string why;
  EXPECT_TRUE(valid_xml(junit, &why)) << why;
}

}  // namespace
}  // namespace casebook
