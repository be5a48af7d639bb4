// The first check of a failure where its message says more than its family
// (issue 48): what `casebook diagnose` would conclude, read from the text
// casebook already has (LibTorch's "not implemented for 'Half'", the
// comparison's "shape differs ..."), without running anything more.
#include <re2/re2.h>

#include <optional>
#include <string>
#include <string_view>

#include "casebook/run_advice.h"

namespace casebook {
namespace {

// PyTorch's ScalarType names as its messages print them, and casebook's.
struct TorchDtypeName {
  std::string_view torch;
  std::string_view casebook;
  bool floating;
};

constexpr TorchDtypeName kTorchDtypeNames[] = {
    {"Half", "float16", true},
    {"BFloat16", "bfloat16", true},
    {"Float", "float32", true},
    {"Double", "float64", true},
    {"ComplexHalf", "complex32", false},
    {"ComplexFloat", "complex64", false},
    {"ComplexDouble", "complex128", false},
    {"Bool", "bool", false},
    {"Byte", "uint8", false},
    {"Char", "int8", false},
    {"Short", "int16", false},
    {"Int", "int32", false},
    {"Long", "int64", false},
};

const TorchDtypeName* torch_dtype(std::string_view name) {
  for (const TorchDtypeName& row : kTorchDtypeNames) {
    if (row.torch == name) return &row;
  }
  return nullptr;
}

// "on cpu", or "here" where the backend is not known.
std::string where(const FailureFacts& facts) {
  if (!facts.backend) return "here";
  return "on " + std::string(backend_name(*facts.backend));
}

// `"addmm_impl_cpu_" not implemented for 'Half'`: the kernel has no
// variant for that dtype (diagnose's float32 rerun then runs and matches).
std::optional<std::string> missing_dtype_kernel(const FailureFacts& facts) {
  static const RE2 pattern("\"([^\"]+)\" not implemented for '([A-Za-z0-9]+)'");
  std::string kernel;
  std::string torch;
  if (!RE2::PartialMatch(facts.message, pattern, &kernel, &torch)) {
    return std::nullopt;
  }
  const TorchDtypeName* dtype = torch_dtype(torch);
  const std::string name = dtype ? std::string(dtype->casebook) : torch;
  std::string text = "`" + kernel + "` has no " + name + " ('" + torch +
                     "') kernel " + where(facts) +
                     ": a kernel missing for this dtype, not a driver or "
                     "architecture fault. ";
  if (dtype && dtype->floating && dtype->casebook != "float32") {
    return text +
           "Rerun the case in float32 (`casebook diagnose` does) to "
           "see the op run there; then compute in a dtype the op has " +
           where(facts) + ", or where a " + name +
           " kernel exists (another backend, a newer LibTorch)";
  }
  return text + "Cast the inputs to a dtype the op has " + where(facts) +
         ", or run it where a " + name +
         " kernel exists (another backend, a newer LibTorch)";
}

// "output 0: shape differs from the case's: expected [8], got []" (the
// stated outputs), "shape differs: expected [4], got [4, 1]" (the
// reference's); the same for dtype.
std::optional<std::string> differing_output(const FailureFacts& facts) {
  static const RE2 pattern(
      "^(?:(output [^:]*): )?(shape|dtype) differs( from the case's)?: "
      "expected (\\[[^\\]]*\\]|\\S+), got (\\[[^\\]]*\\]|\\S+)");
  std::string output;
  std::string what;
  std::string stated;
  std::string expected;
  std::string got;
  if (!RE2::PartialMatch(facts.message, pattern, &output, &what, &stated,
                         &expected, &got)) {
    return std::nullopt;
  }
  if (output.empty()) output = "the output";
  const std::string has = what == "shape" ? " has shape " : " is ";
  const std::string decides =
      what == "shape" ? "the op's overload, `dim`, `keepdim`, a reduction, "
                        "broadcasting"
                      : "the op's overload, type promotion, a dtype argument";
  if (stated.empty()) {
    return output + has + got + " " + where(facts) + " where the reference " +
           "gives " + expected + ": the backends disagree on the " + what +
           " itself, not on values; check how each resolves " + decides;
  }
  if (facts.stated_outputs_disagree_with_reference) {
    return output + has + got + " where the case states " + expected +
           ", and the reference gives the run's " + what +
           ": check the stated `" + what + "` first (what " + decides +
           " give), then the op";
  }
  return output + has + got + " where the case states " + expected +
         ": check what decides it (" + decides + ") against the stated `" +
         what + "`; values are compared only once " + what + "s agree";
}

}  // namespace

std::string first_check_for(const FailureFacts& facts) {
  if (facts.family == Family::kOpUnavailable) {
    if (auto text = missing_dtype_kernel(facts)) return *text;
  }
  if (facts.family == Family::kMismatch) {
    if (auto text = differing_output(facts)) return *text;
    if (facts.stated_outputs_disagree_with_reference) {
      return "the run agrees with the reference but not with the values the "
             "case states: check the stated values first (written by hand, "
             "or taken from another op, argument, dtype or version), then "
             "the op; the kernel is not the first suspect";
    }
  }
  return advice_on(facts.family, facts.backend).first_check;
}

}  // namespace casebook
