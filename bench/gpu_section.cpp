#include "gpu_section.h"

#include <cstdio>
#include <string>
#include <vector>

#include "runner/session.h"
#include "strategies.h"
#include "synthetic_cases.h"

namespace casebook::bench {
namespace {

constexpr double kPooledTargetMs = 5.0;
constexpr double kStrictGpuTargetMs = 500.0;
const std::vector<int> kAssertAt = {10, 50, 90};

const char* met(bool ok) { return ok ? "met" : "MISSED"; }

// The device-assert set: the three poisoning cases must give device_assert,
// every other case PASS, with at most two fresh workers per poisoning case.
bool check_device_asserts(const Timing& run) {
  int asserts = 0, other_pass = 0, other = 0;
  std::string wrong;
  for (const CaseVerdict& verdict : run.verdicts) {
    if (verdict.backend != Backend::kCuda) continue;
    const bool poisoning = verdict.case_id.size() >= 4 && [&] {
      const int index =
          std::stoi(verdict.case_id.substr(verdict.case_id.size() - 4));
      for (int at : kAssertAt) {
        if (at == index) return true;
      }
      return false;
    }();
    if (poisoning) {
      const bool ok = verdict.verdict == Verdict::kPass &&
                      verdict.family == Family::kDeviceAssert;
      asserts += ok;
      if (!ok && wrong.empty())
        wrong = verdict.case_id + ": " + verdict.message;
    } else {
      ++other;
      other_pass += verdict.verdict == Verdict::kPass;
      if (verdict.verdict != Verdict::kPass && wrong.empty()) {
        wrong = verdict.case_id + ": " +
                std::string(verdict_name(verdict.verdict)) + " " +
                verdict.message;
      }
    }
  }
  const int worker_limit = 1 + 2 * static_cast<int>(kAssertAt.size());
  const bool ok = asserts == static_cast<int>(kAssertAt.size()) &&
                  other_pass == other && run.workers_started <= worker_limit;
  std::printf(
      "device asserts at cases 10, 50, 90 of %d (pooled, cuda):\n"
      "  device_assert as expected: %d of %zu; other cases PASS: %d of %d\n"
      "  workers started: %d (limit 1 + 2 per poisoning case = %d), confirm "
      "reruns: %d, wall %.2f s -> %s\n",
      run.cases, asserts, kAssertAt.size(), other_pass, other,
      run.workers_started, worker_limit, run.confirm_reruns, run.wall_s,
      met(ok));
  if (!wrong.empty()) std::printf("  first wrong verdict: %s\n", wrong.c_str());
  return ok;
}

}  // namespace

bool run_gpu_section(const std::filesystem::path& root, int cases) {
  std::printf("\n== GPU (cuda) ==\n");
  const BackendStatus cuda = probe_backends({Backend::kCuda})[Backend::kCuda];
  if (!cuda.ready()) {
    std::printf("skipped: casebook's probe child says cuda is %s (%s)\n",
                std::string(readiness_name(cuda.state)).c_str(),
                cuda.reason.c_str());
    return cuda.state == Readiness::kAbsent;
  }
  std::printf("device: %s\n", cuda.description.c_str());
  const std::vector<Backend> backends = {Backend::kCpu, Backend::kCuda};
  CaseSet set = write_softmax_cases(root, "gpu_softmax", cases);
  Timing pooled = run_casebook(set, Isolation::kPooled, 0, backends);
  Timing strict = run_casebook(set, Isolation::kStrict, 0, backends);
  std::printf("%d softmax cases, each on cpu (reference) and cuda:\n", cases);
  bool ok = true;
  for (const auto& [name, timing, target] :
       {std::make_tuple("pooled", &pooled, kPooledTargetMs),
        std::make_tuple("strict", &strict, kStrictGpuTargetMs)}) {
    const bool pass = timing->problem.empty();
    const bool fast = timing->ms_per_case() <= target;
    ok = ok && pass && fast;
    std::printf(
        "  %-7s %8.2f ms/case  (target <= %.1f ms: %s)  workers %d  %s\n", name,
        timing->ms_per_case(), target, met(fast), timing->workers_started,
        pass ? "all PASS" : timing->problem.c_str());
  }
  CaseSet asserts =
      write_cross_entropy_cases(root, "gpu_device_assert", 100, kAssertAt);
  ok = check_device_asserts(
           run_casebook(asserts, Isolation::kPooled, 0, backends)) &&
       ok;
  return ok;
}

}  // namespace casebook::bench
