// case_form_to_yaml (casebook/case_form.h), what `casebook new` writes: each
// placeholder it writes is one the loader refuses by its key, and nothing
// else in the form is an error.
#include "casebook/case_form.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "casebook/loader.h"

namespace casebook {
namespace {

CaseForm nll_loss_form() {
  using Kind = CaseForm::Entry::Kind;
  CaseForm form;
  form.op = "torch.nll_loss";
  form.about = {"a schema, as a comment"};
  CaseForm::Entry required;
  required.name = "ignore_index";
  required.note = "int, required";
  CaseForm::Entry reduction;
  reduction.name = "reduction";
  reduction.value = ArgValue{};
  reduction.value->kind = ArgValue::Kind::kString;
  reduction.value->string_value = "mean";
  CaseForm::Entry device;
  device.name = "device";
  device.kind = Kind::kNote;
  device.note = "the backend's own";
  form.args = {required, reduction, device};
  CaseForm::Entry input;
  input.name = "input";
  CaseForm::Entry target;
  target.name = "target";
  target.dtype = DType::kInt64;
  CaseForm::Entry weight;
  weight.name = "weight";
  weight.kind = Kind::kExample;
  form.inputs = {input, target, weight};
  form.after = {"grad: {wrt: [input]}"};
  return form;
}

TEST(CaseForm, EveryPlaceholderItWritesIsRefusedByItsKeyAndNothingElse) {
  const std::string text = case_form_to_yaml(nll_loss_form());
  const LoadedCase loaded = load_case_text(text, "cases/form.yaml");
  ASSERT_FALSE(loaded.ok()) << text;
  std::vector<std::string> keys;
  for (const CaseError& error : loaded.errors) {
    EXPECT_NE(error.message.find("is a placeholder `casebook new` left here"),
              std::string::npos)
        << error.to_string() << "\n"
        << text;
    keys.push_back(error.key_path);
  }
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "args.ignore_index", "inputs.input.shape[0]",
                      "inputs.target.shape[0]", "inputs.target.values[0]",
                      "summary"}))
      << text;
  EXPECT_NE(text.find("\n  reduction: mean\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n  # device: the backend's own\n"), std::string::npos)
      << text;
}

TEST(CaseForm, ArgumentsThatAreAllExamplesAreACommentedBlock) {
  CaseForm form = nll_loss_form();
  for (CaseForm::Entry& arg : form.args) {
    arg.kind = CaseForm::Entry::Kind::kExample;
  }
  form.args_note = "the op's defaults otherwise";
  const std::string text = case_form_to_yaml(form);
  EXPECT_NE(text.find("\n# args:  # the op's defaults otherwise\n"
                      "  # ignore_index: TODO  # int, required\n"),
            std::string::npos)
      << text;
  // `args:` over comments alone would read as null: no such error.
  const LoadedCase loaded = load_case_text(text, "cases/form.yaml");
  for (const CaseError& error : loaded.errors) {
    EXPECT_EQ(error.key_path.rfind("args", 0), std::string::npos)
        << error.to_string();
  }
}

}  // namespace
}  // namespace casebook
