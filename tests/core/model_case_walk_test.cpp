// Issue 49: the walk of the folders named loses nothing silently. A folder
// that cannot be listed, and an entry that cannot be resolved (permissions,
// a path over PATH_MAX, a link loop, a link to nothing), is refused by name
// and the walk goes on with everything else. Before, the first folder that
// could not be opened ended the whole walk (its neighbours dropped), and the
// rest were skipped without a word. Real folders in a fresh temporary
// directory; the permission cases drop root's privileges in a child.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <fstream>
#include <sstream>
#include <string>

#include "casebook/loader.h"
#include "remove_tree.h"

namespace casebook {
namespace {
namespace fs = std::filesystem;

using testing_support::remove_tree_at;

// What the walk of `named` finds and refuses: a line per file found
// ("found PATH"), then one per refusal ("refused MESSAGE").
std::string walk_text(const fs::path& named) {
  std::vector<fs::path> missing;
  std::vector<CaseError> refused;
  std::string text;
  for (const fs::path& file : find_case_files({named}, &missing, &refused)) {
    text += "found " + file.string() + "\n";
  }
  for (const CaseError& error : refused) {
    text += "refused " + error.to_string() + "\n";
  }
  return text;
}

class Walk : public testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (fs::temp_directory_path() / "casebook_walk_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    // Readable by the unprivileged child of the permission test.
    fs::permissions(root_, fs::perms::owner_all | fs::perms::group_read |
                               fs::perms::group_exec | fs::perms::others_read |
                               fs::perms::others_exec);
  }
  void TearDown() override { remove_tree_at(AT_FDCWD, root_.c_str()); }
  fs::path write(const std::string& relative) {
    const fs::path path = root_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << "casebook: 1\n";
    return path;
  }
  fs::path root_;
};

TEST_F(Walk, ALinkLoopAndALinkToNothingAreRefusedAndTheRestWalked) {
  write("cases/a.yaml");
  write("cases/z/c.yaml");
  fs::create_directory_symlink("loop", root_ / "cases/loop");
  fs::create_directory_symlink("moved", root_ / "cases/gone");
  const fs::path cases = root_ / "cases";
  EXPECT_EQ(walk_text(cases),
            "found " + (cases / "a.yaml").string() + "\nfound " +
                (cases / "z/c.yaml").string() + "\nrefused " +
                (cases / "gone").string() +
                ": a link to nothing: not taken\nrefused " +
                (cases / "loop").string() +
                ": cannot tell what this is (Too many levels of symbolic "
                "links): not taken\n");
}

// Folders nested past PATH_MAX (4096 bytes): root cannot reach them either.
TEST_F(Walk, AFolderPastPathMaxIsRefusedByNameAndItsNeighboursWalked) {
  write("cases/b.yaml");
  write("cases/z/c.yaml");
  const std::string level(200, 'd');
  int fd = open((root_ / "cases").c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(fd, 0);
  size_t depth = 0;
  for (; (root_ / "cases").native().size() + depth * 201 < 5000; ++depth) {
    ASSERT_EQ(mkdirat(fd, level.c_str(), 0755), 0);
    const int inner = openat(fd, level.c_str(), O_RDONLY | O_DIRECTORY);
    close(fd);
    ASSERT_GE(inner, 0);
    fd = inner;
  }
  close(openat(fd, "deep.yaml", O_CREAT | O_WRONLY, 0644));
  close(fd);
  std::vector<fs::path> missing;
  std::vector<CaseError> refused;
  const std::vector<fs::path> found =
      find_case_files({root_ / "cases"}, &missing, &refused);
  EXPECT_EQ(found, (std::vector<fs::path>{root_ / "cases/b.yaml",
                                          root_ / "cases/z/c.yaml"}));
  ASSERT_EQ(refused.size(), 1u);
  // The first folder whose path is PATH_MAX or more, named.
  const std::string& named = refused[0].where.file.native();
  EXPECT_GE(named.size(), size_t{PATH_MAX});
  EXPECT_LT(named.size(), size_t{PATH_MAX} + 201);
  // Its middle gives way, so that the message says what is wrong.
  const std::string shown = refused[0].to_string();
  EXPECT_EQ(shown.rfind(named.substr(0, 512) + " ... (", 0), 0u) << shown;
  EXPECT_NE(
      shown.find(" bytes left out) ... " + named.substr(named.size() - 512) +
                 ": cannot tell what this is (File name too long: its "
                 "path is " +
                 std::to_string(named.size()) + " bytes): not taken"),
      std::string::npos)
      << shown;
}

// The walk of `named` as an unprivileged user (nobody), in a child: root
// reads every folder whatever its mode. "skip" when it could not drop its
// privileges; "child failed" when the child did not end well.
std::string walk_unprivileged(const fs::path& named) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return "child failed";
  const pid_t child = fork();
  if (child == 0) {
    close(pipe_fds[0]);
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(2);
    const std::string text = walk_text(named);
    const bool written = write(pipe_fds[1], text.data(), text.size()) ==
                         static_cast<ssize_t>(text.size());
    _exit(written ? 0 : 1);
  }
  close(pipe_fds[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t got; (got = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) {
    text.append(buffer, static_cast<size_t>(got));
  }
  close(pipe_fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 2) return "skip";
  return WIFEXITED(status) && WEXITSTATUS(status) == 0
             ? text
             : "child failed: status " + std::to_string(status);
}

// Issue 49: `cases/locked` (mode 000) beside 4 readable cases: 2 ran,
// `2 PASS`, exit 0.
TEST_F(Walk, AFolderThatCannotBeListedIsRefusedAndItsNeighboursWalked) {
  write("cases/a.yaml");
  write("cases/locked/x.yaml");
  write("cases/m/y.yaml");
  write("cases/z/c.yaml");
  const fs::path cases = root_ / "cases";
  fs::permissions(cases / "locked", fs::perms::none);
  // Listed but not searchable: its entries' names, and nothing about them.
  fs::permissions(cases / "m", fs::perms::owner_read | fs::perms::group_read |
                                   fs::perms::others_read);
  const std::string text = walk_unprivileged(cases);
  // Named itself, below the folder: before, reported as missing.
  const std::string named = walk_unprivileged(cases / "locked/x.yaml");
  fs::permissions(cases / "locked", fs::perms::owner_all);
  fs::permissions(cases / "m", fs::perms::owner_all);
  if (text == "skip") GTEST_SKIP() << "could not walk as an unprivileged user";
  EXPECT_EQ(text, "found " + (cases / "a.yaml").string() + "\nfound " +
                      (cases / "z/c.yaml").string() + "\nrefused " +
                      (cases / "locked").string() +
                      ": cannot list this folder (Permission denied): the case "
                      "files in it are not taken\nrefused " +
                      (cases / "m/y.yaml").string() +
                      ": cannot tell what this is (Permission denied): not "
                      "taken\n");
  EXPECT_EQ(named, "refused " + (cases / "locked/x.yaml").string() +
                       ": cannot tell what this is (Permission denied): not "
                       "taken\n");
}

}  // namespace
}  // namespace casebook
