#include "ops/input_reading.h"

#include <algorithm>

#include "casebook/joined.h"
#include "casebook/loader.h"
#include "casebook/suggestions.h"
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

bool is_op_name(const InputSlots& slots, const std::string& given) {
  for (const std::string& argument : slots.names) {
    if (names(given, argument) || names(list_base(given), argument)) {
      return true;
    }
  }
  return false;
}

// The names training code gives an op's inputs (Hugging Face's `logits` and
// `labels`, a loop's `x` and `y`), each bound by name to the argument it
// stands for on the ops its row applies to: those that take both the row's
// `scope` argument and its `argument`. Where the meaning is certain: a loss
// (it takes a `target`), an embedding (it takes `indices`). The table of
// docs/case-format.md ("Names training code uses") is this one.
struct TrainingNames {
  const char* scope;
  const char* argument;
  std::vector<std::string> names;
};

const std::vector<TrainingNames>& training_names() {
  static const std::vector<TrainingNames> table{
      {"target",
       "input",
       {"logits", "output", "outputs", "pred", "preds", "prediction",
        "predictions", "scores", "log_probs", "x"}},
      {"target", "target", {"labels", "label", "targets", "y", "classes"}},
      {"target", "weight", {"class_weight", "class_weights"}},
      {"indices", "indices", {"ids", "input_ids", "token_ids", "idx"}},
  };
  return table;
}

bool takes(const InputSlots& slots, const std::string& argument) {
  for (const std::string& name : slots.names) {
    if (names(argument, name)) return true;
  }
  return false;
}

// The argument the table binds `given` to on this op; empty where none.
std::string training_argument(const InputSlots& slots,
                              const std::string& given) {
  for (const TrainingNames& row : training_names()) {
    if (!takes(slots, row.scope) || !takes(slots, row.argument)) continue;
    for (const std::string& name : row.names) {
      if (given != name) continue;
      for (const std::string& argument : slots.names) {
        if (names(row.argument, argument)) return argument;
      }
    }
  }
  return "";
}

bool is_slot_name(const InputSlots& slots, const std::string& given) {
  return is_op_name(slots, given) || !training_argument(slots, given).empty();
}

std::string quoted_list(const std::vector<std::string>& items) {
  return items.empty() ? "none" : joined(items);
}

// The argument `given` names: itself, else `self` for `input`; a list's
// element (`tensors[0]`) keeps its own name.
std::string named_argument(const InputSlots& slots, const std::string& given) {
  for (const std::string& argument : slots.names) {
    if (argument == given) return given;
  }
  for (const std::string& argument : slots.names) {
    if (names(given, argument)) return argument;
  }
  const std::string trained = training_argument(slots, given);
  return trained.empty() ? given : trained;
}

// "`input` is `self` and `idx` names no argument"
std::string by_name(const InputSlots& slots,
                    const std::vector<std::string>& inputs) {
  return joined(inputs, ", ", [&slots](const std::string& input) {
    return "`" + input + "` " +
           (is_slot_name(slots, input)
                ? "is `" + named_argument(slots, input) + "`"
                : "names no argument");
  });
}

// "`idx` is `self`, `input` is `index`"
std::string by_position(const std::vector<std::string>& positional,
                        const std::vector<std::string>& inputs) {
  std::vector<std::string> said;
  for (size_t i = 0; i < inputs.size(); ++i) {
    said.push_back("`" + inputs[i] + "` " +
                   (i < positional.size()
                        ? "is `" + positional[i] + "`"
                        : "has no tensor argument at its position"));
  }
  return joined(said);
}

// "; `targt` is no argument of `torch.nll_loss`: did you mean `target`?"
// for each input that names no argument but is near one the case does not
// name: a misspelling, more likely than a file of version 1's positions.
// `culprit` becomes the first of them: the line to fix.
std::string misspellings(const InputSlots& slots,
                         const std::vector<std::string>& inputs,
                         std::string* culprit) {
  std::vector<std::string> unnamed;
  for (const std::string& argument : slots.positional) {
    bool given = false;
    for (const std::string& input : inputs) {
      given |= names(named_argument(slots, input), argument);
    }
    if (!given) unnamed.push_back(argument);
  }
  std::string text;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string& input = inputs[i];
    if (is_slot_name(slots, input)) continue;
    const std::string nearest = nearest_name(input, unnamed);
    // Read by position as the very argument it is near (`idx` as `index`):
    // version 1's meaning, nothing to correct.
    if (nearest.empty() ||
        (i < slots.positional.size() && slots.positional[i] == nearest)) {
      continue;
    }
    if (text.empty()) *culprit = input;
    text += "; `" + input + "` is no argument of " + slots.what +
            did_you_mean(nearest);
  }
  return text;
}

// "`labels` and `target` both stand for `target`": two inputs bound by name
// to one argument (a table's name beside the argument's own); empty if none.
std::string named_twice(const InputSlots& slots,
                        const std::vector<std::string>& inputs,
                        std::string* culprit) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!is_slot_name(slots, inputs[i])) continue;
    const std::string argument = named_argument(slots, inputs[i]);
    for (size_t j = i + 1; j < inputs.size(); ++j) {
      if (is_slot_name(slots, inputs[j]) &&
          named_argument(slots, inputs[j]) == argument) {
        *culprit = inputs[j];
        return "`" + inputs[i] + "` and `" + inputs[j] + "` both stand for `" +
               argument + "` of " + slots.what + ": give it once";
      }
    }
  }
  return "";
}

}  // namespace

std::vector<std::string> read_by_position(
    const InputSlots& slots, const std::vector<std::string>& input_names) {
  std::vector<std::string> unnamed;
  for (const std::string& input : input_names) {
    if (!is_slot_name(slots, input)) unnamed.push_back(input);
  }
  return unnamed;
}

std::string names_taken(const InputSlots& slots) {
  std::string text =
      quoted_list(slots.positional.empty() ? slots.names : slots.positional);
  for (const TrainingNames& row : training_names()) {
    if (!takes(slots, row.scope) || !takes(slots, row.argument)) continue;
    text += "; for `" + named_argument(slots, row.argument) + "` also " +
            joined(row.names);
  }
  return text;
}

InputSlots schema_slots(const c10::FunctionSchema& schema) {
  InputSlots slots;
  slots.what = "the schema";
  for (const c10::Argument& argument : schema.arguments()) {
    slots.names.push_back(argument.name());
    const std::string type = argument_type(argument);
    if (!argument.kwarg_only() && (type == "Tensor" || type == "Tensor?")) {
      slots.positional.push_back(argument.name());
    }
  }
  return slots;
}

std::optional<std::vector<std::string>> read_input_names(
    const InputSlots& slots, const std::vector<std::string>& input_names,
    std::string* why, std::string* culprit) {
  std::vector<bool> named(input_names.size());
  // Names of the op unchanged, the table's names as their argument.
  std::vector<std::string> read = input_names;
  bool all_named = true;
  for (size_t i = 0; i < input_names.size(); ++i) {
    named[i] = is_slot_name(slots, input_names[i]);
    all_named = all_named && named[i];
    if (named[i] && !is_op_name(slots, input_names[i])) {
      read[i] = training_argument(slots, input_names[i]);
    }
  }
  if (const std::string twice = named_twice(slots, input_names, culprit);
      !twice.empty()) {
    *why = twice;
    return std::nullopt;
  }
  if (all_named) return read;

  const std::vector<std::string>& positional = slots.positional;
  auto both_readings = [&] {
    return "by name, " + by_name(slots, input_names) +
           "; by position among the tensor arguments (" +
           quoted_list(positional) + "), " +
           by_position(positional, input_names);
  };
  for (size_t i = 0; i < input_names.size(); ++i) {
    const std::string& input = input_names[i];
    if (named[i]) {
      // A named tensor argument must stand where position would put it, or
      // the inputs after it would mean another thing read either way.
      const bool is_slot = std::any_of(
          positional.begin(), positional.end(),
          [&](const std::string& slot) { return names(read[i], slot); });
      if (is_slot &&
          (i >= positional.size() || !names(read[i], positional[i]))) {
        *culprit = input;
        *why = "the inputs mix " + slots.what +
               "'s names with other names, and the two readings disagree: " +
               both_readings() + ". Name every input as " + slots.what +
               " does, or give them in its argument order" +
               misspellings(slots, input_names, culprit);
        return std::nullopt;
      }
      continue;
    }
    if (i >= positional.size()) {
      *culprit = input;
      *why = "`" + input + "` is no argument of " + slots.what +
             ", and read by its position (" + std::to_string(i) +
             ") it has no tensor argument to fill: " + both_readings() +
             misspellings(slots, input_names, culprit);
      return std::nullopt;
    }
    read[i] = positional[i];
  }
  return read;
}

std::optional<std::vector<std::string>> read_input_names(
    const c10::FunctionSchema& schema,
    const std::vector<std::string>& input_names, std::string* why,
    std::string* culprit) {
  return read_input_names(schema_slots(schema), input_names, why, culprit);
}

}  // namespace casebook::aten
