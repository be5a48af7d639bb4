// Issue 49 through the real casebook executable: a folder of cases that
// cannot be listed or resolved fails `check` and `run` (before: 5 readable
// cases, 2 run, `2 PASS`, exit 0), and `run` says how many case files it
// found; a limit variable that does not read stops every command; what a
// command echoes of its arguments and environment is printable.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "hostile_files.h"
#include "run_command.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;
using testing_support::casebook_in;
using testing_support::CommandResult;
using testing_support::has_line;
using testing_support::npy_bytes;
using testing_support::run_shell;
using testing_support::TempFolder;
using testing_support::write_file;

const char kNegCase[] =
    "casebook: 1\nsummary: s\nop: torch.neg\n"
    "inputs:\n  input: {dtype: float32, values: [1, 2]}\n";

// Four readable cases around a folder the walk cannot resolve (a link
// loop: root cannot resolve it either).
TEST(Walk, AFolderThatCannotBeResolvedFailsCheckAndRun) {
  TempFolder folder;
  for (const char* name : {"a/one", "a/two", "z/three", "z/four"}) {
    write_file(folder.path() / "cases" / (std::string(name) + ".yaml"),
               kNegCase);
  }
  fs::create_directory_symlink("loop", folder.path() / "cases/loop");
  const CommandResult check = casebook_in(folder.path(), "check");
  EXPECT_EQ(check.status, 1) << check.output;
  EXPECT_TRUE(has_line(check.output,
                       "^cases/loop: cannot tell what this is \\(Too many "
                       "levels of symbolic links\\): not taken$"))
      << check.output;
  EXPECT_TRUE(has_line(check.output, "^5 case files checked, 1 invalid$"))
      << check.output;
  const CommandResult run =
      casebook_in(folder.path(), "run -q --backend cpu --evidence ''");
  EXPECT_EQ(run.status, 1) << run.output;
  EXPECT_TRUE(has_line(run.output, "^5 case files found$")) << run.output;
  EXPECT_TRUE(has_line(run.output, "^4 PASS, 1 ERROR \\(5 runs\\)$"))
      << run.output;
}

// The issue's own: a sub-folder of mode 000 beside readable cases. Root
// reads it whatever its mode: the command then runs as root without the two
// capabilities that let it (not as nobody, who may not reach a LibTorch
// under a private home folder and would load another one).
TEST(Walk, AFolderThatCannotBeListedFailsCheck) {
  TempFolder folder;
  for (const char* name : {"a/one", "locked/x", "z/three"}) {
    write_file(folder.path() / "cases" / (std::string(name) + ".yaml"),
               kNegCase);
  }
  fs::permissions(folder.path() / "cases/locked", fs::perms::none);
  std::string prefix;
  if (geteuid() == 0) {
    prefix = "setpriv --bounding-set=-dac_override,-dac_read_search ";
    if (run_shell(prefix + "true").status != 0) {
      fs::permissions(folder.path() / "cases/locked", fs::perms::owner_all);
      GTEST_SKIP() << "root, and no setpriv to drop its privileges";
    }
  }
  const CommandResult check = casebook_in(folder.path(), "check", prefix);
  // A file named under it: before, an uncaught filesystem_error (abort).
  const CommandResult named =
      casebook_in(folder.path(), "check cases/locked/x.yaml", prefix);
  fs::permissions(folder.path() / "cases/locked", fs::perms::owner_all);
  EXPECT_EQ(named.status, 1) << named.output;
  EXPECT_TRUE(has_line(named.output,
                       "^cases/locked/x\\.yaml: cannot tell what this is "
                       "\\(Permission denied\\): not taken$"))
      << named.output;
  EXPECT_EQ(check.status, 1) << check.output;
  EXPECT_TRUE(has_line(check.output,
                       "^cases/locked: cannot list this folder \\(Permission "
                       "denied\\): the case files in it are not taken$"))
      << check.output;
  EXPECT_TRUE(has_line(check.output, "^3 case files checked, 1 invalid$"))
      << check.output;
}

// Before: ignored without a word, the default in force.
TEST(LimitVariables, AValueThatDoesNotReadStopsTheCommand) {
  TempFolder folder;
  write_file(folder.path() / "cases/one.yaml", kNegCase);
  const CommandResult check =
      casebook_in(folder.path(), "check", "CASEBOOK_CHILD_MEMORY=2XB ");
  EXPECT_EQ(check.status, 2) << check.output;
  EXPECT_TRUE(has_line(check.output,
                       "^casebook: CASEBOOK_CHILD_MEMORY: expected a whole "
                       "number > 0, alone or with K, M, G or T .*; got `2XB`$"))
      << check.output;
  const CommandResult read =
      casebook_in(folder.path(), "check",
                  "CASEBOOK_CHILD_MEMORY=2GB CASEBOOK_MAX_TENSOR_BYTES=512mb ");
  EXPECT_EQ(read.status, 0) << read.output;
}

// No raw ESC, no raw U+2028 (a line break to Python's splitlines).
void expect_printable(const std::string& output) {
  EXPECT_EQ(output.find('\x1b'), std::string::npos) << output;
  EXPECT_EQ(output.find("\u2028"), std::string::npos) << output;
}

// Before: raw ESC echoed from explain, CASEBOOK_REQUIRE and capture --name.
TEST(Echo, ArgumentsAndVariablesAreEchoedPrintable) {
  TempFolder folder;
  write_file(folder.path() / "cases/one.yaml", kNegCase);
  const CommandResult explain = casebook_in(
      folder.path(), "explain \"$(printf 'x\\033[2J\\342\\200\\250y')\"");
  EXPECT_EQ(explain.status, 2) << explain.output;
  expect_printable(explain.output);
  EXPECT_TRUE(has_line(explain.output,
                       "^casebook explain: unknown family "
                       "`x\\\\x1b\\[2J\\\\u2028y`"))
      << explain.output;
  const CommandResult required =
      casebook_in(folder.path(), "check",
                  "CASEBOOK_REQUIRE=\"$(printf 'cu\\033[31mda')\" ");
  EXPECT_EQ(required.status, 2) << required.output;
  expect_printable(required.output);
  EXPECT_TRUE(has_line(required.output, "got `cu\\\\x1b\\[31mda`"))
      << required.output;
  const CommandResult option =
      casebook_in(folder.path(), "run \"$(printf -- '--x\\033[2J')\"");
  EXPECT_EQ(option.status, 2) << option.output;
  expect_printable(option.output);
  write_file(folder.path() / "x.npy",
             npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': "
                       "(4,), }"));
  const CommandResult name =
      casebook_in(folder.path(),
                  "capture --op torch.neg --tensor input=x.npy --no-run --name "
                  "\"$(printf 'a/\\033[2J')\"");
  EXPECT_EQ(name.status, 2) << name.output;
  expect_printable(name.output);
  EXPECT_TRUE(has_line(name.output, "--name `a/\\\\x1b\\[2J`")) << name.output;
}

}  // namespace
}  // namespace casebook
