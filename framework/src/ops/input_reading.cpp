#include "ops/input_reading.h"

#include "ops/aten_schema.h"

namespace casebook::aten {
namespace {

// `input` names `self`, as Python's torch.<name>(input, ...) spells it.
bool names(const std::string& given, const std::string& argument) {
  return given == argument || (argument == "self" && given == "input");
}

// `weights[3]` names the Tensor[] argument `weights`.
std::string list_base(const std::string& given) {
  const size_t open = given.find('[');
  if (open == std::string::npos || open == 0 || given.back() != ']') {
    return given;
  }
  return given.substr(0, open);
}

bool is_schema_name(const c10::FunctionSchema& schema,
                    const std::string& given) {
  for (const c10::Argument& argument : schema.arguments()) {
    if (names(given, argument.name()) ||
        names(list_base(given), argument.name())) {
      return true;
    }
  }
  return false;
}

// The arguments a tensor given by position fills, in order: Python's
// positional Tensor and Tensor? parameters (`out`, keyword-only, is not one).
std::vector<std::string> positional_tensors(const c10::FunctionSchema& schema) {
  std::vector<std::string> slots;
  for (const c10::Argument& argument : schema.arguments()) {
    const std::string type = argument_type(argument);
    if (!argument.kwarg_only() && (type == "Tensor" || type == "Tensor?")) {
      slots.push_back(argument.name());
    }
  }
  return slots;
}

std::string quoted_list(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) {
    text += (text.empty() ? "" : ", ") + item;
  }
  return text.empty() ? "none" : text;
}

// "`input` is `self` and `idx` names no argument"
std::string by_name(const c10::FunctionSchema& schema,
                    const std::vector<std::string>& inputs) {
  std::string text;
  for (const std::string& input : inputs) {
    text += text.empty() ? "" : ", ";
    text += "`" + input + "` ";
    text += is_schema_name(schema, input)
                ? "is `" + std::string(input == "input" ? "self" : input) + "`"
                : "names no argument";
  }
  return text;
}

// "`idx` is `self`, `input` is `index`"
std::string by_position(const std::vector<std::string>& slots,
                        const std::vector<std::string>& inputs) {
  std::string text;
  for (size_t i = 0; i < inputs.size(); ++i) {
    text += text.empty() ? "" : ", ";
    text += "`" + inputs[i] + "` ";
    text += i < slots.size() ? "is `" + slots[i] + "`"
                             : "has no tensor argument at its position";
  }
  return text;
}

}  // namespace

std::optional<std::vector<std::string>> read_input_names(
    const c10::FunctionSchema& schema,
    const std::vector<std::string>& input_names, std::string* why,
    std::string* culprit) {
  std::vector<bool> named(input_names.size());
  bool all_named = true;
  for (size_t i = 0; i < input_names.size(); ++i) {
    named[i] = is_schema_name(schema, input_names[i]);
    all_named = all_named && named[i];
  }
  if (all_named) return input_names;

  const std::vector<std::string> slots = positional_tensors(schema);
  auto both_readings = [&] {
    return "by name, " + by_name(schema, input_names) +
           "; by position among the tensor arguments (" + quoted_list(slots) +
           "), " + by_position(slots, input_names);
  };
  std::vector<std::string> read = input_names;
  for (size_t i = 0; i < input_names.size(); ++i) {
    const std::string& input = input_names[i];
    if (named[i]) {
      // A named tensor argument must stand where position would put it, or
      // the inputs after it would mean another thing read either way.
      bool is_slot = false;
      for (const std::string& slot : slots) is_slot |= names(input, slot);
      if (is_slot && (i >= slots.size() || !names(input, slots[i]))) {
        *culprit = input;
        *why =
            "the inputs mix the schema's names with other names, and the "
            "two readings disagree: " +
            both_readings() +
            ". Name every input as the schema does, or give them in its "
            "argument order";
        return std::nullopt;
      }
      continue;
    }
    if (i >= slots.size()) {
      *culprit = input;
      *why = "`" + input +
             "` is no argument of the schema, and read by its position (" +
             std::to_string(i) +
             ") it has no tensor argument to fill: " + both_readings();
      return std::nullopt;
    }
    read[i] = slots[i];
  }
  return read;
}

}  // namespace casebook::aten
