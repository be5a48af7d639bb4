// Inputs read by name or by position (ops/input_reading.h): a mix of the
// two is taken where both readings agree, and refused, naming both, where
// they do not.
#include "ops/input_reading.h"

#include <gtest/gtest.h>

#include "casebook/op_catalog.h"
#include "casebook/ops.h"
#include "ops/aten_schema.h"

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

}  // namespace
}  // namespace casebook
