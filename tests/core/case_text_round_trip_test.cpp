// The case-text writer (case_to_yaml, casebook/case_writer.h) over every case
// file the project ships: written, loaded and written again is the same
// text, and what it wrote loads as the case it was written from (the same
// facts, read from the fields). Its writers (neighbours, the report's
// carried case) rely on both.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "casebook/case_writer.h"
#include "casebook/family.h"
#include "casebook/loader.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;

std::string first_load_error(const LoadedCase& loaded) {
  return loaded.errors.empty() ? "" : loaded.errors.front().to_string();
}

// What a case says, read from its fields rather than through the writer, so
// that a key the writer leaves out shows (a text written twice the same
// would not). Locations and the id left aside.
std::string facts(const Case& kase) {
  std::ostringstream out;
  out << "id " << (kase.id_written ? kase.id : "(the path)") << "\n";
  out << "op " << kase.op << "\n";
  for (const Step& step : kase.steps) {
    out << "step " << step.name << (step.named ? " named" : "") << " "
        << step.op << " args " << step.args.size() << "\n";
    for (const StepInput& input : step.inputs) {
      out << "  " << input.argument << " <- " << input.source << "\n";
    }
  }
  for (const StepInput& output : kase.step_outputs) {
    out << "step output " << output.argument << " <- " << output.source << "\n";
  }
  for (const auto& [name, value] : kase.args) {
    out << "arg " << name << " kind " << static_cast<int>(value.kind) << "\n";
  }
  for (const TensorSpec& input : kase.inputs) {
    out << "input " << input.name << " " << dtype_name(input.dtype) << " "
        << input.shape.size() << "d source " << static_cast<int>(input.source)
        << " values " << input.float_values.size() + input.int_values.size()
        << " seed " << input.seed << " file " << input.file << " "
        << input.sha256 << " same_as " << input.same_as << "\n";
  }
  out << "backends " << kase.backends.size() << " reference "
      << static_cast<int>(kase.reference) << " tolerance "
      << kase.tolerance.has_value() << " equal_nan " << kase.equal_nan << "\n";
  for (const auto& [backend, entries] : kase.expect_entries) {
    for (const Expectation& entry : entries) {
      out << "expect " << backend_name(backend) << " kind "
          << static_cast<int>(entry.kind) << " family "
          << family_name(entry.family) << " when " << entry.when.size()
          << " processed " << entry.processed.value_or(-1) << " positions "
          << (entry.positions ? entry.positions->size() : 0) << " outputs "
          << entry.outputs.size() << "\n";
    }
  }
  out << "outputs " << kase.outputs.size() << " repeat " << kase.repeat
      << " deterministic " << static_cast<int>(kase.deterministic)
      << " timeout " << kase.timeout_seconds << " grad "
      << (kase.grad
              ? kase.grad->wrt.size() + 100 * kase.grad->grad_outputs.size()
              : 0)
      << " origin " << kase.origin.entries.size() << "\n";
  for (const NeighborRule& rule : kase.neighbors) {
    out << "neighbor " << rule.name << " input " << rule.input << " classes "
        << rule.classes.value_or(-1) << " ignore " << rule.ignore_index_given
        << rule.ignore_index.value_or(-7) << " errors " << rule.errors.size()
        << " batch " << rule.dataset_size.value_or(-1) << "/"
        << rule.batch_size.value_or(-1) << " long "
        << rule.long_length.value_or(-1) << " empty "
        << (rule.empty ? int{*rule.empty} : -1) << " blocks "
        << rule.blocks.size() << " along " << rule.along.size() << " layouts "
        << rule.layouts.size() << " inputs " << rule.inputs.size() << " dtypes "
        << rule.dtypes.size() << " cpu64 " << rule.reference_cpu64 << "\n";
  }
  return out.str();
}

// The shipped cases and the corpora the tests keep (version 1 files, public
// bug reports, other frameworks' test data).
std::vector<fs::path> shipped_case_files() {
  const fs::path data = CASEBOOK_TEST_DATA;
  std::vector<fs::path> missing;
  return find_case_files({data / ".." / ".." / "cases", data}, &missing);
}

TEST(CaseTextRoundTrip, EveryShippedCaseWrittenLoadedAndWrittenIsTheSameText) {
  size_t written_files = 0;
  for (const fs::path& file : shipped_case_files()) {
    const LoadedCase first = load_case_file(file);
    if (!first.ok()) continue;  // the corpora's malformed files on purpose
    SCOPED_TRACE(file.string());
    const std::string written = case_to_yaml(*first.value);
    // Loaded from the same path, so its fixtures resolve as the original's.
    const LoadedCase again = load_case_text(written, file);
    ASSERT_TRUE(again.ok()) << first_load_error(again) << "\n" << written;
    EXPECT_EQ(case_to_yaml(*again.value), written);
    EXPECT_EQ(facts(*again.value), facts(*first.value)) << written;
    ++written_files;
  }
  EXPECT_GT(written_files, 200u);
}

// An argument's string is written plain only where the loader reads that
// word back as the same string; the rest are quoted, and every value keeps
// its kind.
TEST(CaseTextRoundTrip, ArgumentStringsArePlainOnlyWhereTheyReadBack) {
  const LoadedCase first = load_case_text(
      "casebook: 1\nsummary: s\nop: torch.add\n"
      "args: {reduction: mean, flag: \"true\", digits: \"1\", spaced: \"a b\","
      " nothing: \"null\", nan: \".nan\", dtype: float32, alpha: 2.0}\n"
      "inputs: {input: {dtype: float32, values: [1]}}\n",
      "cases/args.yaml");
  ASSERT_TRUE(first.ok()) << first_load_error(first);
  const std::string written = case_to_yaml(*first.value);
  EXPECT_NE(written.find("args: {alpha: 2.0, digits: \"1\", dtype: float32, "
                         "flag: \"true\", nan: \".nan\", nothing: \"null\", "
                         "reduction: mean, spaced: \"a b\"}"),
            std::string::npos)
      << written;
  const LoadedCase again = load_case_text(written, "cases/args.yaml");
  ASSERT_TRUE(again.ok()) << first_load_error(again);
  EXPECT_EQ(facts(*again.value), facts(*first.value));
  for (const auto& [name, value] : again.value->args) {
    if (name == "alpha") continue;
    EXPECT_EQ(value.kind, ArgValue::Kind::kString) << name;
  }
}

// One writer of `origin` (a captured case's, case_to_yaml's): a dotted key
// under its head however the entries interleave, an integer plain.
TEST(CaseTextRoundTrip, OriginGathersEachHeadsKeysWhereverTheyStand) {
  Origin origin;
  origin.entries = {{"versions.torch", "2.11.0"},
                    {"iteration", "18231"},
                    {"versions.cuda", "13.0"},
                    {"first_error", "CUDA error: \"assert\""}};
  const std::string text = origin_to_yaml(origin);
  EXPECT_EQ(
      text,
      "origin:\n  versions:\n    torch: \"2.11.0\"\n    cuda: \"13.0\"\n"
      "  iteration: 18231\n  first_error: \"CUDA error: \\\"assert\\\"\"\n");
  const LoadedCase loaded = load_case_text(
      "casebook: 1\nsummary: s\nop: torch.add\n"
      "inputs: {input: {dtype: float32, values: [1]}}\n" +
          text,
      "cases/origin.yaml");
  ASSERT_TRUE(loaded.ok()) << first_load_error(loaded);
  EXPECT_EQ(loaded.value->origin.entries.size(), 4u);
  EXPECT_EQ(origin_to_yaml(Origin{}), "");
}

// A case of arguments only (`aten::zeros`) is written with `inputs: {}`,
// which reads back as no input (`inputs:` alone would read as null).
TEST(CaseTextRoundTrip, ACaseWithoutInputsReadsBack) {
  const LoadedCase first = load_case_text(
      "casebook: 1\nsummary: s\nop: aten::zeros\nargs: {size: [2, 3]}\n"
      "inputs: {}\n",
      "cases/zeros.yaml");
  ASSERT_TRUE(first.ok()) << first_load_error(first);
  const std::string written = case_to_yaml(*first.value);
  EXPECT_NE(written.find("\ninputs: {}\n"), std::string::npos) << written;
  const LoadedCase again = load_case_text(written, "cases/zeros.yaml");
  ASSERT_TRUE(again.ok()) << first_load_error(again) << "\n" << written;
  EXPECT_EQ(facts(*again.value), facts(*first.value));
}

// A tensor of more dims than a case file may nest lists (PyTorch's error
// inputs hold 65-dim ones) is written flat beside its shape and reads back:
// nested, its values passed the reader's nesting limit, and `casebook new
// --from-json` aborted on its own writer's broken promise.
TEST(CaseTextRoundTrip, ValuesOfManyDimsAreWrittenFlatAndReadBack) {
  std::string shape = "[";
  for (int dim = 0; dim < 64; ++dim) shape += "1, ";
  shape += "2]";
  const LoadedCase first = load_case_text(
      "casebook: 1\nsummary: s\nop: torch.sum\ninputs:\n  input: {dtype: "
      "float32, shape: " +
          shape + ", values: [1.5, -2]}\n",
      "cases/many_dims.yaml");
  ASSERT_TRUE(first.ok()) << first_load_error(first);
  const std::string written = case_to_yaml(*first.value);
  EXPECT_NE(written.find("values: [1.5, -2]"), std::string::npos) << written;
  const LoadedCase again = load_case_text(written, "cases/many_dims.yaml");
  ASSERT_TRUE(again.ok()) << first_load_error(again) << "\n" << written;
  EXPECT_EQ(case_to_yaml(*again.value), written);
  EXPECT_EQ(again.value->inputs.at(0).shape.size(), 65u);
}

// A written `id` and every parameter of every neighbour rule are written and
// read back, so that a case written from a JSON description (`casebook new
// --from-json`) keeps the id and the neighbours it declares.
TEST(CaseTextRoundTrip, AnIdAndEveryNeighbourParameterAreWrittenAndReadBack) {
  const std::string text =
      "casebook: 1\nid: \"stays: as written\"\nsummary: s\n"
      "op: torch.cross_entropy\nargs: {ignore_index: -100, reduction: mean}\n"
      "inputs:\n"
      "  input: {dtype: float32, shape: [4, 3], fill: {normal: {mean: 0, std: "
      "1}}, seed: 1}\n"
      "  target: {dtype: int64, values: [0, 1, 2, 0]}\n"
      "expect: {cpu: match, cuda: match, hip: match}\n"
      "neighbors:\n"
      "  label_limits: {input: target, classes: 3, ignore_index: null, "
      "errors: {cpu: index_out_of_range, cuda: device_assert}}\n"
      "  last_batch: {dataset_size: 10, batch_size: 4, "
      "along: {input: 0, target: 0}}\n"
      "  lengths: {long: 64, empty: false}\n"
      "  block_boundaries: {blocks: [2], along: {input: 0, target: 0}}\n"
      "  layouts: {layouts: [transposed, sliced], inputs: [input]}\n"
      "  dtypes: {dtypes: [float16, float64], reference: cpu64}\n";
  const LoadedCase first = load_case_text(text, "cases/neighbours.yaml");
  ASSERT_TRUE(first.ok()) << first_load_error(first);
  ASSERT_EQ(first.value->neighbors.size(), 6u);
  const std::string written = case_to_yaml(*first.value);
  EXPECT_NE(written.find("\nid: \"stays: as written\"\n"), std::string::npos)
      << written;
  EXPECT_NE(written.find("  label_limits: {input: target, classes: 3, "
                         "ignore_index: null, errors: {cpu: "
                         "index_out_of_range, cuda: device_assert}}\n"),
            std::string::npos)
      << written;
  const LoadedCase again = load_case_text(written, "cases/neighbours.yaml");
  ASSERT_TRUE(again.ok()) << first_load_error(again) << "\n" << written;
  EXPECT_EQ(facts(*again.value), facts(*first.value)) << written;
  EXPECT_EQ(case_to_yaml(*again.value), written);
}

}  // namespace
}  // namespace casebook
