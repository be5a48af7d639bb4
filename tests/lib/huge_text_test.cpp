// Moving LibTorch's hot code onto huge pages, in a child process so that the
// test program itself keeps its mappings: the code still computes the same
// results afterwards, and the moved part is anonymous memory on huge pages.
#include "process/huge_text.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "test_ops.h"

namespace casebook {
namespace {

std::string transparent_huge_page_mode() {
  std::ifstream mode("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string text;
  std::getline(mode, text);
  return text;
}

// The sum of AnonHugePages over this process's mappings, in kB.
long anonymous_huge_kib() {
  std::ifstream smaps("/proc/self/smaps");
  std::string key;
  long total = 0;
  while (smaps >> key) {
    if (key == "AnonHugePages:") {
      long kib = 0;
      smaps >> kib;
      total += kib;
    }
  }
  return total;
}

// Runs in the child: returns a line "moved <chunks> same <0|1> huge_kib
// <before> <after>" or "why <reason>".
std::string move_and_recompute() {
  at::Tensor input = at::arange(64, at::kFloat).reshape({8, 8}) / 7.0;
  at::Tensor before = at::softmax(input, 1);
  const long huge_before = anonymous_huge_kib();
  HugeTextMove move = move_hot_torch_code_to_huge_pages();
  if (move.chunks_moved == 0) return "why " + move.why_not;
  at::Tensor after = at::softmax(input, 1);
  return "moved " + std::to_string(move.chunks_moved) + " same " +
         std::to_string(at::equal(before, after) ? 1 : 0) + " huge_kib " +
         std::to_string(huge_before) + " " +
         std::to_string(anonymous_huge_kib());
}

TEST(HugeText, TheMovedCodeStillComputesTheSameAndSitsOnHugePages) {
  testing_support::use_single_thread();
  int result[2];
  ASSERT_EQ(pipe(result), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(result[0]);
    std::string line;
    try {
      line = move_and_recompute();
    } catch (const std::exception& error) {
      line = std::string("threw ") + error.what();
    }
    (void)!write(result[1], line.data(), line.size());
    _exit(0);
  }
  close(result[1]);
  std::string line;
  char chunk[256];
  ssize_t got;
  while ((got = read(result[0], chunk, sizeof chunk)) > 0) {
    line.append(chunk, static_cast<size_t>(got));
  }
  close(result[0]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died: " << status;

  const std::string mode = transparent_huge_page_mode();
  if (mode.find("[never]") != std::string::npos) {
    EXPECT_EQ(line.rfind("why transparent huge pages are off", 0), 0u) << line;
    return;
  }
  ASSERT_EQ(line.rfind("moved ", 0), 0u) << line;
  int chunks = 0, same = 0;
  long huge_before = 0, huge_after = 0;
  ASSERT_EQ(std::sscanf(line.c_str(), "moved %d same %d huge_kib %ld %ld",
                        &chunks, &same, &huge_before, &huge_after),
            4)
      << line;
  EXPECT_GT(chunks, 0);
  EXPECT_EQ(same, 1) << "softmax differs after the move";
  // The copy sits on huge pages: at least one 2 MB page more than before
  // (the kernel may still be assembling some, or fall back to small pages
  // for a chunk when memory is fragmented).
  EXPECT_GE(huge_after - huge_before, 2048L) << line;
}

TEST(HugeText, CanBeTurnedOff) {
  setenv("CASEBOOK_HUGE_TEXT", "0", 1);
  // Nothing is moved, so this may run in the test process itself.
  HugeTextMove move = move_hot_torch_code_to_huge_pages();
  unsetenv("CASEBOOK_HUGE_TEXT");
  EXPECT_EQ(move.chunks_moved, 0);
  EXPECT_EQ(move.why_not, "CASEBOOK_HUGE_TEXT=0");
}

}  // namespace
}  // namespace casebook
