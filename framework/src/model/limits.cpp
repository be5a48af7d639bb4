#include "casebook/limits.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "casebook/printable.h"

namespace casebook {
namespace {

constexpr uint64_t kSaturated = std::numeric_limits<uint64_t>::max();

// `*limit` from the environment variable `name`, where it is set and reads.
void from_variable(const char* name, uint64_t* limit) {
  if (const char* text = std::getenv(name)) {
    if (auto value = parse_byte_count(text)) *limit = *value;
  }
}

LoadLimits from_environment() {
  LoadLimits limits;
  from_variable("CASEBOOK_MAX_TENSOR_BYTES", &limits.max_tensor_bytes);
  from_variable("CASEBOOK_MAX_TENSOR_ELEMENTS", &limits.max_tensor_elements);
  from_variable("CASEBOOK_MAX_OUTPUT_BYTES", &limits.max_output_bytes);
  from_variable("CASEBOOK_MAX_OUTPUT_ELEMENTS", &limits.max_output_elements);
  from_variable("CASEBOOK_MAX_EVIDENCE_BYTES", &limits.max_evidence_bytes);
  from_variable("CASEBOOK_MAX_EVIDENCE_TOTAL_BYTES",
                &limits.max_evidence_total_bytes);
  return limits;
}

// What a size check refuses: `noun` ("tensor", "output") with its limits
// and the variables that set them.
struct SizeRule {
  const char* noun;
  uint64_t max_bytes;
  const char* bytes_variable;
  uint64_t max_elements;
  const char* elements_variable;
  const char* when;  // when it is refused, or ""
};

std::optional<std::string> check_size(const SizeRule& rule, uint64_t elements,
                                      size_t element_bytes,
                                      const std::string& dtype_name) {
  const long double bytes = static_cast<long double>(elements) *
                            static_cast<long double>(element_bytes);
  const std::string what =
      std::string(rule.noun[0] == 'o' ? "an " : "a ") + rule.noun + " of " +
      (elements == kSaturated ? std::string("more than 2^64")
                              : std::to_string(elements)) +
      " elements of " + dtype_name + " (" + format_bytes(bytes) + ")";
  const std::string advice =
      (*rule.when != '\0' ? std::string("; refused ") + rule.when : "") +
      ". A case needs the smallest tensor that still fails";
  if (bytes > static_cast<long double>(rule.max_bytes)) {
    return what + " is over the limit of " + format_bytes(rule.max_bytes) +
           " per " + rule.noun + " (" + rule.bytes_variable + ")" + advice;
  }
  if (elements > rule.max_elements) {
    return what + " is over the limit of " + std::to_string(rule.max_elements) +
           " elements per " + rule.noun + " (" + rule.elements_variable + ")" +
           advice;
  }
  return std::nullopt;
}

// Every variable that sets a limit, each read by parse_byte_count: the load
// limits here, the child's memory in process/child_limits.cpp (> 0).
constexpr const char* kLimitVariables[] = {
    "CASEBOOK_MAX_TENSOR_BYTES", "CASEBOOK_MAX_TENSOR_ELEMENTS",
    "CASEBOOK_MAX_OUTPUT_BYTES", "CASEBOOK_MAX_OUTPUT_ELEMENTS",
    "CASEBOOK_CHILD_MEMORY"};

LoadLimits& current() {
  static LoadLimits limits = from_environment();
  return limits;
}

}  // namespace

const LoadLimits& load_limits() { return current(); }

void set_load_limits(const LoadLimits& limits) { current() = limits; }

std::vector<std::string> limit_variable_errors() {
  std::vector<std::string> errors;
  for (const char* variable : kLimitVariables) {
    const char* text = std::getenv(variable);
    if (text == nullptr) continue;
    const std::string name = variable;
    const bool budget = name == "CASEBOOK_CHILD_MEMORY";
    const std::optional<uint64_t> value = parse_byte_count(text);
    if (value && (!budget || *value > 0)) continue;
    errors.push_back(
        name + ": expected a whole number" + (budget ? " > 0" : "") +
        ", alone or with K, M, G or T (powers of 1024: 8G, 512M, 512MiB); "
        "got `" +
        printable_line(bounded_text(text, 64)) + "`");
  }
  return errors;
}

std::optional<uint64_t> parse_byte_count(const std::string& text) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) {
    return std::nullopt;
  }
  uint64_t value = 0;
  size_t i = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]));
       ++i) {
    const uint64_t digit = static_cast<uint64_t>(text[i] - '0');
    if (value > (kSaturated - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  int shift = 0;
  if (i < text.size()) {
    std::string suffix = text.substr(i);
    for (char& c : suffix) c = static_cast<char>(std::toupper(c));
    const char unit = suffix[0];
    const std::string rest = suffix.substr(1);
    if (rest != "" && rest != "B" && rest != "IB") return std::nullopt;
    switch (unit) {
      case 'K':
        shift = 10;
        break;
      case 'M':
        shift = 20;
        break;
      case 'G':
        shift = 30;
        break;
      case 'T':
        shift = 40;
        break;
      default:
        return std::nullopt;
    }
  }
  if (shift > 0 && value > (kSaturated >> shift)) return std::nullopt;
  return value << shift;
}

std::string format_bytes(long double bytes) {
  static const char* const kUnits[] = {"bytes", "KiB", "MiB", "GiB",
                                       "TiB",   "PiB", "EiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 6) {
    bytes /= 1024;
    ++unit;
  }
  char text[64];
  if (unit == 0) {
    std::snprintf(text, sizeof text, "%.0Lf bytes", bytes);
  } else if (bytes == static_cast<long double>(static_cast<uint64_t>(bytes))) {
    std::snprintf(text, sizeof text, "%.0Lf %s", bytes, kUnits[unit]);
  } else {
    std::snprintf(text, sizeof text, "%.1Lf %s", bytes, kUnits[unit]);
  }
  return text;
}

size_t element_size(DType dtype) {
  switch (dtype) {
    case DType::kBool:
    case DType::kUInt8:
    case DType::kInt8:
      return 1;
    case DType::kInt16:
    case DType::kFloat16:
    case DType::kBFloat16:
      return 2;
    case DType::kInt32:
    case DType::kFloat32:
      return 4;
    case DType::kComplex128:
      return 16;
    default:
      return 8;
  }
}

uint64_t element_count(const std::vector<int64_t>& shape) {
  uint64_t count = 1;
  for (const int64_t size : shape) {
    if (size == 0) return 0;
  }
  for (const int64_t size : shape) {
    if (size < 0 ||
        __builtin_mul_overflow(count, static_cast<uint64_t>(size), &count)) {
      return kSaturated;
    }
  }
  return count;
}

std::optional<std::string> check_tensor_size(uint64_t storage_elements,
                                             size_t element_bytes,
                                             const std::string& dtype_name) {
  const LoadLimits& limits = load_limits();
  return check_size(
      {"tensor", limits.max_tensor_bytes, "CASEBOOK_MAX_TENSOR_BYTES",
       limits.max_tensor_elements, "CASEBOOK_MAX_TENSOR_ELEMENTS",
       "before anything is allocated"},
      storage_elements, element_bytes, dtype_name);
}

std::optional<std::string> check_output_size(uint64_t elements,
                                             size_t element_bytes,
                                             const std::string& dtype_name) {
  const LoadLimits& limits = load_limits();
  return check_size(
      {"output", limits.max_output_bytes, "CASEBOOK_MAX_OUTPUT_BYTES",
       limits.max_output_elements, "CASEBOOK_MAX_OUTPUT_ELEMENTS", ""},
      elements, element_bytes, dtype_name);
}

}  // namespace casebook
