#include "cli/filter_check.h"

#include <iostream>

#include "casebook/loader.h"
#include "casebook/printable.h"

namespace casebook {
namespace {

constexpr const char* kPatternHelp =
    "(a pattern matches a case id, <id>/<backend> or the file path, as a "
    "glob or, without *?[, a part of the id)";

bool matches_any_run(const Plan& plan, const std::string& pattern) {
  for (const PlannedCase& planned : plan.cases) {
    for (Backend backend : planned.reported) {
      if (filter_matches(pattern, planned, backend)) return true;
    }
  }
  return false;
}

bool id_is_known(const Plan& plan, const std::string& id) {
  for (const PlannedCase& planned : plan.cases) {
    if (planned.loaded.id == id) return true;
  }
  return false;
}

std::string nearest_ids(const Plan& plan, const std::string& id) {
  std::vector<std::string> ids;
  for (const PlannedCase& planned : plan.cases) {
    ids.push_back(planned.loaded.id);
  }
  const std::vector<std::string> nearest = nearest_names(id, ids, 3);
  if (nearest.empty()) return "";
  std::string text = "; did you mean ";
  for (size_t i = 0; i < nearest.size(); ++i) {
    text += (i > 0 ? " or `" : "`") + printable_line(nearest[i]) + "`";
  }
  return text + "?";
}

// Any (case, backend) the options select, the shard left aside.
bool selects_a_run(const Plan& plan, RunOptions options) {
  options.shard_index = 0;
  options.shard_count = 1;
  for (const PlannedCase& planned : plan.cases) {
    for (Backend backend : planned.reported) {
      if (selected_by(options, planned, backend)) return true;
    }
  }
  return false;
}

}  // namespace

bool selection_is_empty(const Plan& plan, const RunOptions& options,
                        const char* command) {
  if (plan.cases.empty()) {
    std::cerr << command << ": no case file found (*.yaml) in the paths "
              << "named: nothing to run\n";
    return true;
  }
  for (const std::string& filter : options.filters) {
    if (matches_any_run(plan, filter)) continue;
    std::cerr << command << ": --filter '" << printable_line(filter)
              << "' selects none of the " << plan.cases.size()
              << " cases found " << kPatternHelp << "\n";
    return true;
  }
  if (!options.case_id.empty() && !id_is_known(plan, options.case_id)) {
    std::cerr << command << ": --id '" << printable_line(options.case_id)
              << "' is none of the " << plan.cases.size() << " cases found"
              << nearest_ids(plan, options.case_id) << "\n";
    return true;
  }
  for (const std::string& exclude : options.excludes) {
    if (!matches_any_run(plan, exclude)) {
      std::cerr << command << ": warning: --exclude '"
                << printable_line(exclude) << "' excludes none of the "
                << plan.cases.size() << " cases found " << kPatternHelp << "\n";
    }
  }
  const bool chosen = !options.filters.empty() || !options.excludes.empty() ||
                      !options.case_id.empty();
  // Without a choice of cases, a plan whose cases run on none of the
  // backends asked for is not a typo: the caller says nothing ran.
  if (!chosen || selects_a_run(plan, options)) return false;
  std::cerr << command
            << ": --filter, --exclude and --id together leave none of the "
            << plan.cases.size()
            << " cases found to run on the backends asked for\n";
  return true;
}

}  // namespace casebook
