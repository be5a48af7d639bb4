// Every key of case format 1 is accepted with its meaning: the parsed values
// are checked, not only the absence of errors.
#include "casebook/loader.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "loaded_case_checks.h"

namespace casebook {
namespace {

Case load_every_key(const std::string& text) {
  return load_ok(text, "cases/keys/every_key.yaml");
}

const TensorSpec& input(const Case& value, size_t index) {
  static const TensorSpec none;
  return index < value.inputs.size() ? value.inputs[index] : none;
}

TEST(Loader, EveryTopLevelKeyHasItsMeaning) {
  const Case value = load_every_key(R"(casebook: 1
id: custom/name
summary: every key with its meaning
op: kernels.softmax
args: {dim: -1, scale: 0.5, name: mean, flag: true, none: null, quoted: "7",
       sizes: [1, 2.5, x, ~, false]}
inputs:
  x: {shape: [2, 3], dtype: float32, fill: {uniform: {low: -1, high: 1}}, seed: 42}
  y: {dtype: int64, values: [[1, 2], [3, 4]]}
backends: [cuda, cpu]
reference: torch
tolerance: {rtol: 1e-3, atol: 0, equal_nan: true}
expect:
  cuda: {xfail: "issue 12: wrong max", family: mismatch}
timeout: 2.5
)");
  EXPECT_EQ(value.format_version, 1);
  EXPECT_EQ(value.id, "custom/name");
  EXPECT_EQ(value.summary, "every key with its meaning");
  EXPECT_EQ(value.op, "kernels.softmax");
  EXPECT_EQ(value.op_where.line, 4);
  EXPECT_EQ(value.op_where.column, 5);
  EXPECT_EQ(value.file, "cases/keys/every_key.yaml");

  ASSERT_EQ(value.args.size(), 7u);
  EXPECT_EQ(value.args.at("dim").kind, ArgValue::Kind::kInt);
  EXPECT_EQ(value.args.at("dim").int_value, -1);
  EXPECT_EQ(value.args.at("dim").where.line, 5);
  EXPECT_EQ(value.args.at("dim").where.column, 13);
  EXPECT_EQ(value.args.at("scale").kind, ArgValue::Kind::kFloat);
  EXPECT_DOUBLE_EQ(value.args.at("scale").float_value, 0.5);
  EXPECT_EQ(value.args.at("name").kind, ArgValue::Kind::kString);
  EXPECT_EQ(value.args.at("name").string_value, "mean");
  EXPECT_EQ(value.args.at("flag").kind, ArgValue::Kind::kBool);
  EXPECT_TRUE(value.args.at("flag").bool_value);
  EXPECT_EQ(value.args.at("none").kind, ArgValue::Kind::kNull);
  EXPECT_EQ(value.args.at("quoted").kind, ArgValue::Kind::kString);
  EXPECT_EQ(value.args.at("quoted").string_value, "7");
  const ArgValue& sizes = value.args.at("sizes");
  ASSERT_EQ(sizes.kind, ArgValue::Kind::kList);
  ASSERT_EQ(sizes.list.size(), 5u);
  EXPECT_EQ(sizes.list[0].int_value, 1);
  EXPECT_DOUBLE_EQ(sizes.list[1].float_value, 2.5);
  EXPECT_EQ(sizes.list[2].string_value, "x");
  EXPECT_EQ(sizes.list[3].kind, ArgValue::Kind::kNull);
  EXPECT_EQ(sizes.list[4].kind, ArgValue::Kind::kBool);
  EXPECT_FALSE(sizes.list[4].bool_value);

  ASSERT_EQ(value.inputs.size(), 2u);
  EXPECT_EQ(input(value, 0).name, "x");
  EXPECT_EQ(input(value, 1).name, "y");
  EXPECT_EQ(input(value, 1).where.line, 9);

  EXPECT_EQ(value.backends,
            (std::vector<Backend>{Backend::kCpu, Backend::kCuda}));
  EXPECT_TRUE(value.runs_on(Backend::kCuda));
  EXPECT_FALSE(value.runs_on(Backend::kHip));
  EXPECT_EQ(value.reference, Case::Reference::kTorch);
  ASSERT_TRUE(value.tolerance.has_value());
  EXPECT_DOUBLE_EQ(value.tolerance->rtol, 1e-3);
  EXPECT_DOUBLE_EQ(value.tolerance->atol, 0.0);
  EXPECT_TRUE(value.tolerance->equal_nan);
  EXPECT_DOUBLE_EQ(value.tolerance_for(DType::kFloat16).rtol, 1e-3);

  const Expectation cuda = value.expectation(Backend::kCuda);
  EXPECT_EQ(cuda.kind, Expectation::Kind::kXfail);
  EXPECT_EQ(cuda.reason, "issue 12: wrong max");
  EXPECT_EQ(cuda.family, Family::kMismatch);
  EXPECT_EQ(cuda.where.line, 14);
  EXPECT_EQ(value.expectation(Backend::kCpu).kind, Expectation::Kind::kMatch);
  EXPECT_DOUBLE_EQ(value.timeout_seconds, 2.5);
}

TEST(Loader, DefaultsWhereKeysAreOmitted) {
  const Case value = load_every_key(R"(casebook: 1
summary: defaults
op: torch.neg
inputs: {x: {dtype: float32, values: [1]}}
)");
  EXPECT_EQ(value.id, "keys/every_key");  // derived from the path
  EXPECT_TRUE(value.args.empty());
  EXPECT_EQ(value.backends, all_backends());
  EXPECT_EQ(value.reference, Case::Reference::kCpu);
  EXPECT_FALSE(value.tolerance.has_value());
  EXPECT_EQ(value.tolerance_for(DType::kBFloat16).rtol, 1.6e-2);
  EXPECT_TRUE(value.expect.empty());
  EXPECT_EQ(value.expectation(Backend::kHip).kind, Expectation::Kind::kMatch);
  EXPECT_DOUBLE_EQ(value.timeout_seconds, 60.0);
  EXPECT_TRUE(value.origin.empty());
}

TEST(Loader, EqualNanAloneKeepsTheDtypeTolerance) {
  const Case value = load_every_key(R"(casebook: 1
summary: NaN positions must agree
op: torch.log
inputs: {x: {dtype: float32, values: [-1, 1]}}
tolerance: {equal_nan: true}
)");
  EXPECT_FALSE(value.tolerance.has_value());
  EXPECT_TRUE(value.equal_nan);
  const Tolerance used = value.tolerance_for(DType::kFloat32);
  EXPECT_DOUBLE_EQ(used.rtol, 1.3e-6);
  EXPECT_DOUBLE_EQ(used.atol, 1e-5);
  EXPECT_TRUE(used.equal_nan);
}

TEST(Loader, ExpectKinds) {
  const Case value = load_every_key(R"(casebook: 1
summary: the reference fails; each GPU says how
op: validate.class_targets
inputs: {target: {dtype: int64, values: [0, 7, 1, 9]}}
reference: cpu
expect:
  cpu: {error: contract, positions: [1, 3]}
  cuda: match
  hip: {skip: no HIP machine in CI}
)");
  const Expectation cpu = value.expectation(Backend::kCpu);
  EXPECT_EQ(cpu.kind, Expectation::Kind::kError);
  EXPECT_EQ(cpu.family, Family::kContract);
  EXPECT_EQ(cpu.positions, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(value.expectation(Backend::kCuda).kind, Expectation::Kind::kMatch);
  EXPECT_EQ(value.expect.count(Backend::kCuda), 1u);
  const Expectation hip = value.expectation(Backend::kHip);
  EXPECT_EQ(hip.kind, Expectation::Kind::kSkip);
  EXPECT_EQ(hip.reason, "no HIP machine in CI");
}

// Counting (`processed`): with match (alone it is a match), error and
// xfail, for ops that count; its errors name the key and the nearest one.
TEST(Loader, ExpectProcessed) {
  const Case value = load_every_key(R"(casebook: 1
summary: every entry is examined
op: kernels.nll_loss
inputs: {input: {shape: [2, 3], dtype: float32, fill: {full: -1}},
         target: {dtype: int64, values: [0, 9]}}
expect:
  cpu: {error: index_out_of_range, positions: [1], processed: 2}
  cuda: {processed: 2}
  hip: {xfail: skips the last class, processed: 2}
)");
  const Expectation cpu = value.expectation(Backend::kCpu);
  EXPECT_EQ(cpu.kind, Expectation::Kind::kError);
  EXPECT_EQ(cpu.positions, (std::vector<int64_t>{1}));
  EXPECT_EQ(cpu.processed, std::optional<int64_t>(2));
  const Expectation cuda = value.expectation(Backend::kCuda);
  EXPECT_EQ(cuda.kind, Expectation::Kind::kMatch);
  EXPECT_EQ(cuda.processed, std::optional<int64_t>(2));
  EXPECT_EQ(value.expectation(Backend::kHip).kind, Expectation::Kind::kXfail);
  EXPECT_EQ(value.expectation(Backend::kHip).processed,
            std::optional<int64_t>(2));
  EXPECT_FALSE(value.expectation(Backend::kCpu).message.has_value());
}

TEST(Loader, ExpectProcessedErrors) {
  const std::string head =
      "casebook: 1\nsummary: s\nop: validate.class_targets\n"
      "inputs: {target: {dtype: int64, values: [1]}}\n";
  const LoadedCase loaded = load_case_text(
      head +
          "expect:\n  cpu: {procesed: 1}\n  cuda: {processed: -1}\n"
          "  hip: {skip: slow, processed: 1}\n",
      "cases/bad.yaml");
  std::vector<std::string> messages;
  for (const CaseError& error : loaded.errors) {
    messages.push_back(error.to_string());
  }
  EXPECT_EQ(messages,
            (std::vector<std::string>{
                "cases/bad.yaml:6:9: `expect.cpu.procesed`: unknown key "
                "`procesed`; did you mean `processed`?",
                "cases/bad.yaml:7:21: `expect.cuda.processed`: expected a "
                "number of entries >= 0; got `-1`",
                "cases/bad.yaml:8:21: `expect.hip.processed`: `processed` goes "
                "with `match`, `error` or `xfail` only"}));
  EXPECT_FALSE(loaded.value.has_value());
}

TEST(Loader, ReferenceCpu64AndSummaryBlock) {
  const Case value = load_every_key(R"(casebook: 1
summary: >
  a folded summary
  stays one line
op: torch.sum
inputs: {x: {dtype: float16, shape: [8], fill: {full: 0.1}}}
reference: cpu64
backends: []
)");
  EXPECT_EQ(value.summary, "a folded summary stays one line");
  EXPECT_EQ(value.reference, Case::Reference::kCpu64);
  EXPECT_EQ(value.backends, std::vector<Backend>{Backend::kCpu});
}

// Issue 51: the cpu64 and torch references compute from contiguous inputs
// unless `reference_layout: kept`; the key needs a reference of its own.
TEST(Loader, ReferenceLayout) {
  const std::string head =
      "casebook: 1\nsummary: s\nop: torch.sum\n"
      "inputs: {x: {dtype: float32, shape: [2, 3], fill: {full: 1}, layout: "
      "{transpose: [0, 1]}}}\n";
  EXPECT_FALSE(
      load_every_key(head + "reference: cpu64\n").reference_keeps_layout);
  EXPECT_TRUE(
      load_every_key(head + "reference: cpu64\nreference_layout: kept\n")
          .reference_keeps_layout);
  EXPECT_FALSE(load_every_key(head + "reference: cpu64\nreference_layout: "
                                     "contiguous\n")
                   .reference_keeps_layout);
  EXPECT_EQ(
      error_lines(
          load_case_text(head + "reference_layout: kept\n", "cases/bad.yaml")),
      std::vector<std::string>{
          "cases/bad.yaml:5:19: `reference_layout`: goes with `reference: "
          "cpu64` or `reference: torch` (a reference run of its own); the cpu "
          "reference is the CPU's own run, with the case's layouts"});
  EXPECT_EQ(error_lines(load_case_text(
                head + "reference: cpu64\nreference_layout: strided\n",
                "cases/bad.yaml")),
            std::vector<std::string>{
                "cases/bad.yaml:6:19: `reference_layout`: expected contiguous "
                "or kept; got `strided`"});
}

TEST(Loader, TensorSourcesAndGenerators) {
  const Case value = load_every_key(R"(casebook: 1
summary: every generator
op: torch.stack
inputs:
  a: {dtype: float64, shape: [2], fill: {normal: {mean: 1.5, std: 0.25}}}
  b: {dtype: float32, shape: [2, 2], fill: {uniform: {low: -1, high: 1}}, seed: 3}
  c: {dtype: uint8, shape: [4], fill: {randint: {low: 0, high: 256}}}
  d: {dtype: int32, shape: [3], fill: {arange: {start: -2, step: 3}}}
  e: {dtype: bfloat16, shape: [], fill: {full: .nan}}
  f: {dtype: bool, shape: [2], fill: {full: true}}
)");
  ASSERT_EQ(value.inputs.size(), 6u);
  const Fill& a = input(value, 0).fill;
  EXPECT_EQ(input(value, 0).source, TensorSpec::Source::kFill);
  EXPECT_EQ(a.kind, Fill::Kind::kNormal);
  EXPECT_DOUBLE_EQ(a.first, 1.5);
  EXPECT_DOUBLE_EQ(a.second, 0.25);
  EXPECT_EQ(input(value, 0).seed, 0u);  // the default
  EXPECT_EQ(input(value, 1).fill.kind, Fill::Kind::kUniform);
  EXPECT_EQ(input(value, 1).seed, 3u);
  EXPECT_EQ(input(value, 1).shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(input(value, 2).fill.kind, Fill::Kind::kRandint);
  EXPECT_DOUBLE_EQ(input(value, 2).fill.second, 256.0);
  EXPECT_EQ(input(value, 3).fill.kind, Fill::Kind::kArange);
  EXPECT_DOUBLE_EQ(input(value, 3).fill.first, -2.0);
  EXPECT_DOUBLE_EQ(input(value, 3).fill.second, 3.0);
  EXPECT_EQ(input(value, 4).fill.kind, Fill::Kind::kFull);
  EXPECT_TRUE(std::isnan(input(value, 4).fill.first));
  EXPECT_TRUE(input(value, 4).shape.empty());
  EXPECT_DOUBLE_EQ(input(value, 5).fill.first, 1.0);
}

TEST(Loader, Layouts) {
  const Case value = load_every_key(R"(casebook: 1
summary: every layout
op: torch.add
inputs:
  a: {dtype: float32, shape: [2, 3, 4], fill: {full: 1}, layout: {transpose: [0, -1]}}
  b: {dtype: float32, shape: [2, 3, 4], fill: {full: 1}, layout: {permute: [2, -3, 1]}}
  c: {dtype: float32, shape: [2, 3], fill: {full: 1}, layout: {stride: [1, 2], storage_offset: 5}}
  d: {dtype: int16, values: [[1, 2], [3, 4]], layout: {contiguous: false}}
  e: {dtype: float32, values: [1, 2]}
)");
  ASSERT_EQ(value.inputs.size(), 5u);
  EXPECT_EQ(input(value, 0).layout.kind, Layout::Kind::kTranspose);
  EXPECT_EQ(input(value, 0).layout.dims, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(input(value, 1).layout.kind, Layout::Kind::kPermute);
  EXPECT_EQ(input(value, 1).layout.dims, (std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(input(value, 2).layout.kind, Layout::Kind::kStrided);
  EXPECT_EQ(input(value, 2).layout.stride, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(input(value, 2).layout.storage_offset, 5);
  EXPECT_EQ(input(value, 3).layout.kind, Layout::Kind::kNonContiguous);
  EXPECT_EQ(input(value, 4).layout.kind, Layout::Kind::kDefault);
}

TEST(Loader, OriginIsFlattenedInFileOrder) {
  const Case value = load_every_key(R"(casebook: 1
summary: the dossier
op: torch.neg
inputs: {x: {dtype: float32, values: [1]}}
origin:
  first_error: "CUDA error: device-side assert triggered"
  iteration: 18231
  versions: {python: "3.11.7", torch: "2.11.0"}
  data: {id: "train/shard-07#18231", shape: {target: [3], input: [3, 4]}}
  distinguishing: [last incomplete batch, augmentation]
  cause:
  reduced_from: {id: "ce/batch", sizes: "input [512, 1000], target [512]"}
)");
  const std::vector<std::pair<std::string, std::string>> expected{
      {"first_error", "CUDA error: device-side assert triggered"},
      {"iteration", "18231"},
      {"versions.python", "3.11.7"},
      {"versions.torch", "2.11.0"},
      {"data.id", "train/shard-07#18231"},
      {"data.shape.target", "[3]"},
      {"data.shape.input", "[3, 4]"},
      {"distinguishing", "[last incomplete batch, augmentation]"},
      {"cause", ""},
      {"reduced_from.id", "ce/batch"},
      {"reduced_from.sizes", "input [512, 1000], target [512]"},
  };
  EXPECT_EQ(value.origin.entries, expected);
}

}  // namespace
}  // namespace casebook
