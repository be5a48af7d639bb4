#include "runner/reduce.h"

#include <ATen/ATen.h>

#include "casebook/op_catalog.h"
#include "casebook/printable.h"
#include "runner/reduce_passes.h"
#include "runner/reduce_trial.h"

namespace casebook {
namespace {

using reducing::BoundReached;
using reducing::Reduction;

// The outcome of the case's own run: whether there is a failure to keep.
ReduceResult::Outcome outcome_of(const CaseVerdict& verdict) {
  if (verdict.verdict == Verdict::kInternal ||
      verdict.family == Family::kInvalidCase) {
    return ReduceResult::Outcome::kInvalid;
  }
  if (verdict.verdict == Verdict::kSkip ||
      verdict.verdict == Verdict::kNotRun) {
    return ReduceResult::Outcome::kNotRun;
  }
  if (verdict_is_success(verdict.verdict) && verdict.family == Family::kNone) {
    return ReduceResult::Outcome::kPasses;
  }
  return ReduceResult::Outcome::kReduced;
}

void run_passes(Reduction& r, const ReduceRequest& request) {
  reducing::reduce_extras(r);
  reducing::reduce_steps(r);
  const OpRegistry& registry = request.run.registry != nullptr
                                   ? *request.run.registry
                                   : default_registry();
  reducing::reduce_args(r, registry);
  const std::vector<bool> fixed = reducing::reduce_layouts(r);
  reducing::reduce_dims(r, fixed);
  reducing::reduce_values(r);
  reducing::check_dtypes(r);
}

// Past 64 elements (what a captured case writes inline) a constant input is
// `fill: {full: V}` rather than its values.
void constants_as_fills(Case& kase, const std::vector<at::Tensor>& values) {
  constexpr int64_t kInlineLimit = 64;
  for (size_t i = 0; i < kase.inputs.size(); ++i) {
    TensorSpec& spec = kase.inputs[i];
    const at::Tensor& value = values[i];
    if (spec.source != TensorSpec::Source::kValues || !value.defined() ||
        value.numel() <= kInlineLimit || value.is_complex()) {
      continue;
    }
    const at::Tensor first = value.reshape({-1})[0];
    if (!at::equal(value, first.expand_as(value))) continue;
    spec.source = TensorSpec::Source::kFill;
    spec.fill = Fill{};
    spec.fill.first = first.item<double>();
    spec.float_values.clear();
    spec.int_values.clear();
  }
}

// The dossier of the reduced case: the original's, and where it came from.
Origin reduced_origin(const ReduceRequest& request,
                      const ReduceResult& result) {
  Origin origin;
  for (const auto& entry : request.original.value->origin.entries) {
    if (entry.first.rfind("reduced_from.", 0) != 0) {
      origin.entries.push_back(entry);
    }
  }
  const std::string failure =
      std::string(verdict_name(result.original.verdict)) + " " +
      std::string(family_name(result.failure.family)) + ": " +
      result.failure.message;
  origin.entries.emplace_back("reduced_from.id", request.original.id);
  origin.entries.emplace_back("reduced_from.sizes", result.original_sizes);
  origin.entries.emplace_back("reduced_from.backend",
                              std::string(backend_name(request.backend)));
  origin.entries.emplace_back("reduced_from.failure",
                              bounded_text(printable_line(failure), 300));
  origin.entries.emplace_back("reduced_from.runs", std::to_string(result.runs));
  return origin;
}

void finish(Reduction& r, const ReduceRequest& request, ReduceResult& result) {
  result.runs = r.runs();
  result.seconds = r.seconds();
  result.reduced_sizes = reducing::sizes_text(r.best);
  result.removed = r.removed;
  result.kept = r.kept;
  result.changed = r.best.changed;
  Case& reduced = result.reduced = r.best.kase;
  reduced.id.clear();
  reduced.id_written = false;
  reduced.neighbors.clear();
  reduced.summary = bounded_text(
      "reduced from " + request.original.id + ": " + reduced.summary, 400);
  reduced.origin = reduced_origin(request, result);
  constants_as_fills(reduced, r.best.values);
}

}  // namespace

ReduceResult reduce_case(const ReduceRequest& request) {
  ReduceResult result;
  Reduction r(request);
  Case kase = *request.original.value;
  kase.neighbors.clear();
  r.best = reducing::initial_state(kase);
  try {
    result.original = r.run_original(kase);
  } catch (const BoundReached& bound) {
    result.stopped = bound.why;
    return result;
  }
  result.outcome = outcome_of(result.original);
  result.runs = r.runs();
  if (result.outcome != ReduceResult::Outcome::kReduced) return result;
  r.expect(result.original);
  result.failure = r.failure();
  result.original_sizes = reducing::sizes_text(r.best);
  if (!request.original.value->neighbors.empty()) {
    r.removed.push_back(
        "`neighbors`: the reduced case is one case (`casebook neighbors` "
        "proposes its own)");
  }
  try {
    run_passes(r, request);
  } catch (const BoundReached& bound) {
    result.stopped = bound.why;
  }
  finish(r, request, result);
  return result;
}

bool written_case_fails_the_same_way(const std::filesystem::path& file,
                                     const ReduceRequest& request,
                                     ReduceResult& result, std::string* why) {
  ReduceRequest once = request;
  once.max_runs = 1;
  once.max_seconds = 1e9;
  once.on_progress = nullptr;
  Reduction r(once);
  r.expect(result.original);
  try {
    const bool same = r.file_fails_same(file, why);
    ++result.runs;
    result.seconds += r.seconds();
    return same;
  } catch (const BoundReached& bound) {
    *why = bound.why;
    return false;
  }
}

}  // namespace casebook
