// Malformed fill, file, layout, backends, reference, tolerance, expect,
// timeout and origin: each gives exactly these messages.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model_malformed.h"

namespace casebook {
namespace {

using testing_malformed::kFamilies;

// The shipped ops that report what a case may expect of them (their
// declared traits), as the loader's messages name them.
const std::string kReportPositions =
    "kernels.embedding, kernels.nll_loss, validate.class_mapping, "
    "validate.class_targets";
const std::string kReportProcessed =
    "kernels.nll_loss, validate.class_mapping, validate.class_targets";
using testing_malformed::Malformed;
using testing_malformed::with_extra;
using testing_malformed::with_input;

std::vector<Malformed> malformed_sections() {
  const std::string f = "cases/bad.yaml:";
  return {
      // fill
      {"fill_without_shape",
       with_input("{dtype: float32, fill: {full: 1}}"),
       {f + "5:6: `inputs.x.shape`: required key missing: a `fill` needs "
            "`shape`"}},
      {"fill_two_generators",
       with_input("{dtype: float32, shape: [2], fill: {full: 1, arange: {}}}"),
       {f + "5:41: `inputs.x.fill`: expected exactly one generator of normal, "
            "uniform, randint, arange, full, torch; got `full`, `arange`"}},
      {"fill_unknown_generator",
       with_input("{dtype: float32, shape: [2], fill: {gauss: 1}}"),
       {f + "5:42: `inputs.x.fill.gauss`: unknown key `gauss`; expected one "
            "of normal, uniform, randint, arange, full, torch"}},
      {"fill_normal_negative_std",
       with_input(
           "{dtype: float32, shape: [2], fill: {normal: {mean: 0, std: -1}}}"),
       {f + "5:65: `inputs.x.fill.normal.std`: expected a standard deviation "
            ">= 0; got `-1`"}},
      {"fill_normal_missing_std",
       with_input("{dtype: float32, shape: [2], fill: {normal: {mean: 0}}}"),
       {f + "5:50: `inputs.x.fill.normal.std`: required key missing"}},
      {"fill_normal_for_integers",
       with_input(
           "{dtype: int64, shape: [2], fill: {normal: {mean: 0, std: 1}}}"),
       {f + "5:40: `inputs.x.fill.normal`: `normal` makes floating values; "
            "got dtype int64 (use randint, arange or full)"}},
      {"fill_uniform_empty_range",
       with_input(
           "{dtype: float32, shape: [2], fill: {uniform: {low: 1, high: 1}}}"),
       {f + "5:66: `inputs.x.fill.uniform.high`: expected a value above low "
            "(1); got `1`"}},
      {"fill_randint_not_integer",
       with_input("{dtype: float32, shape: [2], fill: {randint: {low: 0.5, "
                  "high: 3}}}"),
       {f + "5:57: `inputs.x.fill.randint.low`: expected an integer in "
            "[-9007199254740992, 9007199254740991] for float32; got `0.5`"}},
      {"fill_randint_beyond_uint8",
       with_input(
           "{dtype: uint8, shape: [2], fill: {randint: {low: 0, high: 257}}}"),
       {f + "5:64: `inputs.x.fill.randint.high`: expected an integer in [0, "
            "256] for uint8; got `257`"}},
      {"fill_full_int8_out_of_range",
       with_input("{dtype: int8, shape: [2], fill: {full: 128}}"),
       {f + "5:45: `inputs.x.fill.full`: expected an integer in [-128, 127] "
            "for int8; got `128`"}},
      {"fill_mean_nan",
       with_input("{dtype: float32, shape: [2], fill: {normal: {mean: .nan, "
                  "std: 1}}}"),
       {f + "5:57: `inputs.x.fill.normal.mean`: expected a finite number; got "
            "`.nan`"}},
      {"seed_negative",
       with_input("{dtype: float32, shape: [2], fill: {full: 1}, seed: -4}"),
       {f + "5:58: `inputs.x.seed`: expected an integer >= 0; got `-4`"}},
      // file (the checks made before any folder is searched)
      {"file_extension",
       with_input("{dtype: float32, file: x.csv}"),
       {f + "5:29: `inputs.x.file`: expected a .npy, .safetensors or .pt "
            "file; got `x.csv`"}},
      {"file_escapes",
       with_input("{dtype: float32, file: ../x.npy}"),
       {f + "5:29: `inputs.x.file`: expected a path inside the fixtures "
            "folder; `../x.npy` leaves it"}},
      {"file_absolute",
       with_input("{dtype: float32, file: /data/x.npy}"),
       {f + "5:29: `inputs.x.file`: expected a path inside the fixtures "
            "folder, not an absolute one; got `/data/x.npy`"}},
      {"file_hash_on_npy",
       with_input("{dtype: float32, file: \"x.npy#w\"}"),
       {f + "5:29: `inputs.x.file`: expected `#tensor` only after a "
            ".safetensors or .pt file (a dict of tensors); got `x.npy#w`"}},
      {"file_bad_sha256",
       with_input("{dtype: float32, file: ../x.pt, sha256: 12ab}"),
       {f + "5:46: `inputs.x.sha256`: expected 64 hexadecimal digits (a "
            "sha256); got `12ab`",
        f + "5:29: `inputs.x.file`: expected a path inside the fixtures "
            "folder; `../x.pt` leaves it"}},
      // layout
      {"layout_contiguous_true",
       with_input("{dtype: float32, values: [1], layout: {contiguous: true}}"),
       {f + "5:57: `inputs.x.layout.contiguous`: `contiguous: true` is the "
            "default layout: omit `layout`"}},
      {"layout_two_kinds",
       with_input("{dtype: float32, values: [[1]], layout: {transpose: [0, 1], "
                  "contiguous: false}}"),
       {f + "5:46: `inputs.x.layout`: expected exactly one of `transpose`, "
            "`permute`, `stride`, `contiguous`; got `transpose`, "
            "`contiguous`"}},
      {"layout_transpose_dim",
       with_input(
           "{dtype: float32, values: [[1]], layout: {transpose: [0, 2]}}"),
       {f + "5:62: `inputs.x.layout.transpose[1]`: expected a dim in [-2, 1] "
            "for a tensor of rank 2; got `2`"}},
      {"layout_permute_repeated",
       with_input(
           "{dtype: float32, values: [[1]], layout: {permute: [1, -1]}}"),
       {f + "5:56: `inputs.x.layout.permute`: expected a permutation of the "
            "dims 0..1; got a repeated dim"}},
      {"layout_stride_length",
       with_input("{dtype: float32, values: [[1]], layout: {stride: [1]}}"),
       {f + "5:55: `inputs.x.layout.stride`: expected 2 strides, one per dim; "
            "got 1"}},
      {"layout_offset_without_stride",
       with_input("{dtype: float32, values: [1], layout: {transpose: [0, 0], "
                  "storage_offset: 1}}"),
       {f + "5:64: `inputs.x.layout.storage_offset`: `storage_offset` goes "
            "with `stride` only"}},
      // backends, reference, tolerance, timeout, origin
      {"backends_unknown_and_twice",
       with_extra("backends: [cuda, rocm, cuda]\n"),
       {f + "6:18: `backends[1]`: expected one of cpu, cuda, hip; got `rocm`",
        f + "6:24: `backends[2]`: `cuda` is listed twice"}},
      {"reference_unknown",
       with_extra("reference: gpu\n"),
       {f + "6:12: `reference`: expected one of cpu, cpu64, torch, none; got "
            "`gpu`"}},
      {"reference_torch_for_torch_op",
       with_extra("reference: torch\n"),
       {f + "6:12: `reference`: expected `torch` only for a kernels.* op; got "
            "op `torch.add`"}},
      {"tolerance_half",
       with_extra("tolerance: {rtol: 0.1, atol: -1, equal_nan: 1}\n"),
       {f + "6:30: `tolerance.atol`: expected a finite number >= 0; got `-1`",
        f + "6:45: `tolerance.equal_nan`: expected true or false; got `1`"}},
      {"tolerance_only_rtol",
       with_extra("tolerance: {rtol: 0.1}\n"),
       {f + "6:12: `tolerance`: expected both `rtol` and `atol` or neither; "
            "got only `rtol`"}},
      {"timeout_zero",
       with_extra("timeout: 0\n"),
       {f + "6:10: `timeout`: expected a number of seconds > 0 and at most "
            "86400 (a day); got `0`"}},
      // Issue 49: a deadline of 1e18 s overflowed the clock (a false
      // TIMEOUT); a day is the most.
      {"timeout_past_a_day",
       with_extra("timeout: 1e18\n"),
       {f + "6:10: `timeout`: expected a number of seconds > 0 and at most "
            "86400 (a day); got `1e18`"}},
      {"origin_misspelt",
       with_extra("origin: {revison: 3f2c9e1}\n"),
       {f + "6:10: `origin.revison`: unknown key `revison`; did you mean "
            "`revision`?"}},
      // expect
      {"expect_backend_misspelt",
       with_extra("expect: {cdua: match}\n"),
       {f + "6:10: `expect.cdua`: unknown key `cdua`; did you mean `cuda`?"}},
      {"expect_not_in_backends",
       with_extra("backends: [cuda]\nexpect: {hip: match}\n"),
       {f + "7:10: `expect.hip`: `hip` is not in `backends` (cpu, cuda)"}},
      {"expect_cpu_error_with_cpu64",
       with_extra("reference: cpu64\nbackends: [cpu]\nexpect: {cpu: {error: "
                  "contract}}\n"),
       {f + "8:15: `expect.cpu`: expected no CPU error with `reference: "
            "cpu64`: the CPU run is then compared with that reference"}},
      {"expect_unknown_family",
       with_extra("expect: {cuda: {error: assert}}\n"),
       {f + "6:24: `expect.cuda.error`: expected one of " + kFamilies +
        "; got `assert`"}},
      {"expect_positions_for_torch_op",
       with_extra("expect: {cuda: {error: contract, positions: [1]}}\n"),
       {f +
        "6:34: `expect.cuda.positions`: `torch.add` reports no "
        "rejected positions, so `positions` cannot be checked (ops that "
        "do: " +
        kReportPositions + ")"}},
      {"expect_processed_for_torch_op",
       with_extra("expect: {cuda: {processed: 2}}\n"),
       {f +
        "6:17: `expect.cuda.processed`: `torch.add` does not "
        "count the entries it processes, so `processed` cannot be checked "
        "(ops that do: " +
        kReportProcessed + ")"}},
      {"expect_family_with_skip",
       with_extra("expect: {cuda: {skip: slow, family: crash}}\n"),
       {f + "6:29: `expect.cuda.family`: `family` goes with `xfail` only"}},
      {"expect_kind_misspelt",
       with_extra("expect: {cuda: {eror: crash}}\n"),
       {f + "6:17: `expect.cuda.eror`: unknown key `eror`; did you mean "
            "`error`?"}},
      {"expect_word",
       with_extra("expect: {cuda: mach}\n"),
       {f + "6:16: `expect.cuda`: expected `match`, {error: FAMILY}, {xfail: "
            "REASON}, {skip: REASON} or {outputs: ...}, each optionally with "
            "`when`; got `mach`"}},
      {"expect_two_kinds",
       with_extra("expect: {hip: {skip: a, xfail: b}}\n"),
       {f + "6:15: `expect.hip`: expected exactly one of `error`, `xfail`, "
            "`skip` (or `outputs` alone, to match); got `skip`, `xfail`"}},
  };
}

class MalformedSection : public testing::TestWithParam<Malformed> {};

TEST_P(MalformedSection, GivesExactlyTheseMessages) {
  EXPECT_EQ(testing_malformed::messages_of(GetParam().text),
            GetParam().expected)
      << GetParam().text;
}

INSTANTIATE_TEST_SUITE_P(Loader, MalformedSection,
                         testing::ValuesIn(malformed_sections()),
                         [](const testing::TestParamInfo<Malformed>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace casebook
