// Complex dtypes through the tensors and the runner: values and fills made
// complex, fixtures (.npy <c8/<c16, .pt complex storages, .safetensors C64),
// assert_close's complex rule, and real child runs of complex cases.
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "casebook/loader.h"
#include "compare/compare.h"
#include "run_one_case.h"
#include "tensors/fixtures.h"
#include "tensors/materialise.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;
using testing_support::run_one_case;
using testing_support::TempFolder;
using testing_support::verdict_text;
using testing_support::write_file;

const char* const kHead =
    "casebook: 1\nsummary: s\nop: aten::mul\nbackends: [cpu]\ninputs:\n";

TensorSpec input_of(const std::string& tensor) {
  const LoadedCase loaded = load_case_text(
      std::string(kHead) + "  x: " + tensor + "\n", "cases/c.yaml");
  for (const CaseError& error : loaded.errors) {
    ADD_FAILURE() << error.to_string();
  }
  return loaded.value ? loaded.value->inputs.at(0) : TensorSpec{};
}

TEST(ComplexTensors, ValuesAndFillsAreComplex) {
  const at::Tensor values =
      materialise(input_of("{dtype: complex64, values: "
                           "[[1, 2], {re: -3, im: 0.5}, 4]}"))
          .view;
  EXPECT_EQ(values.scalar_type(), at::kComplexFloat);
  EXPECT_TRUE(at::equal(
      values, at::view_as_complex(at::tensor({1.0, 2.0, -3.0, 0.5, 4.0, 0.0})
                                      .to(at::kFloat)
                                      .reshape({3, 2}))));
  const at::Tensor full =
      materialise(input_of("{dtype: complex128, shape: [2], fill: {full: [1, "
                           "-2]}}"))
          .view;
  EXPECT_TRUE(at::equal(at::view_as_real(full),
                        at::tensor({1.0, -2.0, 1.0, -2.0}).reshape({2, 2})));
  // normal draws re and im apart: both vary, neither is all zeros.
  const at::Tensor drawn =
      materialise(input_of("{dtype: complex64, shape: [64], fill: {normal: "
                           "{mean: 0, std: 1}}}"))
          .view;
  EXPECT_GT(at::real(drawn).std().item<double>(), 0.5);
  EXPECT_GT(at::imag(drawn).std().item<double>(), 0.5);
}

TEST(ComplexTensors, FixturesOfEachFormat) {
  TempFolder folder;
  const at::Tensor value = at::view_as_complex(
      at::tensor({1.5, -2.0, 0.0, 3.0}, at::kFloat).reshape({2, 2}));
  const fs::path npy = folder.path() / "c8.npy";
  write_npy(npy, value);
  EXPECT_TRUE(at::equal(read_fixture(npy, "", std::nullopt, false), value));
  const at::Tensor wide = value.to(at::kComplexDouble);
  const fs::path npy16 = folder.path() / "c16.npy";
  write_npy(npy16, wide);
  EXPECT_EQ(read_fixture(npy16, "", std::nullopt, false).scalar_type(),
            at::kComplexDouble);

  const fs::path pt = folder.path() / "c16.pt";
  const std::vector<char> saved = torch::jit::pickle_save(wide);
  write_file(pt, std::string(saved.begin(), saved.end()));
  EXPECT_TRUE(at::equal(read_fixture(pt, "", std::nullopt, false), wide));

  const std::string header =
      R"({"z":{"dtype":"C64","shape":[2],"data_offsets":[0,16]}})";
  std::string bytes;
  for (int i = 0; i < 8; ++i) {
    bytes.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xff));
  }
  bytes += header + std::string(static_cast<const char*>(value.data_ptr()), 16);
  const fs::path st = folder.path() / "c64.safetensors";
  write_file(st, bytes);
  EXPECT_TRUE(at::equal(read_fixture(st, "z", std::nullopt, false), value));
}

TEST(ComplexTensors, CloseIsOnTheComplexMagnitudeAndNaNInEitherPart) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const at::Tensor expected = at::view_as_complex(
      at::tensor({3.0, 4.0, 1.0, nan, 1.0, 1.0}).reshape({3, 2}));
  // |(3+4.4j) - (3+4j)| = 0.4 <= 0.1 + 0.1 * 5; the second has NaN in im.
  const at::Tensor actual = at::view_as_complex(
      at::tensor({3.0, 4.4, nan, 2.0, 1.0, 1.0}).reshape({3, 2}));
  const Tolerance loose{0.1, 0.1, false};
  EXPECT_TRUE(at::equal(outside_tolerance(expected, actual, loose),
                        at::tensor({0, 1, 0}).to(at::kBool)));
  const Tolerance with_nan{0.1, 0.1, true};
  EXPECT_FALSE(
      outside_tolerance(expected, actual, with_nan).any().item<bool>());
  const Tolerance tight{0.0, 0.3, false};
  EXPECT_TRUE(outside_tolerance(expected, actual, tight)[0].item<bool>());
}

// aten::mul of two complex64 inputs against `expected` (pairs).
std::string complex_mul_case(const std::string& expected) {
  return std::string(kHead) +
         "  self: {dtype: complex64, values: [[1, 2], [3, -1]]}\n"
         "  other: {dtype: complex64, values: [[2, -1], [0.5, 0.5]]}\n"
         "outputs:\n  0: {dtype: complex64, values: " +
         expected + "}\n";
}

TEST(ComplexRuns, MulMatchesItsExpectedPairs) {
  // torch.mul with Debian's python3-torch 1.13: [4+3j, 2+1j].
  const CaseVerdict verdict =
      run_one_case("mul", complex_mul_case("[[4, 3], [2, 1]]"));
  EXPECT_EQ(verdict.verdict, Verdict::kPass) << verdict_text(verdict);
}

TEST(ComplexRuns, AMismatchReportShowsComplexValues) {
  const CaseVerdict verdict =
      run_one_case("mul_wrong", complex_mul_case("[[4, 3], [2, 1.5]]"));
  EXPECT_EQ(verdict.verdict, Verdict::kFail) << verdict_text(verdict);
  EXPECT_EQ(verdict.family, Family::kMismatch);
  EXPECT_NE(verdict_text(verdict).find("at index [1] (expected 2+1.5j, got "
                                       "2+1j)"),
            std::string::npos)
      << verdict_text(verdict);
}

TEST(ComplexRuns, AComplexFixtureRunsThroughTheChild) {
  TempFolder folder;
  fs::create_directories(folder.path() / "fixtures");
  write_npy(
      folder.path() / "fixtures" / "z.npy",
      at::view_as_complex(at::tensor({3.0, 4.0, 0.0, -2.0}).reshape({2, 2})));
  std::ofstream(folder.path() / "abs.yaml")
      << "casebook: 1\nsummary: s\nop: aten::abs\nbackends: [cpu]\n"
         "inputs:\n  self: {dtype: complex128, file: z.npy}\n"
         "outputs:\n  0: {dtype: float64, values: [5, 2]}\n";
  RunOptions options;
  options.backends = {Backend::kCpu};
  options.jobs = 1;
  options.evidence_root = "";
  const RunSummary summary = run_cases({folder.path()}, options);
  ASSERT_EQ(summary.verdicts.size(), 1u);
  EXPECT_EQ(summary.verdicts[0].verdict, Verdict::kPass)
      << verdict_text(summary.verdicts[0]);
}

}  // namespace
}  // namespace casebook
