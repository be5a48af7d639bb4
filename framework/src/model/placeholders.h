// The `TODO`s a skeleton of `casebook new` leaves (`summary: TODO (...)`,
// `shape: [TODO]`, `values: [TODO]`, an argument's `TODO`): each is an
// error at its place naming its key, so that `casebook check` and a run
// refuse a half-written case by what is missing, not by a type error.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/yaml_reader.h"

namespace casebook::model {

// The word a placeholder is: what `casebook new` writes (casebook/
// case_form.h) and what the loader refuses.
constexpr std::string_view kPlaceholder = "TODO";

// Reports every placeholder under `root` (a plain scalar `TODO`, or one
// starting with `TODO ` or `TODO(`; `origin`, free-form, is not searched)
// and returns their key paths ("inputs.x.shape[0]").
std::vector<std::string> report_placeholders(Reader& reader,
                                             const YAML::Node& root);

// Removes from `errors` what the reading of a placeholder's value said
// besides ("expected an integer; got `TODO`"): the errors at a placeholder's
// key path or a key above it, the placeholder's own error kept.
void drop_errors_about_placeholders(std::vector<CaseError>* errors,
                                    const std::vector<std::string>& paths);

}  // namespace casebook::model
