// Which tolerance holds (tolerance_in_force, casebook/case.h): the one
// answer, as a table of what a case and its output entry write.
#include <gtest/gtest.h>

#include <optional>

#include "casebook/case.h"

namespace casebook {
namespace {

OutputExpectation entry(std::optional<Tolerance> tolerance,
                        std::optional<bool> equal_nan) {
  OutputExpectation out;
  out.tolerance = tolerance;
  out.equal_nan = equal_nan;
  return out;
}

TEST(ToleranceInForce, TheEntryThenTheCaseThenTheDtypesDefault) {
  const Tolerance mine{0.5, 0.25, false};
  const Tolerance cases{0.1, 0.2, false};
  struct Row {
    ToleranceRule rule;
    std::optional<OutputExpectation> entry;
    std::optional<DType> dtype;
    Tolerance held;
  };
  const Row rows[] = {
      // Nothing written: the dtype's default; no dtype known: exact.
      {{}, std::nullopt, DType::kFloat32, {1.3e-6, 1e-5, false}},
      {{}, std::nullopt, std::nullopt, {0.0, 0.0, false}},
      // The case's tolerance, its equal_nan written alone or inside.
      {{cases, false}, std::nullopt, DType::kFloat32, {0.1, 0.2, false}},
      {{std::nullopt, true}, std::nullopt, DType::kFloat64, {1e-7, 1e-7, true}},
      {{Tolerance{0.1, 0.2, true}, false},
       std::nullopt,
       DType::kFloat32,
       {0.1, 0.2, true}},
      // An entry with no tolerance of its own: the case's.
      {{cases, true},
       entry(std::nullopt, std::nullopt),
       DType::kFloat32,
       {0.1, 0.2, true}},
      // The entry's tolerance wins; the case's equal_nan still holds...
      {{cases, true},
       entry(mine, std::nullopt),
       DType::kFloat32,
       {0.5, 0.25, true}},
      // ...unless the entry says equal_nan itself, either way.
      {{cases, true}, entry(mine, false), DType::kFloat32, {0.5, 0.25, false}},
      {{cases, false},
       entry(std::nullopt, true),
       DType::kFloat32,
       {0.1, 0.2, true}},
      {{std::nullopt, false},
       entry(Tolerance{0.5, 0.25, true}, std::nullopt),
       DType::kFloat16,
       {0.5, 0.25, true}},
  };
  for (const Row& row : rows) {
    const Tolerance held = tolerance_in_force(
        row.rule, row.entry ? &*row.entry : nullptr, row.dtype);
    EXPECT_DOUBLE_EQ(held.rtol, row.held.rtol);
    EXPECT_DOUBLE_EQ(held.atol, row.held.atol);
    EXPECT_EQ(held.equal_nan, row.held.equal_nan);
  }
}

}  // namespace
}  // namespace casebook
