#include "runner/reduce_trial.h"

#include "casebook/number_text.h"
#include "casebook/printable.h"

namespace casebook::reducing {

SeenFailure seen_failure(const CaseVerdict& verdict) {
  SeenFailure seen;
  seen.family = verdict.family;
  seen.message =
      verdict.first_error.empty() ? verdict.explanation : verdict.first_error;
  seen.step = verdict.failing_step;
  return seen;
}

Reduction::Reduction(const ReduceRequest& request)
    : request_(request),
      options_(request.run),
      start_(std::chrono::steady_clock::now()) {
  options_.backends = {request.backend};
  options_.evidence_root.clear();
  options_.case_id.clear();
  options_.filters.clear();
  options_.excludes.clear();
  options_.shard_index = 0;
  options_.shard_count = 1;
  options_.fail_fast = false;
}

double Reduction::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start_)
      .count();
}

CaseVerdict Reduction::run(Plan plan) {
  if (runs_ >= request_.max_runs) {
    throw BoundReached{"--max-runs " + std::to_string(request_.max_runs) +
                       " reached"};
  }
  // The case's own run is never refused: without it there is nothing.
  if (runs_ > 0 && seconds() >= request_.max_seconds) {
    throw BoundReached{"the time bound of " +
                       number_text(request_.max_seconds) + " s reached"};
  }
  plan.probed = probed_;
  Execution execution = execute_plan(
      plan, options_, [](const PlannedCase&, Backend) { return true; },
      nullptr);
  ++runs_;
  if (!probed_) probed_ = execution.backends;
  if (execution.summary.interrupted) throw BoundReached{"interrupted"};
  last_ = CaseVerdict{};
  last_.verdict = Verdict::kNotRun;
  last_.explanation = "no run on " +
                      std::string(backend_name(request_.backend)) +
                      " (the case's op runs on the CPU only)";
  for (const CaseVerdict& verdict : execution.summary.verdicts) {
    if (verdict.backend == request_.backend) last_ = verdict;
  }
  return last_;
}

void Reduction::report_progress() {
  if (request_.on_progress) {
    request_.on_progress({runs_, sizes_text(best), seconds()});
  }
}

CaseVerdict Reduction::run_original(const Case& kase) {
  LoadedCase loaded = request_.original;
  loaded.value = kase;
  const CaseVerdict verdict = run(plan_cases({std::move(loaded)}, options_));
  report_progress();
  return verdict;
}

void Reduction::expect(const CaseVerdict& original) {
  verdict_ = original.verdict;
  failure_ = seen_failure(original);
}

bool Reduction::same(const CaseVerdict& verdict, bool has_steps,
                     std::string* why) {
  if (verdict.verdict != verdict_) {
    *why = "its verdict is " + std::string(verdict_name(verdict.verdict)) +
           ", the case's " + std::string(verdict_name(verdict_));
    return false;
  }
  SeenFailure wanted = failure_;
  // A step made a one-op case (the steps pass) has no step to name.
  if (!has_steps) wanted.step.clear();
  return same_failure(wanted, seen_failure(verdict), why);
}

bool Reduction::judge(const Case& candidate) {
  LoadedCase loaded = request_.original;
  loaded.value = candidate;
  const CaseVerdict verdict = run(plan_cases({std::move(loaded)}, options_));
  std::string why;
  return same(verdict, !candidate.steps.empty(), &why);
}

bool Reduction::fails_same(const Case& candidate) {
  Case followed = candidate;
  casebook::follow_aliases(followed.inputs);
  const bool same = judge(followed);
  report_progress();
  return same;
}

bool Reduction::keep_if_same(ReduceState candidate) {
  follow_aliases(candidate);
  const bool same = judge(candidate.kase);
  if (same) best = std::move(candidate);
  report_progress();  // the case kept so far, this run's included
  return same;
}

bool Reduction::file_fails_same(const std::filesystem::path& file,
                                std::string* why) {
  Plan plan = load_plan({file}, options_);
  const bool has_steps = !plan.cases.empty() && plan.cases[0].runnable() &&
                         !plan.cases[0].value().steps.empty();
  const CaseVerdict verdict = run(std::move(plan));
  if (same(verdict, has_steps, why)) return true;
  *why += " (" + std::string(verdict_name(verdict.verdict)) +
          (verdict.family == Family::kNone
               ? std::string()
               : " " + std::string(family_name(verdict.family))) +
          ": " + verdict.message + ")";
  return false;
}

std::string Reduction::last_outcome() const {
  if (verdict_is_success(last_.verdict) && last_.family == Family::kNone) {
    return "passes";
  }
  const std::string first =
      last_.first_error.empty() ? last_.explanation : last_.first_error;
  return "fails otherwise (" + std::string(verdict_name(last_.verdict)) +
         (last_.family == Family::kNone
              ? std::string()
              : " " + std::string(family_name(last_.family))) +
         ": " + bounded_text(first, 160) + ")";
}

}  // namespace casebook::reducing
