// A tensor's values through the case model (values_spec,
// tensors/values_text.h) and its one writer (model::values_text, in
// case_to_yaml), as capture and show --write-expected write them: written,
// loaded and made again, every dtype's values are the same bits, nested by
// the shape.
#include "tensors/values_text.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "casebook/case.h"
#include "casebook/case_writer.h"
#include "casebook/loader.h"
#include "model/yaml_text.h"
#include "tensors/materialise.h"

namespace casebook {
namespace {

std::string values_of(const at::Tensor& tensor, int64_t limit = -1) {
  return model::values_text(values_spec("self", tensor, limit), limit);
}

// `tensor` as a case's input written by case_to_yaml, then loaded and made
// as the child makes it.
at::Tensor written_and_read(const at::Tensor& tensor) {
  Case kase;
  kase.summary = "s";
  kase.op = "torch.clone";
  kase.backends = built_in_backends();
  kase.inputs.push_back(values_spec("self", tensor));
  const std::string text = case_to_yaml(kase);
  const LoadedCase loaded = load_case_text(text, "cases/values.yaml");
  EXPECT_TRUE(loaded.ok()) << text
                           << (loaded.ok() ? "" : loaded.errors[0].message);
  if (!loaded.ok()) return {};
  return materialise(loaded.value->inputs.at(0)).view;
}

// The same bits: -0.0 keeps its sign, NaN stays NaN.
bool same_bits(const at::Tensor& a, const at::Tensor& b) {
  if (!a.defined() || !b.defined() || a.sizes() != b.sizes() ||
      a.scalar_type() != b.scalar_type()) {
    return false;
  }
  // No element: nothing to compare (an empty tensor's data may be null,
  // which memcmp may not be given).
  if (a.numel() == 0) return true;
  const at::Tensor left = a.contiguous();
  const at::Tensor right = b.contiguous();
  return std::memcmp(left.data_ptr(), right.data_ptr(),
                     left.numel() * left.element_size()) == 0;
}

TEST(ValuesText, EveryDtypesValuesReadBackBitForBitInTheirShape) {
  const std::vector<at::Tensor> tensors = {
      at::tensor({0.1, -0.0, 5e-324, 1.7976931348623157e308}, at::kDouble)
          .reshape({2, 2}),
      at::tensor({65504.0, 6.103515625e-05, -0.0}, at::kFloat).to(at::kHalf),
      at::tensor({3.0e38, 9.0e-41}, at::kFloat).to(at::kBFloat16),
      at::tensor({int64_t{9007199254740993}, int64_t{-9223372036854775807}},
                 at::kLong),
      at::tensor({1, 0, 1}, at::kLong).to(at::kBool),
      at::tensor({1.5, -2.0, 0.25, 3.0}, at::kFloat)
          .view({2, 1, 2})
          .to(at::kComplexFloat),
      at::scalar_tensor(-2.5, at::kFloat),
      at::zeros({2, 0, 3}, at::kInt),
  };
  for (const at::Tensor& tensor : tensors) {
    SCOPED_TRACE(values_of(tensor));
    EXPECT_TRUE(same_bits(written_and_read(tensor), tensor));
  }
  EXPECT_EQ(values_of(at::tensor({1.0, -0.0, 0.5}).reshape({3})),
            "[1, -0.0, 0.5]");
  EXPECT_EQ(values_of(at::arange(4, at::kLong).reshape({2, 2})),
            "[[0, 1], [2, 3]]");
  EXPECT_EQ(values_of(at::tensor({1, 0}, at::kLong).to(at::kBool)),
            "[true, false]");
  EXPECT_EQ(values_of(at::scalar_tensor(3, at::kLong)), "[3]");
  EXPECT_EQ(values_of(at::arange(5, at::kLong), 3), "[0, 1, 2, ...]");
}

}  // namespace
}  // namespace casebook
