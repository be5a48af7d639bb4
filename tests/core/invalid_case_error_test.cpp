// The one place of a bad input (casebook/invalid_case_error.h): at_place
// names the case file's line and column, or nothing when there is no file,
// and CASEBOOK_CHECK_INPUT throws InvalidCaseError with that text.
#include "casebook/invalid_case_error.h"

#include <gtest/gtest.h>

#include <string>

#include "casebook/case.h"

namespace casebook {
namespace {

TEST(AtPlace, NamesTheFileLineAndColumnOrNothing) {
  SourceLocation where;
  EXPECT_EQ(at_place(where, "argument `dim`: expected an integer"),
            "argument `dim`: expected an integer")
      << "a case made in memory has no place, and no leading ': '";
  where.file = "cases/x.yaml";
  where.line = 7;
  where.column = 3;
  EXPECT_EQ(at_place(where, "input `x`: bad"),
            "cases/x.yaml:7:3: input `x`: bad");
}

TEST(CheckInput, ThrowsInvalidCaseErrorAtItsPlaceOnlyWhenTheConditionFails) {
  SourceLocation where;
  where.file = "cases/y.yaml";
  where.line = 2;
  where.column = 9;
  EXPECT_NO_THROW(CASEBOOK_CHECK_INPUT(1 + 1 == 2, where, "never"));
  try {
    CASEBOOK_CHECK_INPUT(1 + 1 == 3, where,
                         "argument `n`: expected " + std::string("3"));
    FAIL() << "no throw";
  } catch (const InvalidCaseError& error) {
    EXPECT_EQ(std::string(error.what()),
              "cases/y.yaml:2:9: argument `n`: expected 3");
  }
}

}  // namespace
}  // namespace casebook
