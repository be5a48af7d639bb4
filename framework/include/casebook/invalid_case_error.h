// The case file itself is wrong in a way only a run can tell (a missing
// argument, an argument of the wrong kind, an input its fixture cannot
// give): family invalid_case. Thrown by ops (casebook/ops.h) and by the
// tensors a case's inputs are made from; the message starts with the case
// file's place where it has one.
#pragma once

#include <stdexcept>

namespace casebook {

class InvalidCaseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace casebook
