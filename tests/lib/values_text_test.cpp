// yaml_values (tensors/values_text.h), the one writer of a tensor's values
// into a case file (capture, show --write-expected): written, loaded and
// made again, every dtype's values are the same bits, nested by the shape.
#include "tensors/values_text.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "casebook/case.h"
#include "casebook/loader.h"
#include "tensors/materialise.h"

namespace casebook {
namespace {

// `tensor` through a case file's `values`, as the loader and the child make it.
at::Tensor written_and_read(const at::Tensor& tensor) {
  const std::string dtype(dtype_name(*to_dtype(tensor.scalar_type())));
  const std::string text =
      "casebook: 1\nsummary: s\nop: torch.clone\ninputs:\n  self: {dtype: " +
      dtype + ", values: " + yaml_values(tensor) + "}\n";
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
  };
  for (const at::Tensor& tensor : tensors) {
    SCOPED_TRACE(yaml_values(tensor));
    EXPECT_TRUE(same_bits(written_and_read(tensor), tensor));
  }
  EXPECT_EQ(yaml_values(at::tensor({1.0, -0.0, 0.5}).reshape({3})),
            "[1, -0.0, 0.5]");
  EXPECT_EQ(yaml_values(at::arange(4, at::kLong).reshape({2, 2})),
            "[[0, 1], [2, 3]]");
  EXPECT_EQ(yaml_values(at::arange(5, at::kLong), 3), "[0, 1, 2, ...]");
}

}  // namespace
}  // namespace casebook
