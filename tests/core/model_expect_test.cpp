// What a case says is right: expected outputs and their properties, error
// messages, conditions on the environment, repeats, and values the dtype
// cannot hold. Each rule's accepted form and its exact loader errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "casebook/loader.h"
#include "loaded_case_checks.h"
#include "model_malformed.h"

namespace casebook {
namespace {

using testing_malformed::Malformed;
using testing_malformed::with_extra;
using testing_malformed::with_input;

Case load_good(const std::string& text) {
  return load_ok(text, "cases/good.yaml");
}

TEST(ExpectedOutputs, ByIndexAndByNameWithValuesAndProperties) {
  const Case kase = load_good(with_extra(
      "outputs:\n"
      "  0: {dtype: float32, values: [2, 4], tolerance: {rtol: 0, atol: 0}}\n"
      "  grad.x: {finite: true, shape: [2], dtype: float32, min: -1, max: 1}\n"
      "  2: {nan: [1, [0, 1]], equal_nan: true}\n"
      "  3: {nan: true}\n"
      "  4: {dtype: bfloat16, shape: [1024, 1024], fill: {full: 1024}}\n"));
  ASSERT_EQ(kase.outputs.size(), 5u);
  const OutputExpectation& first = kase.outputs[0];
  EXPECT_EQ(first.index, std::optional<size_t>(0));
  ASSERT_TRUE(first.values.has_value());
  EXPECT_EQ(first.values->float_values, (std::vector<double>{2, 4}));
  EXPECT_EQ(first.dtype, DType::kFloat32);
  ASSERT_TRUE(first.tolerance.has_value());
  EXPECT_EQ(first.tolerance->rtol, 0.0);
  const OutputExpectation& grad = kase.outputs[1];
  EXPECT_FALSE(grad.index.has_value());
  EXPECT_EQ(grad.key, "grad.x");
  EXPECT_TRUE(grad.finite);
  EXPECT_FALSE(grad.values.has_value());
  EXPECT_EQ(grad.shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(grad.min, -1.0);
  EXPECT_EQ(grad.max, 1.0);
  ASSERT_TRUE(kase.outputs[2].nan_positions.has_value());
  EXPECT_EQ(*kase.outputs[2].nan_positions,
            (std::vector<std::vector<int64_t>>{{-1, 1}, {0, 1}}));
  EXPECT_EQ(kase.outputs[2].equal_nan, true);
  EXPECT_TRUE(kase.outputs[3].all_nan);
  ASSERT_TRUE(kase.outputs[4].values.has_value());
  EXPECT_EQ(kase.outputs[4].values->source, TensorSpec::Source::kFill);
  EXPECT_EQ(kase.outputs[4].shape, (std::vector<int64_t>{1024, 1024}));
}

TEST(ExpectedOutputs, PerBackendEntriesReplaceTheTopLevelOnes) {
  const Case kase = load_good(with_extra(
      "outputs: {0: {values: [1, 2], dtype: float32}, 1: {finite: true}}\n"
      "expect:\n"
      "  cuda: {outputs: {0: {values: [1, 3], dtype: float32}}}\n"));
  EXPECT_EQ(kase.expectation(Backend::kCuda).kind, Expectation::Kind::kMatch);
  const auto cuda = kase.outputs_for(Backend::kCuda);
  ASSERT_EQ(cuda.size(), 2u);
  EXPECT_EQ(cuda[0].values->float_values, (std::vector<double>{1, 3}));
  EXPECT_TRUE(cuda[1].finite);
  EXPECT_EQ(kase.outputs_for(Backend::kCpu)[0].values->float_values,
            (std::vector<double>{1, 2}));
}

TEST(ExpectedMessages, AnErrorMayNameARegularExpression) {
  const Case kase = load_good(
      with_extra("expect:\n  cpu: {error: contract, message: 'shape \\[2\\]'}\n"
                 "  cuda: {error: contract}\n  hip: {skip: no hip}\n"));
  EXPECT_EQ(kase.expectation(Backend::kCpu).message,
            std::optional<std::string>("shape \\[2\\]"));
}

TEST(MissingGpuExpectation, IsThatBackendsProblemNotTheFiles) {
  // The CPU must fail and cuda says nothing: the file loads, cuda carries
  // what to add (its ERROR when it runs), hip keeps its own expectation.
  const Case kase = load_good(
      with_extra("expect:\n  cpu: {error: contract}\n  hip: match\n"));
  EXPECT_EQ(kase.expectation(Backend::kCpu).kind, Expectation::Kind::kError);
  EXPECT_EQ(kase.expectation(Backend::kCuda).missing,
            "the CPU run must fail (expect.cpu is an error), so cuda has no "
            "reference to match: add `expect.cuda` ({error: FAMILY}, {xfail: "
            "REASON} or {skip: REASON})");
  EXPECT_TRUE(kase.expectation(Backend::kHip).missing.empty());
}

const char* const kConditional =
    "expect:\n"
    "  cpu:\n"
    "    - {when: {torch: '<2', cpu: [avx2, '!avx512f']}, xfail: wrong sum}\n"
    "    - {when: {torch: '1.13', os: linux}, skip: old}\n"
    "    - match\n";

TEST(Conditions, TheFirstEntryWhoseConditionsHoldApplies) {
  Case kase = load_good(with_extra(kConditional));
  // Loaded without the run's facts, only the unconditional entry holds.
  EXPECT_EQ(kase.expectation(Backend::kCpu).kind, Expectation::Kind::kMatch);
  ASSERT_EQ(kase.expect_entries[Backend::kCpu].size(), 3u);
  resolve_conditions(
      kase,
      {{"torch", "1.13.1"}, {"cpu", "sse avx avx2 fma"}, {"os", "linux"}});
  EXPECT_EQ(kase.expectation(Backend::kCpu).kind, Expectation::Kind::kXfail);
  resolve_conditions(
      kase,
      {{"torch", "1.13.1"}, {"cpu", "avx avx2 avx512f"}, {"os", "linux"}});
  EXPECT_EQ(kase.expectation(Backend::kCpu).kind, Expectation::Kind::kSkip);
  resolve_conditions(
      kase, {{"torch", "2.11.0+cu130"}, {"cpu", "avx2"}, {"os", "linux"}});
  EXPECT_EQ(kase.expectation(Backend::kCpu).kind, Expectation::Kind::kMatch);
}

TEST(Conditions, VersionRanges) {
  Case kase = load_good(with_extra(
      "expect: {cpu: [{when: {torch: '>=1.13.1, <2.4'}, skip: s}]}\n"));
  for (const auto& [version, holds] :
       std::vector<std::pair<std::string, bool>>{{"1.13.0", false},
                                                 {"1.13.1", true},
                                                 {"2.3.9", true},
                                                 {"2.4", false},
                                                 {"2.4.0a0+git", false}}) {
    resolve_conditions(kase, {{"torch", version}});
    EXPECT_EQ(kase.expectation(Backend::kCpu).kind == Expectation::Kind::kSkip,
              holds)
        << version;
  }
}

TEST(Conditions, CudaAndHipRuntimesHoldOnlyWherePresent) {
  Case kase = load_good(
      with_extra("expect: {cpu: [{when: {cuda: '>=12.4'}, skip: new}, "
                 "{when: {hip: '6'}, skip: rocm}]}\n"));
  resolve_conditions(kase, {{"torch", "2.11.0"}, {"cuda", "13.0"}});
  EXPECT_EQ(kase.expectation(Backend::kCpu).reason, "new");
  resolve_conditions(kase, {{"torch", "2.11.0"}, {"hip", "6.2.41133"}});
  EXPECT_EQ(kase.expectation(Backend::kCpu).reason, "rocm");
  // A CPU-only LibTorch has neither: no condition on them holds.
  resolve_conditions(kase, {{"torch", "1.13.1"}});
  EXPECT_EQ(kase.expectation(Backend::kCpu).kind, Expectation::Kind::kMatch);
}

TEST(Conditions, DeviceFactsAreThoseOfTheEntrysBackend) {
  Case kase = load_good(with_extra(
      "expect:\n"
      "  cuda: [{when: {capability: '>=9.0'}, skip: hopper},\n"
      "         {when: {capability: '>=8.0, <8.9'}, xfail: ampere}]\n"
      "  hip: [{when: {gfx: [gfx90a, gfx942]}, xfail: cdna}]\n"));
  EXPECT_TRUE(reads_device_facts(kase, Backend::kCuda));
  EXPECT_TRUE(reads_device_facts(kase, Backend::kHip));
  EXPECT_FALSE(reads_device_facts(kase, Backend::kCpu));
  // Before the probe no device fact is known: no condition on one holds.
  resolve_conditions(kase, {{"torch", "2.11.0"}});
  EXPECT_EQ(kase.expectation(Backend::kCuda).kind, Expectation::Kind::kMatch);
  EXPECT_EQ(kase.expectation(Backend::kHip).kind, Expectation::Kind::kMatch);
  // Once it is known, the backend's device facts join the host's.
  const EnvironmentFacts host{{"torch", "2.11.0"}};
  auto on = [&](Backend backend, EnvironmentFacts device) {
    device.insert(host.begin(), host.end());
    return expectation_for(kase, backend, device).value_or(Expectation{});
  };
  EXPECT_EQ(on(Backend::kCuda, {{"capability", "9.0"}}).reason, "hopper");
  EXPECT_EQ(on(Backend::kCuda, {{"capability", "8.6"}}).reason, "ampere");
  EXPECT_EQ(on(Backend::kCuda, {{"capability", "7.5"}}).kind,
            Expectation::Kind::kMatch);
  EXPECT_EQ(on(Backend::kHip, {{"gfx", "gfx942"}}).reason, "cdna");
  EXPECT_EQ(on(Backend::kHip, {{"gfx", "gfx1100"}}).kind,
            Expectation::Kind::kMatch);
  // Asking changes nothing: the case is as it was loaded.
  EXPECT_EQ(kase.expectation(Backend::kCuda).kind, Expectation::Kind::kMatch);
}

TEST(Conditions, AGpuWithoutAnEntryThatHoldsWhereTheCpuMustFailIsMissing) {
  const Case kase = load_good(with_extra(
      "expect:\n"
      "  cpu: {error: index_out_of_range}\n"
      "  cuda: [{when: {capability: '>=9.0'}, error: device_assert}]\n"
      "  hip: {error: device_assert}\n"));
  const EnvironmentFacts hopper{{"capability", "9.0"}};
  EXPECT_EQ(expectation_for(kase, Backend::kCuda, hopper)->kind,
            Expectation::Kind::kError);
  const std::optional<Expectation> older =
      expectation_for(kase, Backend::kCuda, {{"capability", "8.0"}});
  ASSERT_TRUE(older.has_value());
  EXPECT_EQ(older->missing,
            "the CPU run must fail (expect.cpu is an error), so cuda has no "
            "reference to match: add `expect.cuda` ({error: FAMILY}, {xfail: "
            "REASON} or {skip: REASON}) that holds here (no `when` of "
            "expect.cuda holds)");
  EXPECT_EQ(expectation_for(kase, Backend::kCpu, hopper)->kind,
            Expectation::Kind::kError);
  // As loaded, before any probe: missing too.
  EXPECT_FALSE(kase.expectation(Backend::kCuda).missing.empty());
}

TEST(Origin, SourceIsAccepted) {
  const Case kase = load_good(with_extra(
      "origin: {source: 'https://github.com/pytorch/pytorch/issues/1'}\n"));
  ASSERT_EQ(kase.origin.entries.size(), 1u);
  EXPECT_EQ(kase.origin.entries[0].first, "source");
}

TEST(Rounding, ValuesTheDtypeHoldsOrWouldWriteThatWay) {
  const Case kase = load_good(
      with_input("{dtype: float32, values: [0.1, 16777216, 1e-45, .nan]}") +
      "outputs: {0: {dtype: float16, values: [0.3, 65504, 0.333]}}\n");
  EXPECT_EQ(kase.inputs[0].float_values[0], 0.1);
  const Case rounded = load_good(
      with_input("{dtype: bfloat16, values: [1024.5], rounding: nearest}"));
  EXPECT_TRUE(rounded.inputs[0].round_to_nearest);
  const Case repeated =
      load_good(with_extra("repeat: 5\ndeterministic: bitwise\n"));
  EXPECT_EQ(repeated.repeat, 5);
  EXPECT_EQ(repeated.deterministic, Case::Determinism::kBitwise);
}

std::vector<Malformed> expect_malformed() {
  const std::string f = "cases/bad.yaml:";
  return {
      {"float16_overflow",
       with_input("{dtype: float16, values: [1, 70000]}"),
       {f + "5:35: `inputs.x.values[1]`: float16 cannot hold 70000: it is "
            "beyond its range, whose largest finite value is 65504 (write "
            ".inf for an infinity)"}},
      {"bfloat16_half",
       with_input("{dtype: bfloat16, values: [1024.5]}"),
       {f + "5:33: `inputs.x.values[0]`: bfloat16 cannot hold 1024.5 "
            "exactly: it would become 1024; write that value, or add "
            "`rounding: nearest` to the tensor"}},
      {"float32_two_to_24_plus_1",
       with_input("{dtype: float32, values: [16777217]}"),
       {f + "5:32: `inputs.x.values[0]`: float32 cannot hold 16777217 "
            "exactly: it would become 16777216; write that value, or add "
            "`rounding: nearest` to the tensor"}},
      {"float16_too_many_digits",
       with_input("{dtype: float16, values: [0.33333]}"),
       {f + "5:32: `inputs.x.values[0]`: float16 cannot hold 0.33333 "
            "exactly: it would become 0.3333; write that value, or add "
            "`rounding: nearest` to the tensor"}},
      {"rounding_word",
       with_input("{dtype: float16, values: [1], rounding: up}"),
       {f + "5:46: `inputs.x.rounding`: expected `nearest`; got `up`"}},
      {"rounding_without_values",
       with_input(
           "{dtype: float16, shape: [1], fill: {full: 1}, rounding: nearest}"),
       {f + "5:52: `inputs.x.rounding`: `rounding` goes with `values` only"}},
      {"output_unknown_property",
       with_extra("outputs: {0: {finit: true}}\n"),
       {f + "6:15: `outputs.0.finit`: unknown key `finit`; did you mean "
            "`finite`?"}},
      {"output_nothing",
       with_extra("outputs: {0: {}}\n"),
       {f + "6:14: `outputs.0`: expected what the output must be: values, "
            "fill or file, or a property (finite, nan, shape, dtype, min, "
            "max, mean, std)"}},
      {"output_negative_index",
       with_extra("outputs: {-1: {finite: true}}\n"),
       {f + "6:11: `outputs.-1`: expected an output index >= 0 or an output "
            "name; got `-1`"}},
      {"output_values_without_dtype",
       with_extra("outputs: {0: {values: [1]}}\n"),
       {f + "6:14: `outputs.0.dtype`: required key missing; expected one of " +
        testing_malformed::kDtypes}},
      {"output_finite_false",
       with_extra("outputs: {0: {finite: false}}\n"),
       {f + "6:23: `outputs.0.finite`: expected `true` (omit the key to allow "
            "NaN and inf)"}},
      {"output_nan_and_finite",
       with_extra("outputs: {0: {finite: true, nan: true}}\n"),
       {f + "6:14: `outputs.0`: `finite` and `nan` contradict each other: "
            "give one"}},
      {"output_nan_position",
       with_extra("outputs: {0: {nan: [[0, x]]}}\n"),
       {f + "6:25: `outputs.0.nan[0]`: expected an index >= 0; got `x`"}},
      {"output_min_above_max",
       with_extra("outputs: {0: {min: 2, max: 1}}\n"),
       {f + "6:14: `outputs.0.max`: expected max >= min"}},
      {"output_tolerance_half",
       with_extra("outputs: {0: {finite: true, tolerance: {rtol: 1}}}\n"),
       {f + "6:40: `outputs.0.tolerance`: expected both `rtol` and `atol` or "
            "neither; got only `rtol`"}},
      {"message_without_error",
       with_extra("expect: {cpu: {xfail: r, message: x}}\n"),
       {f + "6:26: `expect.cpu.message`: `message` goes with `error` only"}},
      {"message_bad_regex",
       with_extra("expect: {cpu: {error: contract, message: '(a'}}\n"),
       {f + "6:42: `expect.cpu.message`: expected a regular expression "
            "(RE2's syntax: no backreferences or look-around); `(a` does not "
            "compile: "}},
      {"outputs_with_error",
       with_extra(
           "expect: {cpu: {error: contract, outputs: {0: {finite: true}}}, "
           "cuda: match, hip: match}\n"),
       {f + "6:33: `expect.cpu.outputs`: `outputs` goes with a run that "
            "gives outputs (`match` or `xfail`) only"}},
      {"when_unknown_fact",
       with_extra("expect: {cpu: {when: {torhc: '<2'}, skip: s}}\n"),
       {f + "6:23: `expect.cpu.when.torhc`: unknown key `torhc`; did you mean "
            "`torch`?"}},
      {"when_fact_not_known",
       with_extra("expect: {cpu: {when: {compute_capability: '9.0'}, skip: "
                  "s}}\n"),
       {f + "6:23: `expect.cpu.when.compute_capability`: unknown key "
            "`compute_capability`; expected one of torch, cuda, hip, os, "
            "arch, cpu"}},
      {"when_device_fact_of_another_backend",
       with_extra("expect: {cpu: {when: {capability: '9.0'}, skip: s}}\n"),
       {f + "6:23: `expect.cpu.when.capability`: `capability` is a fact of "
            "the cuda device, read only by `expect.cuda` entries; this entry "
            "is expect.cpu"}},
      {"when_gfx_under_cuda",
       with_extra("expect: {cuda: {when: {gfx: gfx90a}, skip: s}}\n"),
       {f + "6:24: `expect.cuda.when.gfx`: `gfx` is a fact of the hip "
            "device, read only by `expect.hip` entries; this entry is "
            "expect.cuda"}},
      {"when_bad_capability",
       with_extra("expect: {cuda: {when: {capability: sm_90}, skip: s}}\n"),
       {f + "6:36: `expect.cuda.when.capability`: expected compute "
            "capability constraints like \">=8.0\" or \"9.0\"; got "
            "`sm_90`"}},
      {"when_bad_version",
       with_extra("expect: {cpu: {when: {torch: 'newest'}, skip: s}}\n"),
       {f + "6:30: `expect.cpu.when.torch`: expected version constraints "
            "like \">=1.13, <2.1\" or \"1.13\"; got `\"newest\"`"}},
      {"when_bad_feature",
       with_extra("expect: {cpu: {when: {cpu: ['avx-2']}, skip: s}}\n"),
       {f + "6:29: `expect.cpu.when.cpu`: expected CPU features (avx2, "
            "avx512f, avx512_bf16, amx_bf16, ...), each present or absent "
            "(`!avx512f`); got `\"avx-2\"`"}},
      {"expect_empty_list",
       with_extra("expect: {cpu: []}\n"),
       {f + "6:15: `expect.cpu`: expected a list of expectations; got an "
            "empty list"}},
      {"repeat_zero",
       with_extra("repeat: 0\n"),
       {f + "6:9: `repeat`: expected a number of runs in [1, 10000]; got "
            "`0`"}},
      {"deterministic_word",
       with_extra("repeat: 2\ndeterministic: yes\n"),
       {f + "7:16: `deterministic`: expected `bitwise` or `tolerance`; got "
            "`yes`"}},
      {"deterministic_without_repeat",
       with_extra("deterministic: bitwise\n"),
       {f + "6:16: `deterministic`: needs `repeat` of 2 or more: the runs to "
            "compare"}},
  };
}

class MalformedExpectation : public testing::TestWithParam<Malformed> {};

TEST_P(MalformedExpectation, GivesExactlyTheseMessages) {
  testing_malformed::expect_messages_start_with(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Loader, MalformedExpectation,
                         testing::ValuesIn(expect_malformed()),
                         testing_malformed::name_of);

}  // namespace
}  // namespace casebook
