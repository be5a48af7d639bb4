// A case to complete as text (casebook/case_form.h).
#include "casebook/case_form.h"

#include <algorithm>
#include <string>

#include "model/placeholders.h"
#include "model/yaml_text.h"

namespace casebook {
namespace {

using Entry = CaseForm::Entry;

std::string placeholder() { return std::string(model::kPlaceholder); }

std::string input_text(const Entry& input) {
  const std::string shape = "{shape: [" + placeholder() + "], ";
  if (!is_floating(input.dtype)) {
    return shape + "dtype: " + std::string(dtype_name(input.dtype)) +
           ", values: [" + placeholder() + "]}";
  }
  TensorSpec spec;
  spec.dtype = input.dtype;
  spec.shape_given = false;
  spec.source = TensorSpec::Source::kFill;
  spec.fill.kind = Fill::Kind::kNormal;
  spec.fill.first = 0;
  spec.fill.second = 1;
  return shape + model::tensor_fields(spec) + "}";
}

std::string entry_line(const Entry& entry, bool input) {
  const std::string note = entry.note.empty() ? "" : "  # " + entry.note;
  if (entry.kind == Entry::Kind::kNote) {
    return "  # " + entry.name + ": " + entry.note + "\n";
  }
  std::string value;
  if (input) {
    value = input_text(entry);
  } else {
    value = entry.value ? model::yaml_arg(*entry.value) : placeholder();
  }
  const std::string prefix =
      entry.kind == Entry::Kind::kExample ? "  # " : "  ";
  return prefix + model::yaml_key(entry.name) + ": " + value + note + "\n";
}

std::string comment_lines(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += "# " + line + "\n";
  return text;
}

}  // namespace

std::string case_form_to_yaml(const CaseForm& form) {
  std::string text = "casebook: 1\nsummary: " + placeholder() +
                     " (one line, what the case guards)\n" +
                     comment_lines(form.about) + "op: " + form.op + "\n";
  if (!form.args.empty()) {
    // `args:` over nothing but comments would be null: the header is then a
    // comment too.
    const bool any_value = std::any_of(
        form.args.begin(), form.args.end(),
        [](const Entry& e) { return e.kind == Entry::Kind::kValue; });
    text += std::string(any_value ? "args:" : "# args:") +
            (form.args_note.empty() ? "" : "  # " + form.args_note) + "\n";
    for (const Entry& arg : form.args) text += entry_line(arg, false);
  }
  text +=
      "inputs:" + (form.inputs_note.empty() ? "" : "  # " + form.inputs_note) +
      "\n";
  for (const Entry& input : form.inputs) text += entry_line(input, true);
  return text + comment_lines(form.after);
}

}  // namespace casebook
