// The name tables (families, backends, dtypes), default tolerances, error
// text and the nearest-name suggestion.
#include <gtest/gtest.h>

#include "casebook/loader.h"

namespace casebook {
namespace {

TEST(Names, FamiliesRoundTripInDocumentationOrder) {
  ASSERT_EQ(all_families().size(), 14u);
  EXPECT_EQ(all_families().front(), Family::kIndexOutOfRange);
  EXPECT_EQ(all_families().back(), Family::kInvalidCase);
  for (Family family : all_families()) {
    EXPECT_EQ(parse_family(family_name(family)), family);
  }
  EXPECT_EQ(family_name(Family::kDeviceAssert), "device_assert");
  EXPECT_EQ(family_name(Family::kNone), "none");
  EXPECT_EQ(parse_family("none"), std::nullopt);
  EXPECT_EQ(parse_family("device-assert"), std::nullopt);
}

TEST(Names, BackendsRoundTrip) {
  EXPECT_EQ(all_backends(), (std::vector<Backend>{Backend::kCpu, Backend::kCuda,
                                                  Backend::kHip}));
  for (Backend backend : all_backends()) {
    EXPECT_EQ(parse_backend(backend_name(backend)), backend);
  }
  EXPECT_EQ(parse_backend("rocm"), std::nullopt);
  EXPECT_FALSE(is_gpu(Backend::kCpu));
  EXPECT_TRUE(is_gpu(Backend::kHip));
}

TEST(Names, DtypesRoundTrip) {
  ASSERT_EQ(all_dtypes().size(), 12u);
  for (DType dtype : all_dtypes()) {
    EXPECT_EQ(parse_dtype(dtype_name(dtype)), dtype);
  }
  EXPECT_EQ(dtype_name(DType::kBFloat16), "bfloat16");
  EXPECT_EQ(parse_dtype("float"), std::nullopt);
  EXPECT_TRUE(is_floating(DType::kFloat16));
  EXPECT_FALSE(is_floating(DType::kBool));
  EXPECT_FALSE(is_floating(DType::kUInt8));
}

TEST(Names, DefaultTolerancesAreAssertClose) {
  EXPECT_DOUBLE_EQ(default_tolerance(DType::kFloat16).rtol, 1e-3);
  EXPECT_DOUBLE_EQ(default_tolerance(DType::kFloat16).atol, 1e-5);
  EXPECT_DOUBLE_EQ(default_tolerance(DType::kBFloat16).rtol, 1.6e-2);
  EXPECT_DOUBLE_EQ(default_tolerance(DType::kFloat32).rtol, 1.3e-6);
  EXPECT_DOUBLE_EQ(default_tolerance(DType::kFloat32).atol, 1e-5);
  EXPECT_DOUBLE_EQ(default_tolerance(DType::kFloat64).rtol, 1e-7);
  EXPECT_DOUBLE_EQ(default_tolerance(DType::kFloat64).atol, 1e-7);
  EXPECT_EQ(default_tolerance(DType::kInt64).rtol, 0.0);
  EXPECT_EQ(default_tolerance(DType::kBool).atol, 0.0);
  EXPECT_FALSE(default_tolerance(DType::kFloat32).equal_nan);
}

TEST(Names, CaseErrorText) {
  const CaseError error{SourceLocation{"cases/x.yaml", 7, 3},
                        "inputs.target.dtype", "expected one of bool; got `f`"};
  EXPECT_EQ(error.to_string(),
            "cases/x.yaml:7:3: `inputs.target.dtype`: expected one of bool; "
            "got `f`");
  EXPECT_EQ((CaseError{SourceLocation{"c.yaml", 0, 0}, "", "no such file"})
                .to_string(),
            "c.yaml: no such file");
}

TEST(Names, NearestNameWithinMaxOfTwoAndAThird) {
  const std::vector<std::string> keys{"dtype", "shape", "values", "fill"};
  EXPECT_EQ(nearest_name("dtpye", keys), "dtype");  // a swap is one edit
  EXPECT_EQ(nearest_name("shap", keys), "shape");
  EXPECT_EQ(nearest_name("valeus", keys), "values");
  EXPECT_EQ(nearest_name("colour", keys), "");
  EXPECT_EQ(nearest_name("", keys), "");
  // 12 letters allow 4 edits; 3 letters allow 2.
  EXPECT_EQ(nearest_name("last_step_xx", {"last_step"}), "last_step");
  EXPECT_EQ(nearest_name("abcdefghijkl", {"abcdefgh"}), "abcdefgh");
  EXPECT_EQ(nearest_name("abcdefghijklm", {"abcdefgh"}), "");
  EXPECT_EQ(nearest_name("fil", {"fill"}), "fill");
}

}  // namespace
}  // namespace casebook
