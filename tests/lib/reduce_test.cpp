// Issue 50: `casebook reduce` through the runner API (runner/reduce.h):
// every candidate run in a child of its own, judged by the one "same
// failure" rule; ops of the test's own plant failures the reducer must not
// follow.
#include "runner/reduce.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "casebook/case_writer.h"
#include "casebook/limits.h"
#include "casebook/op_catalog.h"
#include "casebook/ops.h"
#include "run_command.h"
#include "runner/reduce_search.h"
#include "test_ops.h"

namespace casebook {
namespace {

using testing_support::TempFolder;

// testing.reduce_plant: x * 2, but its float16 run adds 1 (a mismatch
// against the cpu64 reference, computed in float64); and it refuses inputs
// of fewer than 8 elements (contract): a smaller case fails otherwise.
std::vector<at::Tensor> plant(const OpCall& call) {
  const at::Tensor& x = call.input(0);
  if (x.numel() < 8) {
    throw std::runtime_error(
        "the plant refuses inputs of fewer than 8 elements");
  }
  return {x.scalar_type() == at::kHalf ? x * 2 + 1 : x * 2};
}

// testing.reduce_strides: x * 2, plus 1 in a run on a non-contiguous input
// that is not the float64 reference (which casts to contiguous first).
std::vector<at::Tensor> strides(const OpCall& call) {
  const at::Tensor& x = call.input(0);
  const bool wrong = x.scalar_type() != at::kDouble && !x.is_contiguous();
  return {wrong ? x * 2 + 1 : x * 2};
}

// testing.reduce_needle: takes exactly 6 elements (else it says so) and
// refuses a 7 among them.
std::vector<at::Tensor> needle(const OpCall& call) {
  const at::Tensor& x = call.input(0);
  if (x.numel() != 6) {
    throw std::runtime_error("the needle takes 6 elements, not " +
                             std::to_string(x.numel()));
  }
  if (at::eq(x, 7).any().item<bool>()) {
    throw std::runtime_error("needle 7 found");
  }
  return {x.clone()};
}

OpDef test_op(const std::string& name, OpFunction run) {
  OpDef def;
  def.name = name;
  def.inputs = {"input"};
  def.placement = OpDef::Placement::kHost;
  def.run = std::move(run);
  def.file = __FILE__;
  def.line = __LINE__;
  return def;
}

const OpRegistry& registry() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    register_all(r);
    r.add(test_op("testing.reduce_plant", plant));
    r.add(test_op("testing.reduce_strides", strides));
    r.add(test_op("testing.reduce_needle", needle));
    return r;
  }();
  return registry;
}

struct Reduced {
  ReduceResult result;
  std::vector<int> progress;  // the runs each progress call said
};

// `text` as a case file in a fresh folder, reduced on the CPU.
Reduced reduce_text(const std::string& text, int max_runs = 200,
                    double max_seconds = 600) {
  testing_support::use_single_thread();
  TempFolder folder;
  const std::filesystem::path file = folder.path() / "x.yaml";
  testing_support::write_file(file, text);
  ReduceRequest request;
  request.original = load_case_file(file);
  EXPECT_TRUE(request.original.ok())
      << request.original.errors.front().to_string();
  request.run.registry = &registry();
  request.max_runs = max_runs;
  request.max_seconds = max_seconds;
  Reduced reduced;
  request.on_progress = [&reduced](const ReduceProgress& progress) {
    reduced.progress.push_back(progress.runs);
  };
  reduced.result = reduce_case(request);
  return reduced;
}

bool said(const std::vector<std::string>& lines, const std::string& part) {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) {
    return l.find(part) != std::string::npos;
  });
}

std::string all_of(const ReduceResult& result) {
  std::string text = "removed:\n";
  for (const std::string& line : result.removed) text += "  " + line + "\n";
  text += "kept:\n";
  for (const std::string& line : result.kept) text += "  " + line + "\n";
  return text + "stopped: " + result.stopped + "\n" +
         case_to_yaml(result.reduced);
}

TEST(ReduceSearch, DeltaDebuggingKeepsTheOneIndexThatMatters) {
  int asked = 0;
  const std::vector<int64_t> kept = reducing::delta_debug(
      [] {
        std::vector<int64_t> all(512);
        for (int64_t i = 0; i < 512; ++i) all[static_cast<size_t>(i)] = i;
        return all;
      }(),
      [&asked](const std::vector<int64_t>& items) {
        ++asked;
        return std::count(items.begin(), items.end(), 317) > 0;
      },
      4);
  EXPECT_EQ(kept, std::vector<int64_t>{317});
  EXPECT_LE(asked, 18);  // at most two halves a level, 9 levels
}

TEST(ReduceSearch, BisectionFindsAThresholdAndTheLengthThatPasses) {
  const reducing::PrefixSearch found = reducing::shortest_failing_prefix(
      375, [](int64_t length) { return length >= 257; });
  EXPECT_EQ(found.shortest_failing, 257);
  EXPECT_EQ(found.longest_passing, 256);
  const reducing::PrefixSearch any =
      reducing::shortest_failing_prefix(100, [](int64_t) { return true; });
  EXPECT_EQ(any.shortest_failing, 1);
  EXPECT_EQ(any.longest_passing, 0);  // nothing shorter: no threshold
}

// Done means: a mismatch case reduces to a smaller mismatch, never to a
// different failure (the plant raises below 8 elements); the dtype that
// must stay is said and kept.
TEST(Reduce, AMismatchStaysTheSameMismatchAndNeverFollowsAnotherFailure) {
  const Reduced reduced = reduce_text(
      "casebook: 1\nsummary: a planted mismatch\nop: testing.reduce_plant\n"
      "reference: cpu64\nbackends: [cpu]\ninputs:\n"
      "  input: {shape: [64], dtype: float16, fill: {uniform: {low: 0, high: "
      "1}}, seed: 2}\n");
  const ReduceResult& result = reduced.result;
  ASSERT_EQ(result.outcome, ReduceResult::Outcome::kReduced)
      << result.original.message;
  EXPECT_EQ(result.failure.family, Family::kMismatch);
  ASSERT_EQ(result.reduced.inputs.size(), 1u);
  EXPECT_EQ(result.reduced.inputs[0].shape, std::vector<int64_t>{8})
      << all_of(result);
  EXPECT_EQ(result.reduced.inputs[0].dtype, DType::kFloat16);
  EXPECT_TRUE(said(result.kept,
                   "fails at 8, fails otherwise (FAIL contract: "
                   "the plant refuses"))
      << all_of(result);
  EXPECT_TRUE(said(result.removed, "values of `input`: all 0"))
      << all_of(result);
  EXPECT_TRUE(said(result.kept,
                   "dtype float16 of `input`: it must stay (in float32 the "
                   "case passes)"))
      << all_of(result);
  EXPECT_EQ(result.reduced_sizes, "input [8]");
  EXPECT_EQ(result.original_sizes, "input [64]");
  // A progress call after each run, the first run included.
  ASSERT_FALSE(reduced.progress.empty());
  EXPECT_EQ(reduced.progress.front(), 1);
  EXPECT_EQ(reduced.progress.back(), result.runs);
}

// Done means: a case of several steps whose last step fails on its own
// reduces to that step (here a one-op case of it), a step it does not read
// dropped first.
TEST(Reduce, StepsTheFailingStepDoesNotNeedAreDropped) {
  const Reduced reduced = reduce_text(
      "casebook: 1\nsummary: the loss of a label of 1000\nsteps:\n"
      "  - name: side\n    op: aten::relu\n    inputs: {self: logits}\n"
      "  - name: logp\n    op: torch.log_softmax\n"
      "    inputs: {self: logits}\n    args: {dim: 1}\n"
      "  - name: loss\n    op: aten::nll_loss\n"
      "    inputs: {self: logp, target: labels}\n"
      "backends: [cpu]\ninputs:\n"
      "  logits: {shape: [4, 5], dtype: float32, fill: {normal: {mean: 0, "
      "std: 1}}, seed: 3}\n"
      "  labels: {dtype: int64, values: [1, 0, 1000, 2]}\n");
  const ReduceResult& result = reduced.result;
  ASSERT_EQ(result.outcome, ReduceResult::Outcome::kReduced)
      << result.original.message;
  EXPECT_EQ(result.failure.step, "loss");
  EXPECT_TRUE(result.reduced.steps.empty()) << all_of(result);
  EXPECT_EQ(result.reduced.op, "aten::nll_loss");
  EXPECT_TRUE(said(result.removed,
                   "steps `side`: the failing step `loss` "
                   "does not read them"))
      << all_of(result);
  EXPECT_TRUE(said(result.removed, "as a one-op case of `aten::nll_loss`"))
      << all_of(result);
  ASSERT_EQ(result.reduced.inputs.size(), 2u);
  EXPECT_EQ(result.reduced.inputs[1].name, "target");
  EXPECT_EQ(result.reduced.inputs[1].int_values, std::vector<int64_t>{1000});
  EXPECT_TRUE(said(result.kept,
                   "value target[0] = 1000 (was target[2]): "
                   "it matters"))
      << all_of(result);
}

// Arguments equal to their defaults go; one that is not stays.
TEST(Reduce, ArgumentsEqualToTheirDefaultsAreDropped) {
  const Reduced reduced = reduce_text(
      "casebook: 1\nsummary: label 4 of 4 classes\n"
      "op: torch.cross_entropy\nbackends: [cpu]\n"
      "args: {ignore_index: -100, reduction: mean, label_smoothing: 0.25}\n"
      "inputs:\n"
      "  input: {shape: [3, 4], dtype: float32, fill: {normal: {mean: 0, "
      "std: 1}}, seed: 7}\n"
      "  target: {dtype: int64, values: [0, 2, 4]}\n");
  const ReduceResult& result = reduced.result;
  ASSERT_EQ(result.outcome, ReduceResult::Outcome::kReduced);
  EXPECT_EQ(result.reduced.args.size(), 1u) << all_of(result);
  EXPECT_EQ(result.reduced.args.count("label_smoothing"), 1u);
  EXPECT_TRUE(said(result.removed,
                   "args ignore_index: -100, reduction: mean "
                   "(their defaults)"))
      << all_of(result);
  EXPECT_EQ(result.reduced.inputs[1].int_values, std::vector<int64_t>{4});
  EXPECT_EQ(result.reduced.origin.entries.back().first, "reduced_from.runs");
}

// A layout the failure needs is kept and said; one with strides keeps its
// dims too.
TEST(Reduce, ALayoutThatMustStayIsKeptAndSaid) {
  for (const char* layout : {"{transpose: [0, 1]}", "{stride: [1, 4]}"}) {
    const Reduced reduced = reduce_text(
        std::string("casebook: 1\nsummary: strides matter\n"
                    "op: testing.reduce_strides\nreference: cpu64\n"
                    "backends: [cpu]\ninputs:\n"
                    "  input: {shape: [4, 4], dtype: float32, fill: {normal: "
                    "{mean: 0, std: 1}}, seed: 1, layout: ") +
        layout + "}\n");
    const ReduceResult& result = reduced.result;
    ASSERT_EQ(result.outcome, ReduceResult::Outcome::kReduced) << layout;
    EXPECT_EQ(result.reduced.inputs[0].layout.kind,
              std::string(layout).find("stride") != std::string::npos
                  ? Layout::Kind::kStrided
                  : Layout::Kind::kTranspose);
    EXPECT_TRUE(said(result.kept, "contiguous, the case passes"))
        << all_of(result);
    if (std::string(layout).find("stride") != std::string::npos) {
      EXPECT_EQ(result.reduced.inputs[0].shape, (std::vector<int64_t>{4, 4}));
      EXPECT_TRUE(said(result.kept, "its strides kept, so its dims are too"));
    }
  }
}

// Values that do not matter become 0; the one that does stays exact and is
// named, where no dim can shrink.
TEST(Reduce, TheValuesThatMatterStayExactAndTheOthersBecomeZero) {
  const Reduced reduced = reduce_text(
      "casebook: 1\nsummary: a needle\nop: testing.reduce_needle\n"
      "backends: [cpu]\ninputs:\n"
      "  input: {dtype: int64, values: [3, 5, 7, 2, 9, 1]}\n");
  const ReduceResult& result = reduced.result;
  ASSERT_EQ(result.outcome, ReduceResult::Outcome::kReduced)
      << result.original.message;
  EXPECT_EQ(result.reduced.inputs[0].int_values,
            (std::vector<int64_t>{0, 0, 7, 0, 0, 0}))
      << all_of(result);
  EXPECT_TRUE(said(result.kept,
                   "values of `input` that matter, exact: "
                   "input[2] = 7; the other 5 set to 0"))
      << all_of(result);
  EXPECT_TRUE(said(result.kept,
                   "`input` dim 0: all 6 (a smaller part fails "
                   "otherwise (FAIL contract: the needle takes 6 "
                   "elements"))
      << all_of(result);
}

// Issue 51: an alias (`same_as`) follows its target: the passes shrink and
// simplify the target, never the alias, which stays `{same_as: self}`.
TEST(Reduce, AnAliasFollowsItsTarget) {
  const Reduced reduced = reduce_text(
      "casebook: 1\nsummary: out overlaps self\n"
      "op: aten::index_select.out\nargs: {dim: 0}\nbackends: [cpu]\n"
      "inputs:\n"
      "  self: {shape: [32], dtype: float32, fill: {normal: {mean: 0, std: "
      "1}}, seed: 3}\n"
      "  index: {dtype: int64, values: [3, 1, 2]}\n"
      "  out: {same_as: self}\n");
  const ReduceResult& result = reduced.result;
  ASSERT_EQ(result.outcome, ReduceResult::Outcome::kReduced)
      << result.original.message;
  const std::vector<TensorSpec>& inputs = result.reduced.inputs;
  ASSERT_EQ(inputs.size(), 3u);
  EXPECT_LT(element_count(inputs[0].shape), uint64_t{32}) << all_of(result);
  EXPECT_EQ(inputs[2].same_as, "self");
  EXPECT_EQ(inputs[2].shape, inputs[0].shape);
  EXPECT_NE(case_to_yaml(result.reduced).find("\n  out: {same_as: self}\n"),
            std::string::npos)
      << all_of(result);
  EXPECT_FALSE(said(result.removed, "`out`")) << all_of(result);
  EXPECT_FALSE(said(result.kept, "`out`")) << all_of(result);
}

// Deterministic: the same case reduces to the same case in the same runs.
TEST(Reduce, TheSameCaseGivesTheSameReducedCase) {
  const std::string text =
      "casebook: 1\nsummary: label 4 of 4 classes\n"
      "op: torch.cross_entropy\nbackends: [cpu]\ninputs:\n"
      "  input: {shape: [6, 4], dtype: float32, fill: {normal: {mean: 0, "
      "std: 1}}, seed: 7}\n"
      "  target: {dtype: int64, values: [0, 2, 3, 1, 4, 0]}\n";
  const ReduceResult first = reduce_text(text).result;
  const ReduceResult second = reduce_text(text).result;
  EXPECT_EQ(case_to_yaml(first.reduced), case_to_yaml(second.reduced));
  EXPECT_EQ(first.runs, second.runs);
  EXPECT_EQ(first.removed, second.removed);
  EXPECT_EQ(first.reduced_sizes, "input [1, 1], target [1]");
}

// --max-runs and the time bound: each said, the case kept so far (verified)
// is the answer.
TEST(Reduce, TheBoundsAreSaidAndTheCaseVerifiedSoFarStands) {
  const std::string text =
      "casebook: 1\nsummary: label 4 of 4 classes\n"
      "op: torch.cross_entropy\nbackends: [cpu]\ninputs:\n"
      "  input: {shape: [8, 4], dtype: float32, fill: {normal: {mean: 0, "
      "std: 1}}, seed: 7}\n"
      "  target: {dtype: int64, values: [0, 2, 3, 1, 4, 0, 1, 1]}\n";
  const ReduceResult runs = reduce_text(text, 3).result;
  EXPECT_EQ(runs.outcome, ReduceResult::Outcome::kReduced);
  EXPECT_EQ(runs.stopped, "--max-runs 3 reached");
  EXPECT_EQ(runs.runs, 3);
  // The first (the case's own) fails; the second (rows 0..3) passes; the
  // third (rows 4..7) fails and is kept.
  EXPECT_EQ(runs.reduced_sizes, "input [4, 4], target [4]");
  const ReduceResult time = reduce_text(text, 200, 1e-9).result;
  EXPECT_EQ(time.outcome, ReduceResult::Outcome::kReduced);
  EXPECT_EQ(time.stopped, "the time bound of 1e-09 s reached");
  EXPECT_EQ(time.runs, 1);
  EXPECT_EQ(time.reduced_sizes, "input [8, 4], target [8]");
}

TEST(Reduce, ACaseThatPassesHasNothingToReduce) {
  const ReduceResult result =
      reduce_text(
          "casebook: 1\nsummary: valid labels\nop: torch.cross_entropy\n"
          "backends: [cpu]\ninputs:\n"
          "  input: {shape: [2, 4], dtype: float32, fill: {full: 0}}\n"
          "  target: {dtype: int64, values: [0, 3]}\n")
          .result;
  EXPECT_EQ(result.outcome, ReduceResult::Outcome::kPasses);
  EXPECT_EQ(result.runs, 1);
}

}  // namespace
}  // namespace casebook
