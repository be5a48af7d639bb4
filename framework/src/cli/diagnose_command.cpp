// `casebook diagnose CASE`: reruns one case in fresh processes, each rerun
// changing one thing, and says what the reruns showed, read by the first
// run's family (diagnosis/conclusions.h). Every rerun expects the outputs
// to match the reference, so an outcome is what happened (outputs that
// match, an error of a family, a mismatch), not the verdict against the
// case's own expectation.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>

#include "casebook/diagnosis.h"
#include "casebook/op_catalog.h"
#include "casebook/printable.h"
#include "casebook/run_advice.h"
#include "casebook_build_config.h"
#include "child/fork_safe_aten.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "diagnosis/conclusions.h"
#include "runner/diagnose_plan.h"
#include "runner/diagnose_rerun.h"
#include "runner/memcheck.h"
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

// Runs each planned rerun and prints its line; the reruns that say
// something, for the conclusion.
std::vector<Rerun> run_reruns(const LoadedCase& loaded, const fs::path& file,
                              const RunOutcome& first,
                              const std::vector<PlannedRerun>& planned_reruns,
                              const std::string& sanitizer) {
  const Case& kase = *loaded.value;
  std::vector<Rerun> reruns;
  for (const PlannedRerun& planned : planned_reruns) {
    std::cout << std::setw(kNameWidth) << planned.name;
    Rerun rerun;
    rerun.change = planned.kind;
    rerun.detail = planned.detail;
    if (planned.kind == RerunKind::kMemcheck && planned.not_run.empty()) {
      MemcheckResult memcheck = run_memcheck(
          sanitizer, file, std::min(600.0, 120.0 + 5.0 * kase.timeout_seconds));
      std::cout << memcheck.summary << "\n";
      rerun.outcome = memcheck_outcome(memcheck);
      reruns.push_back(rerun);
      continue;
    }
    if (!planned.kase) {
      std::cout << "not run: " << planned.not_run
                << (planned.needs_gpu ? " (below)" : "") << "\n";
      // One that could not run here says nothing; one that does not apply
      // to this case is not a rerun at all.
      if (planned.needs_gpu) reruns.push_back(rerun);
      continue;
    }
    const CaseVerdict seen =
        run_rerun(loaded, *planned.kase, planned.backend, planned.environment);
    rerun.outcome = outcome_of(seen);
    const RerunReading reading = read_rerun(first, rerun.outcome);
    std::cout << reading_word(reading) << ": " << outcome_text(seen) << "\n";
    std::cout << std::setw(kNameWidth) << ""
              << "(" << planned.change
              << (planned.detail.empty() ? "" : ": " + planned.detail) << ")\n";
    reruns.push_back(rerun);
  }
  return reruns;
}

// NaN and inf in the inputs, said before any rerun: a finding of its own,
// whatever the reruns show.
void print_input_findings(const Case& kase) {
  const std::vector<std::string> findings = non_finite_inputs(kase);
  if (findings.empty()) return;
  std::cout << "findings:\n";
  for (const std::string& line : findings) {
    std::cout << "  non-finite input: " << line << "\n";
  }
  std::cout << "  NaN and inf in an input make NaN or inf in the outputs of "
               "most ops, on every backend: check the data (or what made it) "
               "before the op\n\n";
}

// Whether the case loads and its op takes it; otherwise says every problem
// and that nothing is rerun.
bool says_case_is_runnable(const LoadedCase& loaded) {
  std::vector<std::string> problems;
  for (const CaseError& error : loaded.errors)
    problems.push_back(error.to_string());
  if (loaded.ok()) {
    problems = check_case_against_op(*loaded.value, default_registry());
  }
  if (problems.empty()) return true;
  std::cout << "ERROR " << loaded.id
            << ": the case file is wrong; nothing to rerun\n";
  for (const std::string& problem : problems)
    std::cout << "  " << printable_line(problem) << "\n";
  return false;
}

}  // namespace

int diagnose_command(const std::string& argument, const std::string& backend) {
  if (!backend.empty() && !parse_backend_option("diagnose", backend)) {
    return kExitUsage;
  }
  fs::path file;
  if (!resolve_case_argument(argument, &file)) return kExitUsage;
  keep_aten_single_threaded();  // before the runner forks
  const LoadedCase loaded = load_case_file(file);
  if (!says_case_is_runnable(loaded)) return 1;
  const Case& kase = *loaded.value;
  const auto status = probe_backends(gpu_backends());
  // Checked above: the op resolves.
  const ResolvedOp op = resolve_op(kase, default_registry());
  const RerunStack stack =
      rerun_stack(kase, backend, status, CASEBOOK_TORCH_FLAVOUR, op.def);
  const std::string target(backend_name(stack.target));
  std::cout << "diagnose " << loaded.id << " (" << printable_line(file.string())
            << ")\n"
            << "  " << stack.text << "\n"
            << "  reruns on: " << target
            << ", each in a fresh process, expecting the outputs to match "
               "the reference\n\n";
  print_input_findings(kase);
  const CaseVerdict baseline = run_rerun(loaded, kase, stack.target, {});
  const RunOutcome first = outcome_of(baseline);
  std::cout << std::left << std::setw(kNameWidth) << "as written"
            << outcome_text(baseline) << "\n";

  const std::string sanitizer = find_compute_sanitizer();
  const std::vector<PlannedRerun> planned_reruns =
      plan_reruns(kase, stack, first.family, sanitizer);
  const std::vector<Rerun> reruns =
      run_reruns(loaded, file, first, planned_reruns, sanitizer);
  std::cout << "\nconclusion:\n";
  for (const std::string& line : conclude(first, reruns, target)) {
    std::cout << "  " << line << "\n";
  }
  const std::vector<std::string> elsewhere =
      gpu_reruns_elsewhere(stack, planned_reruns, file.string());
  if (!elsewhere.empty()) std::cout << "\n";
  for (const std::string& line : elsewhere) std::cout << line << "\n";
  std::cout << "\nnotes:\n"
               "  a CPU success is a hint, not a CUDA validation: the CPU runs "
               "other kernels\n"
               "  blocking mode is for diagnosis, not for timing: it "
               "serialises every launch\n";
  if (baseline.family != Family::kNone) {
    // The advice names the switches of the stack the reruns ran on (HIP's
    // on ROCm), none where that is the CPU.
    const Backend advised =
        is_gpu(stack.target) && stack.rocm ? Backend::kHip : stack.target;
    std::cout << "\n" << explain_family_on(baseline.family, advised);
  }
  return 0;
}

Command add_diagnose(CLI::App& app) {
  auto kase = std::make_shared<std::string>();
  auto backend = std::make_shared<std::string>();
  CLI::App* diagnose = app.add_subcommand(
      "diagnose",
      "rerun one case in fresh processes, changing one thing at a time "
      "(launch blocking, the CPU, float32, float64, contiguous inputs, "
      "compute-sanitizer memcheck), and tell which change altered the "
      "outcome");
  diagnose->add_option("case", *kase, "a case file, or a case id under cases/")
      ->required();
  diagnose->add_option("--backend,-b", *backend,
                       backend_alternatives() +
                           " (default: the case's first GPU backend present, "
                           "else cpu)");
  return {diagnose,
          [kase, backend] { return diagnose_command(*kase, *backend); }};
}

}  // namespace casebook
