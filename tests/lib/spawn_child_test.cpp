// spawn_child (process/subprocess.h) with real processes: a child holds no
// copy of the runner's unwritten output.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "process/subprocess.h"
#include "run_command.h"

namespace casebook {
namespace {

using testing_support::TempFolder;

size_t occurrences(const std::string& text, const std::string& part) {
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string::npos;
       at = text.find(part, at + part.size())) {
    ++count;
  }
  return count;
}

// Seen on an H200: a GPU worker that printed a device-side assert flushed
// its stdout, and the runner's verdict lines, still in the buffer it was
// forked with, came out twice. Here stdout is a file, text waits in its
// buffer, and the child flushes as CUDA does.
TEST(SpawnChild, AChildThatFlushesItsStdoutWritesNoneOfTheRunnersLines) {
  TempFolder folder;
  const std::string log = (folder.path() / "stdout.log").string();
  std::fflush(stdout);
  const int saved = dup(STDOUT_FILENO);
  ASSERT_GE(saved, 0);
  FILE* file = std::fopen(log.c_str(), "w");
  ASSERT_NE(file, nullptr);
  dup2(fileno(file), STDOUT_FILENO);
  std::fclose(file);
  // No newline: the text waits in the buffer, line-buffered or not.
  std::printf("PASS    pending/line  cpu");
  ChildProcess child = spawn_child(
      [](int, int) {
        std::printf("from the child\n");
        std::fflush(stdout);
        return 0;
      },
      false);
  int status = 0;
  waitpid(child.pid, &status, 0);
  close_fd(&child.from_child);  // untracked too: a later child keeps it
  std::fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);
  std::ifstream in(log);
  const std::string written((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(occurrences(written, "pending/line"), 1u) << written;
  EXPECT_EQ(occurrences(written, "from the child"), 1u) << written;
}

}  // namespace
}  // namespace casebook
