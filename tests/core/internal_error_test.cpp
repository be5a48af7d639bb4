// CASEBOOK_ASSERT and CASEBOOK_UNREACHABLE (casebook/internal_error.h): the
// one way casebook states its own invariants. A broken one is an
// InternalError whose text names itself and the check's file and line, never
// a path of the machine that built casebook.
#include "casebook/internal_error.h"

#include <gtest/gtest.h>

#include <string>

namespace casebook {
namespace {

// `value`, once the invariant that it is positive has held.
int checked_count(int value) {
  CASEBOOK_ASSERT(value > 0,
                  "a count is positive, got " + std::to_string(value));
  return value;
}

TEST(InternalErrorMacros, AHeldInvariantLetsTheCodeGoOn) {
  EXPECT_EQ(checked_count(1), 1);
}

TEST(InternalErrorMacros, ABrokenInvariantSaysWhatAndWhere) {
  const int line = __LINE__ + 2;
  try {
    CASEBOOK_UNREACHABLE("unknown kind 7");
    FAIL() << "no throw";
  } catch (const InternalError& error) {
    EXPECT_EQ(std::string(error.what()),
              "internal error: unknown kind 7 (internal_error_test.cpp:" +
                  std::to_string(line) + ")");
  }
  try {
    checked_count(-2);
    FAIL() << "no throw";
  } catch (const InternalError& error) {
    const std::string what = error.what();
    EXPECT_EQ(what.rfind("internal error: a count is positive, got -2 "
                         "(internal_error_test.cpp:",
                         0),
              0u)
        << what;
    EXPECT_EQ(what.find('/'), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace casebook
