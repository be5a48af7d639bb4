// `casebook diagnose CASE`: reruns one case in fresh processes, each rerun
// changing one thing, and says what the reruns showed, read by the first
// run's family (diagnosis/conclusions.h). Every rerun expects the outputs
// to match the reference, so an outcome is what happened (outputs that
// match, an error of a family, a mismatch), not the verdict against the
// case's own expectation.
#include <ATen/Parallel.h>

#include <algorithm>
#include <iomanip>
#include <iostream>

#include "casebook/diagnosis.h"
#include "cli/commands.h"
#include "cli/diagnose_variants.h"
#include "cli/memcheck.h"
#include "device/backend_hooks.h"
#include "diagnosis/conclusions.h"
#include "runner/session.h"

namespace casebook {
namespace fs = std::filesystem;
namespace {

constexpr int kNameWidth = 18;

std::string outcome_text(const CaseVerdict& verdict) {
  std::string text(verdict_name(verdict.verdict));
  if (verdict.verdict == Verdict::kPass) {
    return text + " (the outputs match the reference)";
  }
  if (verdict.family != Family::kNone) {
    text += " " + std::string(family_name(verdict.family));
  }
  return text + ": " + verdict.message.substr(0, verdict.message.find('\n'));
}

RunOutcome outcome_of(const CaseVerdict& verdict) {
  RunOutcome outcome;
  outcome.ran =
      verdict.verdict != Verdict::kNotRun && verdict.verdict != Verdict::kSkip;
  outcome.matched = verdict.verdict == Verdict::kPass;
  outcome.family = outcome.matched ? Family::kNone : verdict.family;
  outcome.message = verdict.message.substr(0, verdict.message.find('\n'));
  return outcome;
}

// Runs `kase` on `backend` alone in fresh processes (strict isolation),
// expecting a match everywhere.
CaseVerdict run_variant(const LoadedCase& loaded, Case kase, Backend backend,
                        const ChildEnvironment& environment) {
  // Every backend: match the reference (the probe's device facts must not
  // bring an entry back).
  kase.expect.clear();
  kase.expect_entries.clear();
  Plan plan;
  PlannedCase planned;
  planned.loaded = loaded;
  planned.loaded.value = std::move(kase);
  ResolvedOp resolved = resolve_op(planned.value(), default_registry());
  planned.op = resolved.def;
  planned.generated_op = std::move(resolved.generated);
  planned.reported = {backend};
  plan.cases.push_back(std::move(planned));
  RunOptions options;
  options.backends = {backend};
  options.isolation = Isolation::kStrict;
  options.child_environment = environment;
  Execution execution = execute_plan(
      plan, options, [](const PlannedCase&, Backend) { return true; }, nullptr);
  if (execution.summary.verdicts.empty()) {
    CaseVerdict none;
    none.verdict = Verdict::kNotRun;
    none.message = "internal error: no verdict; please report";
    return none;
  }
  return execution.summary.verdicts.front();
}

std::string reading_word(RerunReading reading) {
  switch (reading) {
    case RerunReading::kSame:
      return "same outcome";
    case RerunReading::kPasses:
      return "PASSES";
    case RerunReading::kChanged:
      return "CHANGED";
    case RerunReading::kBreaks:
      return "BREAKS";
    case RerunReading::kNotRun:
      break;
  }
  return "not run";
}

// Said once, on a machine without the GPU the case asks for: which reruns
// could not run, why, and what to run where.
void print_gpu_reruns_elsewhere(const Stack& stack,
                                const std::vector<Variant>& variants,
                                const fs::path& file) {
  std::string names;
  for (const Variant& variant : variants) {
    if (variant.needs_gpu) names += (names.empty() ? "" : ", ") + variant.name;
  }
  if (stack.missing_gpus.empty()) return;
  std::cout << "\nnot run here: the GPU reruns"
            << (names.empty() ? "" : " (" + names + ")")
            << (is_gpu(stack.target) ? "" : "; the reruns above ran on the CPU")
            << "\n";
  for (const auto& [backend, why] : stack.missing_gpus) {
    std::cout << "  " << backend_name(backend) << ": " << why << "\n";
  }
  for (const auto& [backend, why] : stack.missing_gpus) {
    std::cout << "  on a machine with " << backend_hooks(backend).vendor_device
              << ": casebook diagnose " << file.string() << " --backend "
              << backend_name(backend) << "\n";
  }
}

}  // namespace

int diagnose_command(const std::string& argument, const std::string& backend) {
  if (!backend.empty() && !parse_backend(backend)) {
    std::cerr
        << "casebook diagnose: --backend: expected cpu, cuda or hip; got `"
        << backend << "`\n";
    return kExitUsage;
  }
  fs::path file;
  if (!resolve_case_argument(argument, &file)) return kExitUsage;
  at::set_num_threads(1);  // no OpenMP pool in the runner before forks
  LoadedCase loaded = load_case_file(file);
  std::vector<std::string> problems;
  for (const CaseError& error : loaded.errors)
    problems.push_back(error.to_string());
  if (loaded.ok()) {
    problems = check_case_against_op(*loaded.value, default_registry());
  }
  if (!problems.empty()) {
    std::cout << "ERROR " << loaded.id
              << ": the case file is wrong; nothing to rerun\n";
    for (const std::string& problem : problems)
      std::cout << "  " << problem << "\n";
    return 1;
  }
  const Case& kase = *loaded.value;
  const auto status = probe_backends({Backend::kCuda, Backend::kHip});
  const Stack stack = detect_stack(kase, backend, status);
  const std::string target(backend_name(stack.target));
  std::cout << "diagnose " << loaded.id << " (" << file.string() << ")\n"
            << "  " << stack.text << "\n"
            << "  reruns on: " << target
            << ", each in a fresh process, expecting the outputs to match "
               "the reference\n\n";
  const CaseVerdict baseline = run_variant(loaded, kase, stack.target, {});
  const RunOutcome first = outcome_of(baseline);
  std::cout << std::left << std::setw(kNameWidth) << "as written"
            << outcome_text(baseline) << "\n";

  const std::string sanitizer = find_compute_sanitizer();
  const std::vector<Variant> variants =
      plan_variants(kase, stack, first.family, sanitizer);
  std::vector<Rerun> reruns;
  for (const Variant& variant : variants) {
    std::cout << std::setw(kNameWidth) << variant.name;
    Rerun rerun;
    rerun.change = variant.kind;
    rerun.detail = variant.detail;
    if (variant.kind == RerunKind::kMemcheck && variant.not_run.empty()) {
      MemcheckResult memcheck = run_memcheck(
          sanitizer, file, std::min(600.0, 120.0 + 5.0 * kase.timeout_seconds));
      std::cout << memcheck.summary << "\n";
      rerun.outcome.ran = memcheck.ran;
      rerun.outcome.matched = memcheck.errors == 0;
      rerun.outcome.family =
          memcheck.errors == 0 ? Family::kNone : Family::kIllegalAddress;
      rerun.outcome.message = memcheck.summary;
      reruns.push_back(rerun);
      continue;
    }
    if (!variant.kase) {
      std::cout << "not run: " << variant.not_run
                << (variant.needs_gpu ? " (below)" : "") << "\n";
      // One that could not run here says nothing; one that does not apply
      // to this case is not a rerun at all.
      if (variant.needs_gpu) reruns.push_back(rerun);
      continue;
    }
    const CaseVerdict seen = run_variant(loaded, *variant.kase, variant.backend,
                                         variant.environment);
    rerun.outcome = outcome_of(seen);
    const RerunReading reading = read_rerun(first, rerun.outcome);
    std::cout << reading_word(reading) << ": " << outcome_text(seen) << "\n";
    std::cout << std::setw(kNameWidth) << ""
              << "(" << variant.change
              << (variant.detail.empty() ? "" : ": " + variant.detail) << ")\n";
    reruns.push_back(rerun);
  }
  std::cout << "\nconclusion:\n";
  for (const std::string& line : conclude(first, reruns, target)) {
    std::cout << "  " << line << "\n";
  }
  print_gpu_reruns_elsewhere(stack, variants, file);
  std::cout << "\nnotes:\n"
               "  a CPU success is a hint, not a CUDA validation: the CPU runs "
               "other kernels\n"
               "  blocking mode is for diagnosis, not for timing: it "
               "serialises every launch\n";
  if (baseline.family != Family::kNone) {
    std::cout << "\n" << explain_family(baseline.family);
  }
  return 0;
}

}  // namespace casebook
