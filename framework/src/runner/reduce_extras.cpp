// The passes of `casebook reduce` on what is not a tensor: `outputs`,
// `grad`, `repeat`, an expectation's counts, and arguments equal to their
// defaults (runner/reduce_passes.h).
#include <functional>

#include "casebook/joined.h"
#include "model/yaml_text.h"
#include "runner/reduce_passes.h"

namespace casebook::reducing {
namespace {

// Tries the case with `change` made (which says false where there is
// nothing to change): kept where it fails the same way.
void try_without(Reduction& r, const std::string& what,
                 const std::function<bool(Case&)>& change) {
  ReduceState candidate = r.best;
  if (!change(candidate.kase)) return;
  if (r.keep_if_same(std::move(candidate))) {
    r.removed.push_back(what + ": the failure holds without it");
  } else {
    r.kept.push_back(what + ": without it the case " + r.last_outcome());
  }
}

bool drop_outputs(Case& kase) {
  bool any = !kase.outputs.empty();
  kase.outputs.clear();
  for (auto& [backend, entries] : kase.expect_entries) {
    for (Expectation& entry : entries) {
      any = any || !entry.outputs.empty();
      entry.outputs.clear();
    }
  }
  for (auto& [backend, entry] : kase.expect) entry.outputs.clear();
  return any;
}

bool drop_counts(Case& kase) {
  bool any = false;
  auto drop = [&any](Expectation& entry) {
    any = any || entry.positions || entry.processed;
    entry.positions.reset();
    entry.processed.reset();
  };
  for (auto& [backend, entries] : kase.expect_entries) {
    for (Expectation& entry : entries) drop(entry);
  }
  for (auto& [backend, entry] : kase.expect) drop(entry);
  return any;
}

}  // namespace

void reduce_extras(Reduction& r) {
  try_without(r, "`outputs`", drop_outputs);
  try_without(r, "`grad`", [](Case& kase) {
    const bool any = kase.grad.has_value();
    kase.grad.reset();
    return any;
  });
  try_without(r, "`repeat`", [](Case& kase) {
    const bool any = kase.repeat > 1;
    kase.repeat = 1;
    kase.deterministic = Case::Determinism::kNone;
    return any;
  });
  try_without(r, "`positions` and `processed` of `expect`", drop_counts);
}

namespace {

// Whether two argument values are the same value: numbers by value (`0`
// and `0.0`), lists item by item.
bool same_value(const ArgValue& a, const ArgValue& b) {
  using Kind = ArgValue::Kind;
  const auto number = [](const ArgValue& v) {
    return v.kind == Kind::kInt ? static_cast<double>(v.int_value)
                                : v.float_value;
  };
  const auto numeric = [](Kind kind) {
    return kind == Kind::kInt || kind == Kind::kFloat;
  };
  if (numeric(a.kind) && numeric(b.kind)) return number(a) == number(b);
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Kind::kBool:
      return a.bool_value == b.bool_value;
    case Kind::kString:
      return a.string_value == b.string_value;
    case Kind::kList:
      if (a.list.size() != b.list.size()) return false;
      for (size_t i = 0; i < a.list.size(); ++i) {
        if (!same_value(a.list[i], b.list[i])) return false;
      }
      return true;
    case Kind::kNull:
      return true;
    default:
      return a.int_value == b.int_value;  // a generator's seed
  }
}

std::string arg_text(const std::string& name, const ArgValue& value) {
  return name + ": " + model::yaml_arg(value);
}

}  // namespace

void reduce_args(Reduction& r, const OpRegistry& registry) {
  if (!r.best.kase.steps.empty() || r.best.kase.args.empty()) return;
  const ResolvedOp op = resolve_op(r.best.kase, registry);
  if (op.def == nullptr) return;
  std::vector<std::string> defaults;
  std::vector<std::string> texts;
  for (const auto& [name, value] : r.best.kase.args) {
    const auto found = op.def->arg_defaults.find(name);
    if (found != op.def->arg_defaults.end() &&
        same_value(value, found->second)) {
      defaults.push_back(name);
      texts.push_back(arg_text(name, value));
    }
  }
  if (defaults.empty()) return;
  const std::string all = "args " + joined(texts) + " (their defaults)";
  try_without(r, all, [&defaults](Case& kase) {
    for (const std::string& name : defaults) kase.args.erase(name);
    return true;
  });
  if (defaults.size() == 1 || !r.best.kase.args.count(defaults.front())) {
    return;
  }
  r.kept.pop_back();  // said again one by one
  for (size_t i = 0; i < defaults.size(); ++i) {
    try_without(r, "arg " + texts[i] + " (its default)",
                [&](Case& kase) { return kase.args.erase(defaults[i]) > 0; });
  }
}

}  // namespace casebook::reducing
