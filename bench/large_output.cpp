#include "large_output.h"

#include <ATen/ATen.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>

#include "casebook/loader.h"
#include "casebook/op_catalog.h"
#include "casebook/ops.h"
#include "child/execute.h"
#include "compare/compare.h"
#include "elapsed.h"

namespace casebook::bench {
namespace fs = std::filesystem;

namespace {

// Enough for two children each holding a 1 GiB output while writing it, the
// two files, and the comparison's float64 temporaries.
constexpr long kNeededMemoryKib = 10L << 20;
constexpr long kNeededShmKib = 3L << 20;

void step_by_step(const fs::path& file, LargeOutputReport* report) {
  LoadedCase loaded = load_case_file(file);
  CaseTable table;
  table.cases.push_back(&*loaded.value);
  table.ops.push_back(default_registry().find(loaded.value->op));
  std::string folder = "/dev/shm/casebook-bench-large-XXXXXX";
  if (mkdtemp(folder.data()) == nullptr) return;
  RunRequest request;
  request.output_dir = folder;
  auto start = std::chrono::steady_clock::now();
  ChildReport child =
      execute_request(table, request, open_backend_runtime(Backend::kCpu));
  report->write_s = seconds_since(start);
  if (child.status != ChildReport::Status::kOutputs || child.outputs.empty()) {
    report->why_not = "the step-by-step run failed: " + child.message;
  } else {
    report->file_bytes =
        static_cast<long long>(fs::file_size(child.outputs.front().path));
    {
      at::Tensor mapped = map_tensor_file(child.outputs.front());
      report->mapped = current_resident_set();
      start = std::chrono::steady_clock::now();
      mapped.sum().item<double>();
      report->read_s = seconds_since(start);
      report->read = current_resident_set();
      reset_peak_self();
      const long base = peak_since_reset_kib();
      start = std::chrono::steady_clock::now();
      Comparison comparison = compare_outputs({mapped}, {mapped}, {});
      report->compare_s = seconds_since(start);
      report->compare_peak_growth_kib = peak_since_reset_kib() - base;
      report->compared_equal = comparison.equal();
    }
  }
  std::error_code ignored;
  fs::remove_all(folder, ignored);
}

}  // namespace

LargeOutputReport measure_large_output(const fs::path& root) {
  LargeOutputReport report;
  const long memory = available_memory_kib();
  const long shm = free_space_kib("/dev/shm");
  if (memory < kNeededMemoryKib || shm < kNeededShmKib) {
    report.why_not = "needs " + mib(kNeededMemoryKib) + " of memory and " +
                     mib(kNeededShmKib) + " free on /dev/shm; there are " +
                     mib(memory) + " and " + mib(shm);
    return report;
  }
  const fs::path file = write_large_output_case(root);
  CaseSet set{file.parent_path(), {file}};
  report.before = current_resident_set();
  reset_peak_self();
  const long base = peak_since_reset_kib();
  report.end_to_end = run_casebook(set, Isolation::kStrict, 2, {Backend::kCpu});
  report.peak_growth_kib = peak_since_reset_kib() - base;
  report.after = current_resident_set();
  report.children_peak_kib = peak_children_kib();
  step_by_step(file, &report);
  report.ran = true;
  return report;
}

void print_large_output(const LargeOutputReport& r) {
  std::printf(
      "\n== A 1 GiB output (torch.embedding, float64 [131072, 1024]) ==\n");
  if (!r.ran) {
    std::printf("skipped: %s\n", r.why_not.c_str());
    return;
  }
  const Timing& e = r.end_to_end;
  std::printf(
      "end to end, casebook strict, 2 children (run + cpu64 reference), each "
      "output 1 GiB:\n"
      "  verdict: %s   wall %.2f s\n"
      "  runner VmRSS %s -> %s; peak growth during the run %s (mapped pages "
      "of both files read by the comparison, plus its temporaries)\n"
      "  children's peak (RUSAGE_CHILDREN) %s\n",
      e.problem.empty() ? "PASS" : e.problem.c_str(), e.wall_s,
      mib(r.before.total_kib).c_str(), mib(r.after.total_kib).c_str(),
      mib(r.peak_growth_kib).c_str(), mib(r.children_peak_kib).c_str());
  if (!r.why_not.empty()) {
    std::printf("step by step: %s\n", r.why_not.c_str());
    return;
  }
  std::printf(
      "step by step (in this process, no fork):\n"
      "  child's side: inputs, op, write() into a /dev/shm file of %lld "
      "bytes: %.2f s  <- the one copy\n"
      "  runner maps it (MAP_PRIVATE, read-only): RssAnon %s, RssShmem %s\n"
      "  runner reads every element (%.2f s): RssAnon %s, RssShmem %s\n"
      "    -> the pages read are the file's own (RssShmem), not a copy "
      "(RssAnon unchanged)\n"
      "  compare_outputs on it: %.2f s, %s, peak growth %s (its float64 "
      "temporaries; float32 outputs would be widened to float64 first)\n",
      r.file_bytes, r.write_s, mib(r.mapped.anon_kib).c_str(),
      mib(r.mapped.shmem_kib).c_str(), r.read_s, mib(r.read.anon_kib).c_str(),
      mib(r.read.shmem_kib).c_str(), r.compare_s,
      r.compared_equal ? "equal" : "NOT EQUAL",
      mib(r.compare_peak_growth_kib).c_str());
}

}  // namespace casebook::bench
