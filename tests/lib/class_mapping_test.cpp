// validate.class_mapping: a label mapping is a bijection onto `classes`
// (no label twice, no class without a label, no label outside the names),
// else label_mapping naming each problem, with the positions involved and
// the count of labels examined.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "arg_values.h"
#include "casebook/op_catalog.h"
#include "casebook/ops.h"

namespace casebook {
namespace {

using testing_support::int_arg;
using testing_support::names_arg;
using ClassMappingArgs = std::map<std::string, ArgValue>;

const std::vector<std::string> kClasses{"background", "car", "person",
                                        "bicycle"};

struct Outcome {
  std::vector<at::Tensor> outputs;
  Family family = Family::kNone;
  std::string message;
  std::vector<int64_t> positions;
  EntryCount count;
};

Outcome check(const std::vector<int64_t>& labels, ClassMappingArgs args) {
  args.emplace("classes", names_arg(kClasses));
  const OpDef* def = default_registry().find("validate.class_mapping");
  Outcome outcome;
  const std::vector<at::Tensor> inputs{at::tensor(labels, at::kLong)};
  const OpCall call{inputs, args, Backend::kCpu, c10::Device(c10::kCPU),
                    &outcome.count};
  try {
    outcome.outputs = def->run(call);
  } catch (const OpError& error) {
    outcome.family = error.family();
    outcome.message = error.what();
    outcome.positions = error.positions();
  }
  return outcome;
}

const std::string kPrefix =
    "the label mapping is not a bijection onto the 4 classes: ";

TEST(ClassMapping, ABijectionPassesAndComesOutAsClassIndices) {
  const Outcome plain = check({2, 0, 3, 1}, {});
  EXPECT_EQ(plain.family, Family::kNone) << plain.message;
  ASSERT_EQ(plain.outputs.size(), 1u);
  EXPECT_TRUE(at::equal(plain.outputs[0], at::tensor({2, 0, 3, 1}, at::kLong)));
  EXPECT_TRUE(plain.count.reported);
  EXPECT_EQ(plain.count.processed, 4);
  const Outcome one_based = check({1, 2, 3, 4}, {{"base", int_arg(1)}});
  EXPECT_EQ(one_based.family, Family::kNone) << one_based.message;
  EXPECT_TRUE(
      at::equal(one_based.outputs[0], at::tensor({0, 1, 2, 3}, at::kLong)));
}

// The bug the check exists for: 1-based labels about to be used as 0-based.
TEST(ClassMapping, OneBasedLabelsReadAsZeroBasedNameTheLabelAndTheGap) {
  const Outcome outcome = check({1, 2, 3, 4}, {});
  EXPECT_EQ(outcome.family, Family::kLabelMapping);
  EXPECT_EQ(outcome.message,
            kPrefix +
                "label 4 of `bicycle` at position 3 is outside [0, 4): no "
                "class has it; class 0 `background` has no label (expected 0)");
  EXPECT_EQ(outcome.positions, std::vector<int64_t>{3});
  EXPECT_EQ(outcome.count.processed, 4);
  EXPECT_EQ(outcome.count.rejected, std::vector<int64_t>{3});
}

TEST(ClassMapping, ADuplicateLabelNamesBothEntriesAndTheClassLeftOut) {
  const Outcome outcome = check({0, 1, 1, 3}, {});
  EXPECT_EQ(outcome.family, Family::kLabelMapping);
  EXPECT_EQ(outcome.message,
            kPrefix +
                "label 1 is given 2 times (`car`, `person` at positions 1 "
                "and 2); class 2 `person` has no label (expected 2)");
  EXPECT_EQ(outcome.positions, (std::vector<int64_t>{1, 2}));
}

TEST(ClassMapping, NamedEntriesMustBeClassesOnceWithTheirOwnLabel) {
  const ClassMappingArgs named{
      {"names", names_arg({"car", "truck", "car", "bicycle"})}};
  const Outcome outcome = check({1, 2, 0, 3}, named);
  EXPECT_EQ(outcome.family, Family::kLabelMapping);
  EXPECT_EQ(outcome.message,
            kPrefix +
                "label 2 at position 1 names `truck`, which is not one of the "
                "classes; label 0 at position 2 maps `car` to class 0 "
                "`background`, not to `car`'s index 1; `car` is mapped 2 "
                "times (at positions 0 and 2); class 2 `person` has no label "
                "(expected 2)");
  EXPECT_EQ(outcome.positions, (std::vector<int64_t>{0, 1, 2}));
}

TEST(ClassMapping, BadArgumentsAreTheCasesFaultOrTheContract) {
  const Outcome count = check({0, 1, 2}, {});
  EXPECT_EQ(count.family, Family::kContract);
  EXPECT_EQ(count.message,
            "validate.class_mapping: 3 labels for 4 names (`classes`): one "
            "label per name");
  const std::vector<at::Tensor> inputs{at::tensor({0, 1}, at::kLong)};
  const ClassMappingArgs twice{{"classes", names_arg({"a", "b", "a"})}};
  const OpCall call{inputs, twice, Backend::kCpu, c10::Device(c10::kCPU)};
  const OpDef* def = default_registry().find("validate.class_mapping");
  EXPECT_THROW(def->run(call), InvalidCaseError);
}

}  // namespace
}  // namespace casebook
