// An input that is another input's tensor itself (`{same_as: NAME}`, issue
// 51): how the loader reads it, what it refuses at which line and column,
// what the case writer writes back, and how `grad` and the neighbour rules
// treat it.
#include <gtest/gtest.h>

#include <string>

#include "casebook/case_writer.h"
#include "casebook/loader.h"
#include "casebook/neighbors.h"
#include "loaded_case_checks.h"

namespace casebook {
namespace {

const char kFile[] = "cases/alias.yaml";

// torch.add(self, other, out=self); line 7 is the alias.
const char kOutIsSelf[] =
    "casebook: 1\n"                                                // 1
    "summary: torch.add(x, y, out=x)\n"                            // 2
    "op: aten::add.out\n"                                          // 3
    "inputs:\n"                                                    // 4
    "  self: {dtype: float32, shape: [2, 3], fill: {full: 1}}\n"   // 5
    "  other: {dtype: float32, values: [[1, 2, 3], [4, 5, 6]]}\n"  // 6
    "  out: {same_as: self}\n";                                    // 7

// kOutIsSelf with its alias line replaced by `alias` and `more` appended.
std::string with_alias(const std::string& alias, const std::string& more = "") {
  std::string text = kOutIsSelf;
  const std::string line = "  out: {same_as: self}\n";
  return text.replace(text.find(line), line.size(), alias) + more;
}

std::string errors_of(const std::string& text) {
  return all_errors(load_case_text(text, kFile));
}

TEST(SameAs, TheAliasIsItsTargetsSpecUnderItsOwnName) {
  const Case kase = load_ok(kOutIsSelf, kFile);
  ASSERT_EQ(kase.inputs.size(), 3u);
  const TensorSpec& out = kase.inputs[2];
  EXPECT_EQ(out.name, "out");
  EXPECT_EQ(out.same_as, "self");
  EXPECT_EQ(out.where.line, 7);
  // What reads an input's dtype, shape or values reads its target's.
  EXPECT_EQ(out.dtype, DType::kFloat32);
  EXPECT_EQ(out.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(out.source, TensorSpec::Source::kFill);
  EXPECT_EQ(alias_target(kase.inputs, 2), std::optional<size_t>(0));
  EXPECT_EQ(alias_target(kase.inputs, 0), std::nullopt);
  EXPECT_TRUE(kase.inputs[0].same_as.empty());
}

TEST(SameAs, AnyKeyBesideItIsAnErrorAtThatKey) {
  const std::string errors =
      errors_of(with_alias("  out: {same_as: self, dtype: float32}\n"));
  EXPECT_NE(errors.find("cases/alias.yaml:7:24: `inputs.out.dtype`: expected "
                        "`same_as` alone: the input is that input's tensor, "
                        "its dtype, shape and values; got `dtype` beside it"),
            std::string::npos)
      << errors;
}

TEST(SameAs, ANameNoInputHasIsRefusedWithTheNearest) {
  const std::string errors = errors_of(with_alias("  out: {same_as: slef}\n"));
  EXPECT_NE(errors.find("cases/alias.yaml:7:18: `inputs.out.same_as`: "
                        "expected the name of another input of the case "
                        "(self, other); got `slef`; did you mean `self`?"),
            std::string::npos)
      << errors;
}

TEST(SameAs, ItselfAnAliasOrNoNameIsRefusedAtTheName) {
  EXPECT_NE(errors_of(with_alias("  out: {same_as: out}\n"))
                .find("cases/alias.yaml:7:18: `inputs.out.same_as`: `out` "
                      "cannot be itself"),
            std::string::npos);
  EXPECT_NE(errors_of(with_alias("  out: {same_as: self}\n",
                                 "  again: {same_as: out}\n"))
                .find("cases/alias.yaml:8:20: `inputs.again.same_as`: `out` "
                      "is an alias itself (`same_as: self`): name the input "
                      "it is"),
            std::string::npos);
  EXPECT_NE(errors_of(with_alias("  out: {same_as: [self]}\n"))
                .find("cases/alias.yaml:7:18: `inputs.out.same_as`: expected "
                      "the name of another input; got a list"),
            std::string::npos);
}

TEST(SameAs, GradRefusesAnAliasInWrtAndLeavesItOutOfTheDefault) {
  EXPECT_NE(errors_of(std::string(kOutIsSelf) + "grad:\n  wrt: out\n")
                .find("cases/alias.yaml:9:8: `grad.wrt`: `out` is input "
                      "`self` itself (`same_as`): name `self`, whose "
                      "gradient is the one tensor's"),
            std::string::npos);
  const Case kase = load_ok(std::string(kOutIsSelf) + "grad: {}\n", kFile);
  ASSERT_TRUE(kase.grad);
  EXPECT_EQ(kase.grad->wrt, (std::vector<std::string>{"self", "other"}));
}

TEST(SameAs, ACaseOfStepsNamesOneInputTwiceInstead) {
  const std::string errors = errors_of(
      "casebook: 1\nsummary: steps\n"
      "steps:\n"
      "  - op: aten::add.out\n"
      "    inputs: {self: x, other: x, out: y}\n"
      "inputs:\n"
      "  x: {dtype: float32, values: [1, 2]}\n"
      "  y: {same_as: x}\n");
  EXPECT_NE(errors.find("cases/alias.yaml:8:16: `inputs.y.same_as`: a step "
                        "passes one tensor twice by naming it twice"),
            std::string::npos)
      << errors;
}

TEST(SameAs, TheWriterWritesTheAliasBackAsItWasWritten) {
  const Case kase = load_ok(kOutIsSelf, kFile);
  const std::string text = case_to_yaml(kase);
  EXPECT_NE(text.find("\n  out: {same_as: self}\n"), std::string::npos) << text;
  const Case again = load_ok(text, kFile);
  ASSERT_EQ(again.inputs.size(), 3u);
  EXPECT_EQ(again.inputs[2].same_as, "self");
  EXPECT_EQ(case_to_yaml(again), text);
}

TEST(SameAs, ANeighbourRuleChangingTheTargetTakesTheAliasAlong) {
  const Case kase = load_ok(
      std::string(kOutIsSelf) +
          "neighbors:\n  layouts: {layouts: [transposed], inputs: [self]}\n",
      kFile);
  const NeighborExpansion expansion = declared_neighbors(kase);
  ASSERT_EQ(expansion.neighbors.size(), 1u) << expansion.errors.size();
  const Case& transposed = expansion.neighbors[0].value;
  EXPECT_EQ(transposed.inputs[0].layout.kind, Layout::Kind::kTranspose);
  EXPECT_EQ(transposed.inputs[2].layout.kind, Layout::Kind::kTranspose);
  EXPECT_EQ(transposed.inputs[2].same_as, "self");
  EXPECT_NE(case_to_yaml(transposed).find("  out: {same_as: self}\n"),
            std::string::npos);
  // dtypes recasts every floating input: the alias with its target.
  const Case recast = load_ok(
      std::string(kOutIsSelf) + "neighbors: {dtypes: [float64]}\n", kFile);
  const NeighborExpansion recast_expansion = declared_neighbors(recast);
  const Case& wide = recast_expansion.neighbors.at(0).value;
  EXPECT_EQ(wide.inputs[2].dtype, DType::kFloat64);
  EXPECT_EQ(wide.inputs[2].same_as, "self");
}

TEST(SameAs, ANeighbourRuleChangingTheAliasApartIsRefused) {
  const std::string apart =
      " does not apply: input `out` is input `self` itself (`same_as`), and "
      "the rule would change it apart from `self`: name `self` (`out` "
      "follows it)";
  EXPECT_NE(
      errors_of(std::string(kOutIsSelf) +
                "neighbors:\n"
                "  layouts: {layouts: [transposed], inputs: [out]}\n")
          .find("cases/alias.yaml:9:3: `neighbors.layouts`: `layouts`" + apart),
      std::string::npos);
  EXPECT_NE(errors_of(std::string(kOutIsSelf) +
                      "neighbors:\n  lengths: {along: {out: 1}}\n")
                .find("`lengths`" + apart),
            std::string::npos);
}

}  // namespace
}  // namespace casebook
