// A case for a person to complete (`casebook new OP NAME`): what an op's
// schema or registration says, the placeholder `TODO` wherever only the
// author knows (the loader refuses each by its key until it is replaced),
// the schema's facts as comments. Written by the case-text module, like
// every case file casebook makes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "casebook/case.h"

namespace casebook {

struct CaseForm {
  // One line under `args` or `inputs`.
  struct Entry {
    enum class Kind {
      kValue,    // `name: value`: the author fills in what is a placeholder
      kExample,  // `# name: value`: the author may add it
      kNote,     // `# name: note`: said, never read (the backend's device)
    };
    std::string name;
    Kind kind = Kind::kValue;
    // args: the value (model::yaml_arg writes it); nullopt: the placeholder.
    std::optional<ArgValue> value;
    // inputs: a tensor of this dtype, its shape a placeholder; floating:
    // a seeded normal fill, else placeholder values.
    DType dtype = DType::kFloat32;
    std::string note;  // after the entry, `# note`: the schema's type
  };
  std::string op;
  std::vector<std::string> about;  // comment lines before `op`
  std::string args_note;           // after `args:` (or `# args:` when every
                                   // argument is an example)
  std::vector<Entry> args;
  std::string inputs_note;  // after `inputs:`
  std::vector<Entry> inputs;
  std::vector<std::string> after;  // comment lines after `inputs`
};

// The form's text, the summary a placeholder too.
std::string case_form_to_yaml(const CaseForm& form);

}  // namespace casebook
