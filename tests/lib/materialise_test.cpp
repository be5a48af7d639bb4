// materialise(): values, seeded fills and layouts become the tensors a case
// describes, with the same values under every layout.
#include "tensors/materialise.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "casebook/ops.h"

namespace casebook {
namespace {

TensorSpec spec_of(DType dtype, std::vector<int64_t> shape) {
  TensorSpec spec;
  spec.name = "x";
  spec.dtype = dtype;
  spec.shape = std::move(shape);
  spec.where = {"cases/t.yaml", 3, 5};
  return spec;
}

TensorSpec filled(DType dtype, std::vector<int64_t> shape, Fill::Kind kind,
                  double first, double second, uint64_t seed) {
  TensorSpec spec = spec_of(dtype, std::move(shape));
  spec.source = TensorSpec::Source::kFill;
  spec.fill = {kind, first, second};
  spec.seed = seed;
  return spec;
}

std::string error_of(const TensorSpec& spec) {
  try {
    materialise(spec);
  } catch (const InvalidCaseError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(Materialise, FloatValuesKeepNanAndInfinity) {
  TensorSpec spec = spec_of(DType::kFloat32, {2, 2});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  spec.float_values = {1.5, nan, inf, -inf};
  const at::Tensor view = materialise(spec).view;
  EXPECT_EQ(view.scalar_type(), at::kFloat);
  EXPECT_EQ(view.sizes(), c10::IntArrayRef({2, 2}));
  EXPECT_EQ(view[0][0].item<float>(), 1.5f);
  EXPECT_TRUE(std::isnan(view[0][1].item<float>()));
  EXPECT_EQ(view[1][0].item<float>(), std::numeric_limits<float>::infinity());
  EXPECT_EQ(view[1][1].item<float>(), -std::numeric_limits<float>::infinity());
}

TEST(Materialise, Int64ValuesBeyondTwoToThe53AreExact) {
  TensorSpec spec = spec_of(DType::kInt64, {2});
  spec.int_values = {9007199254740993, std::numeric_limits<int64_t>::min()};
  const at::Tensor view = materialise(spec).view;
  EXPECT_EQ(view[0].item<int64_t>(), 9007199254740993);
  EXPECT_EQ(view[1].item<int64_t>(), std::numeric_limits<int64_t>::min());
}

TEST(Materialise, ValueCountMustMatchShapeAndErrorNamesTheTensor) {
  TensorSpec spec = spec_of(DType::kInt32, {3});
  spec.int_values = {1, 2};
  const std::string message = error_of(spec);
  EXPECT_EQ(message.rfind("cases/t.yaml:3:5: input `x`: ", 0), 0u) << message;
  EXPECT_NE(message.find("holds 2 numbers, the shape needs 3"),
            std::string::npos)
      << message;
}

TEST(Materialise, IntegerValueOutsideTheDtypeIsAnError) {
  TensorSpec spec = spec_of(DType::kUInt8, {1});
  spec.int_values = {300};
  EXPECT_NE(error_of(spec).find("value 300 at position 0 does not fit"),
            std::string::npos);
}

TEST(Materialise, EachFillIsReproducibleBySeedAndDiffersAcrossSeeds) {
  const std::vector<std::pair<Fill::Kind, DType>> fills = {
      {Fill::Kind::kNormal, DType::kFloat32},
      {Fill::Kind::kUniform, DType::kFloat64},
      {Fill::Kind::kRandint, DType::kInt64}};
  for (const auto& [kind, dtype] : fills) {
    const double second = kind == Fill::Kind::kRandint ? 1000 : 1;
    const at::Tensor first =
        materialise(filled(dtype, {4, 8}, kind, 0, second, 7)).view;
    const at::Tensor again =
        materialise(filled(dtype, {4, 8}, kind, 0, second, 7)).view;
    const at::Tensor other =
        materialise(filled(dtype, {4, 8}, kind, 0, second, 8)).view;
    EXPECT_TRUE(at::equal(first, again)) << static_cast<int>(kind);
    EXPECT_FALSE(at::equal(first, other)) << static_cast<int>(kind);
  }
}

TEST(Materialise, NormalFillHasTheAskedMeanAndStd) {
  const at::Tensor view = materialise(filled(DType::kFloat64, {20000},
                                             Fill::Kind::kNormal, 3, 2, 1))
                              .view;
  EXPECT_NEAR(view.mean().item<double>(), 3.0, 0.06);
  EXPECT_NEAR(view.std().item<double>(), 2.0, 0.06);
}

TEST(Materialise, UniformAndRandintStayInTheirRange) {
  const at::Tensor uniform = materialise(filled(DType::kFloat32, {5000},
                                                Fill::Kind::kUniform, -2, 5, 3))
                                 .view;
  EXPECT_GE(uniform.min().item<float>(), -2.0f);
  EXPECT_LT(uniform.max().item<float>(), 5.0f);
  const at::Tensor randint =
      materialise(filled(DType::kInt8, {5000}, Fill::Kind::kRandint, -3, 4, 3))
          .view;
  EXPECT_EQ(randint.scalar_type(), at::kChar);
  EXPECT_EQ(randint.min().item<int64_t>(), -3);
  EXPECT_EQ(randint.max().item<int64_t>(), 3);  // high is excluded
}

TEST(Materialise, ArangeAndFullAreExact) {
  const at::Tensor arange =
      materialise(filled(DType::kInt64, {2, 3}, Fill::Kind::kArange, 10, -2, 0))
          .view;
  EXPECT_EQ(arange.flatten()[5].item<int64_t>(), 0);
  EXPECT_EQ(arange[0][1].item<int64_t>(), 8);
  const at::Tensor halves =
      materialise(filled(DType::kFloat16, {4}, Fill::Kind::kArange, 0, 0.5, 0))
          .view;
  EXPECT_EQ(halves[3].item<float>(), 1.5f);
  const at::Tensor full =
      materialise(filled(DType::kBFloat16, {3}, Fill::Kind::kFull, -0.25, 0, 0))
          .view;
  EXPECT_EQ(full.scalar_type(), at::kBFloat16);
  EXPECT_TRUE(at::all(full.eq(-0.25)).item<bool>());
}

TEST(Materialise, FloatingFillForAnIntegerDtypeIsAnError) {
  EXPECT_NE(error_of(filled(DType::kInt32, {2}, Fill::Kind::kNormal, 0, 1, 0))
                .find("use randint"),
            std::string::npos);
}

// Every layout: the view has the layout's geometry and the unlaid values.
struct LayoutCase {
  const char* name;
  Layout layout;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t storage_offset;
  int64_t storage_numel;
};

TEST(Layouts, GeometryAndValuesMatchTheUnlaidTensor) {
  const std::vector<LayoutCase> cases = {
      {"transpose",
       {Layout::Kind::kTranspose, {0, 2}, {}, 0},
       {2, 3, 4},
       {1, 2, 6},
       0,
       24},
      {"permute",
       {Layout::Kind::kPermute, {2, 0, 1}, {}, 0},
       {2, 3, 4},
       {3, 1, 6},
       0,
       24},
      {"stride",
       {Layout::Kind::kStrided, {}, {20, 5, 1}, 3},
       {2, 3, 4},
       {20, 5, 1},
       3,
       3 + 20 + 10 + 3 + 1},
      {"non_contiguous",
       {Layout::Kind::kNonContiguous, {}, {}, 0},
       {2, 3, 4},
       {24, 8, 2},
       0,
       48},
  };
  for (DType dtype : {DType::kFloat32, DType::kInt64}) {
    TensorSpec plain =
        filled(dtype, {2, 3, 4}, Fill::Kind::kRandint, -50, 50, 11);
    const at::Tensor expected = materialise(plain).view;
    EXPECT_TRUE(expected.is_contiguous());
    for (const LayoutCase& layout_case : cases) {
      SCOPED_TRACE(layout_case.name);
      TensorSpec spec = plain;
      spec.layout = layout_case.layout;
      const MaterialisedTensor tensor = materialise(spec);
      EXPECT_EQ(tensor.view.sizes(), c10::IntArrayRef(layout_case.sizes));
      EXPECT_EQ(tensor.view.strides(), c10::IntArrayRef(layout_case.strides));
      EXPECT_EQ(tensor.view.storage_offset(), layout_case.storage_offset);
      EXPECT_EQ(tensor.storage.numel(), layout_case.storage_numel);
      EXPECT_EQ(tensor.storage.dim(), 1);
      EXPECT_FALSE(tensor.view.is_contiguous());
      EXPECT_TRUE(at::equal(tensor.view, expected));
    }
  }
}

// The elements a view skips hold what no correct kernel would produce.
TEST(Layouts, SkippedStorageHoldsNanOrTheSentinel) {
  const std::vector<std::pair<DType, double>> sentinels = {
      {DType::kInt64, static_cast<double>(std::numeric_limits<int64_t>::max())},
      {DType::kInt32, std::numeric_limits<int32_t>::max()},
      {DType::kUInt8, 255},
      {DType::kBool, 1}};
  for (const auto& [dtype, sentinel] : sentinels) {
    TensorSpec spec = filled(dtype, {3, 2}, Fill::Kind::kFull, 0, 0, 0);
    spec.layout.kind = Layout::Kind::kNonContiguous;
    const at::Tensor storage = materialise(spec).storage;
    // Every other element is skipped.
    const at::Tensor skipped = storage.slice(0, 1, c10::nullopt, 2);
    EXPECT_EQ(skipped.numel(), 6);
    EXPECT_TRUE(at::all(skipped.to(at::kDouble).eq(sentinel)).item<bool>())
        << dtype_name(dtype);
  }
  {
    TensorSpec spec =
        filled(DType::kFloat16, {2, 2}, Fill::Kind::kFull, 1, 0, 0);
    spec.layout = {Layout::Kind::kStrided, {}, {3, 1}, 2};
    const at::Tensor storage = materialise(spec).storage;
    ASSERT_EQ(storage.numel(), 2 + 3 + 1 + 1);
    const at::Tensor is_nan = at::isnan(storage);
    EXPECT_EQ(is_nan.sum().item<int64_t>(), 3);  // offset 0, 1 and the gap 4
    EXPECT_TRUE(is_nan[0].item<bool>() && is_nan[1].item<bool>() &&
                is_nan[4].item<bool>());
  }
  EXPECT_EQ(std::numeric_limits<int64_t>::max(),
            skipped_storage_value(at::kLong).toLong());
}

// Issue 51: a stride 0 (what expand() makes) is a layout a case can state,
// as `check` already said: elements that share storage hold one value.
TEST(Layouts, StrideZeroIsAnExpandedTensor) {
  TensorSpec rows = spec_of(DType::kFloat32, {3, 2});
  rows.float_values = {1, 2, 1, 2, 1, 2};
  rows.layout = {Layout::Kind::kStrided, {}, {0, 1}, 0};
  const MaterialisedTensor expanded = materialise(rows);
  EXPECT_EQ(expanded.view.strides(), c10::IntArrayRef({0, 1}));
  EXPECT_EQ(expanded.storage.numel(), 2);
  EXPECT_TRUE(
      at::equal(expanded.view, at::tensor({1.0F, 2.0F}).expand({3, 2})));
  // A fill: each storage element holds the first of its elements, as
  // expand() of the first row would; every row the same.
  TensorSpec fill =
      filled(DType::kFloat32, {4, 3}, Fill::Kind::kRandint, -50, 50, 5);
  fill.layout = {Layout::Kind::kStrided, {}, {0, 1}, 0};
  const at::Tensor view = materialise(fill).view;
  TensorSpec plain = fill;
  plain.layout = {};
  EXPECT_TRUE(at::equal(view, materialise(plain).view[0].expand({4, 3})));
}

TEST(Layouts, WrittenValuesThatShareStorageMustAgree) {
  TensorSpec spec = spec_of(DType::kInt64, {2, 3});
  spec.int_values = {1, 2, 3, 1, 9, 3};
  spec.layout = {Layout::Kind::kStrided, {}, {0, 1}, 0};
  const std::string message = error_of(spec);
  EXPECT_EQ(message.rfind("cases/t.yaml:3:5: input `x`: ", 0), 0u) << message;
  EXPECT_NE(message.find("puts element [1, 1] on storage element 1, which "
                         "holds element [0, 1], and their values differ"),
            std::string::npos)
      << message;
  spec.int_values = {1, 2, 3, 1, 2, 3};
  EXPECT_EQ(error_of(spec), "(no error)");
}

TEST(Layouts, NonContiguousNeedsTwoElementsAndPermuteAPermutation) {
  TensorSpec scalar = filled(DType::kFloat32, {}, Fill::Kind::kFull, 1, 0, 0);
  scalar.layout.kind = Layout::Kind::kNonContiguous;
  EXPECT_NE(error_of(scalar).find("at least 2 elements"), std::string::npos);
  TensorSpec empty =
      filled(DType::kFloat32, {0, 3}, Fill::Kind::kFull, 1, 0, 0);
  empty.layout.kind = Layout::Kind::kNonContiguous;
  EXPECT_NE(error_of(empty).find("at least 2 elements"), std::string::npos);
  TensorSpec permuted =
      filled(DType::kFloat32, {2, 3}, Fill::Kind::kFull, 1, 0, 0);
  permuted.layout = {Layout::Kind::kPermute, {1, 1}, {}, 0};
  EXPECT_NE(error_of(permuted).find("appears twice"), std::string::npos);
  TensorSpec strided =
      filled(DType::kFloat32, {2, 3}, Fill::Kind::kFull, 1, 0, 0);
  strided.layout = {Layout::Kind::kStrided, {}, {1}, 0};
  EXPECT_NE(error_of(strided).find("expected 2 strides"), std::string::npos);
}

TEST(PlaceOn, KeepsSizesStridesOffsetAndSkippedStorage) {
  TensorSpec spec =
      filled(DType::kFloat32, {2, 3}, Fill::Kind::kArange, 0, 1, 0);
  spec.layout.kind = Layout::Kind::kStrided;
  spec.layout.stride = {4, 1};
  spec.layout.storage_offset = 2;
  const MaterialisedTensor tensor = materialise(spec);
  const at::Tensor placed = place_on(tensor, c10::Device(c10::kCPU));
  EXPECT_EQ(placed.sizes(), tensor.view.sizes());
  EXPECT_EQ(placed.strides(), tensor.view.strides());
  EXPECT_EQ(placed.storage_offset(), 2);
  EXPECT_TRUE(at::equal(placed, tensor.view));
}

TEST(CastFloating, FloatingBecomesFloat64OthersStay) {
  const at::Tensor half = at::ones({2}, at::kHalf);
  const at::Tensor ints = at::ones({2}, at::kLong);
  EXPECT_EQ(cast_floating(half, at::kDouble).scalar_type(), at::kDouble);
  EXPECT_EQ(cast_floating(ints, at::kDouble).scalar_type(), at::kLong);
}

TEST(DTypes, EveryDTypeRoundTripsThroughScalarType) {
  for (DType dtype : all_dtypes()) {
    EXPECT_EQ(to_dtype(to_scalar_type(dtype)), dtype) << dtype_name(dtype);
  }
  EXPECT_EQ(to_dtype(at::kComplexFloat), DType::kComplex64);
  EXPECT_EQ(to_dtype(at::kComplexHalf), std::nullopt);  // complex32: none
}

}  // namespace
}  // namespace casebook
