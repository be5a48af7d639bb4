// The expected outcome of a generated neighbour: what its rule implies from
// the base case's expectations, or, where nothing can be implied, an
// expectation that says so (its run is then an ERROR with the reason).
#include <algorithm>

#include "casebook/number_text.h"
#include "model/neighbor_support.h"

namespace casebook::model {
namespace {

bool asserts_something(const OutputExpectation& output) {
  return output.values || output.finite || output.all_nan ||
         output.nan_positions || output.shape || output.dtype || output.min ||
         output.max;
}

// Drops what depended on the base's shapes or dtype; an entry left with
// nothing to assert goes.
void weaken(std::vector<OutputExpectation>* outputs, bool shape_changed,
            bool dtype_changed) {
  for (OutputExpectation& output : *outputs) {
    output.values.reset();
    if (shape_changed) {
      output.shape.reset();
      output.nan_positions.reset();
    }
    if (dtype_changed) {
      output.dtype.reset();
      output.tolerance.reset();
    }
  }
  outputs->erase(std::remove_if(outputs->begin(), outputs->end(),
                                [](const OutputExpectation& output) {
                                  return !asserts_something(output);
                                }),
                 outputs->end());
}

bool has_outputs(const Case& kase) {
  bool any = !kase.outputs.empty();
  for (const auto& [backend, entries] : kase.expect_entries) {
    for (const Expectation& entry : entries) {
      any = any || !entry.outputs.empty();
    }
  }
  return any;
}

// `reference: none` judges by outputs alone: without any left, nothing can.
void require_outputs_without_reference(Neighbor& neighbor) {
  if (neighbor.value.reference != Case::Reference::kNone ||
      has_outputs(neighbor.value)) {
    return;
  }
  for (Backend backend : neighbor.value.backends) {
    cannot_derive(neighbor, backend,
                  "the case has `reference: none` and the `outputs` it is "
                  "judged by describe the base case's values");
  }
}

}  // namespace

void cannot_derive(Neighbor& neighbor, Backend backend,
                   const std::string& why) {
  Expectation missing;
  missing.where = neighbor.value.op_where;
  missing.missing = "the expected outcome of " + neighbor.id + " on " +
                    std::string(backend_name(backend)) +
                    " cannot be derived: " + why;
  neighbor.value.expect_entries[backend] = {missing};
  const std::string line = std::string(backend_name(backend)) + ": " + why;
  if (neighbor.cannot_derive.find(line) == std::string::npos) {
    neighbor.cannot_derive +=
        (neighbor.cannot_derive.empty() ? "" : "; ") + line;
  }
}

std::string describe_expectation(const Expectation& expectation) {
  if (!expectation.missing.empty()) return "cannot derive";
  switch (expectation.kind) {
    case Expectation::Kind::kMatch:
      return "match";
    case Expectation::Kind::kError:
      return "error " + std::string(family_name(expectation.family));
    case Expectation::Kind::kXfail:
      return "xfail";
    case Expectation::Kind::kSkip:
      return "skip";
  }
  return "match";
}

void expect_as_resized(Neighbor& neighbor, const Case& base) {
  Case& kase = neighbor.value;
  weaken(&kase.outputs, true, false);
  for (auto& [backend, entries] : kase.expect_entries) {
    for (Expectation& entry : entries) {
      if (entry.kind == Expectation::Kind::kError ||
          entry.kind == Expectation::Kind::kXfail) {
        cannot_derive(neighbor, backend,
                      "the base case expects " + describe_expectation(entry) +
                          " there, and whether the resized inputs still hold "
                          "what fails is not known");
        break;
      }
      weaken(&entry.outputs, true, false);
    }
  }
  (void)base;
  require_outputs_without_reference(neighbor);
}

void expect_as_recast(Neighbor& neighbor, const Case& base) {
  Case& kase = neighbor.value;
  kase.tolerance.reset();  // the new dtype's default; equal_nan stays
  weaken(&kase.outputs, false, true);
  for (auto& [backend, entries] : kase.expect_entries) {
    for (Expectation& entry : entries) weaken(&entry.outputs, false, true);
  }
  expect_known_bugs_unknown(neighbor, "its dtype");
  (void)base;
  require_outputs_without_reference(neighbor);
}

void expect_known_bugs_unknown(Neighbor& neighbor, const std::string& what) {
  // Copied: cannot_derive replaces the entries it marks.
  const auto written = neighbor.value.expect_entries;
  for (const auto& [backend, entries] : written) {
    for (const Expectation& entry : entries) {
      if (entry.kind != Expectation::Kind::kXfail) continue;
      cannot_derive(neighbor, backend,
                    "the base case expects a known bug there (xfail: " +
                        entry.reason + "), which may depend on " + what);
      break;
    }
  }
}

void expect_match(Neighbor& neighbor, const Case& base) {
  Case& kase = neighbor.value;
  kase.outputs.clear();
  kase.expect_entries.clear();
  for (const auto& [backend, entries] : base.expect_entries) {
    for (const Expectation& entry : entries) {
      if (entry.kind != Expectation::Kind::kSkip) continue;
      kase.expect_entries[backend].push_back(entry);
    }
  }
  require_outputs_without_reference(neighbor);
}

}  // namespace casebook::model

namespace casebook {

std::string describe_expected(const Case& kase) {
  std::vector<std::pair<Backend, std::string>> per_backend;
  for (Backend backend : kase.backends) {
    std::string text;
    auto found = kase.expect_entries.find(backend);
    if (found == kase.expect_entries.end() || found->second.empty()) {
      text = "match";
    } else {
      for (const Expectation& entry : found->second) {
        if (!text.empty()) text += " | ";
        text += model::describe_expectation(entry);
        if (!entry.when.empty()) text += " (when ...)";
      }
      const Expectation& last = found->second.back();
      if (!last.when.empty()) text += " | match";
    }
    per_backend.emplace_back(backend, text);
  }
  std::string outputs;
  for (const OutputExpectation& output : kase.outputs) {
    std::string what;
    if (output.values) what += " values";
    if (output.all_nan) what += " nan";
    if (output.finite) what += " finite";
    if (output.min) what += " min " + number_text(*output.min);
    if (output.max) what += " max " + number_text(*output.max);
    if (output.dtype)
      what += " dtype " + std::string(dtype_name(*output.dtype));
    if (!what.empty()) outputs += "; outputs " + output.key + ":" + what;
  }
  const bool same = std::all_of(
      per_backend.begin(), per_backend.end(),
      [&](const auto& each) { return each.second == per_backend[0].second; });
  std::string text;
  if (same && !per_backend.empty()) {
    text = per_backend[0].second;
  } else {
    for (const auto& [backend, each] : per_backend) {
      if (!text.empty()) text += "; ";
      text += std::string(backend_name(backend)) + ": " + each;
    }
  }
  return text + outputs;
}

}  // namespace casebook
