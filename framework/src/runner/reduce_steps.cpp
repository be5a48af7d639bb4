// The steps pass of `casebook reduce` (runner/reduce_passes.h).
#include <algorithm>

#include "casebook/joined.h"
#include "runner/reduce_passes.h"

namespace casebook::reducing {
namespace {

constexpr size_t kNone = static_cast<size_t>(-1);

bool is_input(const Case& kase, const std::string& source) {
  return std::any_of(
      kase.inputs.begin(), kase.inputs.end(),
      [&](const TensorSpec& input) { return input.name == source; });
}

// The step a source reads (`name`, `name.0`, `name.values`); kNone for a
// case input.
size_t source_step(const Case& kase, const std::string& source) {
  if (is_input(kase, source)) return kNone;
  for (size_t j = 0; j < kase.steps.size(); ++j) {
    const std::string& name = kase.steps[j].name;
    if (source == name || source.rfind(name + ".", 0) == 0) return j;
  }
  return kNone;
}

// The failing step and, transitively, the steps its inputs read.
std::vector<bool> needed_steps(const Case& kase, size_t failing) {
  std::vector<bool> needed(kase.steps.size(), false);
  needed[failing] = true;
  for (size_t j = failing + 1; j-- > 0;) {
    if (!needed[j]) continue;
    for (const StepInput& input : kase.steps[j].inputs) {
      const size_t read = source_step(kase, input.source);
      if (read != kNone) needed[read] = true;
    }
  }
  return needed;
}

// The state with the `kept` steps only (each keeping its name: a later
// step reads it by name), the step outputs and inputs they read.
ReduceState with_steps(const ReduceState& state,
                       const std::vector<bool>& kept) {
  ReduceState out = state;
  out.kase.steps.clear();
  for (size_t j = 0; j < kept.size(); ++j) {
    if (!kept[j]) continue;
    Step step = state.kase.steps[j];
    step.named =
        step.named ||
        step.name != "step" + std::to_string(out.kase.steps.size() + 1);
    out.kase.steps.push_back(std::move(step));
  }
  out.kase.step_outputs.clear();
  for (const StepInput& output : state.kase.step_outputs) {
    const size_t read = source_step(state.kase, output.source);
    if (read == kNone || kept[read]) out.kase.step_outputs.push_back(output);
  }
  std::vector<bool> used(state.kase.inputs.size(), false);
  for (const Step& step : out.kase.steps) {
    for (const StepInput& input : step.inputs) {
      for (size_t i = 0; i < used.size(); ++i) {
        used[i] = used[i] || state.kase.inputs[i].name == input.source;
      }
    }
  }
  keep_inputs(out, used);
  return out;
}

// A source of the failing step with every step it reads replaced by that
// step's first input, down to a case input; empty where there is none.
std::string stand_in(const Case& kase, std::string source) {
  for (size_t depth = 0; depth <= kase.steps.size(); ++depth) {
    const size_t read = source_step(kase, source);
    if (read == kNone) return is_input(kase, source) ? source : "";
    if (kase.steps[read].inputs.empty()) return "";
    source = kase.steps[read].inputs.front().source;
  }
  return "";
}

std::vector<std::string> names_of(const Case& kase,
                                  const std::vector<bool>& which) {
  std::vector<std::string> names;
  for (size_t j = 0; j < which.size(); ++j) {
    if (which[j]) names.push_back("`" + kase.steps[j].name + "`");
  }
  return names;
}

}  // namespace

namespace {

size_t index_of_step(const Case& kase, const std::string& name) {
  for (size_t j = 0; j < kase.steps.size(); ++j) {
    if (kase.steps[j].name == name) return j;
  }
  return kNone;
}

// Drops the steps the failing step does not read, directly or not.
void drop_unneeded(Reduction& r, const std::string& failing) {
  const Case kase = r.best.kase;
  const std::vector<bool> needed =
      needed_steps(kase, index_of_step(kase, failing));
  std::vector<bool> unneeded(needed.size());
  for (size_t j = 0; j < needed.size(); ++j) unneeded[j] = !needed[j];
  const std::vector<std::string> names = names_of(kase, unneeded);
  if (names.empty()) return;
  if (r.keep_if_same(with_steps(r.best, needed))) {
    r.removed.push_back("steps " + joined(names) + ": the failing step `" +
                        failing + "` does not read them");
  } else {
    r.kept.push_back("steps " + joined(names) + ": without them the case " +
                     r.last_outcome());
  }
}

// The failing step alone, reading the inputs of the steps it read in place
// of their outputs (a step that fails on its own).
void replace_read_steps(Reduction& r, const std::string& failing) {
  const Case& kase = r.best.kase;
  const size_t at = index_of_step(kase, failing);
  if (kase.steps.size() < 2 || at == kNone) return;
  ReduceState candidate = r.best;
  std::vector<std::string> replaced;
  for (StepInput& input : candidate.kase.steps[at].inputs) {
    if (source_step(kase, input.source) == kNone) continue;
    const std::string in = stand_in(kase, input.source);
    if (in.empty()) return;
    replaced.push_back("`" + input.source + "` by `" + in + "`");
    input.source = in;
  }
  if (replaced.empty()) return;  // it reads no step: drop_unneeded's case
  std::vector<bool> alone(kase.steps.size(), true);
  alone[at] = false;
  const std::vector<std::string> others = names_of(kase, alone);
  alone.flip();
  if (r.keep_if_same(with_steps(candidate, alone))) {
    r.removed.push_back(
        "steps " + joined(others) + ": the failing step `" + failing +
        "` fails the same way on their inputs (read " + joined(replaced) + ")");
  } else {
    r.kept.push_back("steps " + joined(others) + ": the failing step `" +
                     failing + "` needs their outputs (on their inputs, the " +
                     "case " + r.last_outcome() + ")");
  }
}

// The one step left as a one-op case: its inputs named by the arguments
// they bind (`self` as `input`).
void one_op_case(Reduction& r) {
  if (r.best.kase.steps.size() != 1) return;
  ReduceState candidate = r.best;
  const Step step = candidate.kase.steps.front();
  Case& kase = candidate.kase;
  std::vector<TensorSpec> inputs;
  std::vector<at::Tensor> values;
  std::vector<bool> changed;
  for (const StepInput& read : step.inputs) {
    size_t i = 0;
    while (i < kase.inputs.size() && kase.inputs[i].name != read.source) ++i;
    if (i == kase.inputs.size()) return;
    inputs.push_back(kase.inputs[i]);
    inputs.back().name = read.argument == "self" ? "input" : read.argument;
    values.push_back(candidate.values[i]);
    changed.push_back(candidate.changed[i]);
  }
  kase.op = step.op;
  kase.op_where = step.op_where;
  kase.args = step.args;
  kase.steps.clear();
  kase.step_outputs.clear();
  kase.inputs = std::move(inputs);
  candidate.values = std::move(values);
  candidate.changed = std::move(changed);
  if (r.keep_if_same(std::move(candidate))) {
    r.removed.push_back("`steps`: the step `" + step.name +
                        "` alone, as a one-op case of `" + step.op + "`");
  } else {
    r.kept.push_back("`steps` (the step `" + step.name +
                     "` alone): as a one-op case it " + r.last_outcome());
  }
}

}  // namespace

void reduce_steps(Reduction& r) {
  const std::string failing = r.failure().step;
  if (r.best.kase.steps.empty() || failing.empty() ||
      index_of_step(r.best.kase, failing) == kNone) {
    return;
  }
  drop_unneeded(r, failing);
  replace_read_steps(r, failing);
  one_op_case(r);
}

}  // namespace casebook::reducing
