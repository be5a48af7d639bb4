// Advice per family: what it means, what to check first, which conclusion to
// avoid, and reruns that each change one thing.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "casebook/diagnosis.h"
#include "casebook/gpu_stack.h"
#include "casebook/run_advice.h"
#include "diagnosis/random_op_advice.h"

namespace casebook {
namespace {

// The most reruns a family's advice lists (device_assert's).
constexpr size_t kMostReruns = 4;

// A runtime's switch a rerun flips, named as the failing run's backend
// reads it (kSwitchRows, launch_blocking_variables): a backend without it
// lists no such rerun.
enum class Switch { kNone, kLaunchBlocking, kMemoryChecker, kTf32Off };

struct RerunRow {
  std::string_view change;  // kNone's; else the switch's, per backend
  std::string_view reveals;
  Switch by = Switch::kNone;
};

// The switches other than launch blocking (casebook/backend.h's table), by
// backend; `reveals` empty: the family's own words.
struct SwitchRow {
  Backend backend;
  Switch which;
  std::string_view change;
  std::string_view reveals;
};

constexpr SwitchRow kSwitchRows[] = {
    {Backend::kCuda, Switch::kMemoryChecker,
     "compute-sanitizer --tool memcheck, with "
     "PYTORCH_NO_CUDA_MEMORY_CACHING=1 (without it an out-of-bounds read "
     "lands inside a cached block and goes unseen)",
     "the faulting access: kernel, thread, address, how far out"},
    // ROCm has no compute-sanitizer; HIP's log names each launch.
    {Backend::kHip, Switch::kMemoryChecker,
     "AMD_LOG_LEVEL=3 (HIP's log of its calls and kernel launches)",
     "the last kernel launched before the fault, with its arguments"},
    {Backend::kCuda, Switch::kTf32Off, "NVIDIA_TF32_OVERRIDE=0", ""},
};

// FamilyAdvice's fields; reruns past the family's own are empty.
struct AdviceRow {
  Family family;
  std::string_view meaning;
  std::string_view first_check;
  std::string_view avoid;
  RerunRow reruns[kMostReruns];
};

// One row per family, indexed by the enumerator: kNone, then the list's
// order (casebook/family_list.h).
constexpr AdviceRow kAdviceRows[] = {
    {Family::kNone,
     "No error: the run returned outputs.",
     "Nothing; a verdict still rests on comparing the outputs.",
     "Do not read one pass as proof for inputs the case does not hold.",
     {}},
    {Family::kIndexOutOfRange,
     "An index, class label or target lay outside the range the op accepts "
     "(a label of 4 with 4 classes, an embedding id beyond the table). "
     "LibTorch checks this on the CPU and says which value; on a GPU the "
     "same input usually ends in a device_assert.",
     "Check the index and target values against the size they index: the "
     "largest label against the number of classes, ids against the "
     "embedding rows, negative values and ignore_index; then where those "
     "values came from (labels numbered 1..N instead of 0..N-1, a new "
     "class, a padding value).",
     "Do not clamp or filter the indices until the error goes away: that "
     "hides the data or labelling bug that produced them.",
     {{"the offending value replaced by a valid one (casebook diagnose: "
       "valid indices)",
       "whether that value alone causes the failure: the data or the "
       "kernel"}}},
    {Family::kDeviceAssert,
     "A GPU kernel checked a condition on its inputs (an index in range, a "
     "label below the number of classes, a probability in [0, 1]) and "
     "stopped. The error is sticky: every later GPU call (CUDA or HIP) in "
     "the process fails with the same message, so only the first error is "
     "the cause.",
     "Check the indices, the targets and the operator's conditions on its "
     "inputs: the kernel's assertion text (\"Assertion `t >= 0 && t < "
     "n_classes` failed\") names the condition, and the same inputs on the "
     "CPU usually give a readable error.",
     "Do not conclude the GPU or its driver is faulty, and do not count the "
     "later \"device-side assert triggered\" errors as further causes.",
     {{"", "the kernel that failed, reported at the call that launched it",
       Switch::kLaunchBlocking},
      {"the same case on the CPU only",
       "LibTorch's readable check of the same condition"},
      {"the offending index values replaced by valid ones (casebook "
       "diagnose: valid indices)",
       "whether the data or the kernel is at fault"},
      {"strict isolation (a fresh process for this run)",
       "whether an earlier run in the same process left the error behind"}}},
    {Family::kIllegalAddress,
     "A kernel read or wrote memory it does not own: out of bounds, "
     "misaligned, freed or host memory; CUDA may only say \"unspecified "
     "launch failure\". CUDA reports it late: the line in the trace is "
     "where it was seen, not where it happened. The error is sticky.",
     "Check the sizes, strides and storage offsets the kernel was given "
     "against what it indexes, non-contiguous inputs, and the kernel's "
     "index arithmetic (32-bit overflow on large tensors).",
     "Do not take the line in the trace for the place of the fault, and do "
     "not conclude the GPU is faulty or that memory ran out.",
     {{"", "the kernel that faulted, at the call that launched it",
       Switch::kLaunchBlocking},
      {"", "", Switch::kMemoryChecker},
      {"the inputs made contiguous",
       "whether the kernel mishandles strides or offsets"}}},
    {Family::kOutOfMemory,
     "An allocation failed: the GPU's (or the host's) memory could not hold "
     "what was asked. PyTorch's message gives the size asked, the "
     "capacity, what is free, what PyTorch holds and what it reserved "
     "without using.",
     "Check the shapes (an unexpected dimension, a batch far larger than "
     "usual, an N x N intermediate), the lifetime of tensors (kept across "
     "iterations, graphs held by stored losses), and the memory of the "
     "process and of other processes on the device.",
     "Do not conclude that every CUDA error is a lack of VRAM, and do not "
     "shrink the batch before reading the size asked: a request larger than "
     "the whole device is a shape bug.",
     {{"the case alone in a fresh process (strict isolation)",
       "whether memory held by earlier runs was the cause"},
      {"PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
       "whether fragmentation (reserved but unallocated memory) was the "
       "cause"}}},
    {Family::kOpUnavailable,
     "Nothing can run the op here: not implemented for this dtype (\"not "
     "implemented for 'Half'\"), missing from this build's backend "
     "(\"Could not run 'aten::...' with arguments from the 'CUDA' "
     "backend\"), no kernel image for this GPU's architecture, or no GPU "
     "runtime at all.",
     "Check the versions (LibTorch, CUDA or ROCm, the driver), the "
     "extension and the architectures it was built for (sm_90, gfx90a), the "
     "backend the tensors are on, and the dtype.",
     "Do not reinstall everything at random: find which of version, "
     "architecture, backend or dtype is missing and change that one.",
     {{"the same case in float32", "whether only the dtype lacks a kernel"},
      {"the same case on the CPU only",
       "whether only this backend lacks the op"}}},
    {Family::kDeviceMismatch,
     "An op got tensors on different devices: the weights on cuda:0 and an "
     "input on the CPU, or two GPUs.",
     "Check where the model and each input were placed, and where each "
     "tensor was created: inside forward() without a device, a buffer that "
     "is not registered, a loss weight left on the CPU.",
     "Do not add a copy (.to(device)) without knowing where the tensor came "
     "from: it hides the misplacement and may cost a transfer every step.",
     {{"CUDA_VISIBLE_DEVICES=0",
       "whether a second GPU (DataParallel, a device map) brought the "
       "mismatch"}}},
    {Family::kContract,
     "The op rejected its inputs: a shape, dtype or argument it does not "
     "accept (\"mat1 and mat2 shapes cannot be multiplied\", \"expected "
     "scalar type Long but found Int\"). Also the default for an error "
     "casebook does not recognise: read the message itself.",
     "Check the shapes, dtypes and arguments against the op's documentation "
     "and against what the code upstream meant to produce.",
     "Do not cast or reshape until it runs: find which producer made the "
     "wrong shape or dtype.",
     {{"the same case on the CPU only",
       "whether the rejection is the op's contract or this backend's"}}},
    {Family::kLabelMapping,
     "A mapping from label names to class indices is not a bijection onto "
     "the `classes` list: a label given twice, a class no label maps to "
     "(a gap), or a label outside the names. Training on it either dies "
     "on an index out of range or, worse, runs with classes merged or "
     "missing.",
     "Check the mapping file against the class list it must cover: the "
     "duplicated label (two names for one class, or one name twice), the "
     "class with no label, and the label outside the names (a 1-based "
     "numbering, a class added or renamed since the list was written). Fix "
     "the mapping before shifting every label (subtracting 1).",
     "Do not subtract 1 from every label, drop the unknown ones or renumber "
     "until the run stops failing: that trains on a mapping nobody checked.",
     {{"validate.class_mapping on the mapping and the classes alone",
       "every duplicate, gap and outside label at once, by name"}}},
    {Family::kMismatch,
     "The run returned outputs that differ from the reference beyond the "
     "tolerance, or in shape or dtype.",
     "Check the worst elements and their indices, whether the differences "
     "gather in one region (a tail block, the last partial tile, strided "
     "inputs), and whether the tolerance suits the dtype.",
     "Do not loosen the tolerance until the case passes: first tell "
     "rounding from a wrong result.",
     {{"reference: cpu64",
       "whether the CPU reference is itself off in "
       "this dtype"},
      {"", "whether TF32 matrix products explain the difference",
       Switch::kTf32Off},
      {"the inputs made contiguous", "whether strides are mishandled"}}},
    {Family::kNanOrInf,
     "A NaN or an infinity appeared where finite values were expected: in "
     "the outputs, in a gradient (anomaly mode's \"returned nan values\"), "
     "or an op refused them (multinomial's probabilities).",
     "Check where the first non-finite value appears: in the inputs "
     "already, a log of 0, a division by a zero variance, an exp that "
     "overflows float16, weights blown up by the learning rate.",
     "Do not replace NaN by zero or add epsilons everywhere before finding "
     "the first op that produced it.",
     {{"the inputs in float32 instead of float16 or bfloat16",
       "whether the range of the dtype is the cause"},
      {"the same case on the CPU only",
       "whether only this backend produces it"}}},
    {Family::kSkippedEntries,
     "The op returned outputs, but took fewer entries into them than the "
     "case says it must (`processed`): entries were skipped instead of "
     "failing. A crash turned into a silently incomplete result: the loss "
     "of a smaller batch, a check that looked at part of its input.",
     "Check which entries the op left out: a bound check turned into a "
     "skip (`continue` where an error belongs), an off-by-one bound that "
     "drops the last class or the last row, an incomplete last block, a "
     "filter that treats bad entries as ignored.",
     "Do not lower `processed` to what the run gave: the count is the "
     "contract; find the entries that went missing.",
     {{"reference: torch (kernels.*) or cpu64",
       "whether the values differ too, against a reference that skips "
       "nothing"},
      {"the batch with the suspect entries alone",
       "which entry the op drops"}}},
    {Family::kTimeout,
     "The run did not finish in time: the case's timeout, a kernel "
     "watchdog, or a collective that waited for a peer.",
     "Check hang against slowness: a kernel that never leaves a loop on "
     "this input (a NaN in its condition, a zero step), a wait on a peer, "
     "a deadlock; then the amount of work against the limit.",
     "Do not just raise the timeout: first find whether it would finish at "
     "all.",
     {{"a longer `timeout` in the case", "whether it finishes at all"},
      {"", "which kernel never returns", Switch::kLaunchBlocking}}},
    {Family::kCrash,
     "The process died from a signal: a segmentation fault, an abort (an "
     "uncaught exception, a failed host assert), or a kill; SIGKILL is "
     "often the kernel's out-of-memory killer.",
     "Check the decoded wait status and the last lines of stderr "
     "(\"terminate called after throwing...\", the assert), then for "
     "SIGKILL the memory of the process (dmesg), for SIGSEGV the pointers "
     "and sizes handed to native code.",
     "Do not call a crash flaky because the next run passes: memory errors "
     "depend on layout.",
     {{"core dumps enabled (ulimit -c unlimited), then gdb on the core",
       "the stack at the crash"},
      {"the same case on the CPU under AddressSanitizer or valgrind",
       "the first invalid access"}}},
    {Family::kInvalidCase,
     "The case file itself is wrong (a missing or misspelt key, a value of "
     "the wrong kind, a fixture whose checksum differs); nothing ran.",
     "Check the file, line and key the message names against the case "
     "format.",
     "Do not edit the case until the error goes away without checking that "
     "it still reproduces the original failure.",
     {}},
};

constexpr bool one_row_per_family_in_order() {
  if (std::size(kAdviceRows) != kFamilyCount) return false;
  for (size_t i = 0; i < std::size(kAdviceRows); ++i) {
    if (kAdviceRows[i].family != static_cast<Family>(i)) return false;
  }
  return true;
}
static_assert(one_row_per_family_in_order(),
              "kAdviceRows needs one row per Family, in the enum's order");

// "CUDA_LAUNCH_BLOCKING=1", "HIP_LAUNCH_BLOCKING=1 AMD_SERIALIZE_KERNEL=3".
std::string launch_blocking_text(Backend backend) {
  std::string text;
  for (const auto& [name, value] : launch_blocking_variables(backend)) {
    text += (text.empty() ? "" : " ") + name + "=" + value;
  }
  return text;
}

// `row` as `backend` spells it: its switch's change there (and the
// switch's own reveals where it has them); nullopt where the backend has
// no such switch.
std::optional<RerunChange> rerun_on(const RerunRow& row, Backend backend) {
  const std::string reveals(row.reveals);
  if (row.by == Switch::kNone)
    return RerunChange{std::string(row.change), reveals};
  if (row.by == Switch::kLaunchBlocking) {
    const std::string text = launch_blocking_text(backend);
    if (text.empty()) return std::nullopt;
    return RerunChange{text, reveals};
  }
  for (const SwitchRow& each : kSwitchRows) {
    if (each.backend != backend || each.which != row.by) continue;
    return RerunChange{
        std::string(each.change),
        each.reveals.empty() ? reveals : std::string(each.reveals)};
  }
  return std::nullopt;
}

// The family's reruns on `backend`; without one, a switch's rerun once per
// GPU backend, "on cuda", "on hip".
std::vector<RerunChange> reruns_of(const AdviceRow& row,
                                   std::optional<Backend> backend) {
  std::vector<RerunChange> reruns;
  for (const RerunRow& rerun : row.reruns) {
    if (rerun.change.empty() && rerun.by == Switch::kNone) break;
    if (backend || rerun.by == Switch::kNone) {
      if (auto spelt = rerun_on(rerun, backend.value_or(Backend::kCpu))) {
        reruns.push_back(*spelt);
      }
      continue;
    }
    for (Backend gpu : {Backend::kCuda, Backend::kHip}) {
      if (auto spelt = rerun_on(rerun, gpu)) {
        spelt->change += " on " + std::string(backend_name(gpu));
        reruns.push_back(*spelt);
      }
    }
  }
  return reruns;
}

const AdviceRow& row_of(Family family) {
  return kAdviceRows[static_cast<size_t>(family)];
}

}  // namespace

FamilyAdvice advice_on(Family family, std::optional<Backend> backend) {
  const AdviceRow& row = row_of(family);
  return {row.family, std::string(row.meaning), std::string(row.first_check),
          std::string(row.avoid), reruns_of(row, backend)};
}

const FamilyAdvice& advice_for(Family family) {
  static const std::vector<FamilyAdvice> table = [] {
    std::vector<FamilyAdvice> out;
    for (const AdviceRow& row : kAdviceRows) {
      out.push_back(advice_on(row.family, std::nullopt));
    }
    return out;
  }();
  return table[static_cast<size_t>(family)];
}

std::string random_op_first_check(const std::string& op,
                                  const std::string& why) {
  return "`" + op +
         "` is a random op (its schema is tagged nondeterministic_seeded): " +
         why +
         ", even from the same seed. If the expected values depend on the "
         "draw, write `reference: none` and judge it by what holds on every "
         "backend (`outputs`: shape, dtype, min, max, finite; `repeat` with "
         "`deterministic: bitwise`: the same bits from the same seed), or "
         "state expected values per backend (`expect.<backend>.outputs`). If "
         "they do not (p = 0, "
         "eval mode, probabilities 0 or 1, an empty output), the values "
         "differ for another reason: check as for any mismatch";
}

std::string explain_family(Family family) {
  return explain_family_on(family, std::nullopt);
}

std::string explain_family_on(Family family, std::optional<Backend> backend) {
  const FamilyAdvice advice = advice_on(family, backend);
  std::string text(family_name(family));
  if (backend) text += " on " + std::string(backend_name(*backend));
  text += "\n\nWhat it means:\n  " + advice.meaning;
  text += "\n\nCheck first:\n  " + advice.first_check;
  text += "\n\nAvoid:\n  " + advice.avoid + "\n";
  if (!advice.reruns.empty()) {
    text += "\nReruns that change one thing at a time:\n";
    for (const RerunChange& rerun : advice.reruns) {
      text += "  - " + rerun.change + ": shows " + rerun.reveals + "\n";
    }
  }
  return text;
}

}  // namespace casebook
