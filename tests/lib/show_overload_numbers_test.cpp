// `casebook show` says which ATen overload a `torch.` name resolved to
// (issue 36, part 4), and `show --write-expected` writes numbers that read
// back as the same values, bit for bit (part 2): float64 in its shortest
// form, subnormals, signed zeros, int64 extremes, float16 and bfloat16.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "run_command.h"

namespace {

namespace fs = std::filesystem;
using casebook::testing_support::has_line;
using casebook::testing_support::read_text;
using casebook::testing_support::run_casebook;
using casebook::testing_support::TempFolder;

// `text` as a regular expression that matches it literally.
std::string literal(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::string("\\^$.|?*+()[]{}").find(c) != std::string::npos) {
      out += '\\';
    }
    out += c;
  }
  return out;
}

fs::path write(const TempFolder& folder, const std::string& name,
               const std::string& text) {
  std::ofstream(folder.path() / name) << text;
  return folder.path() / name;
}

TEST(ShowOverload, ShowPrintsTheOverloadATorchNameResolvedTo) {
  TempFolder folder;
  const std::string ints = "  self: {dtype: int64, values: [7, -7]}\n";
  for (const auto& [name, body, resolved] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"div_tensor.yaml",
            "op: torch.div\ninputs:\n" + ints +
                "  other: {dtype: int64, values: [2, 2]}\n",
            "aten::div.Tensor(Tensor self, Tensor other) -> Tensor"},
           {"div_scalar.yaml",
            "op: torch.div\nargs: {other: 2}\ninputs:\n" + ints,
            "aten::div.Scalar(Tensor self, Scalar other) -> Tensor"},
           {"div_mode.yaml",
            "op: torch.div\nargs: {rounding_mode: floor}\ninputs:\n" + ints +
                "  other: {dtype: int64, values: [2, 2]}\n",
            "aten::div.Tensor_mode(Tensor self, Tensor other, *, str? "
            "rounding_mode) -> Tensor"},
           {"pow_scalar.yaml",
            "op: torch.pow\nargs: {exponent: 0.5}\ninputs:\n" + ints,
            "aten::pow.Tensor_Scalar(Tensor self, Scalar exponent) -> "
            "Tensor"}}) {
    const fs::path file =
        write(folder, name, "casebook: 1\nsummary: s\n" + body);
    const auto run = run_casebook("show " + file.string());
    EXPECT_TRUE(has_line(run.output, "^op: torch\\.(div|pow) resolved to " +
                                         literal(resolved) + "$"))
        << name << "\n"
        << run.output;
  }
  // The dtype PyTorch's type promotion gives: true division of int64 is
  // float32; floor division and an integer exponent keep int64.
  const auto div =
      run_casebook("show " + (folder.path() / "div_tensor.yaml").string());
  EXPECT_TRUE(has_line(div.output, "^output 0: dtype float32, shape \\[2\\]"))
      << div.output;
  EXPECT_TRUE(has_line(div.output, "^  values \\[3\\.5, -3\\.5\\]$"))
      << div.output;
  const auto mode =
      run_casebook("show " + (folder.path() / "div_mode.yaml").string());
  EXPECT_TRUE(has_line(mode.output, "^  values \\[3, -4\\]$")) << mode.output;
}

// What --write-expected writes reads back as the same bits: the case it
// wrote PASSes, and its text is the shortest form of each value.
TEST(ShowOverload, WriteExpectedKeepsEveryNumberBitForBit) {
  TempFolder folder;
  const fs::path doubles = write(
      folder, "doubles.yaml",
      "casebook: 1\nsummary: s\nop: torch.clone\ninputs:\n  self: {dtype: "
      "float64, values: [5e-324, 1.7976931348623157e308, -0.0, 0.1, "
      "0.33333333333333331, 2.2250738585072009e-308, 1e23]}\n");
  const fs::path longs = write(
      folder, "longs.yaml",
      "casebook: 1\nsummary: s\nop: torch.clone\ninputs:\n  self: {dtype: "
      "int64, values: [-9223372036854775808, 9223372036854775807, "
      "9007199254740993]}\n");
  const fs::path halves = write(
      folder, "halves.yaml",
      "casebook: 1\nsummary: s\nop: torch.clone\ninputs:\n  self: {dtype: "
      "float16, values: [65504, 6.103515625e-05, 5.9604644775390625e-08, "
      "0.0999755859375]}\n");
  const fs::path brains = write(
      folder, "brains.yaml",
      "casebook: 1\nsummary: s\nop: torch.clone\ninputs:\n  self: {dtype: "
      "bfloat16, values: [3.3895313892515355e38, 9.183549615799121e-41]}\n");
  for (const fs::path& file : {doubles, longs, halves, brains}) {
    const auto written =
        run_casebook("show " + file.string() + " --write-expected");
    EXPECT_EQ(written.status, 0) << written.output;
  }
  EXPECT_TRUE(has_line(read_text(doubles),
                       "values: \\[5\\.0e-324, 1\\.7976931348623157e\\+308, "
                       "-0\\.0, 0\\.1, 0\\.3333333333333333, "
                       "2\\.225073858507201e-308, 1\\.0e\\+23\\]"))
      << read_text(doubles);
  EXPECT_TRUE(has_line(read_text(longs),
                       "values: \\[-9223372036854775808, 9223372036854775807, "
                       "9007199254740993\\]"))
      << read_text(longs);
  EXPECT_TRUE(has_line(read_text(halves),
                       "values: \\[65504, 6\\.103515625e-05, "
                       "5\\.9604644775390625e-08, 0\\.0999755859375\\]"))
      << read_text(halves);
  // The written expectations are exact: a zero tolerance still passes.
  for (const fs::path& file : {doubles, longs, halves, brains}) {
    std::ofstream(file, std::ios::app) << "tolerance: {rtol: 0, atol: 0}\n";
  }
  const auto again = run_casebook(
      "run " + doubles.string() + " " + longs.string() + " " + halves.string() +
      " " + brains.string() + " --backend cpu --evidence ''");
  EXPECT_EQ(again.status, 0) << again.output;
  EXPECT_TRUE(has_line(again.output, "^4 PASS \\(4 runs\\)$")) << again.output;
}

}  // namespace
