#include "casebook/case.h"

#include <algorithm>
#include <array>

namespace casebook {
namespace {

constexpr std::array<std::pair<DType, std::string_view>, 12> kDTypeNames{{
    {DType::kBool, "bool"},
    {DType::kUInt8, "uint8"},
    {DType::kInt8, "int8"},
    {DType::kInt16, "int16"},
    {DType::kInt32, "int32"},
    {DType::kInt64, "int64"},
    {DType::kFloat16, "float16"},
    {DType::kBFloat16, "bfloat16"},
    {DType::kFloat32, "float32"},
    {DType::kFloat64, "float64"},
    {DType::kComplex64, "complex64"},
    {DType::kComplex128, "complex128"},
}};

}  // namespace

std::string_view dtype_name(DType dtype) {
  for (const auto& [value, name] : kDTypeNames) {
    if (value == dtype) return name;
  }
  return "unknown";
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (const auto& [value, spelling] : kDTypeNames) {
    if (spelling == name) return value;
  }
  return std::nullopt;
}

const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> dtypes = [] {
    std::vector<DType> out;
    out.reserve(kDTypeNames.size());
    for (const auto& entry : kDTypeNames) out.push_back(entry.first);
    return out;
  }();
  return dtypes;
}

bool is_floating(DType dtype) {
  return dtype == DType::kFloat16 || dtype == DType::kBFloat16 ||
         dtype == DType::kFloat32 || dtype == DType::kFloat64;
}

bool is_complex(DType dtype) {
  return dtype == DType::kComplex64 || dtype == DType::kComplex128;
}

DType part_dtype(DType dtype) {
  if (dtype == DType::kComplex64) return DType::kFloat32;
  if (dtype == DType::kComplex128) return DType::kFloat64;
  return dtype;
}

// torch.testing.assert_close's defaults (case-format.md, "Default
// tolerances").
Tolerance default_tolerance(DType dtype) {
  switch (dtype) {
    case DType::kFloat16:
      return {1e-3, 1e-5, false};
    case DType::kBFloat16:
      return {1.6e-2, 1e-5, false};
    case DType::kFloat32:
    case DType::kComplex64:  // those of its parts, as torch.testing
      return {1.3e-6, 1e-5, false};
    case DType::kFloat64:
    case DType::kComplex128:
      return {1e-7, 1e-7, false};
    default:
      return {0.0, 0.0, false};
  }
}

std::optional<size_t> alias_target(const std::vector<TensorSpec>& inputs,
                                   size_t i) {
  const std::string& target = inputs.at(i).same_as;
  if (target.empty()) return std::nullopt;
  for (size_t j = 0; j < inputs.size(); ++j) {
    if (j != i && inputs[j].name == target) return j;
  }
  return std::nullopt;
}

void follow_aliases(std::vector<TensorSpec>& inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::optional<size_t> target = alias_target(inputs, i);
    if (!target) continue;
    TensorSpec copy = inputs[*target];
    copy.name = std::move(inputs[i].name);
    copy.where = inputs[i].where;
    copy.same_as = std::move(inputs[i].same_as);
    inputs[i] = std::move(copy);
  }
}

Expectation Case::expectation(Backend backend) const {
  const auto found = expect.find(backend);
  if (found != expect.end()) return found->second;
  return Expectation{};
}

bool Case::runs_on(Backend backend) const {
  return std::find(backends.begin(), backends.end(), backend) != backends.end();
}

Tolerance tolerance_in_force(const ToleranceRule& rule,
                             const OutputExpectation* entry,
                             std::optional<DType> output) {
  const bool own = entry != nullptr && entry->tolerance.has_value();
  Tolerance held = own            ? *entry->tolerance
                   : rule.written ? *rule.written
                   : output       ? default_tolerance(*output)
                                  : Tolerance{};
  held.equal_nan = held.equal_nan || rule.equal_nan;
  if (entry != nullptr && entry->equal_nan) held.equal_nan = *entry->equal_nan;
  return held;
}

std::vector<ToleranceRule> Case::reference_rules(size_t count,
                                                 Backend backend) const {
  std::vector<ToleranceRule> rules(count, tolerance_rule());
  for (const OutputExpectation& entry : outputs_for(backend)) {
    if (entry.index && *entry.index < count &&
        (entry.all_nan || entry.nan_positions)) {
      rules[*entry.index].equal_nan = true;
    }
  }
  return rules;
}

Tolerance Case::tolerance_for(DType output) const {
  return tolerance_in_force(tolerance_rule(), nullptr, output);
}

std::vector<OutputExpectation> Case::outputs_for(Backend backend) const {
  std::vector<OutputExpectation> result = outputs;
  for (const OutputExpectation& own : expectation(backend).outputs) {
    bool replaced = false;
    for (OutputExpectation& entry : result) {
      if (entry.key == own.key) {
        entry = own;
        replaced = true;
      }
    }
    if (!replaced) result.push_back(own);
  }
  return result;
}

}  // namespace casebook
