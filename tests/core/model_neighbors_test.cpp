// Neighbouring cases (casebook/neighbors.h): each rule's generated cases,
// their names, their expected outcomes; the `neighbors` key in the loader,
// and its errors where a rule does not apply.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "casebook/case_writer.h"
#include "casebook/loader.h"
#include "casebook/neighbors.h"
#include "loaded_case_checks.h"

namespace casebook {
namespace {

const char kLabel4[] =
    "casebook: 1\n"
    "summary: a label of 4 in a 4-class problem\n"
    "op: torch.cross_entropy\n"
    "args: {ignore_index: -100, reduction: mean}\n"
    "inputs:\n"
    "  input:  {shape: [3, 4], dtype: float32, fill: {normal: {mean: 0, std: "
    "1}}, seed: 7}\n"
    "  target: {dtype: int64, values: [0, 2, 4]}\n"
    "expect:\n"
    "  cpu:  {error: index_out_of_range}\n"
    "  cuda: {error: device_assert}\n"
    "  hip:  {error: device_assert, message: 'Target 4'}\n";

LoadedCase load_label_file(const std::string& text) {
  return load_case_text(text, "cases/ce/label.yaml");
}

Case load_label(const std::string& text) {
  return load_ok(text, "cases/ce/label.yaml");
}

std::vector<std::string> errors_of_label(const std::string& text) {
  return error_lines(load_label_file(text));
}

std::vector<std::string> ids(const NeighborExpansion& expansion) {
  std::vector<std::string> out;
  for (const Neighbor& neighbor : expansion.neighbors) {
    out.push_back(neighbor.id);
  }
  return out;
}

const Neighbor& named(const NeighborExpansion& expansion,
                      const std::string& id) {
  for (const Neighbor& neighbor : expansion.neighbors) {
    if (neighbor.id == id) return neighbor;
  }
  ADD_FAILURE() << "no neighbour " << id;
  static const Neighbor none;
  return none;
}

const TensorSpec& input(const Case& kase, const std::string& name) {
  for (const TensorSpec& each : kase.inputs) {
    if (each.name == name) return each;
  }
  ADD_FAILURE() << "no input " << name;
  static const TensorSpec none;
  return none;
}

TEST(Neighbors, LabelLimitsOfAClassIndexInputFromTheOpsSchema) {
  const Case base =
      load_label(std::string(kLabel4) + "neighbors: {label_limits: {}}\n");
  ASSERT_EQ(base.neighbors.size(), 1u);
  const NeighborExpansion made = declared_neighbors(base);
  EXPECT_TRUE(made.errors.empty());
  EXPECT_EQ(ids(made),
            (std::vector<std::string>{
                "ce/label~label_limits[0]", "ce/label~label_limits[C-1]",
                "ce/label~label_limits[C]", "ce/label~label_limits[-1]",
                "ce/label~label_limits[ignore_index]",
                "ce/label~label_limits[all_ignored]"}));
  // Every other label made valid (4 -> 4 mod 4), the limit at position 0.
  const auto labels = [&](const std::string& param) {
    return input(named(made, "ce/label~label_limits[" + param + "]").value,
                 "target")
        .int_values;
  };
  EXPECT_EQ(labels("0"), (std::vector<int64_t>{0, 2, 0}));
  EXPECT_EQ(labels("C-1"), (std::vector<int64_t>{3, 2, 0}));
  EXPECT_EQ(labels("C"), (std::vector<int64_t>{4, 2, 0}));
  EXPECT_EQ(labels("-1"), (std::vector<int64_t>{-1, 2, 0}));
  EXPECT_EQ(labels("ignore_index"), (std::vector<int64_t>{-100, 2, 0}));
  EXPECT_EQ(labels("all_ignored"), (std::vector<int64_t>{-100, -100, -100}));
  // 0, C-1 and ignore_index match everywhere; C and -1 fail with the base
  // case's family on each backend (its message, written for label 4, goes).
  for (const char* param : {"0", "C-1", "ignore_index"}) {
    EXPECT_EQ(
        describe_expected(
            named(made, std::string("ce/label~label_limits[") + param + "]")
                .value),
        "match")
        << param;
  }
  for (const char* param : {"C", "-1"}) {
    const Case& kase =
        named(made, std::string("ce/label~label_limits[") + param + "]").value;
    EXPECT_EQ(describe_expected(kase),
              "cpu: error index_out_of_range; cuda: error device_assert; hip: "
              "error device_assert");
    EXPECT_FALSE(kase.expect_entries.at(Backend::kHip)[0].message);
  }
  // Every label ignored: a mean over nothing is NaN.
  const Case& ignored = named(made, "ce/label~label_limits[all_ignored]").value;
  EXPECT_EQ(describe_expected(ignored), "match; outputs 0: nan");
  EXPECT_TRUE(ignored.equal_nan);
  EXPECT_EQ(named(made, "ce/label~label_limits[C]").change,
            "target[0] = 4 (one past the 4 classes)");
}

TEST(Neighbors, LabelLimitsDeclaredForAnOpWithoutAKnownClassInput) {
  const Case base = load_label(
      "casebook: 1\nsummary: s\nop: torch.index_select\nargs: {dim: 0}\n"
      "inputs:\n"
      "  input: {shape: [5, 2], dtype: float32, fill: {full: 1}}\n"
      "  index: {dtype: int64, values: [1, 3]}\n"
      "neighbors:\n"
      "  label_limits: {input: index, classes: 5, errors: {cpu: "
      "index_out_of_range, cuda: device_assert}}\n");
  const NeighborExpansion made = declared_neighbors(base);
  // No ignore_index: no ignored label, no all_ignored.
  EXPECT_EQ(ids(made),
            (std::vector<std::string>{
                "ce/label~label_limits[0]", "ce/label~label_limits[C-1]",
                "ce/label~label_limits[C]", "ce/label~label_limits[-1]"}));
  const Case& past = named(made, "ce/label~label_limits[C]").value;
  EXPECT_EQ(input(past, "index").int_values, (std::vector<int64_t>{5, 3}));
  // hip is not declared and the base expects a match there: not derivable,
  // and said so instead of guessed.
  EXPECT_EQ(describe_expected(past),
            "cpu: error index_out_of_range; cuda: error device_assert; hip: "
            "cannot derive");
  EXPECT_NE(named(made, "ce/label~label_limits[C]")
                .cannot_derive.find("hip: the base case expects a match on "
                                    "hip, so the family of a label outside "
                                    "[0, C) there is not known: declare it "
                                    "in `neighbors.label_limits.errors.hip`"),
            std::string::npos)
      << named(made, "ce/label~label_limits[C]").cannot_derive;
  EXPECT_EQ(past.expect_entries.at(Backend::kHip)[0].missing.rfind(
                "the expected outcome of ce/label~label_limits[C] on hip "
                "cannot be derived: ",
                0),
            0u);
}

TEST(Neighbors, TheClassCountOfAnAtenLossIsItsInputsClassDim) {
  const Case base = load_label(
      "casebook: 1\nsummary: s\nop: aten::nll_loss2d\ninputs:\n"
      "  self: {shape: [1, 3, 2, 2], dtype: float32, fill: {full: -1}}\n"
      "  target: {dtype: int64, values: [[[0, 1], [2, 0]]]}\n"
      "neighbors: {label_limits: {errors: {cpu: index_out_of_range, cuda: "
      "device_assert, hip: device_assert}}}\n");
  const NeighborExpansion made = declared_neighbors(base);
  EXPECT_TRUE(made.errors.empty());
  EXPECT_EQ(named(made, "ce/label~label_limits[C]").change,
            "target[0] = 3 (one past the 3 classes)");
  EXPECT_EQ(
      input(named(made, "ce/label~label_limits[C]").value, "target").int_values,
      (std::vector<int64_t>{3, 1, 2, 0}));
  EXPECT_EQ(describe_expected(named(made, "ce/label~label_limits[-1]").value),
            "cpu: error index_out_of_range; cuda: error device_assert; hip: "
            "error device_assert");
}

TEST(Neighbors, LastBatchIsTheRemainderBesideAFullBatch) {
  const Case base = load_label(
      "casebook: 1\nsummary: s\nop: kernels.nll_loss\n"
      "args: {reduction: mean, ignore_index: -100}\ninputs:\n"
      "  input: {shape: [8, 10], dtype: float32, fill: {uniform: {low: -5, "
      "high: 0}}, seed: 1}\n"
      "  target: {dtype: int64, values: [0, 1, 2, 3, 4, 5, 6, 7]}\n"
      "outputs:\n  0: {finite: true, shape: []}\n"
      "neighbors:\n  last_batch: {dataset_size: 1000, batch_size: 256}\n");
  const NeighborExpansion made = declared_neighbors(base);
  EXPECT_EQ(ids(made), (std::vector<std::string>{"ce/label~last_batch[232]",
                                                 "ce/label~last_batch[256]"}));
  const Case& last = made.neighbors[0].value;
  EXPECT_EQ(input(last, "input").shape, (std::vector<int64_t>{232, 10}));
  ASSERT_EQ(input(last, "target").int_values.size(), 232u);
  EXPECT_EQ(input(last, "target").int_values[9], 1);  // the values repeat
  // The base's match stands; what depended on its shapes goes.
  EXPECT_EQ(describe_expected(last), "match; outputs 0: finite");
  EXPECT_FALSE(last.outputs[0].shape);
  EXPECT_EQ(made.neighbors[0].change,
            "the last batch of 1000 samples in batches of 256: 232 rows "
            "(input.0, target.0)");
}

TEST(Neighbors, LengthsShortestEmptyWhereTheOpAllowsItAndALongOne) {
  const Case sum = load_label(
      "casebook: 1\nsummary: s\nop: kernels.sum\ninputs:\n"
      "  input: {shape: [100], dtype: float32, fill: {full: 1}}\n"
      "neighbors: {lengths: {long: 4096}}\n");
  EXPECT_EQ(
      ids(declared_neighbors(sum)),
      (std::vector<std::string>{"ce/label~lengths[0]", "ce/label~lengths[1]",
                                "ce/label~lengths[4096]"}));
  const Case softmax = load_label(
      "casebook: 1\nsummary: s\nop: kernels.softmax\ninputs:\n"
      "  input: {shape: [4, 300], dtype: float32, fill: {full: 1}}\n"
      "neighbors: {lengths: {along: {input: 1}}}\n");
  const NeighborExpansion made = declared_neighbors(softmax);
  EXPECT_EQ(ids(made), (std::vector<std::string>{"ce/label~lengths[1]"}));
  EXPECT_EQ(input(made.neighbors[0].value, "input").shape,
            (std::vector<int64_t>{4, 1}));
}

TEST(Neighbors, ResizingAFailingCaseCannotDeriveItsOutcome) {
  const Case base =
      load_label(std::string(kLabel4) + "neighbors: {lengths: {}}\n");
  const NeighborExpansion made = declared_neighbors(base);
  ASSERT_EQ(ids(made), (std::vector<std::string>{"ce/label~lengths[1]"}));
  EXPECT_EQ(describe_expected(made.neighbors[0].value), "cannot derive");
  EXPECT_NE(made.neighbors[0].cannot_derive.find(
                "cpu: the base case expects error index_out_of_range there, "
                "and whether the resized inputs still hold what fails is not "
                "known"),
            std::string::npos);
}

TEST(Neighbors, BlockBoundariesAroundEachBlockTheKernelDeclares) {
  const Case base = load_label(
      "casebook: 1\nsummary: s\nop: kernels.sum\ninputs:\n"
      "  input: {shape: [1000], dtype: float32, fill: {uniform: {low: 0, "
      "high: 1}}, seed: 3}\n"
      "neighbors: [block_boundaries]\n");
  const NeighborExpansion made = declared_neighbors(base);
  // kernels/sum/sum.h: 256 threads a block, at most 1024 blocks.
  EXPECT_EQ(
      ids(made),
      (std::vector<std::string>{
          "ce/label~block_boundaries[255]", "ce/label~block_boundaries[256]",
          "ce/label~block_boundaries[257]", "ce/label~block_boundaries[262143]",
          "ce/label~block_boundaries[262144]",
          "ce/label~block_boundaries[262145]"}));
  EXPECT_EQ(input(made.neighbors[5].value, "input").shape,
            (std::vector<int64_t>{262145}));
  EXPECT_EQ(input(made.neighbors[5].value, "input").seed, 3u);
  EXPECT_EQ(describe_expected(made.neighbors[0].value), "match");
  // The embedding kernel: one block of 128 threads per row of the weight.
  const Case embedding = load_label(
      "casebook: 1\nsummary: s\nop: kernels.embedding\ninputs:\n"
      "  weight: {shape: [10, 64], dtype: float32, fill: {full: 1}}\n"
      "  indices: {dtype: int64, values: [1, 2]}\n"
      "neighbors: {block_boundaries: {}}\n");
  const NeighborExpansion rows = declared_neighbors(embedding);
  EXPECT_EQ(ids(rows),
            (std::vector<std::string>{"ce/label~block_boundaries[127]",
                                      "ce/label~block_boundaries[128]",
                                      "ce/label~block_boundaries[129]"}));
  EXPECT_EQ(input(rows.neighbors[2].value, "weight").shape,
            (std::vector<int64_t>{10, 129}));
}

TEST(Neighbors, LayoutsKeepTheValuesAndTheExpectations) {
  const Case base = load_label(
      "casebook: 1\nsummary: s\nop: torch.conv2d\ninputs:\n"
      "  input: {shape: [1, 2, 3, 3], dtype: float32, fill: {full: 1}}\n"
      "  weight: {shape: [2, 2, 1, 1], dtype: float32, fill: {full: 1}, "
      "layout: {transpose: [0, 1]}}\n"
      "neighbors: {layouts: {}}\n");
  const NeighborExpansion made = declared_neighbors(base);
  EXPECT_EQ(
      ids(made),
      (std::vector<std::string>{
          "ce/label~layouts[contiguous]", "ce/label~layouts[transposed]",
          "ce/label~layouts[sliced]", "ce/label~layouts[channels_last]"}));
  EXPECT_EQ(input(made.neighbors[0].value, "weight").layout.kind,
            Layout::Kind::kDefault);
  const Layout& sliced = input(made.neighbors[2].value, "input").layout;
  EXPECT_EQ(sliced.kind, Layout::Kind::kStrided);
  EXPECT_EQ(sliced.stride, (std::vector<int64_t>{24, 12, 4, 1}));
  EXPECT_EQ(sliced.storage_offset, 1);
  EXPECT_EQ(input(made.neighbors[3].value, "input").layout.dims,
            (std::vector<int64_t>{0, 2, 3, 1}));
  EXPECT_EQ(made.neighbors[3].change, "channels_last input, weight");
  // A failing base keeps its failure: the values are the same.
  const Case failing =
      load_label(std::string(kLabel4) + "neighbors: {layouts: [transposed]}\n");
  const NeighborExpansion same = declared_neighbors(failing);
  ASSERT_EQ(same.neighbors.size(), 1u);
  EXPECT_EQ(describe_expected(same.neighbors[0].value),
            "cpu: error index_out_of_range; cuda: error device_assert; hip: "
            "error device_assert");
}

TEST(Neighbors, DtypeSiblingsWithTheirDefaultToleranceOrCpu64) {
  const Case base = load_label(
      "casebook: 1\nsummary: s\nop: torch.matmul\ninputs:\n"
      "  input: {shape: [2, 2], dtype: float32, values: [[1, 2], [3, 0.1]]}\n"
      "  other: {shape: [2, 2], dtype: float32, fill: {full: 1}}\n"
      "tolerance: {rtol: 1e-3, atol: 1e-3}\n"
      "outputs: {0: {dtype: float32, finite: true}}\n"
      "neighbors: {dtypes: {dtypes: [float16, float64], reference: cpu64}}\n");
  const NeighborExpansion made = declared_neighbors(base);
  EXPECT_EQ(ids(made), (std::vector<std::string>{"ce/label~dtypes[float16]",
                                                 "ce/label~dtypes[float64]"}));
  const Case& half = made.neighbors[0].value;
  EXPECT_EQ(input(half, "input").dtype, DType::kFloat16);
  EXPECT_TRUE(input(half, "input").round_to_nearest);
  EXPECT_EQ(input(half, "other").dtype, DType::kFloat16);
  EXPECT_EQ(half.reference, Case::Reference::kCpu64);
  EXPECT_FALSE(half.tolerance);  // float16's default
  EXPECT_EQ(describe_expected(half), "match; outputs 0: finite");
  // Without a list: the three floats the base is not.
  const Case plain = load_label(
      "casebook: 1\nsummary: s\nop: torch.matmul\ninputs:\n"
      "  input: {shape: [2, 2], dtype: float32, fill: {full: 1}}\n"
      "  other: {shape: [2, 2], dtype: float32, fill: {full: 1}}\n"
      "neighbors: [dtypes]\n");
  EXPECT_EQ(ids(declared_neighbors(plain)),
            (std::vector<std::string>{"ce/label~dtypes[float16]",
                                      "ce/label~dtypes[bfloat16]",
                                      "ce/label~dtypes[float64]"}));
}

TEST(Neighbors, AKnownBugOfTheBaseIsNotAssumedOfItsLayoutOrDtype) {
  const Case base = load_label(
      "casebook: 1\nsummary: s\nop: torch.matmul\ninputs:\n"
      "  input: {shape: [2, 2], dtype: bfloat16, fill: {full: 1}}\n"
      "  other: {shape: [2, 2], dtype: bfloat16, fill: {full: 1}}\n"
      "expect:\n  cpu: {xfail: a bfloat16 bug}\n"
      "neighbors: {layouts: [transposed], dtypes: [float32]}\n");
  const NeighborExpansion made = declared_neighbors(base);
  ASSERT_EQ(made.neighbors.size(), 2u);
  for (const Neighbor& neighbor : made.neighbors) {
    EXPECT_EQ(describe_expected(neighbor.value),
              "cpu: cannot derive; cuda: match; hip: match")
        << neighbor.id;
  }
  EXPECT_EQ(made.neighbors[1].cannot_derive,
            "cpu: the base case expects a known bug there (xfail: a bfloat16 "
            "bug), which may depend on its dtype");
}

TEST(Neighbors, ARuleThatDoesNotApplyIsAnErrorAtItsLine) {
  const std::string head =
      "casebook: 1\nsummary: s\nop: torch.add\ninputs:\n"
      "  input: {shape: [2], dtype: float32, fill: {full: 1}}\n"
      "  other: {shape: [3], dtype: float32, fill: {full: 1}}\n"
      "neighbors:\n";
  EXPECT_EQ(errors_of_label(head + "  label_limits: {}\n"),
            (std::vector<std::string>{
                "cases/ce/label.yaml:8:3: `neighbors.label_limits`: "
                "`label_limits` does not apply: op `torch.add` has no "
                "class-index input that casebook knows of: name it with "
                "`input:` and give `classes:` (C)"}));
  EXPECT_EQ(errors_of_label(head + "  block_boundaries: {}\n"),
            (std::vector<std::string>{
                "cases/ce/label.yaml:8:3: `neighbors.block_boundaries`: "
                "`block_boundaries` does not apply: op `torch.add` declares "
                "no block size (the kernels.* ops do): give `blocks: [...]` "
                "and `along: {input: dim}`"}));
  EXPECT_EQ(errors_of_label(head + "  lengths: {}\n"),
            (std::vector<std::string>{
                "cases/ce/label.yaml:8:3: `neighbors.lengths`: `lengths` does "
                "not apply: the inputs differ in size at dim 0 (input.0 is 2, "
                "other.0 is 3): name the dims to resize with `along: {input: "
                "dim, ...}`"}));
  EXPECT_EQ(
      errors_of_label(head + "  last_batch: {dataset_size: 512, batch_size: "
                             "256, along: {input: 0}}\n"),
      (std::vector<std::string>{
          "cases/ce/label.yaml:8:3: `neighbors.last_batch`: "
          "`last_batch` does not apply: 512 samples in batches of 256 "
          "leave no incomplete batch"}));
  EXPECT_EQ(errors_of_label(head + "  layouts: [channels_last]\n"),
            (std::vector<std::string>{
                "cases/ce/label.yaml:8:3: `neighbors.layouts`: `layouts` does "
                "not apply: `channels_last` needs a 4-D input; the case has "
                "none"}));
}

TEST(Neighbors, TheKeysOfNeighborsAreChecked) {
  const std::string head =
      "casebook: 1\nsummary: s\nop: torch.add\ninputs:\n"
      "  input: {shape: [2], dtype: float32, fill: {full: 1}}\n"
      "neighbors:\n";
  EXPECT_EQ(errors_of_label(head + "  lenghts: {}\n"),
            (std::vector<std::string>{
                "cases/ce/label.yaml:7:3: `neighbors.lenghts`: unknown key "
                "`lenghts`; did you mean `lengths`?"}));
  EXPECT_EQ(errors_of_label(head + "  lengths: {lnog: 5}\n"),
            (std::vector<std::string>{
                "cases/ce/label.yaml:7:13: `neighbors.lengths.lnog`: unknown "
                "key `lnog`; did you mean `long`?"}));
  EXPECT_EQ(
      errors_of_label(head + "  dtypes: [float8]\n"),
      (std::vector<std::string>{
          "cases/ce/label.yaml:7:12: `neighbors.dtypes[0]`: expected one "
          "of float16, bfloat16, float32, float64; got `float8`; did you mean "
          "`float16`?"}));
  EXPECT_EQ(
      errors_of_label(head + "  last_batch: {dataset_size: 0}\n"),
      (std::vector<std::string>{
          "cases/ce/label.yaml:7:30: `neighbors.last_batch.dataset_size`: "
          "expected an integer in [1, 2^53]; got `0`"}));
}

TEST(Neighbors, AFileWithoutNeighborsIsUnchanged) {
  const Case base = load_label(kLabel4);
  EXPECT_TRUE(base.neighbors.empty());
  EXPECT_TRUE(declared_neighbors(base).neighbors.empty());
  // `casebook neighbors` asks every rule: those that apply, and why the
  // others do not.
  const NeighborExpansion every = applicable_neighbors(base);
  EXPECT_EQ(every.neighbors.front().id, "ce/label~label_limits[0]");
  std::vector<std::string> refused;
  for (const CaseError& error : every.errors) refused.push_back(error.key_path);
  EXPECT_EQ(refused, (std::vector<std::string>{"neighbors.last_batch",
                                               "neighbors.block_boundaries"}));
}

TEST(Neighbors, SizesStayWithinTheLoadersLimits) {
  const std::string head =
      "casebook: 1\nsummary: s\nop: kernels.sum\ninputs:\n";
  EXPECT_EQ(
      errors_of_label(head +
                      "  input: {shape: [8], dtype: float32, fill: {full: 1}}\n"
                      "neighbors: {lengths: {long: 4000000000}}\n"),
      (std::vector<std::string>{
          "cases/ce/label.yaml:6:13: `neighbors.lengths`: `lengths` does not "
          "apply: input `input` of size 4000000000 along dim 0: a tensor of "
          "4000000000 elements of float32 (14.9 GiB) is over the limit of "
          "4 GiB per tensor (CASEBOOK_MAX_TENSOR_BYTES); refused before "
          "anything is allocated. A case needs the smallest tensor that "
          "still fails"}));
  EXPECT_EQ(errors_of_label(head + "  input: {dtype: float32, values: [1, 2]}\n"
                                   "neighbors: {lengths: {long: 5000000}}\n"),
            (std::vector<std::string>{
                "cases/ce/label.yaml:6:13: `neighbors.lengths`: `lengths` "
                "does not apply: input `input` is written as `values`; of "
                "size 5000000 along dim 0 it would hold 5000000 of them, over "
                "4194304: give it a `fill`"}));
  EXPECT_EQ(
      errors_of_label(head +
                      "  input: {shape: [8], dtype: float32, fill: {full: 1}}\n"
                      "neighbors: {block_boundaries: {blocks: "
                      "[9223372036854775807]}}\n"),
      (std::vector<std::string>{
          "cases/ce/label.yaml:6:41: "
          "`neighbors.block_boundaries.blocks[0]`: expected an integer "
          "in [1, 2^53]; got `9223372036854775807`"}));
}

TEST(Neighbors, AWrittenNeighbourReadsBackAsTheSameCase) {
  const Case base = load_label(
      "casebook: 1\nsummary: 'quoted: \"s\"'\nop: torch.matmul\n"
      "args: {dim: -1, scale: 0.5, flag: true, name: mean, none: null, "
      "list: [1, 2]}\n"
      "inputs:\n"
      "  input: {shape: [2, 2], dtype: float32, values: [[1, .nan], [1e-05, "
      ".inf]], layout: {transpose: [0, 1]}}\n"
      "  other: {shape: [2, 2], dtype: float64, fill: {torch: {normal: "
      "{mean: 0, std: 2}}}, seed: 5}\n"
      "  mask: {shape: [3], dtype: bool, fill: {full: true}}\n"
      "backends: [cpu, cuda]\n"
      "reference: cpu64\n"
      "tolerance: {rtol: 0.001, atol: 0.0001, equal_nan: true}\n"
      "expect:\n"
      "  cuda:\n"
      "    - {xfail: known, family: mismatch, when: {torch: '>=2.0', cpu: "
      "[avx2, '!avx512f']}}\n"
      "    - {outputs: {0: {finite: true}}}\n"
      "outputs: {0: {dtype: float32, shape: [2, 2], min: -1, max: 1e+30, "
      "nan: [1, [0, 1]]}}\n"
      "repeat: 3\ndeterministic: bitwise\ntimeout: 5\n"
      "origin: {iteration: 7, versions: {torch: '2.1', cuda: '12.1'}}\n");
  const std::string text = case_to_yaml(base);
  const LoadedCase again = load_case_text(text, "cases/ce/label.yaml");
  ASSERT_TRUE(again.ok()) << text << again.errors.front().to_string();
  const Case& read = *again.value;
  EXPECT_EQ(case_to_yaml(read), text);
  EXPECT_EQ(read.summary, base.summary);
  EXPECT_EQ(read.args.at("list").list.size(), 2u);
  EXPECT_TRUE(std::isnan(read.inputs[0].float_values[1]));
  EXPECT_EQ(read.inputs[0].float_values[2], 1e-05);
  EXPECT_EQ(read.inputs[0].layout.kind, Layout::Kind::kTranspose);
  EXPECT_EQ(read.inputs[1].fill.torch_call, "normal");
  EXPECT_EQ(read.inputs[1].seed, 5u);
  EXPECT_EQ(read.backends, base.backends);
  EXPECT_EQ(read.reference, Case::Reference::kCpu64);
  EXPECT_EQ(read.expect_entries.at(Backend::kCuda).size(), 2u);
  EXPECT_EQ(read.expect_entries.at(Backend::kCuda)[0].when.size(), 2u);
  EXPECT_EQ(read.outputs[0].nan_positions, base.outputs[0].nan_positions);
  EXPECT_EQ(read.outputs[0].max, 1e30);
  EXPECT_EQ(read.origin.entries, base.origin.entries);
  EXPECT_EQ(read.repeat, 3);
  EXPECT_EQ(read.timeout_seconds, 5.0);
}

// A fixture named with `#name` is written back once, not as `x.pt#b#b`.
TEST(CaseWriter, AFixtureTensorNameIsWrittenOnce) {
  const LoadedCase loaded =
      load_case_file(std::filesystem::path(CASEBOOK_TEST_DATA) / ".." / ".." /
                         "cases" / "torch" / "neg_from_pt_dict_entry.yaml",
                     {});
  ASSERT_TRUE(loaded.ok()) << loaded.errors.front().to_string();
  const std::string text = case_to_yaml(*loaded.value);
  EXPECT_NE(text.find("pt/dict_of_two.pt#b\""), std::string::npos) << text;
  EXPECT_EQ(text.find("#b#b"), std::string::npos) << text;
}

}  // namespace
}  // namespace casebook
