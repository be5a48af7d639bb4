// Recognition: error messages, exception types and signals to families.
//
// The patterns come from real texts, kept with their sources in
// tests/data/messages/ (LibTorch 1.13 recorded on the CPU, PyTorch 2.x CUDA
// and ROCm texts from PyTorch's source and issues, the CUDA 13.0 runtime's and
// HIP 5.2's own error strings).
#include <sys/wait.h>

#include <cctype>
#include <csignal>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "casebook/diagnosis.h"
#include "casebook/joined.h"
#include "diagnosis/text.h"

namespace casebook {
namespace {

using diagnosis_text::to_lower;

bool has(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

bool has_any(std::string_view haystack,
             std::initializer_list<std::string_view> needles) {
  for (std::string_view needle : needles) {
    if (has(haystack, needle)) return true;
  }
  return false;
}

// The printout of a failed assert() in a CUDA kernel:
// "Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0],
// thread: [0,0,0] Assertion `t >= 0 && t < n_classes` failed."
// A host assert ("prog: x.c:3: main: Assertion `x' failed.") has no block.
bool is_kernel_assertion(std::string_view lower) {
  return has(lower, "block: [") && has(lower, "thread: [") &&
         has(lower, "assertion `");
}

// "Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor)
// should be the same": a device mismatch when one side is on the GPU and the
// other not, a dtype rejection (contract) otherwise.
bool is_conv_device_mismatch(std::string_view lower) {
  const size_t input = lower.find("input type (");
  if (input == std::string_view::npos) return false;
  size_t other = lower.find("weight type (", input);
  if (other == std::string_view::npos) other = lower.find("bias type (", input);
  if (other == std::string_view::npos) return false;
  const auto on_gpu = [&](size_t from) {
    const size_t close = lower.find(')', from);
    const std::string_view type = lower.substr(from, close - from);
    return has(type, "cuda") || has(type, "hip");
  };
  return on_gpu(input) != on_gpu(other);
}

// The last component of a type name: "c10::IndexError" and
// "torch.cuda.OutOfMemoryError" give "indexerror", "outofmemoryerror".
std::string type_leaf(std::string_view type) {
  const size_t colon = type.rfind(':');
  const size_t dot = type.rfind('.');
  size_t start = 0;
  if (colon != std::string_view::npos) start = colon + 1;
  if (dot != std::string_view::npos && dot + 1 > start) start = dot + 1;
  return to_lower(type.substr(start));
}

// Each recognizer below reads the lowered message proper (no backtrace) for
// the texts of one family.

// Before index_out_of_range: the kernel's assertion text often says "index
// out of bounds". Not "device-side assertions": that is the tail of every
// CUDA error in PyTorch 2.x ("Compile with `TORCH_USE_CUDA_DSA` to enable
// device-side assertions.").
bool says_device_assert(std::string_view lower) {
  return has_any(lower,
                 {"device-side assert triggered", "cudaerrorassert",
                  "hiperrorassert", "device-side assertion failures were found",
                  "device-side assertion `"}) ||
         is_kernel_assertion(lower);
}

// Before any generic CUDA error: "CUDA error: out of memory".
bool says_out_of_memory(std::string_view lower) {
  return has_any(lower, {"out of memory", "cudaerrormemoryallocation",
                         "hiperroroutofmemory", "hiperrormemoryallocation",
                         "can't allocate memory", "std::bad_alloc",
                         "cublas_status_alloc_failed"});
}

// A kernel touched memory it must not: an invalid address, a misaligned one,
// or an exception CUDA only calls "unspecified launch failure".
bool says_illegal_address(std::string_view lower) {
  return has_any(lower, {"illegal memory access", "cudaerrorillegaladdress",
                         "hiperrorillegaladdress", "unspecified launch failure",
                         "cudaerrorlaunchfailure", "hiperrorlaunchfailure",
                         "misaligned address", "cudaerrormisalignedaddress",
                         "illegal instruction", "cudaerrorillegalinstruction",
                         "memory access fault by gpu", "hardware stack error",
                         "cudaerrorhardwarestackerror",
                         "invalid program counter", "cudaerrorinvalidpc"});
}

bool says_timeout(std::string_view lower) {
  return has_any(
      lower, {"timed out", "cudaerrorlaunchtimeout", "hiperrorlaunchtimeout",
              "collective operation timeout"});
}

// Nothing to run this op here: no kernel for this device, dtype or backend,
// or no GPU runtime at all.
bool says_op_unavailable(std::string_view lower) {
  return has_any(lower, {"no kernel image is available",
                         "cudaerrornokernelimagefordevice",
                         "hiperrornobinaryforgpu",
                         "unable to find code object",
                         "invalid device function",
                         "cudaerrorinvaliddevicefunction",
                         "hiperrorinvaliddevicefunction",
                         "could not run '",
                         "not implemented for '",
                         "is not linked with support for",
                         "not compiled with cuda enabled",
                         "no cuda-capable device",
                         "cudaerrornodevice",
                         "hiperrornodevice",
                         "no cuda gpus are available",
                         "no hip gpus are available",
                         "found no nvidia driver",
                         "driver version is insufficient",
                         "cudaerrorinsufficientdriver",
                         "hiperrorinsufficientdriver",
                         "unsupported toolchain",
                         "cudaerrorunsupportedptxversion",
                         "is not compatible with the current pytorch"});
}

bool says_device_mismatch(std::string_view lower) {
  return has_any(lower,
                 {"expected all tensors to be on the same",
                  "expected object of device type",
                  "expected object of backend", "but expected it to be on gpu",
                  "different from other tensors on"}) ||
         is_conv_device_mismatch(lower);
}

// Anomaly mode's "Function 'LogSoftmaxBackward0' returned nan values in its
// 0th output.", multinomial's "probability tensor contains either `inf`,
// `nan` or element < 0" and "(encountering probability entry = infinity or
// NaN)", clip_grad_norm_'s "... is non-finite".
bool says_nan_or_inf(std::string_view lower) {
  return has_any(lower, {"returned nan values", "`inf`, `nan`", "non-finite",
                         "infinity or nan"});
}

// torch.testing.assert_close's report.
bool says_mismatch(std::string_view lower) {
  return has_any(lower, {"tensor-likes are not close",
                         "tensor-likes are not equal", "mismatched elements:",
                         "scalars are not close", "scalars are not equal"});
}

// A dim argument the tensor does not have ("Dimension out of range",
// unbind's "Dimension specified as 0 but tensor has no dimensions") or a
// reduction over an empty dim (amax's "Expected reduction dim 1 to have
// non-zero size") is a rejected argument, though LibTorch throws it as
// c10::IndexError: the data's indices are not at fault.
bool says_dimension_refused(std::string_view lower) {
  return has_any(lower,
                 {"dimension out of range", "but tensor has no dimensions",
                  "to have non-zero size"});
}

// LibTorch 2.x's embedding_bag: "Index 1 of input takes value 10 which is not
// in the valid range [0, 10)" (a plain c10::Error); one_hot's label below
// and above its range alike.
bool says_index_out_of_range(std::string_view lower) {
  return has_any(lower, {"out of bounds", "out of data bounds",
                         "class values must be smaller than num_classes",
                         "class values must be non-negative"}) ||
         (has(lower, "index") &&
          has_any(lower, {"out of range", "not in the valid range"}));
}

struct MessageRule {
  Family family;
  bool (*says)(std::string_view lower);
};

// Most specific first: the first rule whose recognizer matches gives the
// family (the comments above say which order each one needs).
constexpr MessageRule kMessageRules[] = {
    {Family::kDeviceAssert, says_device_assert},
    {Family::kOutOfMemory, says_out_of_memory},
    {Family::kIllegalAddress, says_illegal_address},
    {Family::kTimeout, says_timeout},
    {Family::kOpUnavailable, says_op_unavailable},
    {Family::kDeviceMismatch, says_device_mismatch},
    {Family::kNanOrInf, says_nan_or_inf},
    {Family::kMismatch, says_mismatch},
    {Family::kContract, says_dimension_refused},
    {Family::kIndexOutOfRange, says_index_out_of_range},
};

// The family the message gives, if one does.
std::optional<Family> classify_message(std::string_view lower) {
  for (const MessageRule& rule : kMessageRules) {
    if (rule.says(lower)) return rule.family;
  }
  return std::nullopt;
}

}  // namespace

std::string_view strip_backtrace(std::string_view message) {
  for (std::string_view marker : {"\nException raised from ", "\nframe #0"}) {
    const size_t at = message.find(marker);
    if (at != std::string_view::npos) message = message.substr(0, at);
  }
  if (message.rfind("Exception raised from ", 0) == 0) return {};
  while (!message.empty() &&
         (message.back() == '\n' || message.back() == ' ')) {
    message.remove_suffix(1);
  }
  return message;
}

Family classify_error(std::string_view message,
                      std::string_view exception_type) {
  const std::string leaf = type_leaf(exception_type);
  // Types that say more than any message can.
  if (leaf == "outofmemoryerror" || leaf == "bad_alloc") {
    return Family::kOutOfMemory;
  }
  if (leaf == "invalidcaseerror") return Family::kInvalidCase;

  // Backtrace frames name functions ("index_select_out_cpu_") that would
  // mislead the patterns: only the message proper is read.
  const std::string lower = to_lower(strip_backtrace(message));
  if (const auto family = classify_message(lower)) return *family;

  if (leaf == "indexerror") return Family::kIndexOutOfRange;
  if (leaf == "notimplementederror") return Family::kOpUnavailable;
  if (leaf == "enforcefiniteerror") return Family::kNanOrInf;
  if (leaf == "timeouterror") return Family::kTimeout;
  // c10::Error, ValueError, TypeError, LinAlgError, AcceleratorError with an
  // unknown CUDA error, and also non-torch exceptions (std::runtime_error,
  // std::invalid_argument...): the op refused what it was given. This is a
  // default, not a recognition; explain_family(contract) says so.
  return Family::kContract;
}

namespace {

// "IndexError" of "IndexError: Target 4 ...": a dotted identifier before
// the first ": "; empty when the text starts otherwise ("CUDA error: ...").
std::string_view python_type(std::string_view text) {
  const size_t colon = text.find(": ");
  if (colon == std::string_view::npos || colon == 0) return {};
  for (size_t i = 0; i < colon; ++i) {
    const char c = text[i];
    const bool letter = std::isalpha(static_cast<unsigned char>(c)) || c == '_';
    const bool digit = std::isdigit(static_cast<unsigned char>(c)) != 0;
    if (!(letter || ((digit || c == '.') && i > 0))) return {};
  }
  return text.substr(0, colon);
}

// The integers of a message, in order ("Target 4 is out of bounds." gives
// 4; "batch_size (3) to match target batch_size (2)" gives 3, 2).
std::vector<std::string> integers_of(std::string_view text) {
  std::vector<std::string> found;
  for (size_t i = 0; i < text.size();) {
    const bool sign =
        text[i] == '-' && i + 1 < text.size() &&
        std::isdigit(static_cast<unsigned char>(text[i + 1])) &&
        (i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1])));
    if (!sign && !std::isdigit(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    size_t end = i + 1;
    while (end < text.size() &&
           std::isdigit(static_cast<unsigned char>(text[end]))) {
      ++end;
    }
    found.emplace_back(text.substr(i, end - i));
    i = end;
  }
  return found;
}

// Whether `needles` appear among `haystack` in the same order.
bool in_order(const std::vector<std::string>& needles,
              const std::vector<std::string>& haystack) {
  size_t at = 0;
  for (const std::string& needle : needles) {
    while (at < haystack.size() && haystack[at] != needle) ++at;
    if (at == haystack.size()) return false;
    ++at;
  }
  return true;
}

}  // namespace

Family classify_python_error(std::string_view first_error) {
  const std::string_view text = strip_backtrace(first_error);
  if (text.empty()) return Family::kNone;
  const std::string_view type = python_type(text);
  const std::string_view message =
      type.empty() ? text : text.substr(type.size() + 2);
  return classify_error(message, type);
}

namespace {

// The families whose failure is the outputs': judged by the first line of
// what differs, its numbers left out.
bool judged_on_outputs(Family family) {
  return family == Family::kMismatch || family == Family::kNanOrInf ||
         family == Family::kSkippedEntries || family == Family::kNone;
}

// The first line of an outputs' failure, each number written `#`, except
// the output a comparison names first ("output 1: "): "mismatched
// elements: # / # (# %) against the reference (cpu)". Where an error was
// expected, what came out instead is left out ("expected contract, got
// outputs"): how many values it shows changes with the inputs.
std::string without_numbers(std::string_view message) {
  std::string_view line = strip_backtrace(message);
  line = line.substr(0, line.find('\n'));
  constexpr std::string_view kGotOutputs = ", got outputs";
  if (const size_t got = line.find(kGotOutputs); got != line.npos) {
    line = line.substr(0, got + kGotOutputs.size());
  }
  std::string out;
  constexpr std::string_view kOutput = "output ";
  if (line.rfind(kOutput, 0) == 0) {
    const size_t colon = line.find(": ");
    if (colon != std::string_view::npos) {
      out = std::string(line.substr(0, colon + 2));
      line.remove_prefix(colon + 2);
    }
  }
  for (size_t i = 0; i < line.size();) {
    if (!std::isdigit(static_cast<unsigned char>(line[i]))) {
      out += line[i++];
      continue;
    }
    while (
        i < line.size() &&
        (std::isdigit(static_cast<unsigned char>(line[i])) || line[i] == '.')) {
      ++i;
    }
    out += '#';
  }
  return out;
}

// The rule's part beyond the family: the key of the family's message.
bool same_key(const SeenFailure& origin, const SeenFailure& run,
              std::string* why) {
  const std::string family(family_name(origin.family));
  const bool values_named = origin.family == Family::kIndexOutOfRange ||
                            origin.family == Family::kContract;
  const std::vector<std::string> key = integers_of(origin.message);
  if (values_named && !key.empty()) {
    if (in_order(key, integers_of(strip_backtrace(run.message)))) return true;
    *why = "both are " + family +
           ", but the case's message does not name what the origin's does (" +
           joined(key) + ")";
    return false;
  }
  // An origin that names no value ("index out of range in self") is another
  // op's failure unless the message is the same but for its numbers: each
  // op words its own ("Target 4 is out of bounds." is cross_entropy's).
  if (values_named || judged_on_outputs(origin.family)) {
    const std::string key = without_numbers(origin.message);
    if (key == without_numbers(run.message)) return true;
    *why = "both are " + family + ", but the origin's is `" + key +
           "`, the case's `" + without_numbers(run.message) + "`";
    return false;
  }
  return true;
}

}  // namespace

bool same_failure(const SeenFailure& origin, const SeenFailure& run,
                  std::string* why) {
  if (origin.family != run.family) {
    *why = "the origin's error is " + std::string(family_name(origin.family)) +
           ", the case's " + std::string(family_name(run.family));
    return false;
  }
  if (!same_key(origin, run, why)) return false;
  if (!origin.step.empty() && !run.step.empty() && origin.step != run.step) {
    *why = "the origin's error is raised at step `" + origin.step +
           "`, the case's at step `" + run.step + "`";
    return false;
  }
  return true;
}

bool same_failure(std::string_view first_error, Family family,
                  std::string_view message, std::string* why) {
  const std::string_view text = strip_backtrace(first_error);
  const std::string_view type = python_type(text);
  SeenFailure origin;
  origin.family = classify_python_error(first_error);
  origin.message =
      std::string(type.empty() ? text : text.substr(type.size() + 2));
  SeenFailure run;
  run.family = family;
  run.message = std::string(message);
  return same_failure(origin, run, why);
}

OriginMatch match_origin(std::string_view first_error, Backend origin_backend,
                         bool origin_backend_ran, Backend run_backend,
                         Family family, std::string_view message,
                         std::string* why) {
  if (same_failure(first_error, family, message, why)) {
    return OriginMatch::kSame;
  }
  const bool cpu_form =
      is_gpu(origin_backend) && !origin_backend_ran &&
      run_backend == Backend::kCpu &&
      classify_python_error(first_error) == Family::kDeviceAssert &&
      family == Family::kIndexOutOfRange;
  return cpu_form ? OriginMatch::kCpuForm : OriginMatch::kDiffers;
}

Family classify_signal(int signal) {
  // RLIMIT_CPU ran out: the run took too long, it did not crash.
  if (signal == SIGXCPU) return Family::kTimeout;
  return Family::kCrash;
}

std::string describe_signal(int signal) {
  switch (signal) {
    case SIGSEGV:
      return "SIGSEGV, segmentation fault";
    case SIGABRT:
      return "SIGABRT, aborted";
    case SIGBUS:
      return "SIGBUS, bus error";
    case SIGFPE:
      return "SIGFPE, arithmetic exception";
    case SIGILL:
      return "SIGILL, illegal instruction";
    case SIGTERM:
      return "SIGTERM, terminated";
    case SIGINT:
      return "SIGINT, interrupted";
    case SIGPIPE:
      return "SIGPIPE, broken pipe";
    case SIGXCPU:
      return "SIGXCPU, CPU time limit exceeded";
    case SIGKILL:
      return "SIGKILL, killed: possibly the kernel's out-of-memory killer "
             "(see dmesg) or a timeout";
    default:
      break;
  }
  const char* text = strsignal(signal);
  return text != nullptr ? std::string(text) : "unknown signal";
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) {
    return "exited with status " + std::to_string(WEXITSTATUS(status));
  }
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    std::string text = "terminated by signal " + std::to_string(signal) + " (" +
                       describe_signal(signal) + ")";
    if (WCOREDUMP(status)) text += ", core dumped";
    return text;
  }
  if (WIFSTOPPED(status)) {
    const int signal = WSTOPSIG(status);
    return "stopped by signal " + std::to_string(signal) + " (" +
           describe_signal(signal) + ")";
  }
  return "unknown wait status " + std::to_string(status);
}

}  // namespace casebook
