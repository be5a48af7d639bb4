#include "machine_floor.h"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "elapsed.h"

namespace casebook::bench {
namespace {

constexpr size_t kPage = 4096;
constexpr size_t kPages = 8192;  // 32 MiB
constexpr int kForks = 40;

void write_every_page(char* memory, char value) {
  for (size_t page = 0; page < kPages; ++page) {
    *static_cast<volatile char*>(memory + page * kPage) = value;
  }
}

}  // namespace

MachineFloor measure_machine_floor() {
  MachineFloor floor;
  void* mapped = mmap(nullptr, kPages * kPage, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) return floor;
  char* memory = static_cast<char*>(mapped);
  // 4 kB pages: huge pages would fault once per 2 MB and hide the cost.
  madvise(memory, kPages * kPage, MADV_NOHUGEPAGE);
  Clock::time_point start = Clock::now();
  write_every_page(memory, 1);
  floor.zero_fill_fault_us = microseconds_since(start) / kPages;

  // The child times its own copy-on-write faults and sends the figure back.
  int result[2];
  if (pipe(result) == 0) {
    const pid_t child = fork();
    if (child == 0) {
      const Clock::time_point child_start = Clock::now();
      write_every_page(memory, 2);
      const double us = microseconds_since(child_start) / kPages;
      (void)!write(result[1], &us, sizeof us);
      _exit(0);
    }
    close(result[1]);
    if (child > 0) {
      (void)!read(result[0], &floor.copy_on_write_fault_us, sizeof(double));
      waitpid(child, nullptr, 0);
    }
    close(result[0]);
  }
  munmap(memory, kPages * kPage);

  start = Clock::now();
  for (int i = 0; i < kForks; ++i) {
    const pid_t child = fork();
    if (child == 0) _exit(0);
    if (child > 0) waitpid(child, nullptr, 0);
  }
  floor.fork_exit_ms = microseconds_since(start) / kForks / 1000.0;
  return floor;
}

void print_machine_floor(const MachineFloor& floor) {
  std::printf(
      "\nThis machine (the floor under strict isolation):\n"
      "  page fault, zero-fill %.1f us; copy-on-write (in a child) %.1f us\n"
      "  fork + exit + wait of this process (LibTorch loaded) %.2f ms\n",
      floor.zero_fill_fault_us, floor.copy_on_write_fault_us,
      floor.fork_exit_ms);
}

}  // namespace casebook::bench
