// Issue 49, item 8: a fixed-seed fuzzer over case trees. Each round makes a
// tree of its own (hostile names, depths, links in and out of it, loops and
// links to nothing, folders that cannot be listed or searched) and walks it
// as an unprivileged user, as a CI job would meet a merge request's tree.
// Nothing may be lost: every case file made is found, or it or a folder
// above it is refused by name; nothing outside the tree is taken; the walk
// ends. The seed is CASEBOOK_FUZZ_SEED (default 1: the same commit, the same
// trees); CASEBOOK_FUZZ_ROUNDS sets the number of trees (default 40). In
// the hardening lane it runs under the sanitizers with the rest of
// unit.core.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "casebook/loader.h"
#include "casebook/printable.h"
#include "remove_tree.h"

namespace casebook {
namespace {
namespace fs = std::filesystem;

int from_environment(const char* name, int fallback) {
  const char* text = std::getenv(name);
  return text != nullptr && *text != '\0' ? std::atoi(text) : fallback;
}

using testing_support::remove_tree_at;

// One random tree under `root`/cases: the case files made, for the check.
class TreeMaker {
 public:
  TreeMaker(const fs::path& root, std::mt19937* random)
      : root_(root), random_(random) {}

  std::vector<fs::path> make() {
    const fs::path cases = root_ / "cases";
    fs::create_directories(cases);
    fs::create_directories(root_ / "outside");
    std::ofstream(root_ / "outside" / "stolen.yaml") << "casebook: 1\n";
    fill(cases, 0);
    return files_;
  }

 private:
  int below(int n) { return static_cast<int>((*random_)() % n); }

  // A name of the kinds a merge request can commit.
  std::string name() {
    static const std::vector<std::string> kParts = {
        "a",         "b_c",
        "-dash",     " space",
        "new\nline", "esc\x1b[2J",
        "\xff\xfe",  "x.y",
        "%2F",       "\xe2\x80\xa8sep",
        "fixtures",  "cases",
        "..yaml",    std::string(200, 'l')};
    return kParts[below(static_cast<int>(kParts.size()))] +
           std::to_string(counter_++);
  }

  void fill(const fs::path& folder, int depth) {
    const int entries = 1 + below(5);
    for (int i = 0; i < entries; ++i) {
      const int kind = below(10);
      const fs::path path = folder / name();
      if (kind < 4) {
        const char* extension = kind == 3 ? ".yml" : ".yaml";
        fs::path file = path;
        file += extension;
        std::ofstream(file) << "casebook: 1\n";
        files_.push_back(file);
      } else if (kind < 7 && depth < 6) {
        fs::create_directory(path);
        fill(path, depth + 1);
        // Some folders cannot be listed, or listed but not entered.
        const int lock = below(6);
        if (lock == 0) chmod(path.c_str(), 0000);
        if (lock == 1) chmod(path.c_str(), 0644);
      } else if (kind == 7) {
        fs::create_symlink(path, path);  // a loop
      } else if (kind == 8) {
        fs::create_symlink(root_ / "outside" / "nothing.yaml", path);
      } else {
        fs::create_directory_symlink(below(2) == 0 ? root_ / "outside" : folder,
                                     path);
      }
    }
  }

  fs::path root_;
  std::mt19937* random_;
  std::vector<fs::path> files_;
  int counter_ = 0;
};

// Whether `file` was found, or it or a folder above it refused.
bool accounted_for(const fs::path& file, const std::set<fs::path>& found,
                   const std::set<fs::path>& refused) {
  if (found.count(file.lexically_normal()) > 0) return true;
  for (fs::path at = file; !at.empty() && at != at.parent_path();
       at = at.parent_path()) {
    if (refused.count(at.lexically_normal()) > 0) return true;
  }
  return false;
}

// The walk of `root`/cases checked against `made`; the problems, one a line
// (empty: nothing lost, nothing outside taken).
std::string problems_of_walk(const fs::path& root,
                             const std::vector<fs::path>& made) {
  std::vector<fs::path> missing;
  std::vector<CaseError> refusals;
  const std::vector<fs::path> walked =
      find_case_files({root / "cases"}, &missing, &refusals);
  std::set<fs::path> found;
  std::string problems;
  for (const fs::path& file : walked) {
    found.insert(file.lexically_normal());
    const std::string text = file.lexically_normal().string();
    if (text.rfind((root / "cases").string(), 0) != 0) {
      problems += "taken from outside: " + printable_line(text) + "\n";
    }
  }
  std::set<fs::path> refused;
  for (const CaseError& error : refusals) {
    refused.insert(error.where.file.lexically_normal());
  }
  for (const fs::path& file : made) {
    if (!accounted_for(file, found, refused)) {
      problems += "lost: " + printable_line(file.string()) + "\n";
    }
  }
  return problems;
}

// Runs the check in a child as nobody (root reads every folder); "skip"
// when privileges cannot be dropped.
std::string walk_as_nobody(const fs::path& root,
                           const std::vector<fs::path>& made) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return "no pipe";
  const pid_t child = fork();
  if (child == 0) {
    close(pipe_fds[0]);
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) {
      _exit(2);
    }
    const std::string problems = problems_of_walk(root, made);
    if (write(pipe_fds[1], problems.data(), problems.size()) < 0) _exit(3);
    _exit(0);
  }
  close(pipe_fds[1]);
  std::string text;
  char buffer[4096];
  ssize_t n;
  while ((n = read(pipe_fds[0], buffer, sizeof buffer)) > 0) {
    text.append(buffer, static_cast<size_t>(n));
  }
  close(pipe_fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 2) return "skip";
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return "the walk did not end well: status " + std::to_string(status);
  }
  return text;
}

TEST(CaseTreeFuzz, NoCaseIsLostAndNothingOutsideIsTaken) {
  const int seed = from_environment("CASEBOOK_FUZZ_SEED", 1);
  const int rounds = from_environment("CASEBOOK_FUZZ_ROUNDS", 40);
  std::mt19937 random(static_cast<unsigned>(seed));
  for (int round = 0; round < rounds; ++round) {
    std::string pattern =
        (fs::temp_directory_path() / "casebook_tree_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    const fs::path root = pattern;
    chmod(root.c_str(), 0755);  // the unprivileged walk reaches it
    TreeMaker maker(root, &random);
    const std::vector<fs::path> made = maker.make();
    const std::string problems = walk_as_nobody(root, made);
    remove_tree_at(AT_FDCWD, root.c_str());
    if (problems == "skip") GTEST_SKIP() << "cannot walk as nobody";
    ASSERT_EQ(problems, "") << "seed " << seed << ", round " << round;
  }
}

}  // namespace
}  // namespace casebook
