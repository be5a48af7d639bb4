#include "parallel_section.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "elapsed.h"
#include "memory.h"
#include "synthetic_cases.h"

namespace casebook::bench {
namespace {

namespace fs = std::filesystem;

constexpr double kRatioTarget = 1.6;
constexpr double kLargeMsTarget = 3.0;

struct ProcessRun {
  double wall_s = 0.0;
  bool passed = false;       // exit status 0
  long runner_peak_kib = 0;  // VmHWM, when watched
};

// The VmHWM line of /proc/<pid>/status, in KiB; 0 once the process is gone.
long peak_of(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return 0;
}

// Runs `casebook <arguments>` with its output to /dev/null. With
// `watch_memory`, reads the runner's VmHWM every 10 ms until it exits (the
// last reading is its peak); without, waits in one waitpid so that the
// stopwatch adds nothing.
ProcessRun run_process(const fs::path& casebook,
                       std::vector<std::string> arguments, bool watch_memory) {
  arguments.insert(arguments.begin(), casebook.string());
  std::vector<char*> argv;
  argv.reserve(arguments.size() + 1);
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t quiet;
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&quiet, 2, "/dev/null", O_WRONLY, 0);
  ProcessRun run;
  const Clock::time_point start = Clock::now();
  pid_t pid = -1;
  const int spawned =
      posix_spawn(&pid, argv[0], &quiet, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&quiet);
  if (spawned != 0) return run;
  int status = 0;
  while (watch_memory && waitpid(pid, &status, WNOHANG) == 0) {
    run.runner_peak_kib = std::max(run.runner_peak_kib, peak_of(pid));
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!watch_memory) waitpid(pid, &status, 0);
  run.wall_s = seconds_since(start);
  run.passed = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return run;
}

std::vector<std::string> run_arguments(const CaseSet& set, int jobs) {
  return {"run", "--backend",          "cpu",
          "-q",  "--evidence",         "",
          "-j",  std::to_string(jobs), set.folder.string()};
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// One row of medians: the 1-case and the small set's runs, per -j.
struct SmallRuns {
  std::vector<double> one[2], many[2];  // [jobs - 1]
  bool passed = true;
};

SmallRuns measure_small(const fs::path& casebook, const CaseSet& one,
                        const CaseSet& many, int repeats) {
  SmallRuns runs;
  for (int turn = 0; turn < repeats; ++turn) {
    for (int jobs = 1; jobs <= 2; ++jobs) {
      const ProcessRun single =
          run_process(casebook, run_arguments(one, jobs), false);
      const ProcessRun set =
          run_process(casebook, run_arguments(many, jobs), false);
      runs.one[jobs - 1].push_back(single.wall_s);
      runs.many[jobs - 1].push_back(set.wall_s);
      runs.passed = runs.passed && single.passed && set.passed;
    }
  }
  return runs;
}

bool print_small(const SmallRuns& runs, int small_cases, double version_s) {
  std::printf(
      "fixed start: `casebook --version` %.0f ms (process and "
      "LibTorch's load); one-case run -j 1 %.0f ms (that, the plan, "
      "the fork server's start, one run)\n",
      1000 * version_s, 1000 * median(runs.one[0]));
  double part[2];
  for (int j = 0; j < 2; ++j) {
    part[j] =
        1000 * (median(runs.many[j]) - median(runs.one[j])) / (small_cases - 1);
    std::printf(
        "-j %d: one case %.0f ms, %d cases %.0f ms, per-case part "
        "%.2f ms\n",
        j + 1, 1000 * median(runs.one[j]), small_cases,
        1000 * median(runs.many[j]), part[j]);
  }
  const double ratio = part[0] / part[1];
  const bool met = runs.passed && ratio >= kRatioTarget;
  std::printf("per-case part, -j 1 over -j 2: %.2fx (target >= %.1fx): %s%s\n",
              ratio, kRatioTarget, met ? "met" : "MISSED",
              runs.passed ? "" : " (a run did not exit 0)");
  return met;
}

bool print_large(const fs::path& casebook, const CaseSet& tenth,
                 const CaseSet& large) {
  bool ok = true;
  for (const CaseSet* set : {&tenth, &large}) {
    const ProcessRun run = run_process(casebook, run_arguments(*set, 2), true);
    const double ms =
        1000 * run.wall_s / static_cast<double>(set->files.size());
    const bool fast = run.passed && ms <= kLargeMsTarget;
    std::printf(
        "-j 2 over %zu cases: %.1f s, %.2f ms a case, runner peak %s%s\n",
        set->files.size(), run.wall_s, ms, mib(run.runner_peak_kib).c_str(),
        run.passed ? "" : " (did not exit 0)");
    if (set == &large) {
      std::printf("%zu cases, -j 2: %.2f ms a case (target <= %.0f ms): %s\n",
                  set->files.size(), ms, kLargeMsTarget,
                  fast ? "met" : "MISSED");
      ok = fast;
    }
  }
  return ok;
}

// process/huge_text.h: whether moving LibTorch's hot code onto huge pages in
// the fork server pays on this machine (it saves page faults, which cost
// 1-2 us on bare metal and 12-30 us on some virtual machines: the floor
// above), over `set` with -j 2, CASEBOOK_HUGE_TEXT=0 and the default taking
// turns. Informative: no target.
void print_huge_text(const fs::path& casebook, const CaseSet& set,
                     int repeats) {
  std::vector<double> wall[2];  // [on]
  bool passed = true;
  for (int turn = 0; turn < repeats; ++turn) {
    for (int on = 0; on <= 1; ++on) {
      if (on == 0) setenv("CASEBOOK_HUGE_TEXT", "0", 1);
      const ProcessRun run =
          run_process(casebook, run_arguments(set, 2), false);
      unsetenv("CASEBOOK_HUGE_TEXT");
      wall[on].push_back(run.wall_s);
      passed = passed && run.passed;
    }
  }
  std::printf(
      "huge-page code in the fork server, -j 2 over %zu cases: on %.2f s, "
      "off %.2f s: off over on %.2fx%s\n",
      set.files.size(), median(wall[1]), median(wall[0]),
      median(wall[0]) / median(wall[1]),
      passed ? "" : " (a run did not exit 0)");
}

}  // namespace

bool run_parallel_section(const fs::path& root, const fs::path& casebook,
                          const ParallelPlan& plan) {
  std::printf(
      "\n== Parallel runs: the casebook executable, -j 1 and -j 2, "
      "%u cores ==\n",
      std::thread::hardware_concurrency());
  if (casebook.empty()) {
    std::printf("skipped: no casebook executable beside casebook_bench\n");
    return false;
  }
  const CaseSet one = write_softmax_cases(root, "parallel_one", 1);
  const CaseSet many =
      write_softmax_cases(root, "parallel_small", plan.small_cases);
  std::vector<double> version;
  version.reserve(static_cast<size_t>(plan.repeats));
  for (int turn = 0; turn < plan.repeats; ++turn) {
    version.push_back(run_process(casebook, {"--version"}, false).wall_s);
  }
  const SmallRuns small = measure_small(casebook, one, many, plan.repeats);
  std::printf("medians of %d turns (-j 1 and -j 2 taking turns)\n",
              plan.repeats);
  bool ok = print_small(small, plan.small_cases, median(version));
  std::fflush(stdout);
  const CaseSet tenth =
      write_softmax_cases(root, "parallel_tenth", plan.large_cases / 10);
  const CaseSet large =
      write_softmax_cases(root, "parallel_large", plan.large_cases);
  ok = print_large(casebook, tenth, large) && ok;
  print_huge_text(casebook, tenth, plan.repeats);
  std::error_code ignored;
  for (const CaseSet* set : {&one, &many, &tenth, &large}) {
    fs::remove_all(set->folder, ignored);
  }
  return ok;
}

}  // namespace casebook::bench
