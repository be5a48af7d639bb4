// A case's id is its path under the folder the run names (or under its
// nearest `cases/` folder), never under the current directory: a suite run by
// its absolute path from elsewhere keeps ids that tell its files apart.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "run_command.h"
#include "runner/session.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;
using testing_support::TempFolder;

void write_case(const fs::path& file) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << "casebook: 1\nsummary: s\nop: torch.softmax\n"
                         "args: {dim: 0}\n"
                         "inputs:\n  self: {dtype: float32, values: [1, 2]}\n";
}

std::vector<std::string> ids_of(const Plan& plan) {
  std::vector<std::string> ids;
  for (const PlannedCase& planned : plan.cases) {
    ids.push_back(planned.loaded.id);
    EXPECT_TRUE(planned.plan_errors.empty()) << planned.plan_errors.front();
  }
  return ids;
}

TEST(CaseIds, AreThePathUnderTheFolderTheRunNames) {
  TempFolder folder;
  const fs::path suite = fs::absolute(folder.path() / "suite");
  write_case(suite / "a" / "x.yaml");
  write_case(suite / "b" / "x.yaml");
  write_case(suite / "b" / "deeper" / "x.yaml");
  // Two files of one name: the ids must differ, from any current directory
  // (the test's is the build folder, far from the suite).
  EXPECT_EQ(ids_of(load_plan({suite}, RunOptions{})),
            (std::vector<std::string>{"a/x", "b/deeper/x", "b/x"}));
  EXPECT_EQ(ids_of(load_plan({suite / "b"}, RunOptions{})),
            (std::vector<std::string>{"deeper/x", "x"}));
  // A file named itself: its name.
  EXPECT_EQ(ids_of(load_plan({suite / "a" / "x.yaml"}, RunOptions{})),
            (std::vector<std::string>{"x"}));
  // Under a `cases/` folder, the path under it, whatever the run names.
  write_case(folder.path() / "project" / "cases" / "area" / "y.yaml");
  EXPECT_EQ(ids_of(load_plan({folder.path() / "project" / "cases" / "area"},
                             RunOptions{})),
            (std::vector<std::string>{"area/y"}));
}

}  // namespace
}  // namespace casebook
