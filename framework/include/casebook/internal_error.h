// A broken invariant of casebook itself: not of the case file, not of the op,
// not of the backend. Thrown where casebook's own code finds a state it
// promised could not happen; a run that hits it is INTERNAL (casebook's
// fault, to be reported), never the case's FAIL or ERROR, and never judged
// against what the case expects (an `expect: {error: ...}` case must not
// pass because casebook broke).
//
// Bad input is not an internal error: a case file gets an error naming its
// file, line and column (docs/architecture.md, "Rules of style").
#pragma once

#include <stdexcept>
#include <string>

namespace casebook {

class InternalError : public std::logic_error {
 public:
  // `invariant` says what broke ("no reference run was planned for x");
  // what() is "internal error: <invariant>", so that the text names itself
  // wherever it surfaces.
  explicit InternalError(const std::string& invariant)
      : std::logic_error("internal error: " + invariant) {}
};

}  // namespace casebook

// The one way casebook states its own invariants: a failed one throws
// InternalError, whose run is INTERNAL. The message ends with the source
// file's name and line (never its path), so a report sent to us points at
// the check.
#define CASEBOOK_ASSERT(condition, invariant)          \
  do {                                                 \
    if (!(condition)) CASEBOOK_UNREACHABLE(invariant); \
  } while (false)

// A branch that the code's own types promise is never taken (after a switch
// over every enumerator, say).
#define CASEBOOK_UNREACHABLE(invariant)                           \
  throw ::casebook::InternalError(std::string(invariant) + " (" + \
                                  __FILE_NAME__ + ":" +           \
                                  std::to_string(__LINE__) + ")")
