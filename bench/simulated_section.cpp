#include "simulated_section.h"

#include <chrono>
#include <cstdio>

#include "runner/session.h"
#include "simulated_device.h"

namespace casebook::bench {

bool run_simulated_section(const std::filesystem::path& root) {
  constexpr int kCases = 100;
  const std::set<int> poisoning = {10, 50, 90};
  const int worker_limit = 1 + 2 * static_cast<int>(poisoning.size());
  std::printf(
      "\n== GPU worker pool on the simulated device (%d cases, poisoning at "
      "10, 50, 90) ==\n",
      kCases);
  const std::filesystem::path folder = root / "simulated";
  simulated_device::write_poisoning_set(folder, kCases, poisoning);
  simulated_device::install();
  bool ok = true;
  std::printf("%-8s %8s %8s %8s %10s  %s\n", "", "workers", "reruns", "wall s",
              "ms/case", "verdicts");
  for (Isolation isolation : {Isolation::kPooled, Isolation::kStrict}) {
    RunOptions options;
    options.backends = {Backend::kCpu, Backend::kCuda};
    options.isolation = isolation;
    options.registry = &simulated_device::registry();
    options.evidence_root.clear();
    Plan plan = load_plan({folder}, options);
    const auto start = std::chrono::steady_clock::now();
    Execution execution = execute_plan(
        plan, options, [](const PlannedCase&, Backend) { return true; },
        nullptr);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    int passed = 0;
    for (const CaseVerdict& verdict : execution.summary.verdicts) {
      passed += verdict.verdict == Verdict::kPass ? 1 : 0;
    }
    const bool all_pass =
        passed == static_cast<int>(execution.summary.verdicts.size()) &&
        passed == 2 * kCases;
    const bool pooled = isolation == Isolation::kPooled;
    const bool within = !pooled || execution.workers_started <= worker_limit;
    ok = ok && all_pass && within;
    std::printf("%-8s %8d %8d %8.2f %10.2f  %d/%d PASS%s\n",
                pooled ? "pooled" : "strict", execution.workers_started,
                execution.confirm_reruns, wall, 1000.0 * wall / kCases, passed,
                2 * kCases,
                within ? "" : "  (more workers than 1 + 2 per poisoning case)");
  }
  simulated_device::uninstall();
  return ok;
}

}  // namespace casebook::bench
