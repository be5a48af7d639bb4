#include <algorithm>

#include "casebook/runner.h"
#include "runner/session.h"

namespace casebook {

std::string_view verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::kPass:
      return "PASS";
    case Verdict::kFail:
      return "FAIL";
    case Verdict::kXfail:
      return "XFAIL";
    case Verdict::kXpass:
      return "XPASS";
    case Verdict::kSkip:
      return "SKIP";
    case Verdict::kError:
      return "ERROR";
    case Verdict::kTimeout:
      return "TIMEOUT";
    case Verdict::kInternal:
      return "INTERNAL";
    case Verdict::kNotRun:
      break;
  }
  return "NOT RUN";
}

bool verdict_is_success(Verdict verdict) {
  return verdict == Verdict::kPass || verdict == Verdict::kXfail ||
         verdict == Verdict::kSkip;
}

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
