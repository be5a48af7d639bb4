#include "casebook/verdict.h"

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

}  // namespace casebook
