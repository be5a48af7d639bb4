// casebook_bench: what strict isolation costs per case against the floor (no
// isolation) and against the usual way (one process per case), and what the
// runner's memory does while cases and a 1 GiB output go by.
//
// A plain program rather than Google Benchmark: every figure is one whole run
// of N cases (minutes for the process-per-case way), measured once side by
// side with the others in the same run, and the result is a table of ratios
// and memory readings, not a per-iteration timing loop.
#include <ATen/ATen.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <thread>

#include "casebook/op_catalog.h"
#include "casebook/ops.h"
#include "gpu_section.h"
#include "large_output.h"
#include "machine_floor.h"
#include "memory.h"
#include "parallel_section.h"
#include "simulated_section.h"
#include "strategies.h"
#include "synthetic_cases.h"

namespace casebook::bench {
namespace {

constexpr double kStrictCpuTargetMs = 10.0;
constexpr double kUsualWayRatioTarget = 50.0;

struct Row {
  std::string label;
  int set_size = 0;
  Timing timing;  // the run with the median time
  ResidentSet before, after;
  long peak_kib = 0;  // the runner's peak over these runs
  double fastest_ms = 0.0, slowest_ms = 0.0;  // per case, over the repeats
};

struct Strategy {
  std::string label;
  std::function<Timing()> run;
};

// Runs each strategy `repeats` times, taking turns (a, b, e, a, b, e, ...),
// and keeps each one's median run: a shared 2-core virtual machine varies by a
// third from one minute to the next, and strategies measured one after the
// other would be ranked by that noise. The spread is printed.
std::vector<Row> measure(const std::vector<Strategy>& strategies, int set_size,
                         int repeats) {
  std::vector<Row> rows(strategies.size());
  std::vector<std::vector<Timing>> timings(strategies.size());
  for (int turn = 0; turn < std::max(1, repeats); ++turn) {
    for (size_t s = 0; s < strategies.size(); ++s) {
      Row& row = rows[s];
      if (turn == 0) row.before = current_resident_set();
      reset_peak_self();
      timings[s].push_back(strategies[s].run());
      row.peak_kib = std::max(row.peak_kib, peak_since_reset_kib());
      row.after = current_resident_set();
    }
  }
  for (size_t s = 0; s < strategies.size(); ++s) {
    std::vector<Timing>& runs = timings[s];
    std::sort(runs.begin(), runs.end(), [](const Timing& x, const Timing& y) {
      return x.wall_s < y.wall_s;
    });
    Row& row = rows[s];
    row.label = strategies[s].label;
    row.set_size = set_size;
    row.fastest_ms = runs.front().ms_per_case();
    row.slowest_ms = runs.back().ms_per_case();
    row.timing = std::move(runs[runs.size() / 2]);
  }
  return rows;
}

// Before issue 10: torch.softmax was a hand-written op, found by a registry
// lookup; now it is aten::softmax, resolved through the dispatcher at plan
// time. Row (f) runs the same cases with the old op, in the same run as (a).
OpRegistry registry_before_dispatcher() {
  OpRegistry registry;
  register_all(registry);
  OpDef def;
  def.name = "torch.softmax";
  def.inputs = {"input"};
  def.args = {"dim", "dtype"};
  def.run = [](const OpCall& call) {
    return std::vector<at::Tensor>{
        at::softmax(call.input(0), call.arg_int("dim", -1))};
  };
  def.file = __FILE__;
  def.line = __LINE__;
  registry.add(std::move(def));
  return registry;
}

const Row* find(const std::vector<Row>& rows, char strategy, int set_size) {
  for (const Row& row : rows) {
    if (row.label[1] == strategy && row.set_size == set_size) return &row;
  }
  return nullptr;
}

void print_rows(const std::vector<Row>& rows) {
  std::printf("%-46s %5s %5s %9s %13s %8s %8s  %-22s %10s\n", "strategy", "N",
              "ran", "ms/case", "(min-max)", "x (c)", "(d)/x",
              "runner VmRSS before->after", "run peak");
  for (const Row& row : rows) {
    const Row* floor = find(rows, 'c', row.set_size);
    const Row* usual = find(rows, 'd', row.set_size);
    const double ms = row.timing.ms_per_case();
    std::string span =
        mib(row.before.total_kib) + "->" + mib(row.after.total_kib);
    char spread[32];
    std::snprintf(spread, sizeof spread, "%.1f-%.1f", row.fastest_ms,
                  row.slowest_ms);
    std::printf("%-46s %5d %5d %9.2f %13s %8.1f %8.1f  %-26s %10s\n",
                row.label.c_str(), row.set_size, row.timing.cases, ms, spread,
                floor ? ms / floor->timing.ms_per_case() : 0.0,
                usual ? usual->timing.ms_per_case() / ms : 0.0, span.c_str(),
                mib(row.peak_kib).c_str());
    if (!row.timing.problem.empty()) {
      std::printf("    NOT ALL PASSED (%d of %d): %s\n", row.timing.passed,
                  row.timing.cases, row.timing.problem.c_str());
    }
  }
}

// The CPU targets: strict <= 10 ms a case, >= 50x faster than (d).
bool print_targets(const std::vector<Row>& rows,
                   const std::vector<int>& sizes) {
  bool ok = true;
  std::printf("\nTargets (2-core CPU machine):\n");
  for (int n : sizes) {
    const Row* strict = find(rows, 'a', n);
    const Row* usual = find(rows, 'd', n);
    if (strict == nullptr) continue;
    const double ms = strict->timing.ms_per_case();
    const bool fast =
        ms <= kStrictCpuTargetMs && strict->timing.problem.empty();
    std::printf("  N=%-5d strict %.2f ms/case <= %.0f ms: %s\n", n, ms,
                kStrictCpuTargetMs, fast ? "met" : "MISSED");
    ok = ok && fast;
    if (usual != nullptr) {
      const double ratio = usual->timing.ms_per_case() / ms;
      const bool far = ratio >= kUsualWayRatioTarget;
      std::printf("  N=%-5d (d)/strict %.1fx >= %.0fx: %s\n", n, ratio,
                  kUsualWayRatioTarget, far ? "met" : "MISSED");
      ok = ok && far;
    }
  }
  return ok;
}

}  // namespace

int bench_main(int argc, char** argv) {
  CLI::App app{"casebook_bench: the cost of casebook's isolation per case"};
  std::vector<int> sizes = {100, 1000};
  int sample = 100;
  int repeats = 3;
  int jobs = 0;
  bool skip_large = false, skip_usual = false, only_simulated = false,
       only_gpu = false, only_parallel = false;
  ParallelPlan parallel;
  app.add_option("--sizes", sizes, "numbers of synthetic cases")
      ->delimiter(',');
  app.add_option(
      "--sample", sample,
      "at most this many cases of each set for (d), one process each");
  app.add_option("-j,--jobs", jobs,
                 "parallel runs for (a), (b), (d); 0: cores");
  app.add_option("--repeat", repeats,
                 "runs of (a), (b), (e), (c) per set; the median is shown");
  app.add_flag("--skip-large", skip_large, "leave out the 1 GiB output");
  app.add_flag("--skip-usual", skip_usual, "leave out (d)");
  app.add_flag("--only-simulated", only_simulated,
               "only the GPU worker pool on the simulated device");
  app.add_flag("--only-gpu", only_gpu,
               "only the GPU section (a real CUDA device), over the first of "
               "--sizes cases");
  app.add_flag("--only-parallel", only_parallel,
               "only the parallel runs of the casebook executable");
  app.add_option("--parallel-cases", parallel.large_cases,
                 "the large set of the parallel runs (default 10000)");
  CLI11_PARSE(app, argc, argv);
  if (only_parallel) {
    ScratchFolder scratch;
    return run_parallel_section(scratch.path(), casebook_beside_me(), parallel)
               ? 0
               : 1;
  }
  if (only_simulated) {
    ScratchFolder scratch;
    return run_simulated_section(scratch.path()) ? 0 : 1;
  }
  if (only_gpu) {
    ScratchFolder scratch;
    return run_gpu_section(scratch.path(), sizes.front()) ? 0 : 1;
  }
  if (jobs <= 0) {
    jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }

  ScratchFolder scratch;
  std::vector<CaseSet> sets;
  sets.reserve(sizes.size());
  for (int n : sizes) {
    sets.push_back(
        write_softmax_cases(scratch.path(), "softmax_" + std::to_string(n), n));
  }
  std::printf(
      "casebook_bench: synthetic cases of torch.softmax(dim=1) on 64x10 "
      "float32, "
      "backend cpu, %d parallel runs for (a), (b), (d); %u cores\n"
      "(on the CPU casebook forks one child per run in both isolation modes: "
      "(b) pooled differs only for GPU backends, one worker per backend;\n"
      "(a) and (b) fork through the fork server, (e) is (a) with the runner "
      "forking each child itself)\n\n",
      jobs, std::thread::hardware_concurrency());
  std::fflush(stdout);
  const long self_peak_start = peak_self_kib();
  // Order: casebook runs first and smallest first, so that the runner's
  // figures for each N come from the same process state; (c) runs LibTorch
  // in this process, so it comes after every run that forks.
  std::vector<Row> rows;
  const OpRegistry before_dispatcher = registry_before_dispatcher();
  for (size_t i = 0; i < sizes.size(); ++i) {
    const CaseSet& set = sets[i];
    std::vector<Row> measured = measure(
        {{"(a) casebook strict (fork per run)",
          [&] {
            return run_casebook(set, Isolation::kStrict, jobs, {Backend::kCpu});
          }},
         {"(b) casebook pooled (CPU: = strict)",
          [&] {
            return run_casebook(set, Isolation::kPooled, jobs, {Backend::kCpu});
          }},
         {"(f) strict, torch.softmax hand-written (before issue 10)",
          [&] {
            return run_casebook(set, Isolation::kStrict, jobs, {Backend::kCpu},
                                /*fork_server=*/true, &before_dispatcher);
          }},
         {"(e) strict, the runner forks (no fork server)",
          [&] {
            return run_casebook(set, Isolation::kStrict, jobs, {Backend::kCpu},
                                /*fork_server=*/false);
          }}},
        sizes[i], repeats);
    rows.insert(rows.end(), measured.begin(), measured.end());
  }
  const long children_peak_casebook = peak_children_kib();
  for (size_t i = 0; i < sizes.size(); ++i) {
    std::vector<Row> measured =
        measure({{"(c) in process, no isolation (floor)",
                  [&] { return run_in_process(sets[i]); }}},
                sizes[i], repeats);
    rows.push_back(measured.front());
  }
  const std::filesystem::path casebook = casebook_beside_me();
  std::string usual_note = skip_usual ? "(d) left out (--skip-usual)" : "";
  if (!skip_usual && casebook.empty()) {
    usual_note = "(d) skipped: no casebook executable beside casebook_bench";
  }
  const bool run_usual = usual_note.empty();
  for (size_t i = 0; i < sizes.size() && run_usual; ++i) {
    std::vector<std::filesystem::path> files;
    const size_t stride = std::max<size_t>(1, sets[i].files.size() / sample);
    for (size_t f = 0;
         f < sets[i].files.size() && static_cast<int>(files.size()) < sample;
         f += stride) {
      files.push_back(sets[i].files[f]);
    }
    std::string label =
        "(d) process per case, " + std::to_string(jobs) + " at a time";
    if (files.size() < sets[i].files.size()) {
      label += " *";
      usual_note =
          "* (d) at N>" + std::to_string(sample) + ": a sample of " +
          std::to_string(files.size()) + " cases (every " +
          std::to_string(stride) +
          "th), one process each; its per-case cost does not depend on N";
    }
    std::vector<Row> measured = measure(
        {{label, [&] { return run_process_per_case(casebook, files, jobs); }}},
        sizes[i], 1);
    rows.push_back(measured.front());
  }
  print_rows(rows);
  for (size_t i = 0; i < sizes.size(); ++i) {
    const double dispatcher = plan_ms_per_case(sets[i], nullptr, 7);
    const double hand_written =
        plan_ms_per_case(sets[i], &before_dispatcher, 7);
    std::printf(
        "plan (load_plan) N=%d: torch.softmax through the dispatcher %.3f "
        "ms/case, hand-written (before issue 10) %.3f ms/case (median of 7)\n",
        sizes[i], dispatcher, hand_written);
  }
  if (!usual_note.empty()) std::printf("%s\n", usual_note.c_str());
  std::printf(
      "x (c): this strategy's per-case cost over the floor's; (d)/x: the usual "
      "way's per-case cost over this one's\n");
  bool ok = print_targets(rows, sizes);
  print_machine_floor(measure_machine_floor());
  std::printf(
      "\nMemory:\n  runner peak (ru_maxrss) before any run %s, after all %s\n"
      "  children's peak (RUSAGE_CHILDREN): casebook's forks %s; with the (d) "
      "processes %s\n",
      mib(self_peak_start).c_str(), mib(peak_self_kib()).c_str(),
      mib(children_peak_casebook).c_str(), mib(peak_children_kib()).c_str());
  for (int n : sizes) {
    if (const Row* strict = find(rows, 'a', n)) {
      std::printf(
          "  strict N=%-5d runner VmRSS after %s, peak over the run %s\n", n,
          mib(strict->after.total_kib).c_str(), mib(strict->peak_kib).c_str());
    }
  }
  std::fflush(stdout);
  ok = run_simulated_section(scratch.path()) && ok;
  ok = run_gpu_section(scratch.path(), sizes.front()) && ok;
  ok = run_parallel_section(scratch.path(), casebook, parallel) && ok;
  std::fflush(stdout);
  if (skip_large) {
    std::printf("\n== A 1 GiB output ==\nleft out (--skip-large)\n");
  } else {
    print_large_output(measure_large_output(scratch.path()));
  }
  return ok ? 0 : 1;
}

}  // namespace casebook::bench

int main(int argc, char** argv) {
  return casebook::bench::bench_main(argc, argv);
}
