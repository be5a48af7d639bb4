// `fill`: exactly one generator, its parameters checked against the dtype so
// that every backend sees the same valid numbers.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "casebook/joined.h"
#include "model/sections.h"

namespace casebook::model {
namespace {

const std::vector<std::string> kGenerators{"normal", "uniform", "randint",
                                           "arange", "full",    "torch"};

// `torch`: PyTorch's own calls, drawn with LibTorch's CPU generator.
const std::vector<std::string> kTorchCalls{
    "randn", "rand", "randint", "normal", "uniform", "bernoulli", "randperm"};

// A torch call's parameters, by name, in the order Fill keeps them.
std::vector<std::string> torch_parameters(const std::string& call) {
  if (call == "randint" || call == "uniform") return {"low", "high"};
  if (call == "normal") return {"mean", "std"};
  if (call == "bernoulli") return {"p"};
  return {};
}

// Fill parameters are doubles: integers beyond 2^53 would not stay exact.
constexpr int64_t kExactLimit = int64_t{1} << 53;

class FillReader {
 public:
  FillReader(Reader& reader, DType dtype) : reader_(reader), dtype_(dtype) {}

  std::optional<Fill> read(const Entry& generator, const std::string& path) {
    Fill fill;
    const std::string& name = generator.key;
    const bool integral = !is_floating(dtype_) && !is_complex(dtype_);
    if (name == "torch") return read_torch(generator, path);
    if ((name == "normal" || name == "uniform") && integral) {
      reader_.error(generator.key_node, path,
                    "`" + name + "` makes floating values; got dtype " +
                        std::string(dtype_name(dtype_)) +
                        " (use randint, arange or full)");
      return std::nullopt;
    }
    if (name == "full" && is_complex(dtype_)) {
      return read_complex_full(generator, path);
    }
    if (name == "full") {
      fill.kind = Fill::Kind::kFull;
      const auto value = number(generator.value, reader_.where(generator), path,
                                integral, /*finite=*/false);
      if (!value) return std::nullopt;
      fill.first = *value;
      return fill;
    }
    const std::vector<std::string> keys =
        name == "normal"   ? std::vector<std::string>{"mean", "std"}
        : name == "arange" ? std::vector<std::string>{"start", "step"}
                           : std::vector<std::string>{"low", "high"};
    const auto params =
        reader_.read_map(generator.value, reader_.where(generator), path, keys,
                         "a map {" + joined(keys) + "}");
    if (!params) return std::nullopt;
    const bool need_integers = name == "randint" || integral;
    // randint's high is excluded: it may be one past the dtype's range.
    std::optional<double> first =
        param(*params, keys[0], generator, path, need_integers, false);
    std::optional<double> second = param(*params, keys[1], generator, path,
                                         need_integers, name == "randint");
    if (!first || !second) return std::nullopt;
    fill.first = *first;
    fill.second = *second;
    if (name == "normal") {
      fill.kind = Fill::Kind::kNormal;
      if (*second < 0) {
        return fail(*find_entry(*params, "std"), join_path(path, "std"),
                    "expected a standard deviation >= 0");
      }
    } else if (name == "arange") {
      fill.kind = Fill::Kind::kArange;
    } else {
      fill.kind =
          name == "uniform" ? Fill::Kind::kUniform : Fill::Kind::kRandint;
      if (!(*first < *second)) {
        return fail(*find_entry(*params, "high"), join_path(path, "high"),
                    "expected a value above low (" +
                        find_entry(*params, "low")->value.Scalar() + ")");
      }
    }
    return fill;
  }

 private:
  // `full` of a complex dtype: a number (im 0), `[re, im]` or `{re, im}`.
  std::optional<Fill> read_complex_full(const Entry& generator,
                                        const std::string& path) {
    Fill fill;
    fill.kind = Fill::Kind::kFull;
    const YAML::Node& value = generator.value;
    const std::string what =
        "a complex number: a pair [re, im], a map {re: .., im: ..} or a real "
        "number";
    std::vector<std::pair<YAML::Node, std::string>> parts;
    if (value.IsScalar()) {
      parts.emplace_back(value, path);
    } else if (value.IsSequence() && value.size() == 2) {
      parts.emplace_back(value[0], path + "[0]");
      parts.emplace_back(value[1], path + "[1]");
    } else if (value.IsMap()) {
      const size_t errors_before = reader_.error_count();
      const auto map = reader_.read_map(value, reader_.where(generator), path,
                                        {"re", "im"}, what);
      if (!map || reader_.error_count() != errors_before) return std::nullopt;
      for (const char* key : {"re", "im"}) {
        const Entry* part = find_entry(*map, key);
        if (part == nullptr) {
          reader_.error(reader_.where(generator), path,
                        "expected " + what + "; the map lacks `" + key + "`");
          return std::nullopt;
        }
        parts.emplace_back(part->value, join_path(path, key));
      }
    } else {
      reader_.error(reader_.where(generator), path,
                    "expected " + what + "; got " + describe(value));
      return std::nullopt;
    }
    std::vector<double> numbers;
    for (const auto& [node, part_path] : parts) {
      const auto number =
          reader_.read_number(node, reader_.where(node), part_path);
      if (!number) return std::nullopt;
      numbers.push_back(*number);
    }
    fill.first = numbers[0];
    fill.second = numbers.size() > 1 ? numbers[1] : 0.0;
    return fill;
  }

  // `torch: randn`, or `torch: {normal: {mean: 0, std: 2}}`.
  std::optional<Fill> read_torch(const Entry& generator,
                                 const std::string& path) {
    const std::optional<Entry> call = torch_call(generator, path);
    if (!call) return std::nullopt;
    Fill fill;
    fill.kind = Fill::Kind::kTorch;
    fill.torch_call = call->key;
    const std::string call_path = join_path(path, call->key);
    const bool integral = !is_floating(dtype_) && !is_complex(dtype_);
    if (integral && call->key != "randint" && call->key != "randperm") {
      reader_.error(reader_.where(generator), call_path,
                    "`" + call->key + "` makes floating values; got dtype " +
                        std::string(dtype_name(dtype_)) +
                        " (use randint or randperm)");
      return std::nullopt;
    }
    const std::vector<std::string> keys = torch_parameters(call->key);
    if (keys.empty()) {
      if (!takes_no_parameters(generator, *call, call_path)) {
        return std::nullopt;
      }
      return fill;
    }
    const auto params =
        reader_.read_map(call->value, reader_.where(*call), call_path, keys,
                         "a map {" + joined(keys) + "}");
    if (!params) return std::nullopt;
    const auto values = torch_values(*params, keys, *call, call_path);
    if (!values) return std::nullopt;
    fill.first = (*values)[0];
    if (values->size() > 1) fill.second = (*values)[1];
    return check_torch_values(*params, call->key, call_path, fill);
  }

  // The call a `torch` generator names: a scalar (a call without
  // parameters) or a map of exactly one call to its parameters.
  std::optional<Entry> torch_call(const Entry& generator,
                                  const std::string& path) {
    const std::string what = "a PyTorch call: one of " + joined(kTorchCalls) +
                             ", or a map {call: {parameters}}";
    if (generator.value.IsScalar()) {
      const std::string name = generator.value.Scalar();
      if (std::find(kTorchCalls.begin(), kTorchCalls.end(), name) ==
          kTorchCalls.end()) {
        reader_.error(
            reader_.where(generator), path,
            "expected " + what + "; got " + describe(generator.value));
        return std::nullopt;
      }
      return Entry{name, generator.value, YAML::Node()};
    }
    const auto calls = reader_.read_map(
        generator.value, reader_.where(generator), path, kTorchCalls, what);
    if (!calls) return std::nullopt;
    if (calls->size() != 1) {
      if (!calls->empty() || generator.value.size() == 0) {
        reader_.error(reader_.where(generator), path,
                      "expected exactly one call of " + joined(kTorchCalls));
      }
      return std::nullopt;
    }
    return calls->front();
  }

  // A call without parameters (randn, rand, randperm) given some: false
  // after reporting them.
  bool takes_no_parameters(const Entry& generator, const Entry& call,
                           const std::string& call_path) {
    if (call.value.IsNull() || (call.value.IsMap() && call.value.size() == 0) ||
        generator.value.IsScalar()) {
      return true;
    }
    reader_.error(
        reader_.where(call), call_path,
        "`" + call.key + "` takes no parameters; got " + describe(call.value));
    return false;
  }

  // The call's parameters, in `keys`' order: integers for randint, else
  // finite numbers.
  std::optional<std::vector<double>> torch_values(
      const std::vector<Entry>& params, const std::vector<std::string>& keys,
      const Entry& call, const std::string& call_path) {
    const bool need_integers = call.key == "randint";
    std::vector<double> values;
    for (const std::string& key : keys) {
      const Entry* entry = find_entry(params, key);
      if (entry == nullptr) {
        reader_.error(reader_.where(call), join_path(call_path, key),
                      "required key missing");
        return std::nullopt;
      }
      std::optional<double> value;
      if (need_integers) {
        value = number(entry->value, reader_.where(*entry),
                       join_path(call_path, key), true, true, key == "high");
      } else {
        value = reader_.read_number(entry->value, reader_.where(*entry),
                                    join_path(call_path, key));
        if (value && !std::isfinite(*value)) {
          fail(*entry, join_path(call_path, key), "expected a finite number");
          return std::nullopt;
        }
      }
      if (!value) return std::nullopt;
      values.push_back(*value);
    }
    return values;
  }

  // The parameters' ranges: bernoulli's probability, normal's deviation,
  // and low below high.
  std::optional<Fill> check_torch_values(const std::vector<Entry>& params,
                                         const std::string& call,
                                         const std::string& call_path,
                                         const Fill& fill) {
    if (call == "bernoulli" && !(fill.first >= 0 && fill.first <= 1)) {
      return fail(*find_entry(params, "p"), join_path(call_path, "p"),
                  "expected a probability in [0, 1]");
    }
    if (call == "normal" && fill.second < 0) {
      return fail(*find_entry(params, "std"), join_path(call_path, "std"),
                  "expected a standard deviation >= 0");
    }
    if ((call == "randint" || call == "uniform") &&
        !(fill.first < fill.second)) {
      return fail(*find_entry(params, "high"), join_path(call_path, "high"),
                  "expected a value above low (" +
                      find_entry(params, "low")->value.Scalar() + ")");
    }
    return fill;
  }

  std::optional<Fill> fail(const Entry& entry, const std::string& path,
                           const std::string& expected) {
    reader_.error(reader_.where(entry), path,
                  expected + "; got " + describe(entry.value));
    return std::nullopt;
  }

  std::optional<double> param(const std::vector<Entry>& params,
                              const std::string& key, const Entry& generator,
                              const std::string& path, bool integer,
                              bool one_past) {
    const Entry* entry = find_entry(params, key);
    if (entry == nullptr) {
      reader_.error(reader_.where(generator), join_path(path, key),
                    "required key missing");
      return std::nullopt;
    }
    return number(entry->value, reader_.where(*entry), join_path(path, key),
                  integer, /*finite=*/true, one_past);
  }

  // A number for the dtype: integral dtypes (and randint) need integers
  // within the dtype's range, bool also takes true and false.
  std::optional<double> number(const YAML::Node& node, const SourceLocation& at,
                               const std::string& path, bool integer,
                               bool finite, bool one_past = false) {
    const Scalar scalar = resolve_scalar(node);
    if (dtype_ == DType::kBool && scalar.kind == Scalar::Kind::kBool) {
      return scalar.bool_value ? 1.0 : 0.0;
    }
    if (integer) {
      auto [low, high] = integer_range(dtype_);
      low = std::max(low, -kExactLimit);
      high = std::min(high, kExactLimit - 1) + (one_past ? 1 : 0);
      if (scalar.kind == Scalar::Kind::kInt && !scalar.int_overflow &&
          scalar.int_value >= low && scalar.int_value <= high) {
        return static_cast<double>(scalar.int_value);
      }
      reader_.error(at, path,
                    "expected an integer in [" + std::to_string(low) + ", " +
                        std::to_string(high) + "] for " +
                        std::string(dtype_name(dtype_)) + "; got " +
                        describe(node));
      return std::nullopt;
    }
    const std::optional<double> value = reader_.read_number(node, at, path);
    if (value && finite && !std::isfinite(*value)) {
      reader_.error(at, path,
                    "expected a finite number; got " + describe(node));
      return std::nullopt;
    }
    return value;
  }

  Reader& reader_;
  DType dtype_;
};

}  // namespace

std::optional<Fill> read_fill(Reader& reader, const Entry& entry,
                              const std::string& path, DType dtype) {
  const size_t errors_before = reader.error_count();
  const auto generators = reader.read_map(
      entry.value, reader.where(entry), path, kGenerators,
      "a generator: {normal: {mean, std}}, {uniform: {low, high}}, "
      "{randint: {low, high}}, {arange: {start, step}}, {full: V} or "
      "{torch: CALL}");
  if (!generators) return std::nullopt;
  if (generators->size() != 1) {
    if (reader.error_count() == errors_before) {
      std::vector<std::string> given;
      for (const Entry& generator : *generators) {
        given.push_back("`" + generator.key + "`");
      }
      reader.error(reader.where(entry), path,
                   "expected exactly one generator of " + joined(kGenerators) +
                       "; got " + (given.empty() ? "none" : joined(given)));
    }
    return std::nullopt;
  }
  const Entry& generator = generators->front();
  return FillReader(reader, dtype)
      .read(generator, join_path(path, generator.key));
}

}  // namespace casebook::model
