// `casebook ops` and `casebook new`: the schemas listed, and a skeleton that
// the loader refuses until its TODOs are filled in, then accepts and binds.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "casebook/loader.h"
#include "casebook/op_catalog.h"
#include "casebook/ops.h"
#include "cli/commands.h"

namespace casebook {
namespace {

std::string replaced(std::string text, const std::string& from,
                     const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from << " in\n" << text;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(NewCommand, SkeletonLoadsOnceItsTodosAreFilledIn) {
  std::string error;
  const std::string text = case_skeleton("torch.index_select", &error);
  ASSERT_FALSE(text.empty()) << error;
  EXPECT_NE(text.find("op: torch.index_select\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# aten::index_select(Tensor self, int dim, Tensor "
                      "index) -> Tensor"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  dim: TODO  # int, required\n"), std::string::npos)
      << text;
  EXPECT_FALSE(load_case_text(text, "cases/new.yaml").ok());
  std::string filled = replaced(text, "dim: TODO", "dim: 0");
  filled = replaced(filled, "summary: TODO (one line, what the case guards)",
                    "summary: rows 2 and 0");
  filled = replaced(filled, "{shape: [TODO], dtype: float32",
                    "{shape: [3, 2], dtype: float32");
  filled = replaced(filled, "{shape: [TODO], dtype: int64, values: [TODO]}",
                    "{shape: [2], dtype: int64, values: [2, 0]}");
  const LoadedCase loaded = load_case_text(filled, "cases/new.yaml");
  ASSERT_TRUE(loaded.ok()) << (loaded.errors.empty()
                                   ? ""
                                   : loaded.errors[0].to_string());
  const ResolvedOp resolved = resolve_op(*loaded.value, default_registry());
  EXPECT_NE(resolved.def, nullptr)
      << (resolved.problems.empty() ? "" : resolved.problems[0]);
}

TEST(NewCommand, DefaultsAsPythonSpellsThemAndUnknownOps) {
  std::string error;
  const std::string bce = case_skeleton("torch.binary_cross_entropy", &error);
  EXPECT_NE(bce.find("  reduction: mean  # int\n"), std::string::npos) << bce;
  EXPECT_NE(bce.find("  # weight: {shape: [TODO], dtype: float32, fill: "
                     "{normal: {mean: 0, std: 1}}}  # Tensor?, optional\n"),
            std::string::npos)
      << bce;
  const std::string conv = case_skeleton("torch.conv2d", &error);
  EXPECT_NE(conv.find("  stride: [1, 1]  # int[2]"), std::string::npos) << conv;
  EXPECT_EQ(case_skeleton("torch.no_such_op", &error), "");
  EXPECT_NE(error.find("has no operator for `torch.no_such_op`"),
            std::string::npos)
      << error;
}

TEST(OpsCommand, ListsSchemasAndCasebooksOwnOps) {
  testing::internal::CaptureStdout();
  EXPECT_EQ(ops_command("index_select"), 0);
  const std::string listed = testing::internal::GetCapturedStdout();
  EXPECT_NE(listed.find("aten::index_select(Tensor self, int dim, Tensor "
                        "index) -> Tensor\n"),
            std::string::npos)
      << listed;
  testing::internal::CaptureStdout();
  EXPECT_EQ(ops_command("torch.cross_entropy"), 0);
  EXPECT_NE(testing::internal::GetCapturedStdout().find(
                "torch.cross_entropy(input, target[, weight]; ignore_index, "
                "reduction, label_smoothing)  casebook's own"),
            std::string::npos);
  testing::internal::CaptureStderr();
  EXPECT_EQ(ops_command("zzz_no_such_*"), 1);
  testing::internal::GetCapturedStderr();
}

// `ops --json`: the same facts as data, each ATen argument with its type, a
// registered op's arguments apart from its inputs; none matching is an
// empty list, exit 0.
TEST(OpsCommand, TheJsonFormHoldsTypedArgumentsAndRegisteredOnesApart) {
  testing::internal::CaptureStdout();
  EXPECT_EQ(ops_command("index_select", true), 0);
  const nlohmann::json listed =
      nlohmann::json::parse(testing::internal::GetCapturedStdout());
  EXPECT_EQ(listed["casebook_ops"], 1);
  const nlohmann::json* aten = nullptr;
  for (const nlohmann::json& op : listed["ops"]) {
    if (op["name"] == "aten::index_select") aten = &op;
  }
  ASSERT_NE(aten, nullptr) << listed.dump(1);
  const nlohmann::json& first = (*aten)["overloads"][0];
  EXPECT_EQ(first["schema"],
            "aten::index_select(Tensor self, int dim, Tensor index) -> Tensor");
  EXPECT_EQ(first["arguments"][1],
            (nlohmann::json{{"name", "dim"}, {"type", "int"}}));
  testing::internal::CaptureStdout();
  EXPECT_EQ(ops_command("torch.cross_entropy", true), 0);
  const nlohmann::json own =
      nlohmann::json::parse(testing::internal::GetCapturedStdout());
  ASSERT_FALSE(own["ops"].empty());
  EXPECT_EQ(own["ops"][0]["name"], "torch.cross_entropy");
  EXPECT_EQ(own["ops"][0]["optional_inputs"], (nlohmann::json{"weight"}));
  EXPECT_EQ(own["ops"][0]["args"],
            (nlohmann::json{"ignore_index", "reduction", "label_smoothing"}));
  testing::internal::CaptureStdout();
  EXPECT_EQ(ops_command("zzz_no_such_*", true), 0);
  EXPECT_TRUE(
      nlohmann::json::parse(testing::internal::GetCapturedStdout())["ops"]
          .empty());
}

}  // namespace
}  // namespace casebook
