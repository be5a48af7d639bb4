// Malformed case files: each gives exactly these messages, file, line and
// column included, all of them collected (never only the first).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "casebook/loader.h"
#include "model_malformed.h"

namespace casebook {
namespace {

using testing_malformed::kDtypes;
using testing_malformed::Malformed;
using testing_malformed::with_extra;
using testing_malformed::with_input;

std::vector<Malformed> malformed_files() {
  const std::string f = "cases/bad.yaml:";
  return {
      // The file as a whole.
      {"invalid_yaml",
       "casebook: 1\nop: [a, b\nsummary: s\n",
       {f + "3:8: invalid YAML: end of sequence flow not found"}},
      {"empty_file",
       "# nothing\n",
       {"cases/bad.yaml: empty file: expected a case (casebook: 1, summary, "
        "op, inputs)"}},
      {"not_a_map",
       "- casebook\n",
       {f + "1:1: expected a case: a map with casebook, summary, op, inputs; "
            "got a list"}},
      {"two_documents",
       with_extra("---\ncasebook: 1\n"),
       {f + "7:1: expected one YAML document; got 2"}},
      // Top level.
      {"unknown_key_near",
       with_extra("timout: 5\n"),
       {f + "6:1: `timout`: unknown key `timout`; did you mean `timeout`?"}},
      {"unknown_key_far",
       with_extra("zzzzzzzz: 1\n"),
       {f + "6:1: `zzzzzzzz`: unknown key `zzzzzzzz`; expected one of "
            "casebook, id, summary, op, args, inputs, backends, reference, "
            "reference_layout, tolerance, expect, timeout, origin, grad, "
            "outputs, repeat, deterministic, neighbors, rounding, steps"}},
      {"duplicate_key",
       with_extra("op: torch.mul\n"),
       {f + "6:1: `op`: duplicate key `op`; first given at line 3"}},
      {"version_2_stops_there",
       "casebook: 2\nsumary: s\n",
       {f + "1:11: `casebook`: unsupported format version `2`; this casebook "
            "reads version 1"}},
      {"missing_required",
       "casebook: 1\nid: x\n",
       {f + "1:1: `summary`: required key missing",
        f + "1:1: `op`: required key missing",
        f + "1:1: `inputs`: required key missing"}},
      {"summary_two_lines",
       "casebook: 1\nsummary: |\n  one\n  two\nop: torch.add\ninputs: {}\n",
       {f + "2:10: `summary`: expected one line; got 2 lines"}},
      {"op_prefix",
       "casebook: 1\nsummary: s\nop: cross_entropy\ninputs: {}\n",
       {f + "3:5: `op`: expected `torch.<name>`, `aten::<name>[.<overload>]`, "
            "`kernels.<name>` or `validate.<name>`; got `cross_entropy`"}},
      {"args_map_and_nested_list",
       with_extra(
           "args: {weight: {a: 1}, pad: [[1]], big: 9223372036854775808}\n"),
       {f + "6:16: `args.weight`: expected a number, true, false, a string or "
            "null, or `{seed: N}` for a Generator; got a map",
        f + "6:30: `args.pad[0]`: expected a number, true, false, a string or "
            "null; got a list",
        f + "6:41: `args.big`: expected an integer within the int64 range; "
            "got `9223372036854775808`"}},
      {"inputs_not_a_map",
       "casebook: 1\nsummary: s\nop: torch.add\ninputs: [x]\n",
       {f + "4:9: `inputs`: expected a map of input names to tensors; got a "
            "list"}},
      // A tensor's keys and source.
      {"tensor_key_misspelt",
       with_input("{dtpye: float32, values: [1]}"),
       {f + "5:7: `inputs.x.dtpye`: unknown key `dtpye`; did you mean "
            "`dtype`?",
        f + "5:6: `inputs.x.dtype`: required key missing; expected one of " +
            kDtypes}},
      {"dtype_unknown",
       with_input("{dtype: float, values: [1]}"),
       {f + "5:14: `inputs.x.dtype`: expected one of " + kDtypes +
        "; got `float`; did you mean `float32`?"}},
      {"no_source",
       with_input("{dtype: float32}"),
       {f + "5:6: `inputs.x`: expected exactly one of `values`, `fill`, "
            "`file`; got none"}},
      {"two_sources",
       with_input("{dtype: float32, values: [1], fill: {full: 1}}"),
       {f + "5:6: `inputs.x`: expected exactly one of `values`, `fill`, "
            "`file`; got `values`, `fill`"}},
      {"tensor_not_a_map",
       with_input("[1, 2]"),
       {f + "5:6: `inputs.x`: expected a tensor: a map with dtype and one of "
            "values, fill, file; got a list"}},
      {"seed_and_sha256_without_their_source",
       with_input("{dtype: int8, values: [1], seed: 3, sha256: abc}"),
       {f + "5:33: `inputs.x.seed`: `seed` goes with `fill` only",
        f + "5:42: `inputs.x.sha256`: `sha256` goes with `file` only"}},
      {"shape_negative",
       with_input("{dtype: int8, shape: [2, -1], fill: {full: 1}}"),
       {f + "5:31: `inputs.x.shape[1]`: expected an integer >= 0; got `-1`"}},
      // Values.
      {"ragged_rows",
       with_input("\n    dtype: float32\n    values:\n      - [1, 2, 3]\n"
                  "      - [4, 5]"),
       {f + "9:9: `inputs.x.values[1]`: ragged values: this row has 2 "
            "elements; the first row has 3"}},
      {"ragged_scalar_row",
       with_input("{dtype: float32, values: [[1, 2], 3]}"),
       {f + "5:40: `inputs.x.values[1]`: ragged values: expected a row of 2 "
            "elements like the first; got `3`"}},
      {"ragged_list_element",
       with_input("{dtype: float32, values: [1, [2]]}"),
       {f + "5:35: `inputs.x.values[1]`: ragged values: expected a number "
            "like the first row's elements; got a list"}},
      {"flat_count",
       with_input("{dtype: float32, shape: [2, 3], values: [1, 2, 3]}"),
       {f + "5:46: `inputs.x.values`: 3 values for shape [2, 3], which holds "
            "6"}},
      {"nested_shape_differs",
       with_input(
           "{dtype: float32, shape: [3, 2], values: [[1, 2, 3], [4, 5, 6]]}"),
       {f + "5:46: `inputs.x.values`: the nested values have shape [2, 3]; "
            "`shape` says [3, 2]"}},
      {"uint8_300",
       with_input("{dtype: uint8, values: [1, 300]}"),
       {f + "5:33: `inputs.x.values[1]`: expected an integer in [0, 255] for "
            "uint8; got `300`"}},
      {"int64_overflow",
       with_input("{dtype: int64, values: [9223372036854775808]}"),
       {f + "5:30: `inputs.x.values[0]`: expected an integer in "
            "[-9223372036854775808, 9223372036854775807] for int64; got "
            "`9223372036854775808`"}},
      {"int_gets_float",
       with_input("{dtype: int16, values: [[1], [1.5]]}"),
       {f + "5:36: `inputs.x.values[1][0]`: expected an integer in [-32768, "
            "32767] for int16; got `1.5`"}},
      {"bool_gets_2",
       with_input("{dtype: bool, values: [true, 2]}"),
       {f + "5:35: `inputs.x.values[1]`: expected true, false, 0 or 1 for "
            "bool; got `2`"}},
      {"float_gets_text",
       with_input("{dtype: float32, values: [1, \"2\"]}"),
       {f + "5:35: `inputs.x.values[1]`: expected a number for float32; got "
            "`\"2\"`"}},
      {"values_map",
       with_input("{dtype: float32, values: {a: 1}}"),
       {f + "5:31: `inputs.x.values`: expected a number or a (nested) list of "
            "numbers; got a map"}},
  };
}

class MalformedCase : public testing::TestWithParam<Malformed> {};

TEST_P(MalformedCase, GivesExactlyTheseMessages) {
  EXPECT_EQ(testing_malformed::messages_of(GetParam().text),
            GetParam().expected)
      << GetParam().text;
}

// Odd but parseable YAML gives errors (or a case), never an exception.
TEST(LoaderErrors, OddYamlNeverThrows) {
  const std::vector<std::string> odd{
      "? [a, b]\n: c\n",
      "casebook: 1\n? {x: 1}\n: 2\n",
      "!!map {casebook: !!str 1}\n",
      std::string("casebook: 1\nsummary: s\nop: torch.neg\ninputs:\n") +
          "  x: &t {dtype: float32, values: [1]}\n  y: *t\n" +
          "args: {a: [*t]}\n",
      std::string("casebook: 1\ninputs: {x: {dtype: [float32], ") +
          "shape: {a: 1}, values: [[[[]]]], layout: [1]}}\n",
      std::string("casebook: 1\nexpect: [cpu]\norigin: [a]\n") +
          "backends: cpu\ntolerance: 1\n",
      std::string("\0\xff\xfe", 3),
      "\t- x",
      "casebook: 99999999999999999999999\n",
  };
  for (const std::string& text : odd) {
    LoadedCase loaded;
    EXPECT_NO_THROW(loaded = load_case_text(text, "cases/odd.yaml")) << text;
    EXPECT_EQ(loaded.ok(), loaded.value.has_value()) << text;
  }
  const LoadedCase aliased = load_case_text(odd[3], "cases/odd.yaml");
  // Anchors and aliases are refused, each at its place, before the tree is
  // built (a tree would share the anchored node between its aliases).
  ASSERT_EQ(aliased.errors.size(), 3u);
  EXPECT_EQ(aliased.errors[0].to_string(),
            "cases/odd.yaml:5:6: YAML anchor `&t` is not accepted in a case "
            "file: write the value out (anchors and aliases let a small file "
            "expand into a huge one)");
  EXPECT_EQ(aliased.errors[1].to_string().substr(0, 42),
            "cases/odd.yaml:6:6: YAML alias `*t` is not");
  EXPECT_EQ(aliased.errors[2].to_string().substr(0, 43),
            "cases/odd.yaml:7:12: YAML alias `*t` is not");
}

TEST(LoaderErrors, FileIsNamedAsGiven) {
  const LoadedCase loaded = load_case_text("- x\n", "cases/bad.yaml");
  EXPECT_EQ(loaded.file, "cases/bad.yaml");
  ASSERT_EQ(loaded.errors.size(), 1u);
  EXPECT_EQ(loaded.errors[0].where.file, "cases/bad.yaml");
  EXPECT_EQ(loaded.errors[0].where.line, 1);
  EXPECT_EQ(loaded.errors[0].where.column, 1);
  EXPECT_EQ(loaded.errors[0].key_path, "");
}

INSTANTIATE_TEST_SUITE_P(Loader, MalformedCase,
                         testing::ValuesIn(malformed_files()),
                         [](const testing::TestParamInfo<Malformed>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace casebook
