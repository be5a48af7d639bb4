// The case model asks the installed op traits table (casebook/op_traits.h),
// never an op's name: a made-up op whose table entry grants a trait gets it,
// and a shipped op whose entry is taken away loses it.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "casebook/loader.h"
#include "casebook/neighbors.h"
#include "casebook/op_traits.h"
#include "catalog/shipped_op_declarations.h"
#include "loaded_case_checks.h"

namespace casebook {
namespace {

// Installs `table` for one test, then the shipped one again (what
// op_traits_installed.cpp installed for the other tests).
class WithTraits {
 public:
  explicit WithTraits(OpTraitsTable table) {
    install_op_traits(std::move(table));
  }
  ~WithTraits() { install_op_traits(shipped_op_traits()); }
  WithTraits(const WithTraits&) = delete;
  WithTraits& operator=(const WithTraits&) = delete;
};

// One family, `made.`, whose ops have every trait; `made.widget` has blocks
// of 4 along dim 0 of its input besides.
OpTraitsTable made_up_table() {
  OpTraits every;
  every.reports_processed = true;
  every.reports_positions = true;
  every.gradients = true;
  every.torch_reference = true;
  OpTraitsTable table;
  table.add_family("made.", every);
  OpTraits widget = every;
  widget.neighbors.emplace();
  widget.neighbors->blocks = {4};
  widget.neighbors->block_dims = {{"input", 0}};
  table.add("made.widget", widget);
  table.wording.op_names = "`made.<name>`";
  table.wording.with_torch_reference = "a made.* op";
  table.wording.with_gradients = "made.* ops";
  table.wording.with_blocks = "the made.* ops";
  return table;
}

const std::string kWidget =
    "casebook: 1\nsummary: s\nop: made.widget\nreference: torch\n"
    "grad: {wrt: [input]}\n"
    "inputs:\n"
    "  input: {shape: [6], dtype: float32, fill: {full: 1}}\n"
    "expect:\n"
    "  cpu: {processed: 6}\n"
    "neighbors: [block_boundaries]\n";

std::vector<std::string> widget_errors(const std::string& text) {
  return error_lines(load_case_text(text, "cases/w.yaml"));
}

TEST(OpTraits, AMadeUpOpHasTheTraitsItsEntryDeclares) {
  const WithTraits traits(made_up_table());
  const LoadedCase loaded = load_case_text(kWidget, "cases/w.yaml");
  for (const CaseError& error : loaded.errors) {
    ADD_FAILURE() << error.to_string();
  }
  ASSERT_TRUE(loaded.value.has_value());
  EXPECT_EQ(loaded.value->reference, Case::Reference::kTorch);
  ASSERT_TRUE(loaded.value->grad.has_value());
  EXPECT_EQ(loaded.value->grad->wrt, std::vector<std::string>{"input"});
  // The block boundaries of the table's blocks: 4 - 1, 4, 4 + 1.
  std::vector<std::string> ids;
  for (const Neighbor& neighbor : declared_neighbors(*loaded.value).neighbors)
    ids.push_back(neighbor.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"w~block_boundaries[3]",
                                           "w~block_boundaries[4]",
                                           "w~block_boundaries[5]"}));
}

TEST(OpTraits, TheShippedTableKnowsNoMadeUpOp) {
  EXPECT_EQ(
      widget_errors(kWidget),
      (std::vector<std::string>{
          "cases/w.yaml:3:5: `op`: expected `torch.<name>`, "
          "`aten::<name>[.<overload>]`, `kernels.<name>` or "
          "`validate.<name>`; got `made.widget`",
          "cases/w.yaml:4:12: `reference`: expected `torch` only for a "
          "kernels.* op; got op `made.widget`",
          "cases/w.yaml:9:9: `expect.cpu.processed`: `made.widget` does not "
          "count the entries it processes, so `processed` cannot be checked "
          "(ops that do: kernels.nll_loss, validate.class_mapping, "
          "validate.class_targets)",
          "cases/w.yaml:5:7: `grad`: gradients are for torch.* and aten:: ops "
          "(LibTorch's autograd); got op `made.widget`"}));
}

// The shipped kernels.sum and torch.sum, in a table that takes their
// traits away.
OpTraitsTable without_shipped_traits() {
  OpTraitsTable table = made_up_table();
  table.add_family("kernels.", OpTraits{});
  table.add_family("torch.", OpTraits{});
  return table;
}

TEST(OpTraits, AShippedNameWithoutTheTraitInTheTableHasItNot) {
  const WithTraits traits(without_shipped_traits());
  EXPECT_EQ(
      widget_errors("casebook: 1\nsummary: s\nop: kernels.sum\n"
                    "reference: torch\n"
                    "inputs:\n"
                    "  input: {shape: [6], dtype: float32, fill: {full: 1}}\n"
                    "expect:\n"
                    "  cpu: {processed: 6}\n"),
      (std::vector<std::string>{
          "cases/w.yaml:4:12: `reference`: expected `torch` only for a "
          "made.* op; got op `kernels.sum`",
          "cases/w.yaml:8:9: `expect.cpu.processed`: `kernels.sum` does not "
          "count the entries it processes, so `processed` cannot be checked "
          "(ops that do: made.widget)"}));
  EXPECT_EQ(
      widget_errors("casebook: 1\nsummary: s\nop: torch.sum\n"
                    "grad: {wrt: [input]}\n"
                    "inputs:\n"
                    "  input: {shape: [6], dtype: float32, fill: {full: 1}}\n"),
      (std::vector<std::string>{
          "cases/w.yaml:4:7: `grad`: gradients are for made.* ops "
          "(LibTorch's autograd); got op `torch.sum`"}));
  EXPECT_EQ(
      widget_errors("casebook: 1\nsummary: s\nop: kernels.sum\n"
                    "inputs:\n"
                    "  input: {shape: [6], dtype: float32, fill: {full: 1}}\n"
                    "neighbors: [block_boundaries]\n"),
      (std::vector<std::string>{
          "cases/w.yaml:6:13: `neighbors.block_boundaries`: "
          "`block_boundaries` does not apply: op `kernels.sum` declares "
          "no block size (the made.* ops do): give `blocks: [...]` and "
          "`along: {input: dim}`"}));
}

TEST(OpTraits, AnOpOfAFamilyIsLongerThanItsPrefixAndItsOwnEntryWins) {
  const OpTraitsTable table = made_up_table();
  EXPECT_EQ(table.find("made."), nullptr);
  EXPECT_EQ(table.find("other.widget"), nullptr);
  ASSERT_NE(table.find("made.gadget"), nullptr);
  EXPECT_FALSE(table.find("made.gadget")->neighbors.has_value());
  ASSERT_NE(table.find("made.widget"), nullptr);
  EXPECT_TRUE(table.find("made.widget")->neighbors.has_value());
}

TEST(OpTraits, AnOpDeclaredTwiceIsAnError) {
  OpTraitsTable table = made_up_table();
  EXPECT_THROW(table.add("made.widget", OpTraits{}), std::logic_error);
}

}  // namespace
}  // namespace casebook
