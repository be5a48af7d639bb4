// An argument value given outside a case file (`casebook capture --arg
// KEY=TEXT`), read by the reader of a case's `args`, so that a value means
// what it would in a case file and is written back by the one writer
// (model::yaml_arg).
#pragma once

#include <optional>
#include <string>

#include "casebook/case.h"

namespace casebook::model {

// TEXT, YAML (JSON is its flow style: `"mean"`, `[0, 1]`, `-100`, `.nan`),
// as the value of `args.KEY`; nullopt with the loader's words in `*error`
// when it is none (a map other than a generator's, a list of lists, text
// that is no YAML).
std::optional<ArgValue> read_arg_text(const std::string& key,
                                      const std::string& text,
                                      std::string* error);

}  // namespace casebook::model
