#include <algorithm>

#include "casebook/runner.h"
#include "runner/session.h"

namespace casebook {

std::map<Verdict, int> RunSummary::counts() const {
  std::map<Verdict, int> result;
  for (const CaseVerdict& verdict : verdicts) ++result[verdict.verdict];
  return result;
}

int RunSummary::exit_code() const {
  const bool all_good = std::all_of(
      verdicts.begin(), verdicts.end(),
      [](const CaseVerdict& v) { return verdict_is_success(v.verdict); });
  return all_good && !interrupted ? 0 : 1;
}

RunSummary run_cases(const std::vector<std::filesystem::path>& paths,
                     const RunOptions& options) {
  Plan plan = load_plan(paths, options);
  Selection selected = [&options](const PlannedCase& planned, Backend backend) {
    return selected_by(options, planned, backend);
  };
  return execute_plan(plan, options, selected, nullptr).summary;
}

}  // namespace casebook
