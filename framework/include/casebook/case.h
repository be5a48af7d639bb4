// The in-memory form of a case file (format version 1, docs/case-format.md).
//
// Plain data, free of LibTorch and YAML so that the loader, the CLI and the
// tests that only read cases build without either.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "casebook/backend.h"
#include "casebook/family.h"

namespace casebook {

// Where something was written: 1-based line and column in a file.
struct SourceLocation {
  std::filesystem::path file;
  int line = 0;
  int column = 0;
};

// "cases/x.yaml:7:3"; the file alone when the line is unknown (0).
std::string format_location(const SourceLocation& where);

enum class DType {
  kBool,
  kUInt8,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kFloat16,
  kBFloat16,
  kFloat32,
  kFloat64,
  kComplex64,   // re and im float32
  kComplex128,  // re and im float64
};

std::string_view dtype_name(DType dtype);  // "float32"
std::optional<DType> parse_dtype(std::string_view name);
const std::vector<DType>& all_dtypes();
bool is_floating(DType dtype);  // false for complex dtypes
bool is_complex(DType dtype);
// The dtype of each part of a complex dtype (float32, float64); else itself.
DType part_dtype(DType dtype);

// A non-tensor argument of an op: a scalar, a string, null or a list of
// them; or `{seed: N}` (kGenerator, the seed in int_value): a generator of
// the backend's own device seeded with N, for an op's `Generator` argument.
struct ArgValue {
  enum class Kind { kNull, kBool, kInt, kFloat, kString, kList, kGenerator };
  Kind kind = Kind::kNull;
  bool bool_value = false;
  int64_t int_value = 0;
  double float_value = 0.0;
  std::string string_value;
  std::vector<ArgValue> list;
  SourceLocation where;
};

// `fill`: a generator whose numbers are made on the CPU from `seed`.
// kTorch: PyTorch's own call `torch_call` (randn, rand, randint, normal,
// uniform, bernoulli, randperm) on LibTorch's CPU generator seeded with
// `seed`, as after torch.manual_seed(seed) (tensors/torch_fill.cpp).
struct Fill {
  enum class Kind { kNormal, kUniform, kRandint, kArange, kFull, kTorch };
  Kind kind = Kind::kFull;
  double first = 0.0;      // mean, low, start, p, or the full value (its re)
  double second = 0.0;     // std, high (excluded for randint), step, or the
                           // full value's im (complex dtypes; else 0)
  std::string torch_call;  // kTorch
};

// `layout`: how the tensor sits in memory; its values never change.
struct Layout {
  enum class Kind { kDefault, kTranspose, kPermute, kStrided, kNonContiguous };
  Kind kind = Kind::kDefault;
  std::vector<int64_t> dims;    // transpose: two dims; permute: a permutation
  std::vector<int64_t> stride;  // strided
  int64_t storage_offset = 0;   // strided
};

struct TensorSpec {
  enum class Source { kValues, kFill, kFile };
  std::string name;
  DType dtype = DType::kFloat32;
  // Always set after loading: given, or inferred from nested `values`;
  // except for a `file` given without `shape` (shape_given false, shape
  // empty): the file's own shape is then taken. A given shape (and dtype) is
  // checked against the file's content when the file is read.
  std::vector<int64_t> shape;
  bool shape_given = true;
  Source source = Source::kValues;
  // `values`, row-major: float_values for floating dtypes, int_values for
  // integer dtypes and bool (0 or 1). Integers are kept exactly (int64
  // beyond 2^53 too); floating values may be NaN or infinite (.nan, .inf).
  // Complex dtypes: float_values holds each element's re and im in turn
  // (re0, im0, re1, im1, ...), twice as many numbers as elements.
  std::vector<double> float_values;
  std::vector<int64_t> int_values;
  Fill fill;
  uint64_t seed = 0;
  // `file`: as written, the resolved path (an existing file inside the
  // fixtures folder), the tensor name after '#' for .safetensors (empty: the
  // file's only tensor), and the expected sha256 (lower-case hex, may be
  // empty).
  std::string file;
  std::filesystem::path resolved_file;
  std::string file_tensor;
  std::string sha256;
  Layout layout;
  // `rounding: nearest`: `values` the dtype cannot hold exactly are rounded
  // to the nearest value it holds; without it such a value is a load error.
  bool round_to_nearest = false;
  // `{same_as: NAME}` (an input only): in the call this input is the very
  // tensor of input NAME, one at::Tensor (its storage, its view), as
  // `torch.add(x, y, out=x)` passes it. Empty: a tensor of its own. NAME is
  // another input, itself no alias. The loader copies NAME's spec into this
  // one (follow_aliases), so what reads an input's dtype, shape or values
  // reads NAME's; what makes the tensors makes NAME's once and hands it here.
  std::string same_as;
  SourceLocation where;
};

// The index in `inputs` of the input that inputs[i] is (`same_as`); nullopt
// for a tensor of its own.
std::optional<size_t> alias_target(const std::vector<TensorSpec>& inputs,
                                   size_t i);
// Makes each alias of `inputs` a copy of its target again, all but its name,
// place and `same_as`: after the targets were changed (a neighbour's, a
// reduction's), so that an alias never says other values than its target.
void follow_aliases(std::vector<TensorSpec>& inputs);

// `grad` (casebook's addition to format 1): a backward run after the
// forward one, on every backend; each gradient is an output `grad.<input>`.
struct GradSpec {
  std::vector<std::string> wrt;  // input names (floating); default: all such
  // `grad_outputs`: the gradient fed to an output, named by the output's
  // name or index ("0"); an output not named is fed ones.
  std::vector<TensorSpec> grad_outputs;
  bool finite_differences = false;  // `check: finite_differences`
  SourceLocation where;
};

struct Tolerance {
  double rtol = 0.0;
  double atol = 0.0;
  bool equal_nan = false;
};

// The default tolerance of torch.testing.assert_close for an output dtype.
Tolerance default_tolerance(DType dtype);

// What a case file says of the tolerance for all its outputs: rtol and atol
// when written, and `equal_nan` (written inside `tolerance` or alone).
struct ToleranceRule {
  std::optional<Tolerance> written;  // nullopt: by output dtype
  bool equal_nan = false;
};

struct OutputExpectation;

// A closed interval [min, max] a statistic of an output must lie in; either
// end may be absent (unbounded).
struct ValueBounds {
  std::optional<double> min;
  std::optional<double> max;
};

// Which tolerance holds for one output: the one answer that the loader, the
// judge, the comparison, the evidence and a report all ask. rtol and atol:
// the output entry's `tolerance`, else the case's, else
// default_tolerance(output) (nullopt dtype, one casebook has no name for:
// exact). equal_nan: the entry's `equal_nan` when written; else the case's,
// or'ed with the `equal_nan` inside whichever `tolerance` is used. `entry` may
// be null.
Tolerance tolerance_in_force(const ToleranceRule& rule,
                             const OutputExpectation* entry,
                             std::optional<DType> output);

// What one output must be (`outputs.<index or name>`): its values, and
// properties checked on every backend. Every member is optional.
struct OutputExpectation {
  std::string key;              // as written: "0" or a name ("grad.input")
  std::optional<size_t> index;  // the key when it is an integer
  // `values`, `fill` or `file` (+ `sha256`): the values every run must have,
  // within `tolerance` (else the case's); its dtype and shape are checked.
  std::optional<TensorSpec> values;
  std::optional<Tolerance> tolerance;  // rtol and atol written here
  std::optional<bool> equal_nan;       // here, or inside `tolerance`
  bool finite = false;                 // `finite: true`: no NaN, no inf
  // `nan: true`: every element is NaN; `nan: [...]`: these elements are NaN
  // (an integer is a row-major flat index, a list a multi-index), others not.
  bool all_nan = false;
  std::optional<std::vector<std::vector<int64_t>>> nan_positions;
  std::optional<std::vector<int64_t>> shape;
  std::optional<DType> dtype;
  std::optional<double> min;  // every element >= min (NaN fails)
  std::optional<double> max;  // every element <= max (NaN fails)
  // `mean` / `std: {min, max}`: the mean / the standard deviation (with
  // Bessel's correction, as torch.std) of all elements lies in the bounds
  // (NaN fails): what a random op's values can be checked by. Real outputs.
  std::optional<ValueBounds> mean_bounds;
  std::optional<ValueBounds> std_bounds;
  SourceLocation where;
};

// A fact of the run's environment a condition reads: "torch" (LibTorch's
// version), "cuda" / "hip" (the runtime LibTorch was built with), "os",
// "arch", "cpu" (its features: avx2, avx512f, ...), and two facts of a GPU
// device, known once its backend's probe answered: "capability" (CUDA's
// compute capability, "9.0"; expect.cuda entries only) and "gfx" (HIP's gfx
// target, "gfx90a"; expect.hip entries only).
struct Condition {
  std::string fact;  // "torch", "cuda", "hip", "os", "arch", "cpu", ...
  // Version ranges ("torch: '>=2.0, <2.4'"), a name ("os: linux"), or CPU
  // features that must be present (`avx2`) or absent (`!avx512f`).
  std::string text;
  SourceLocation where;
};

// What must happen on one backend (`expect.<backend>`).
struct Expectation {
  enum class Kind { kMatch, kError, kXfail, kSkip };
  Kind kind = Kind::kMatch;
  Family family = Family::kNone;  // kError: required; kXfail: optional
  std::string reason;             // kXfail, kSkip
  // kError of validate.* and kernels.* ops: the positions the op must
  // report as rejected (a kernel reports the first one only).
  std::optional<std::vector<int64_t>> positions;
  // `processed`: how many entries the op must report it took into its
  // result (kMatch, kXfail, kError; ops that count: validate.*,
  // kernels.nll_loss). Fewer is family skipped_entries.
  std::optional<int64_t> processed;
  // Where `positions` and `processed` were written (what only some ops
  // report is checked against the op later, and named there).
  SourceLocation positions_where;
  SourceLocation processed_where;
  // kError: a regular expression (RE2's syntax, model/message_pattern.h)
  // the first error's text must contain a match of (`message`).
  std::optional<std::string> message;
  // Outputs this backend alone must have; an entry replaces the case's
  // top-level entry with the same key.
  std::vector<OutputExpectation> outputs;
  // `when`: every condition must hold for this entry to apply (empty: always).
  std::vector<Condition> when;
  // A GPU backend's missing expectation where the CPU must fail: the file is
  // fine, but this backend cannot be judged; its run is an ERROR saying so.
  std::string missing;
  SourceLocation where;
};

// One entry of `neighbors` (casebook's addition to format 1): a rule that
// turns the case into neighbouring cases, with the parameters written
// (docs/case-format.md, "Neighbours"; casebook/neighbors.h generates them).
// A parameter not written is empty / nullopt: the rule's default, from the
// op (casebook/neighbors.h) or the inputs.
struct NeighborRule {
  // label_limits, last_batch, lengths, block_boundaries, layouts, dtypes
  std::string name;
  std::string input;                    // label_limits: the class-index input
  std::optional<int64_t> classes;       // label_limits: C
  bool ignore_index_given = false;      // label_limits: `ignore_index` written
  std::optional<int64_t> ignore_index;  // ... as an integer, or null: none
  std::map<Backend, Family> errors;     // label_limits: family of C and -1
  std::optional<int64_t> dataset_size;  // last_batch
  std::optional<int64_t> batch_size;    // last_batch
  std::optional<int64_t> long_length;   // lengths: `long`
  std::optional<bool> empty;            // lengths: 0 is a valid length
  std::vector<int64_t> blocks;          // block_boundaries
  // last_batch, lengths, block_boundaries: the dims resized together, as
  // (input name, dim); empty: the op's.
  std::vector<std::pair<std::string, int64_t>> along;
  std::vector<std::string> layouts;  // layouts: which; empty: all that apply
  std::vector<std::string> inputs;   // layouts: which inputs; empty: all
  std::vector<DType> dtypes;         // dtypes: which; empty: the four floats
  bool reference_cpu64 = false;      // dtypes: `reference: cpu64`
  SourceLocation where;              // the rule's key
};

// What a step reads (`steps[i].inputs`): the schema argument it binds to
// (`self`, `tensors[1]` for an element of a Tensor[] list) and its source as
// written: a case input's name, a step's name (its output 0), or
// `<step>.<index>` / `<step>.<return name>` (one of that step's outputs).
struct StepInput {
  std::string argument;
  std::string source;
  SourceLocation where;
};

// One call of `steps` (casebook's addition to format 1): a case of several
// ops, each reading the case's inputs and earlier steps' outputs by name.
struct Step {
  std::string name;    // given, else "step<N>" (1-based)
  bool named = false;  // `name` written
  std::string op;      // any op a one-op case can name
  SourceLocation op_where;
  std::map<std::string, ArgValue> args;
  std::vector<StepInput> inputs;  // in file order
  SourceLocation where;           // the step's entry
};

// `origin`, flattened in file order: ("versions.torch", "2.11.0").
struct Origin {
  std::vector<std::pair<std::string, std::string>> entries;
  bool empty() const { return entries.empty(); }
};

struct Case {
  int format_version = 1;
  std::string id;           // given, or the path under cases/ without .yaml
  bool id_written = false;  // `id` given in the file (case_to_yaml keeps it)
  std::string summary;
  // "torch.cross_entropy"; for a case of `steps`, its ops in order:
  // "steps(aten::log_softmax, aten::nll_loss)", a name no op has.
  std::string op;
  SourceLocation op_where;  // `op`, or `steps`
  // `steps`: the calls a case of several ops makes, in order (empty: a
  // one-op case). `inputs` are then the tensors the steps read, and the
  // case's outputs are the last step's, followed by each earlier step's
  // output an `outputs` key names (`step_outputs`: "logp.0").
  std::vector<Step> steps;
  std::vector<StepInput> step_outputs;
  std::map<std::string, ArgValue> args;
  std::vector<TensorSpec> inputs;  // in the op's argument order
  std::vector<Backend> backends;   // always holds kCpu
  // `reference`: cpu (the CPU run is the reference), cpu64 (the op on the
  // CPU in float64, cast back), or torch (kernels.* ops only: LibTorch's
  // equivalent op on the CPU; the kernel's own CPU run is then compared with
  // it like any other backend). `torch` is casebook's addition to format 1.
  // `none`: no reference run; every backend is judged by the case's
  // `outputs` alone (the CPU included), so a wrong CPU cannot fail a right
  // GPU.
  enum class Reference { kCpu, kCpu64, kTorch, kNone };
  Reference reference = Reference::kCpu;
  // `reference_layout`: the cpu64 and torch references compute from
  // contiguous inputs (`contiguous`, the default), so that a layout bug the
  // reference would share (the same kernel on the same strides) fails;
  // `kept` gives them the inputs' layouts, for a case that needs them.
  bool reference_keeps_layout = false;
  std::optional<Tolerance> tolerance;  // nullopt: by output dtype
  // `tolerance.equal_nan`, also where rtol and atol are not given (then
  // `tolerance` is nullopt): use tolerance_for(), which applies both.
  bool equal_nan = false;
  // The expectation that applies on this machine: `expect.<backend>`, or the
  // first of its entries whose `when` holds (resolve_conditions()).
  std::map<Backend, Expectation> expect;
  // Every entry written per backend, in file order, conditions included.
  std::map<Backend, std::vector<Expectation>> expect_entries;
  // `outputs`: what each output must be on every backend.
  std::vector<OutputExpectation> outputs;
  // `repeat`: the op runs this many times in the same child (>= 1);
  // `deterministic`: whether those runs must agree bitwise or within
  // tolerance (kNone: not checked).
  int repeat = 1;
  enum class Determinism { kNone, kBitwise, kTolerance };
  Determinism deterministic = Determinism::kNone;
  double timeout_seconds = 60.0;
  std::optional<GradSpec> grad;  // `grad`
  // `neighbors`: the rules whose neighbouring cases run with this one.
  std::vector<NeighborRule> neighbors;
  Origin origin;
  std::filesystem::path file;

  // The expectation for `backend`: the one written, else kMatch.
  Expectation expectation(Backend backend) const;
  bool runs_on(Backend backend) const;
  // The case's own part of which tolerance holds (its `tolerance`).
  ToleranceRule tolerance_rule() const { return {tolerance, equal_nan}; }
  // The rules outputs 0 .. count-1 are compared with the reference by: the
  // case's, with equal_nan for an output whose entry for `backend` states
  // NaN (`nan: true` or `nan: [...]`): NaN there is the answer on both sides.
  std::vector<ToleranceRule> reference_rules(size_t count,
                                             Backend backend) const;
  // tolerance_in_force(tolerance_rule(), nullptr, output).
  Tolerance tolerance_for(DType output) const;
  // What outputs `backend` must have: the top-level `outputs`, with the
  // backend's own entries replacing those of the same key.
  std::vector<OutputExpectation> outputs_for(Backend backend) const;
};

// The facts conditions read, e.g. {"torch", "1.13.1"}, {"os", "linux"},
// {"arch", "x86_64"}, {"cpu", "avx avx2 fma"} (space separated features),
// {"capability", "9.0"}.
using EnvironmentFacts = std::map<std::string, std::string>;

// What `backend` must do where `facts` hold (the host's, plus the backend's
// device facts once its probe has answered; a fact not known holds no
// condition): the first entry of expect_entries whose conditions all hold;
// none holds: nullopt (`match`), except on a GPU backend the case runs on
// while the CPU must fail, whose missing expectation is then its ERROR
// (Expectation::missing).
std::optional<Expectation> expectation_for(const Case& kase, Backend backend,
                                           const EnvironmentFacts& facts);

// At load: sets `expect` to expectation_for(kase, each backend, host). The
// case is not changed after load; a run that learns a device's facts asks
// expectation_for itself (runner/planner.h).
void resolve_conditions(Case& kase, const EnvironmentFacts& host);

// Whether `fact` is a fact of the host a `when` condition may read (torch,
// cuda, hip, os, arch, cpu), as opposed to a device's (casebook/backend.h).
bool is_host_fact(std::string_view fact);

// Whether an entry of expect.<backend> has a condition on a device fact, so
// that what the backend must do is known only after its probe.
bool reads_device_facts(const Case& kase, Backend backend);

}  // namespace casebook
