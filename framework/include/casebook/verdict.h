// A run's verdict: the closed set every part of casebook speaks (the runner
// gives them, the report and the diagnosis read them), with its name and
// whether it keeps the exit status 0. LibTorch-free: the core's programs use
// it too (model/verdict.cpp).
#pragma once

#include <string_view>

namespace casebook {

enum class Verdict {
  kPass,
  kFail,
  kXfail,
  kXpass,
  kSkip,
  kError,
  kTimeout,
  kNotRun,
  // casebook broke one of its own invariants (casebook/internal_error.h)
  // while running or judging the case: casebook's fault, to be reported,
  // never the case's; not judged against the expectation.
  kInternal
};
// "PASS", ..., "NOT RUN", "INTERNAL"
std::string_view verdict_name(Verdict verdict);
// PASS, XFAIL and SKIP keep the exit status 0; NOT RUN (interrupted) and
// INTERNAL do not.
bool verdict_is_success(Verdict verdict);
// Whose fault an INTERNAL verdict is, said with every one (its details).
inline constexpr std::string_view kInternalErrorNote =
    "casebook broke one of its own invariants: this is casebook's fault, not "
    "the case's (nor the op's or the backend's); please report it to "
    "casebook's maintainers with the rerun line and the case file";

}  // namespace casebook
