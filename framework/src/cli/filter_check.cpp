#include "cli/filter_check.h"

#include <iostream>

namespace casebook {

bool filter_selects_nothing(const Plan& plan, const RunOptions& options,
                            const char* command) {
  if (options.filter.empty()) return false;
  for (const PlannedCase& planned : plan.cases) {
    for (Backend backend : planned.reported) {
      if (filter_matches(options.filter, planned, backend)) return false;
    }
  }
  std::cerr << command << ": --filter '" << options.filter
            << "' selects none of the " << plan.cases.size()
            << " cases found (it matches a case id, <id>/<backend> or the "
               "file path, as a glob or, without *?[, a part of the id)\n";
  return true;
}

}  // namespace casebook
