// Case files on disk: fixtures beside and above a case, discovery, ids, the
// contract's two examples, and files that cannot be read. Real folders in a
// fresh temporary directory.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "casebook/loader.h"

namespace casebook {
namespace {
namespace fs = std::filesystem;

class TempFolder : public testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (fs::temp_directory_path() / "casebook_loader_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  // Writes `text` to root/relative, creating folders.
  fs::path write(const std::string& relative, const std::string& text) {
    fs::path path = root_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
    return path;
  }
  fs::path root_;
};

std::string case_with_file(const std::string& file) {
  return "casebook: 1\nsummary: fixture\nop: torch.neg\ninputs:\n  x: "
         "{dtype: float32, shape: [2], file: \"" +
         file +
         "\", sha256: "
         "ABCDEF0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789}\n";
}

std::string first_error(const LoadedCase& loaded) {
  return loaded.errors.empty() ? "" : loaded.errors.front().to_string();
}

TEST_F(TempFolder, FixtureBesideTheCase) {
  write("repo/cases/ce/fixtures/logits.npy", "x");
  write("repo/fixtures/logits.npy", "x");  // farther: not taken
  const fs::path file =
      write("repo/cases/ce/near.yaml", case_with_file("logits.npy"));
  const LoadedCase loaded = load_case_file(file);
  ASSERT_TRUE(loaded.ok()) << first_error(loaded);
  const TensorSpec& spec = loaded.value->inputs.at(0);
  EXPECT_EQ(spec.source, TensorSpec::Source::kFile);
  EXPECT_EQ(spec.file, "logits.npy");
  EXPECT_EQ(spec.resolved_file, root_ / "repo/cases/ce/fixtures/logits.npy");
  EXPECT_EQ(spec.sha256,
            "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789");
  EXPECT_EQ(spec.shape, std::vector<int64_t>{2});
  EXPECT_TRUE(spec.shape_given);
}

TEST_F(TempFolder, FixtureInTheNearestFolderAbove) {
  write("repo/fixtures/sub/w.safetensors", "x");
  const fs::path file =
      write("repo/cases/a/b/far.yaml", case_with_file("sub/w.safetensors#w1"));
  EXPECT_EQ(find_fixtures_folder(file), root_ / "repo/fixtures");
  const LoadedCase loaded = load_case_file(file);
  ASSERT_TRUE(loaded.ok()) << first_error(loaded);
  EXPECT_EQ(loaded.value->inputs.at(0).resolved_file,
            root_ / "repo/fixtures/sub/w.safetensors");
  EXPECT_EQ(loaded.value->inputs.at(0).file_tensor, "w1");
}

TEST_F(TempFolder, FileWithoutShapeLeavesItToTheFile) {
  write("cases/fixtures/t.pt", "x");
  const fs::path file = write(
      "cases/t.yaml",
      "casebook: 1\nsummary: s\nop: torch.neg\ninputs:\n  x: {dtype: int64, "
      "file: t.pt}\n  y: {dtype: int64, file: t.pt, layout: {transpose: [0, "
      "1]}}\n");
  const LoadedCase loaded = load_case_file(file);
  ASSERT_EQ(loaded.errors.size(), 1u);
  EXPECT_EQ(loaded.errors[0].to_string(),
            file.string() +
                ":6:41: `inputs.y.layout`: a layout needs the tensor's rank: "
                "give `shape` with `file`");
  const LoadedCase fixed = load_case_text(
      "casebook: 1\nsummary: s\nop: torch.neg\ninputs:\n  x: {dtype: int64, "
      "file: t.pt}\n",
      file);
  ASSERT_TRUE(fixed.ok()) << first_error(fixed);
  EXPECT_FALSE(fixed.value->inputs.at(0).shape_given);
  EXPECT_TRUE(fixed.value->inputs.at(0).shape.empty());
}

TEST_F(TempFolder, RelativeCasePathGivesARelativeFixturesFolder) {
  write("repo/fixtures/x.npy", "x");
  write("repo/cases/a/b.yaml", "");
  const fs::path before = fs::current_path();
  fs::current_path(root_ / "repo");
  const auto beside_root = find_fixtures_folder("cases/a/b.yaml");
  fs::current_path(root_ / "repo/cases");
  const auto from_inside = find_fixtures_folder("a/b.yaml");
  fs::current_path(before);
  EXPECT_EQ(beside_root, fs::path("fixtures"));
  EXPECT_EQ(from_inside, fs::path("../fixtures"));
}

TEST_F(TempFolder, MissingFixtureNamesTheFolderSearched) {
  write("repo/fixtures/other.npy", "x");
  const fs::path file = write("repo/cases/m.yaml", case_with_file("gone.npy"));
  const LoadedCase loaded = load_case_file(file);
  ASSERT_EQ(loaded.errors.size(), 1u);
  EXPECT_EQ(loaded.errors[0].to_string(),
            file.string() + ":5:41: `inputs.x.file`: fixture `gone.npy` not " +
                "found in `" + (root_ / "repo/fixtures").string() + "`");
}

TEST_F(TempFolder, NoFixturesFolderAtAll) {
  const fs::path file = write("lonely/cases/m.yaml", case_with_file("a.npy"));
  if (find_fixtures_folder(file)) GTEST_SKIP() << "a fixtures/ folder above";
  const LoadedCase loaded = load_case_file(file);
  ASSERT_EQ(loaded.errors.size(), 1u);
  EXPECT_EQ(loaded.errors[0].to_string(),
            file.string() +
                ":5:41: `inputs.x.file`: no `fixtures` folder beside the case "
                "file or above it (searched from `" +
                file.parent_path().string() + "` upwards)");
}

// New case files (casebook new, capture) name the nearest schema, relative
// to themselves, as the shipped cases do.
TEST_F(TempFolder, SchemaModelineIsRelativeToTheCaseFile) {
  EXPECT_EQ(schema_modeline(root_ / "cases" / "aten" / "add" / "x.yaml"),
            std::nullopt);
  write("schema/case.schema.json", "{}");
  EXPECT_EQ(schema_modeline(root_ / "cases" / "aten" / "add" / "x.yaml"),
            "# yaml-language-server: $schema=../../../schema/case.schema.json");
  EXPECT_EQ(schema_modeline(root_ / "x.yaml"),
            "# yaml-language-server: $schema=schema/case.schema.json");
  // The shipped cases say the same as what it writes for them.
  const fs::path shipped =
      fs::path(CASEBOOK_TEST_DATA) / "../../cases/torch/sum_float16.yaml";
  std::ifstream in(shipped);
  std::string first_line;
  std::getline(in, first_line);
  EXPECT_EQ(schema_modeline(shipped), first_line);
}

TEST_F(TempFolder, FindCaseFilesRecursesSortsAndSkipsFixtures) {
  write("cases/b/z.yaml", "");
  write("cases/a.yml", "");
  write("cases/b/fixtures/data.yaml", "");  // data, not a case
  write("cases/notes.txt", "");
  write("extra/c.yaml", "");
  std::vector<fs::path> missing;
  const std::vector<fs::path> found =
      find_case_files({root_ / "cases", root_ / "cases/b/z.yaml",
                       root_ / "extra/c.yaml", root_ / "nowhere"},
                      &missing);
  const std::vector<fs::path> expected{
      root_ / "cases/a.yml", root_ / "cases/b/z.yaml", root_ / "extra/c.yaml"};
  EXPECT_EQ(found, expected);
  EXPECT_EQ(missing, std::vector<fs::path>{root_ / "nowhere"});
}

// Issue 26: a `loop -> .` link ran a case 41 times; two such links never
// ended and grew without bound.
TEST_F(TempFolder, LinkedFoldersInsideAreWalkedOnceUnderTheirOwnPath) {
  write("cases/a/x.yaml", "");
  write("cases/b.yaml", "");
  fs::create_directory_symlink(".", root_ / "cases/loop");
  fs::create_directory_symlink("..", root_ / "cases/a/up");
  fs::create_directory_symlink("../a", root_ / "cases/a/again");
  std::vector<fs::path> missing;
  std::vector<CaseError> refused;
  const std::vector<fs::path> found =
      find_case_files({root_ / "cases"}, &missing, &refused);
  EXPECT_EQ(found, (std::vector<fs::path>{root_ / "cases/a/x.yaml",
                                          root_ / "cases/b.yaml"}));
  EXPECT_TRUE(refused.empty());
}

TEST_F(TempFolder, LinksOutsideTheNamedFolderAreRefusedUnlessAllowed) {
  write("cases/mine.yaml", "");
  write("elsewhere/theirs.yaml", "");
  write("elsewhere/deeper/more.yaml", "");
  fs::create_directory_symlink(root_ / "elsewhere", root_ / "cases/linked");
  fs::create_symlink(root_ / "elsewhere/theirs.yaml", root_ / "cases/one.yaml");
  std::vector<fs::path> missing;
  std::vector<CaseError> refused;
  EXPECT_EQ(find_case_files({root_ / "cases"}, &missing, &refused),
            std::vector<fs::path>{root_ / "cases/mine.yaml"});
  ASSERT_EQ(refused.size(), 2u);
  std::vector<std::string> texts;
  for (const CaseError& error : refused) texts.push_back(error.to_string());
  std::sort(texts.begin(), texts.end());
  EXPECT_EQ(texts[0], (root_ / "cases/linked").string() + ": a link to " +
                          fs::canonical(root_ / "elsewhere").string() +
                          ", outside " + (root_ / "cases").string() +
                          ": not taken (a merge request's link must not "
                          "bring in files from elsewhere; "
                          "--allow-links-outside takes it)");
  EXPECT_EQ(
      texts[1].rfind((root_ / "cases/one.yaml").string() + ": a link to ", 0),
      0u)
      << texts[1];
  refused.clear();
  EXPECT_EQ(find_case_files({root_ / "cases"}, &missing, &refused,
                            /*allow_links_outside=*/true),
            (std::vector<fs::path>{root_ / "cases/linked/deeper/more.yaml",
                                   root_ / "cases/linked/theirs.yaml",
                                   root_ / "cases/mine.yaml",
                                   root_ / "cases/one.yaml"}));
  EXPECT_TRUE(refused.empty());
}

TEST_F(TempFolder, UnreadableFiles) {
  const LoadedCase missing = load_case_file(root_ / "cases/none.yaml");
  EXPECT_EQ(first_error(missing),
            (root_ / "cases/none.yaml").string() + ": no such file");
  EXPECT_EQ(missing.id, "none");
  fs::create_directories(root_ / "cases/folder.yaml");
  EXPECT_EQ(first_error(load_case_file(root_ / "cases/folder.yaml")),
            (root_ / "cases/folder.yaml").string() +
                ": cannot read the file: it is a folder");
}

TEST(CaseId, DerivedFromThePathUnderCases) {
  EXPECT_EQ(derive_case_id("cases/cross_entropy/label_out_of_range.yaml", {}),
            "cross_entropy/label_out_of_range");
  EXPECT_EQ(derive_case_id("/repo/cases/a/cases/b.yml", {}), "b");
  EXPECT_EQ(derive_case_id("/repo/cases/./x/../top.yaml", {}), "top");
  EXPECT_EQ(derive_case_id("/repo/other/x/y.yaml", "/repo/other"), "x/y");
  EXPECT_EQ(derive_case_id("/elsewhere/y.yaml", "/repo"), "y");
}

TEST(ContractExamples, BothLoadWithTheirMeaning) {
  const fs::path folder = fs::path(CASEBOOK_TEST_DATA) / "loader/cases";
  const LoadedCase failing =
      load_case_file(folder / "cross_entropy/label_out_of_range.yaml");
  ASSERT_TRUE(failing.ok()) << first_error(failing);
  EXPECT_EQ(failing.id, "cross_entropy/label_out_of_range");
  const Case& value = *failing.value;
  EXPECT_EQ(value.op, "torch.cross_entropy");
  EXPECT_EQ(value.args.at("ignore_index").int_value, -100);
  EXPECT_EQ(value.args.at("reduction").string_value, "mean");
  EXPECT_EQ(value.inputs.at(0).seed, 7u);
  EXPECT_EQ(value.inputs.at(1).int_values, (std::vector<int64_t>{0, 2, 4}));
  EXPECT_EQ(value.expectation(Backend::kCpu).family, Family::kIndexOutOfRange);
  EXPECT_EQ(value.expectation(Backend::kHip).family, Family::kDeviceAssert);
  EXPECT_EQ(value.origin.entries.size(), 11u);
  EXPECT_EQ(value.origin.entries.at(9),
            (std::pair<std::string, std::string>{"data.shape.target", "[3]"}));

  const LoadedCase guard =
      load_case_file(folder / "cross_entropy/label_in_range.yaml");
  ASSERT_TRUE(guard.ok()) << first_error(guard);
  EXPECT_TRUE(guard.value->expect.empty());
  EXPECT_EQ(guard.value->inputs.at(1).int_values,
            (std::vector<int64_t>{0, 3, -100, 2}));
  EXPECT_EQ(guard.value->backends, all_backends());
}

}  // namespace
}  // namespace casebook
