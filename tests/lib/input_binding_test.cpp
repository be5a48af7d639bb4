// Issue 34, part 1: a case's input names mean what they say for every op.
// casebook's own ops (torch.cross_entropy, torch.nll_loss, torch.embedding)
// read their inputs by name as the dispatcher path does: `target` written
// first is the target; a name the op does not have is refused where it was
// written, with a did-you-mean; version 1's positional files keep their
// meaning.
#include <gtest/gtest.h>

#include "casebook/loader.h"
#include "casebook/op_catalog.h"
#include "casebook/ops.h"
#include "run_one_case.h"

namespace casebook {
namespace {

using testing_support::run_one_case;
using testing_support::verdict_text;

ResolvedOp resolve_text(const std::string& text) {
  const LoadedCase loaded = load_case_text(text, "cases/bind.yaml");
  if (!loaded.ok()) throw std::runtime_error(loaded.errors[0].to_string());
  return resolve_op(*loaded.value, default_registry());
}

constexpr const char* kTargetFirst = R"(casebook: 1
summary: the labels written before the logits
op: torch.cross_entropy
inputs:
  target: {dtype: int64, values: [0, 2, 4]}
  input: {shape: [3, 4], dtype: float32, fill: {normal: {mean: 0, std: 1}}, seed: 7}
)";

TEST(InputBinding, TargetWrittenFirstIsTheTargetOfCrossEntropy) {
  const CaseVerdict verdict = run_one_case("target_first", kTargetFirst);
  // Read by position it was the logits' dtype that failed: op_unavailable,
  // "log_softmax_lastdim_kernel_impl" not implemented for 'Long'.
  EXPECT_EQ(verdict.family, Family::kIndexOutOfRange) << verdict_text(verdict);
  EXPECT_NE(verdict.message.find("Target 4 is out of bounds"),
            std::string::npos)
      << verdict_text(verdict);
}

TEST(InputBinding, NllLossAndEmbeddingBindByNameToo) {
  std::string nll = kTargetFirst;
  nll.replace(nll.find("torch.cross_entropy"), 19, "torch.nll_loss");
  const CaseVerdict loss = run_one_case("nll_target_first", nll);
  EXPECT_EQ(loss.family, Family::kIndexOutOfRange) << verdict_text(loss);

  const CaseVerdict lookup = run_one_case("embedding_indices_first", R"(
casebook: 1
summary: indices before the weight
op: torch.embedding
inputs:
  indices: {dtype: int64, values: [1, 10]}
  weight: {shape: [10, 3], dtype: float32, fill: {full: 1}}
)");
  EXPECT_EQ(lookup.family, Family::kIndexOutOfRange) << verdict_text(lookup);
}

TEST(InputBinding, TheBoundOpSaysWhichArgumentEachInputIs) {
  const ResolvedOp resolved = resolve_text(kTargetFirst);
  ASSERT_NE(resolved.def, nullptr) << resolved.problems.at(0);
  EXPECT_EQ(resolved.def->input_arguments,
            (std::vector<std::string>{"target", "input"}));
  // In the op's own order, the registered op itself.
  const ResolvedOp in_order = resolve_text(R"(casebook: 1
summary: s
op: torch.cross_entropy
inputs:
  logits: {shape: [3, 4], dtype: float32, fill: {full: 0}}
  labels: {dtype: int64, values: [0, 2, 3]}
)");
  EXPECT_EQ(in_order.def, default_registry().find("torch.cross_entropy"));
}

TEST(InputBinding, ANameTheOpDoesNotHaveIsRefusedAtItsLine) {
  const ResolvedOp misspelt = resolve_text(R"(casebook: 1
summary: s
op: torch.cross_entropy
inputs:
  target: {dtype: int64, values: [0, 2, 3]}
  inptu: {shape: [3, 4], dtype: float32, fill: {full: 0}}
)");
  ASSERT_EQ(misspelt.def, nullptr);
  const std::string& problem = misspelt.problems.at(0);
  EXPECT_EQ(problem.rfind("cases/bind.yaml:6:10: `torch.cross_entropy`: ", 0),
            0u)
      << problem;
  EXPECT_NE(problem.find("`inptu` is no argument of `torch.cross_entropy`; "
                         "did you mean `input`?"),
            std::string::npos)
      << problem;

  const ResolvedOp extra = resolve_text(R"(casebook: 1
summary: s
op: torch.nll_loss
inputs:
  input: {shape: [3, 4], dtype: float32, fill: {full: 0}}
  target: {dtype: int64, values: [0, 2, 3]}
  wieghts: {dtype: float32, values: [1, 1, 1, 1]}
  bias: {dtype: float32, values: [1, 1, 1, 1]}
)");
  ASSERT_EQ(extra.def, nullptr);
  EXPECT_EQ(extra.problems.at(0).rfind("cases/bind.yaml:8:9: ", 0), 0u)
      << extra.problems.at(0);
}

TEST(InputBinding, ARequiredInputLeftOutIsNamed) {
  const ResolvedOp missing = resolve_text(R"(casebook: 1
summary: s
op: torch.cross_entropy
inputs:
  input: {shape: [3, 4], dtype: float32, fill: {full: 0}}
  weight: {dtype: float32, values: [1, 1, 1, 1]}
)");
  ASSERT_EQ(missing.def, nullptr);
  EXPECT_NE(missing.problems.at(0).find("needs its input `target`"),
            std::string::npos)
      << missing.problems.at(0);
}

}  // namespace
}  // namespace casebook
