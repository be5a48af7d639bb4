// label_limits: the limits of a class-index input. 0 and C-1 (match), C and
// -1 (the base case's error family on each backend, or the family declared
// in `errors`), ignore_index (match) and every label ignored (the op's
// documented outcome: NaN for a mean, 0 for a sum or per element).
#include <algorithm>

#include "casebook/joined.h"
#include "casebook/limits.h"
#include "model/neighbor_support.h"
#include "model/yaml_reader.h"

namespace casebook::model {
namespace {

// The labels a neighbour writes out: values of at most this many elements
// (a generated file stays a readable case, under the loader's limits).
constexpr int64_t kMostLabels = 65536;

struct LabelSite {
  std::string input;
  int64_t classes = 0;
  std::optional<int64_t> ignore;
  std::string reduction;  // mean, sum, none; "" unknown
};

std::optional<int64_t> int_arg(const Case& base, const std::string& name) {
  const auto found = base.args.find(name);
  if (found == base.args.end()) return std::nullopt;
  if (found->second.kind == ArgValue::Kind::kInt) {
    return found->second.int_value;
  }
  return std::nullopt;
}

std::string reduction_of(const Case& base) {
  const auto found = base.args.find("reduction");
  if (found == base.args.end()) return "mean";
  const ArgValue& value = found->second;
  if (value.kind == ArgValue::Kind::kString) return value.string_value;
  if (value.kind == ArgValue::Kind::kInt) {  // ATen's enum: 0 none, 1, 2
    switch (value.int_value) {
      case 0:
        return "none";
      case 1:
        return "mean";
      case 2:
        return "sum";
      default:
        break;
    }
  }
  return "";
}

// The class count C: declared, else the class input's dim.
std::string find_classes(const Case& base, const NeighborRule& rule,
                         const NeighborOpTraits* traits, int64_t* classes) {
  if (rule.classes) {
    *classes = *rule.classes;
    return "";
  }
  if (traits == nullptr || traits->class_inputs.empty()) {
    return "op `" + base.op +
           "` says nothing of its class count: give `classes:` (C)";
  }
  for (const std::string& name : traits->class_inputs) {
    const TensorSpec* input = find_input(base, name);
    if (input == nullptr) continue;
    if (!input->shape_given) {
      return "input `" + name +
             "` is a file without `shape`, so its class count is not known "
             "here: give `classes:` (C)";
    }
    if (input->shape.empty()) {
      return "input `" + name +
             "` is 0-dimensional: it has no class dim; give "
             "`classes:` (C)";
    }
    const size_t dim =
        input->shape.size() >= 2 ? static_cast<size_t>(traits->class_dim) : 0;
    *classes = input->shape[dim];
    return "";
  }
  return "the case has none of the inputs op `" + base.op +
         "` takes its class count from (" + joined(traits->class_inputs) +
         "): give `classes:` (C)";
}

std::string find_site(const Case& base, const NeighborRule& rule,
                      LabelSite* site) {
  const NeighborOpTraits* traits = neighbor_op_traits(base.op);
  site->input = !rule.input.empty()
                    ? rule.input
                    : (traits != nullptr ? traits->index_input : "");
  if (site->input.empty()) {
    return "op `" + base.op +
           "` has no class-index input that casebook knows of: name it with "
           "`input:` and give `classes:` (C)";
  }
  const TensorSpec* labels = find_input(base, site->input);
  if (labels == nullptr) {
    return "the case has no input `" + site->input +
           "` (its inputs: " + input_names(base) + ")";
  }
  if (is_floating(labels->dtype) || labels->dtype == DType::kBool) {
    return "input `" + site->input + "` is " +
           std::string(dtype_name(labels->dtype)) +
           ": class indices are integers";
  }
  if (!labels->shape_given) {
    return "input `" + site->input +
           "` is a file without `shape`: its labels cannot be rewritten";
  }
  const auto count =
      static_cast<int64_t>(casebook::element_count(labels->shape));
  if (count == 0 || count > kMostLabels) {
    return "input `" + site->input + "` holds " + std::to_string(count) +
           " labels; the rule rewrites them, and needs 1 to " +
           std::to_string(kMostLabels);
  }
  if (std::string why = find_classes(base, rule, traits, &site->classes);
      !why.empty()) {
    return why;
  }
  if (site->classes < 1) return "the class count C is 0: no label is valid";
  if (rule.ignore_index_given) {
    site->ignore = rule.ignore_index;
  } else if (traits != nullptr && traits->ignore_index) {
    site->ignore = int_arg(base, "ignore_index").value_or(-100);
  }
  if (site->ignore && *site->ignore >= 0 && *site->ignore < site->classes) {
    site->ignore.reset();  // a valid class that is ignored: no limit of its own
  }
  site->reduction =
      traits != nullptr && traits->reduction ? reduction_of(base) : "";
  return "";
}

// The base's labels made valid (each outside [0, C) and not ignored taken
// modulo C); labels from a fill or a file become 0, 1, ..., C-1, 0, ...
std::vector<int64_t> valid_labels(const TensorSpec& labels,
                                  const LabelSite& site) {
  const auto count =
      static_cast<int64_t>(casebook::element_count(labels.shape));
  // Labels the dtype holds (int8 holds no class past 127).
  const int64_t spread =
      std::min(site.classes - 1, integer_range(labels.dtype).second) + 1;
  std::vector<int64_t> out(count);
  for (int64_t i = 0; i < count; ++i) {
    int64_t value = labels.source == TensorSpec::Source::kValues
                        ? labels.int_values[i]
                        : i % spread;
    const bool ignored = site.ignore && value == *site.ignore;
    if (!ignored && (value < 0 || value >= site.classes)) {
      value = ((value % spread) + spread) % spread;
    }
    out[i] = value;
  }
  return out;
}

Neighbor with_labels(const Case& base, const LabelSite& site,
                     const std::string& param, const std::string& change,
                     std::vector<int64_t> values) {
  Neighbor neighbor = start_neighbor(base, "label_limits", param, change);
  TensorSpec& labels = *find_input(neighbor.value, site.input);
  labels.source = TensorSpec::Source::kValues;
  labels.int_values = std::move(values);
  labels.float_values.clear();
  labels.file.clear();
  labels.resolved_file.clear();
  labels.file_tensor.clear();
  labels.sha256.clear();
  labels.seed = 0;
  return neighbor;
}

// C and -1: the family the base case expects on each backend, or the one
// declared in `errors`.
void expect_errors(Neighbor& neighbor, const Case& base,
                   const NeighborRule& rule) {
  Case& kase = neighbor.value;
  kase.outputs.clear();
  kase.expect_entries.clear();
  for (Backend backend : base.backends) {
    const std::string name(backend_name(backend));
    if (const auto declared = rule.errors.find(backend);
        declared != rule.errors.end()) {
      Expectation error;
      error.kind = Expectation::Kind::kError;
      error.family = declared->second;
      error.where = rule.where;
      kase.expect_entries[backend] = {error};
      continue;
    }
    const auto written = base.expect_entries.find(backend);
    const std::string declare =
        ", so the family of a label outside [0, C) there is not known: "
        "declare it in `neighbors.label_limits.errors." +
        name + "`";
    if (written == base.expect_entries.end()) {
      cannot_derive(neighbor, backend,
                    "the base case expects a match on " + name + declare);
      continue;
    }
    std::vector<Expectation> entries;
    for (const Expectation& entry : written->second) {
      if (entry.kind == Expectation::Kind::kError ||
          entry.kind == Expectation::Kind::kSkip) {
        Expectation copy = entry;
        copy.message.reset();  // written for the base's label
        copy.positions.reset();
        copy.outputs.clear();
        entries.push_back(copy);
        continue;
      }
      entries.clear();
      cannot_derive(neighbor, backend,
                    "the base case expects " + describe_expectation(entry) +
                        " on " + name + declare);
      break;
    }
    if (!entries.empty()) kase.expect_entries[backend] = entries;
  }
}

// Every label ignored: the op's documented outcome for its reduction.
void expect_all_ignored(Neighbor& neighbor, const Case& base,
                        const LabelSite& site) {
  expect_match(neighbor, base);
  OutputExpectation output;
  output.key = "0";
  output.index = 0;
  output.where = neighbor.value.op_where;
  if (site.reduction == "mean") {
    output.all_nan = true;  // 0 / 0
    neighbor.value.equal_nan = true;
  } else if (site.reduction == "sum" || site.reduction == "none") {
    output.min = 0.0;
    output.max = 0.0;
  } else {
    for (Backend backend : base.backends) {
      cannot_derive(neighbor, backend,
                    "the op's outcome when every label is ignored is known "
                    "for the reductions mean, sum and none only");
    }
    return;
  }
  neighbor.value.outputs = {output};
}

}  // namespace

RuleResult label_limits_rule(const Case& base, const NeighborRule& rule) {
  LabelSite site;
  if (std::string why = find_site(base, rule, &site); !why.empty()) {
    return rule_error(why);
  }
  const TensorSpec& labels = *find_input(base, site.input);
  // Not a structured binding: a lambda below uses both (C++17).
  const std::pair<int64_t, int64_t> range = integer_range(labels.dtype);
  const int64_t lowest = range.first;
  const int64_t highest = range.second;
  const std::vector<int64_t> valid = valid_labels(labels, site);
  const std::string c = std::to_string(site.classes);
  const std::string at = site.input + "[0] = ";
  RuleResult result;
  auto one = [&](const std::string& param, int64_t value,
                 const std::string& what) {
    if (value < lowest || value > highest)
      return static_cast<Neighbor*>(nullptr);
    std::vector<int64_t> values = valid;
    values[0] = value;
    result.made.push_back(
        with_labels(base, site, param,
                    at + std::to_string(value) + " (" + what + ")", values));
    return &result.made.back();
  };
  if (Neighbor* n = one("0", 0, "the lowest class")) expect_match(*n, base);
  if (Neighbor* n = one("C-1", site.classes - 1, "the highest of " + c)) {
    expect_match(*n, base);
  }
  if (Neighbor* n = one("C", site.classes, "one past the " + c + " classes")) {
    expect_errors(*n, base, rule);
  }
  if (!site.ignore || *site.ignore != -1) {
    if (Neighbor* n = one("-1", -1, "below the lowest class")) {
      expect_errors(*n, base, rule);
    }
  }
  if (site.ignore) {
    if (Neighbor* n = one("ignore_index", *site.ignore, "ignored")) {
      expect_match(*n, base);
    }
    if (*site.ignore >= lowest && *site.ignore <= highest) {
      result.made.push_back(
          with_labels(base, site, "all_ignored",
                      "every " + site.input + " = " +
                          std::to_string(*site.ignore) + " (ignored)",
                      std::vector<int64_t>(valid.size(), *site.ignore)));
      expect_all_ignored(result.made.back(), base, site);
    }
  }
  return result;
}

}  // namespace casebook::model
