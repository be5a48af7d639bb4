// The case file itself is wrong in a way only a run can tell (a missing
// argument, an argument of the wrong kind, an input its fixture cannot
// give): family invalid_case. Thrown by ops (casebook/ops.h) and by the
// tensors a case's inputs are made from; the message starts with the case
// file's place where it has one.
#pragma once

#include <stdexcept>
#include <string>

namespace casebook {

class InvalidCaseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SourceLocation;  // casebook/case.h

// The one text of a message about a place in a case file:
// "cases/x.yaml:7:3: <what>", `what` alone when there is no file (a case
// made in memory).
std::string at_place(const SourceLocation& where, const std::string& what);

}  // namespace casebook

// The one check of a case's input that only a run can make (the twin of
// CASEBOOK_ASSERT, which states casebook's own invariants): when `condition`
// fails, throws InvalidCaseError(at_place(where, message)).
#define CASEBOOK_CHECK_INPUT(condition, where, message) \
  do {                                                  \
    if (!(condition)) {                                 \
      throw ::casebook::InvalidCaseError(               \
          ::casebook::at_place((where), (message)));    \
    }                                                   \
  } while (false)
