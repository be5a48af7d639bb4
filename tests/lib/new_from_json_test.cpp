// `casebook new --from-json`: a case a program describes in JSON is written
// by casebook's one case-text writer, read as any case file (errors at
// file:line:col, nothing written), never over a file, each file on its own.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "casebook/case_writer.h"
#include "casebook/loader.h"
#include "run_command.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;
using testing_support::has_line;
using testing_support::read_text;
using testing_support::run_casebook;
using testing_support::TempFolder;

void write_description(const fs::path& file, const std::string& json) {
  std::ofstream(file) << json;
}

// A cross_entropy case as a program would describe it: nested values, a
// float argument, expectations per backend, a neighbour, an origin.
const char* const kDescribedCase = R"({
  "casebook": 1,
  "summary": "a label of 3 in a 3-class problem",
  "op": "torch.cross_entropy",
  "args": {"reduction": "sum", "label_smoothing": 0.0},
  "inputs": {
    "input": {"dtype": "float32", "values": [[0.5, -1.0, 2.0], [1.0, 0.0, 0.25]]},
    "target": {"dtype": "int64", "values": [0, 3]}
  },
  "expect": {"cpu": {"error": "index_out_of_range"},
             "cuda": {"error": "device_assert"},
             "hip": {"error": "device_assert"}},
  "neighbors": {"label_limits": {}},
  "origin": {"iteration": 7, "versions": {"torch": "2.13.0"}}
})";

TEST(NewFromJson, WritesTheDescribedCaseAsCasebookWritesEveryCase) {
  TempFolder folder;
  const fs::path json = folder.path() / "label_3.json";
  write_description(json, kDescribedCase);
  const auto made = run_casebook("new --from-json " + json.string());
  ASSERT_EQ(made.status, 0) << made.output;
  const fs::path yaml = folder.path() / "label_3.yaml";
  EXPECT_TRUE(has_line(made.output, "^wrote .*label_3\\.yaml$")) << made.output;
  const std::string text = read_text(yaml);
  // The model's writer's text, exactly: what the description loads as,
  // written by case_to_yaml.
  const LoadedCase described = load_case_file(json);
  ASSERT_TRUE(described.ok());
  EXPECT_EQ(text, case_to_yaml(*described.value));
  EXPECT_NE(text.find("  input: {dtype: float32, shape: [2, 3], values: "
                      "[[0.5, -1, 2], [1, 0, 0.25]]}\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("args: {label_smoothing: 0.0, reduction: sum}\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("neighbors:\n  label_limits: {}\n"), std::string::npos)
      << text;
  // It runs as written: the error it expects, and its neighbours.
  const auto run = run_casebook("run --verbose --backend cpu --evidence '' " +
                                yaml.string());
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_TRUE(has_line(run.output, "^PASS +label_3 .*cpu")) << run.output;
  EXPECT_TRUE(has_line(run.output, "^PASS +label_3~label_limits\\[C\\] +cpu$"))
      << run.output;
}

TEST(NewFromJson, ABadDescriptionIsRefusedAtItsLineAndTheOthersAreWritten) {
  TempFolder folder;
  const fs::path bad = folder.path() / "bad.json";
  write_description(bad,
                    "{\"casebook\": 1, \"summary\": \"s\", \"op\": "
                    "\"torch.neg\",\n \"inputs\": {\"input\": {\"dtype\": "
                    "\"float33\", \"values\": [1]}}}\n");
  const fs::path good = folder.path() / "good.json";
  write_description(good,
                    "{\"casebook\": 1, \"summary\": \"s\", \"op\": "
                    "\"torch.neg\", \"inputs\": {\"input\": {\"dtype\": "
                    "\"float32\", \"values\": [1, 2]}}}\n");
  const fs::path taken = folder.path() / "taken.json";
  write_description(taken, read_text(good));
  std::ofstream(folder.path() / "taken.yaml") << "# a person's file\n";
  const auto made = run_casebook("new --from-json " + bad.string() + " " +
                                 good.string() + " " + taken.string());
  EXPECT_EQ(made.status, 1) << made.output;
  EXPECT_TRUE(has_line(made.output,
                       "bad\\.json:2:[0-9]+: `inputs\\.input\\.dtype`: .*"
                       "float33"))
      << made.output;
  EXPECT_FALSE(fs::exists(folder.path() / "bad.yaml"));
  EXPECT_TRUE(fs::exists(folder.path() / "good.yaml"));
  EXPECT_TRUE(has_line(made.output,
                       "taken\\.yaml: exists \\(casebook never "
                       "writes over it\\)"))
      << made.output;
  EXPECT_EQ(read_text(folder.path() / "taken.yaml"), "# a person's file\n");
  EXPECT_TRUE(has_line(made.output, "^casebook new: 2 of 3 not written$"))
      << made.output;
}

}  // namespace
}  // namespace casebook
