// Inputs read by name or by position (ops/input_reading.h): a mix of the
// two is taken where both readings agree, and refused, naming both, where
// they do not.
#include "ops/input_reading.h"

#include <gtest/gtest.h>

#include "casebook/op_catalog.h"
#include "casebook/ops.h"
#include "ops/aten_schema.h"
#include "ops/names.h"

namespace casebook {
namespace {

const c10::FunctionSchema& index_select() {
  return c10::Dispatcher::singleton()
      .findSchema({"aten::index_select", ""})
      ->schema();
}

std::optional<std::vector<std::string>> read_bound(
    const std::vector<std::string>& names, std::string* why,
    std::string* culprit) {
  return aten::read_input_names(index_select(), names, why, culprit);
}

TEST(InputReading, NamesOfTheSchemaWinAndOtherNamesTakeTheirPosition) {
  std::string why, culprit;
  EXPECT_EQ(read_bound({"index", "input"}, &why, &culprit),
            (std::vector<std::string>{"index", "input"}));
  EXPECT_EQ(read_bound({"x", "idx"}, &why, &culprit),
            (std::vector<std::string>{"self", "index"}));
  EXPECT_EQ(read_bound({"input", "idx"}, &why, &culprit),
            (std::vector<std::string>{"input", "index"}));
  EXPECT_EQ(read_bound({"x", "index"}, &why, &culprit),
            (std::vector<std::string>{"self", "index"}));
}

TEST(InputReading, AnAmbiguousMixNamesBothReadings) {
  std::string why, culprit;
  EXPECT_FALSE(read_bound({"idx", "input"}, &why, &culprit));
  // `idx`, read as `self` by its position, is near `index`: the line to
  // fix is its own.
  EXPECT_EQ(culprit, "idx");
  EXPECT_EQ(why,
            "the inputs mix the schema's names with other names, and the two "
            "readings disagree: by name, `idx` names no argument, `input` is "
            "`self`; by position among the tensor arguments (self, index), "
            "`idx` is `self`, `input` is `index`. Name every input as the "
            "schema does, or give them in its argument order; `idx` is no "
            "argument of the schema; did you mean `index`?");
  EXPECT_FALSE(read_bound({"x", "idx", "extra"}, &why, &culprit));
  EXPECT_EQ(culprit, "extra");
  EXPECT_NE(why.find("`extra` is no argument of the schema, and read by its "
                     "position (2) it has no tensor argument to fill"),
            std::string::npos)
      << why;
}

TEST(InputReading, ResolveOpSaysWhereTheAmbiguousInputWasWritten) {
  Case kase;
  kase.op = "torch.index_select";
  kase.op_where = {"cases/v1.yaml", 3, 5};
  ArgValue dim;
  dim.kind = ArgValue::Kind::kInt;
  kase.args["dim"] = dim;
  for (const char* name : {"index", "logits"}) {
    TensorSpec spec;
    spec.name = name;
    spec.where = {"cases/v1.yaml", static_cast<int>(kase.inputs.size()) + 6, 3};
    kase.inputs.push_back(spec);
  }
  const ResolvedOp resolved = resolve_op(kase, default_registry());
  ASSERT_EQ(resolved.def, nullptr);
  const std::string& problem = resolved.problems.at(0);
  EXPECT_EQ(problem.rfind("cases/v1.yaml:6:3: `torch.index_select`: ", 0), 0u)
      << problem;
  EXPECT_NE(problem.find("by name, `index` is `index`, `logits` names no "
                         "argument; by position among the tensor arguments "
                         "(self, index), `index` is `self`, `logits` is "
                         "`index`"),
            std::string::npos)
      << problem;
}

// A case of `op` with inputs of these names and dtypes, at lines 6, 7...
Case case_of(const std::string& op,
             const std::vector<std::pair<std::string, DType>>& inputs) {
  Case kase;
  kase.op = op;
  kase.op_where = {"cases/v1.yaml", 3, 5};
  for (const auto& [name, dtype] : inputs) {
    TensorSpec spec;
    spec.name = name;
    spec.dtype = dtype;
    spec.where = {"cases/v1.yaml", static_cast<int>(kase.inputs.size()) + 6, 3};
    kase.inputs.push_back(spec);
  }
  return kase;
}

// Issue 48, item 4: `labels` before `logits` (Hugging Face's names, a dict's
// order) is `target` and `input`, on casebook's op and on a schema's.
TEST(InputReading, NamesOfTrainingCodeBindByTheTable) {
  for (const char* op : {"torch.cross_entropy", "torch.mse_loss"}) {
    const Case kase =
        case_of(op, {{"labels", DType::kInt64}, {"logits", DType::kFloat32}});
    const ResolvedOp resolved = resolve_op(kase, default_registry());
    ASSERT_NE(resolved.def, nullptr) << op << ": " << resolved.problems.at(0);
    const std::string input =
        op == std::string("torch.mse_loss") ? "self" : "input";
    EXPECT_EQ(resolved.def->input_arguments,
              (std::vector<std::string>{"target", input}))
        << op;
    EXPECT_TRUE(inputs_read_by_position(kase, default_registry()).names.empty())
        << op;
  }
  // Outside a loss the table binds nothing: `labels` is read by position.
  EXPECT_EQ(inputs_read_by_position(
                case_of("torch.sum", {{"labels", DType::kFloat32}}),
                default_registry())
                .names,
            (std::vector<std::string>{"labels"}));
  // Two names of one argument are refused, at the second.
  const ResolvedOp twice =
      resolve_op(case_of("torch.cross_entropy", {{"logits", DType::kFloat32},
                                                 {"labels", DType::kInt64},
                                                 {"target", DType::kInt64}}),
                 default_registry());
  ASSERT_EQ(twice.def, nullptr);
  EXPECT_EQ(twice.problems.at(0),
            "cases/v1.yaml:8:3: `torch.cross_entropy`: `labels` and `target` "
            "both stand for `target` of `torch.cross_entropy`: give it once");
}

// Issue 48, item 4: integer classes and floating indices, read by position,
// are the two inputs in each other's place: refused, at the first.
TEST(InputReading, APositionalSwapIsRefusedWithAHint) {
  const ResolvedOp swapped = resolve_op(
      case_of("torch.cross_entropy",
              {{"ids", DType::kInt64}, {"scores_", DType::kFloat32}}),
      default_registry());
  ASSERT_EQ(swapped.def, nullptr);
  EXPECT_EQ(swapped.problems.at(0).rfind(
                "cases/v1.yaml:6:3: `torch.cross_entropy`: read by position, "
                "`ids` (int64) is `input` and `scores_` (float32) is "
                "`target`, but `input` takes floating values and `target` "
                "integer indices: did you mean to swap `ids` and `scores_`? "
                "Name them `input` and `target` (it takes input, target, "
                "weight; for `input` also logits, ",
                0),
            0u)
      << swapped.problems.at(0);
  // In the op's order, the same names are version 1's meaning.
  const ResolvedOp in_order = resolve_op(
      case_of("torch.cross_entropy",
              {{"scores_", DType::kFloat32}, {"ids", DType::kInt64}}),
      default_registry());
  EXPECT_NE(in_order.def, nullptr);
  const ResolvedOp embedding =
      resolve_op(case_of("torch.embedding",
                         {{"rows", DType::kInt64}, {"table", DType::kFloat32}}),
                 default_registry());
  ASSERT_EQ(embedding.def, nullptr);
  EXPECT_NE(
      embedding.problems.at(0).find("did you mean to swap `rows` and `table`?"),
      std::string::npos)
      << embedding.problems.at(0);
}

}  // namespace
}  // namespace casebook
