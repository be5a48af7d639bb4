#include "tensors/source.h"

#include <ATen/CPUGeneratorImpl.h>
#include <c10/util/accumulate.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "tensors/materialise.h"

namespace casebook {
namespace {

constexpr double kPi = 3.14159265358979323846;

struct IntRange {
  int64_t low;
  int64_t high;  // included
};

IntRange int_range(at::ScalarType type) {
  switch (type) {
    case at::kBool:
      return {0, 1};
    case at::kByte:
      return {0, 255};
    case at::kChar:
      return {-128, 127};
    case at::kShort:
      return {-32768, 32767};
    case at::kInt:
      return {std::numeric_limits<int32_t>::min(),
              std::numeric_limits<int32_t>::max()};
    default:
      return {std::numeric_limits<int64_t>::min(),
              std::numeric_limits<int64_t>::max()};
  }
}

// Integer values must be representable: a cast would wrap them silently.
void check_fits(const int64_t* data, int64_t count, at::ScalarType type) {
  const IntRange range = int_range(type);
  for (int64_t i = 0; i < count; ++i) {
    if (data[i] < range.low || data[i] > range.high) {
      throw std::invalid_argument(
          "value " + std::to_string(data[i]) + " at position " +
          std::to_string(i) + " does not fit " +
          std::string(c10::toString(type)) + " [" + std::to_string(range.low) +
          ", " + std::to_string(range.high) + "]");
    }
  }
}

at::Tensor from_ints(std::vector<int64_t> ints,
                     const std::vector<int64_t>& shape, at::ScalarType type) {
  check_fits(ints.data(), static_cast<int64_t>(ints.size()), type);
  at::Tensor tensor = at::empty(shape, at::kLong);
  std::copy(ints.begin(), ints.end(), tensor.data_ptr<int64_t>());
  return tensor.to(type);
}

// A double that must be an exact integer for an integer dtype.
int64_t exact_int(double value, const char* what) {
  if (!std::isfinite(value) || std::nearbyint(value) != value ||
      std::fabs(value) > 9.2e18) {
    throw std::invalid_argument(std::string(what) + " " +
                                std::to_string(value) +
                                " is not an integer, as the dtype needs");
  }
  return static_cast<int64_t>(value);
}

// (0, 1] and [0, 1) from the top 53 bits of a raw draw.
double open_unit(uint64_t bits) {
  return (static_cast<double>(bits >> 11) + 1.0) * 0x1.0p-53;
}
double half_open_unit(uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

// A complex tensor of `shape` from its parts, re and im in turn (float64).
at::Tensor complex_from_parts(const std::vector<double>& parts,
                              const std::vector<int64_t>& shape,
                              at::ScalarType type) {
  std::vector<int64_t> with_pair = shape;
  with_pair.push_back(2);
  at::Tensor tensor = at::empty(with_pair, at::kDouble);
  std::copy(parts.begin(), parts.end(), tensor.data_ptr<double>());
  return at::view_as_complex(tensor).to(type);
}

}  // namespace

at::Tensor values_tensor(const TensorSpec& spec) {
  const at::ScalarType type = to_scalar_type(spec.dtype);
  const int64_t numel = c10::multiply_integers(spec.shape);
  if (at::isComplexType(type)) {
    // float_values holds re and im of each element (casebook/case.h).
    if (static_cast<int64_t>(spec.float_values.size()) != 2 * numel) {
      throw std::invalid_argument(
          "`values` holds " + std::to_string(spec.float_values.size() / 2) +
          " complex numbers, the shape needs " + std::to_string(numel));
    }
    return complex_from_parts(spec.float_values, spec.shape, type);
  }
  const bool ints = spec.float_values.empty() && !spec.int_values.empty();
  const auto count = static_cast<int64_t>(ints ? spec.int_values.size()
                                               : spec.float_values.size());
  if (count != numel) {
    throw std::invalid_argument("`values` holds " + std::to_string(count) +
                                " numbers, the shape needs " +
                                std::to_string(numel));
  }
  if (ints) return from_ints(spec.int_values, spec.shape, type);
  if (at::isFloatingType(type)) {
    at::Tensor tensor = at::empty(spec.shape, at::kDouble);
    std::copy(spec.float_values.begin(), spec.float_values.end(),
              tensor.data_ptr<double>());
    return tensor.to(type);
  }
  std::vector<int64_t> converted;
  converted.reserve(spec.float_values.size());
  for (double value : spec.float_values) {
    converted.push_back(exact_int(value, "value"));
  }
  return from_ints(std::move(converted), spec.shape, type);
}

namespace {

// fill.normal and fill.uniform: floating values drawn from the seed's stream.
at::Tensor random_floats(const Fill& fill, uint64_t seed,
                         const std::vector<int64_t>& shape,
                         at::ScalarType type) {
  const bool complex = at::isComplexType(type);
  if (!at::isFloatingType(type) && !complex) {
    throw std::invalid_argument(
        "fill.normal and fill.uniform make floating values; use randint "
        "for an integer dtype");
  }
  if (fill.kind == Fill::Kind::kNormal && !(fill.second >= 0)) {
    throw std::invalid_argument("fill.normal.std must be >= 0");
  }
  if (fill.kind == Fill::Kind::kUniform && !(fill.first <= fill.second)) {
    throw std::invalid_argument("fill.uniform: low must be <= high");
  }
  at::Generator generator = at::detail::createCPUGenerator(seed);
  auto* engine = generator.get<at::CPUGeneratorImpl>();
  // A complex element draws its re, then its im, each as a real one.
  const int64_t numel = c10::multiply_integers(shape);
  const int64_t draws = complex ? 2 * numel : numel;
  std::vector<int64_t> drawn_shape = shape;
  if (complex) drawn_shape.push_back(2);
  at::Tensor tensor = at::empty(drawn_shape, at::kDouble);
  double* out = tensor.data_ptr<double>();
  for (int64_t i = 0; i < draws; ++i) {
    if (fill.kind == Fill::Kind::kUniform) {
      const double u = half_open_unit(engine->random64());
      out[i] = fill.first + (fill.second - fill.first) * u;
    } else {  // Box-Muller, one value per pair of draws.
      const double radius =
          std::sqrt(-2.0 * std::log(open_unit(engine->random64())));
      const double angle = 2.0 * kPi * half_open_unit(engine->random64());
      out[i] = fill.first + fill.second * radius * std::cos(angle);
    }
  }
  return complex ? at::view_as_complex(tensor).to(type) : tensor.to(type);
}

// fill.randint: integers in [low, high) from the seed's stream.
at::Tensor random_ints(const Fill& fill, uint64_t seed,
                       const std::vector<int64_t>& shape, at::ScalarType type) {
  const int64_t low = exact_int(fill.first, "fill.randint.low");
  const int64_t high = exact_int(fill.second, "fill.randint.high");
  if (high <= low) {
    throw std::invalid_argument(
        "fill.randint: high (excluded) must be > "
        "low, got low " +
        std::to_string(low) + ", high " + std::to_string(high));
  }
  at::Generator generator = at::detail::createCPUGenerator(seed);
  auto* engine = generator.get<at::CPUGeneratorImpl>();
  const auto span = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  std::vector<int64_t> ints(c10::multiply_integers(shape));
  for (int64_t& value : ints) {
    value = static_cast<int64_t>(static_cast<uint64_t>(low) +
                                 engine->random64() % span);
  }
  if (at::isFloatingType(type) || at::isComplexType(type)) {
    at::Tensor as_long = at::empty(shape, at::kLong);
    std::copy(ints.begin(), ints.end(), as_long.data_ptr<int64_t>());
    return as_long.to(at::kDouble).to(type);
  }
  return from_ints(std::move(ints), shape, type);
}

// fill.arange (first + i * step) and fill.full (first everywhere; a complex
// one's im is `second`).
at::Tensor sequence(const Fill& fill, const std::vector<int64_t>& shape,
                    at::ScalarType type) {
  const int64_t numel = c10::multiply_integers(shape);
  const bool arange = fill.kind == Fill::Kind::kArange;
  if (!at::isFloatingType(type) && !at::isComplexType(type)) {
    const int64_t first =
        exact_int(fill.first, arange ? "fill.arange.start" : "fill.full");
    const int64_t step =
        arange ? exact_int(fill.second, "fill.arange.step") : 0;
    std::vector<int64_t> ints(numel);
    for (int64_t i = 0; i < numel; ++i) ints[i] = first + i * step;
    return from_ints(std::move(ints), shape, type);
  }
  auto real_at = [&](int64_t i) {
    return arange ? fill.first + static_cast<double>(i) * fill.second
                  : fill.first;
  };
  if (at::isComplexType(type)) {
    // arange: real values; full: re `first`, im `second`.
    std::vector<double> parts(2 * numel, 0.0);
    for (int64_t i = 0; i < numel; ++i) {
      parts[2 * i] = real_at(i);
      if (!arange) parts[2 * i + 1] = fill.second;
    }
    return complex_from_parts(parts, shape, type);
  }
  at::Tensor tensor = at::empty(shape, at::kDouble);
  double* out = tensor.data_ptr<double>();
  for (int64_t i = 0; i < numel; ++i) out[i] = real_at(i);
  return tensor.to(type);
}

}  // namespace

at::Tensor fill_tensor(const Fill& fill, uint64_t seed,
                       const std::vector<int64_t>& shape, at::ScalarType type) {
  switch (fill.kind) {
    case Fill::Kind::kTorch:
      return torch_fill_tensor(fill, seed, shape, type);
    case Fill::Kind::kNormal:
    case Fill::Kind::kUniform:
      return random_floats(fill, seed, shape, type);
    case Fill::Kind::kRandint:
      return random_ints(fill, seed, shape, type);
    case Fill::Kind::kArange:
    case Fill::Kind::kFull:
      return sequence(fill, shape, type);
  }
  throw std::logic_error("internal error: unknown fill kind");
}

}  // namespace casebook
