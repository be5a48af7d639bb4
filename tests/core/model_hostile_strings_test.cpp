// The rest of the untrusted-input rules of the loader (issue 35, part 6),
// each from bytes the test writes itself: a string longer than the scalar
// limit is refused at its line and no suggestion works on it; YAML the docs
// refuse (a tag, a duplicate key, a byte that is not UTF-8) is refused inside
// `origin` as anywhere; an `id` cannot carry a control character; a stated
// output shape over the output limit is refused; a case file named directly
// follows the link rules of discovery, and one that is no regular file is an
// error naming it.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>

#include "casebook/limits.h"
#include "casebook/loader.h"
#include "loaded_case_checks.h"

namespace casebook {
namespace {
namespace fs = std::filesystem;

const char kStringsHead[] = "casebook: 1\nsummary: s\n";
const char kInputs[] = "inputs:\n  x: {dtype: float32, values: [1, 2]}\n";

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

TEST(HostileStrings, ANineHundredKilobyteOpNameIsRefusedAtItsLine) {
  const std::string text = std::string(kStringsHead) + "op: torch." +
                           std::string(900'000, 'a') + "\n" + kInputs;
  const auto start = std::chrono::steady_clock::now();
  const LoadedCase loaded = load_case_text(text, "cases/long.yaml");
  EXPECT_LT(seconds_since(start), 5.0);
  EXPECT_FALSE(loaded.ok());
  EXPECT_TRUE(refused_at(loaded, 3,
                         "a scalar of 900006 bytes: over the limit of 4096 "
                         "bytes"))
      << all_errors(loaded).substr(0, 2000);
  // The error quotes a bounded part of it, never the whole.
  EXPECT_LT(all_errors(loaded).size(), 8192u);
}

// (A key is a scalar too; YAML itself refuses an implicit key of more than
// 1024 characters.)
TEST(HostileStrings, EveryStringIsBoundedWhereverItIs) {
  const std::string long_text(5000, 'k');
  const std::string text = std::string(kStringsHead) + "op: torch.neg\n" +
                           kInputs + "origin:\n  cause: " + long_text +
                           "\n  data: [\"" + long_text + "\"]\n";
  const LoadedCase loaded = load_case_text(text, "cases/long.yaml");
  EXPECT_TRUE(refused_at(loaded, 7, "a scalar of 5000 bytes"))
      << all_errors(loaded);
  EXPECT_TRUE(refused_at(loaded, 8, "a scalar of 5000 bytes"))
      << all_errors(loaded);
  // At the limit, a string reads.
  const std::string at_limit =
      std::string(kStringsHead) + "op: torch.neg\n" + kInputs +
      "origin:\n  cause: " + std::string(4096, 'c') + "\n";
  EXPECT_TRUE(load_case_text(at_limit, "cases/ok.yaml").ok());
}

// The suggestion for a misspelt name was an edit distance over the whole
// name against every candidate, with a table of |a| x |b| cells: 900 KB
// against the ATen operators took minutes and hundreds of MB.
TEST(HostileStrings, SuggestionsCostNothingForAHugeName) {
  std::vector<std::string> candidates;
  for (int i = 0; i < 200; ++i) {
    candidates.push_back("operator_name_" + std::to_string(i));
  }
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(nearest_names(std::string(900'000, 'o'), candidates, 3).empty());
  // Two long names of about the same length: the distance stops as soon as
  // it is past the limit.
  EXPECT_TRUE(nearest_names(std::string(60, 'a'),
                            {std::string(60, 'b'), std::string(61, 'a')}, 3) ==
              std::vector<std::string>{std::string(61, 'a')});
  EXPECT_LT(seconds_since(start), 1.0);
  // What it suggested before, it still does.
  EXPECT_EQ(nearest_name("cdua", {"cpu", "cuda", "hip"}), "cuda");
  EXPECT_EQ(nearest_name("dtpye", {"dtype", "shape"}), "dtype");
  EXPECT_EQ(nearest_name("scale_grad_by_freq", {"max_norm"}), "");
}

// Issue 51: casebook's torch.nll_loss and ATen's were both candidates, and
// both were suggested ("nearest known: torch.nll_loss, torch.nll_loss").
TEST(Suggestions, ANameTwoSourcesGiveIsSuggestedOnce) {
  EXPECT_EQ(nearest_names("torch.nll_los",
                          {"torch.nll_loss", "torch.nll_loss", "torch.allclose",
                           "torch.nll_loss2d"},
                          3),
            (std::vector<std::string>{"torch.nll_loss", "torch.allclose",
                                      "torch.nll_loss2d"}));
}

TEST(HostileYamlInOrigin, ATagIsRefusedAtItsLine) {
  const std::string text =
      std::string(kStringsHead) + "op: torch.neg\n" + kInputs +
      "origin:\n  cause: !!python/object/new:os.system [\"rm -rf ~\"]\n"
      "  change: !!str fixed\n  data: !local {id: x}\n";
  const LoadedCase loaded = load_case_text(text, "cases/tag.yaml");
  EXPECT_FALSE(loaded.ok());
  EXPECT_TRUE(refused_at(loaded, 7, "YAML tag `!!python/object/new:os.system`"))
      << all_errors(loaded);
  EXPECT_TRUE(refused_at(loaded, 8, "YAML tag `!!str`")) << all_errors(loaded);
  EXPECT_TRUE(refused_at(loaded, 9, "YAML tag `!local`")) << all_errors(loaded);
}

TEST(HostileYamlInOrigin, ADuplicateKeyIsRefusedAtItsLine) {
  const std::string text = std::string(kStringsHead) + "op: torch.neg\n" +
                           kInputs +
                           "origin:\n  versions:\n    torch: \"2.1\"\n"
                           "    torch: \"2.2\"\n  data: {id: a, id: b}\n";
  const LoadedCase loaded = load_case_text(text, "cases/dup.yaml");
  EXPECT_FALSE(loaded.ok());
  EXPECT_TRUE(refused_at(loaded, 9,
                         "`origin.versions.torch`: duplicate key `torch`; "
                         "first given at line 8"))
      << all_errors(loaded);
  EXPECT_TRUE(refused_at(loaded, 10, "`origin.data.id`: duplicate key `id`"))
      << all_errors(loaded);
}

TEST(HostileYamlInOrigin, ADuplicateKeyAtTheTopIsReportedOnce) {
  const std::string text = std::string(kStringsHead) + "op: torch.neg\n" +
                           kInputs + "op: torch.abs\n";
  const LoadedCase loaded = load_case_text(text, "cases/dup.yaml");
  ASSERT_EQ(loaded.errors.size(), 1u) << all_errors(loaded);
  EXPECT_TRUE(
      refused_at(loaded, 6, "`op`: duplicate key `op`; first given at line 3"))
      << all_errors(loaded);
}

TEST(HostileYamlInOrigin, AByteThatIsNotUtf8IsRefusedAtItsLineAndColumn) {
  const std::string text = std::string(kStringsHead) + "op: torch.neg\n" +
                           kInputs + "origin:\n  cause: caf\xc3\xa9 \xff\xfe\n";
  const LoadedCase loaded = load_case_text(text, "cases/bytes.yaml");
  ASSERT_EQ(loaded.errors.size(), 1u) << all_errors(loaded);
  EXPECT_EQ(loaded.errors[0].where.line, 7);
  EXPECT_EQ(loaded.errors[0].where.column, 16);  // bytes: é is two
  EXPECT_NE(loaded.errors[0].to_string().find("a byte that is not UTF-8 "
                                              "(\\xff)"),
            std::string::npos)
      << all_errors(loaded);
}

TEST(HostileIds, AnIdWithANewlineIsRefused) {
  const std::string text = std::string(kStringsHead) + "op: torch.neg\n" +
                           kInputs + "id: \"x\\nPASS  fake/case\"\n";
  const LoadedCase loaded = load_case_text(text, "cases/id.yaml");
  EXPECT_TRUE(refused_at(loaded, 6,
                         "`id`: expected a name of printable characters; got "
                         "`x\\nPASS  fake/case`"))
      << all_errors(loaded);
  EXPECT_EQ(loaded.id, "id");  // the id derived from the path
}

// ESC and BEL in any string of the file (an id, a summary, `origin`) are
// refused where they are written: they never reach a terminal.
TEST(HostileText, ControlCharactersAreRefusedInEveryString) {
  const std::string text =
      "casebook: 1\nsummary: \"clear\\e[2J\"\nop: torch.neg\n" +
      std::string(kInputs) +
      "id: \"bell\\a\"\norigin:\n  cause: \"cr\\rforged\"\n"
      "  first_error: \"two\\nlines\\tand a tab\"\n";
  const LoadedCase loaded = load_case_text(text, "cases/esc.yaml");
  EXPECT_TRUE(refused_at(loaded, 2, "a control character in `clear\\x1b[2J`"))
      << all_errors(loaded);
  EXPECT_TRUE(refused_at(loaded, 6, "a control character in `bell\\x07`"))
      << all_errors(loaded);
  EXPECT_TRUE(refused_at(loaded, 8, "a control character in `cr\\rforged`") ||
              refused_at(loaded, 8, "a control character in `cr\\x0dforged`"))
      << all_errors(loaded);
  EXPECT_FALSE(refused_at(loaded, 9, "control")) << all_errors(loaded);
  for (const CaseError& error : loaded.errors) {
    for (const char c : error.to_string()) {
      EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20) << error.to_string();
    }
  }
}

TEST(OutputLimits, AStatedOutputShapeOverTheLimitIsRefusedAtItsLine) {
  const std::string text =
      std::string(kStringsHead) +
      "op: torch.outer\ninputs:\n"
      "  input: {dtype: float32, shape: [40000], fill: {full: 1}}\n"
      "  vec2: {dtype: float32, shape: [40000], fill: {full: 1}}\n"
      "outputs:\n  0: {dtype: float32, shape: [40000, 40000]}\n";
  const LoadedCase loaded = load_case_text(text, "cases/outer.yaml");
  EXPECT_TRUE(refused_at(loaded, 8,
                         "`outputs.0.shape`: an output of 1600000000 elements "
                         "of float32 (6.0 GiB) is over the limit of 4 GiB per "
                         "output (CASEBOOK_MAX_OUTPUT_BYTES)"))
      << all_errors(loaded);
  LoadLimits small = load_limits();
  const LoadLimits saved = small;
  small.max_output_elements = 100;
  set_load_limits(small);
  const LoadedCase few =
      load_case_text(std::string(kStringsHead) + "op: torch.neg\n" + kInputs +
                         "outputs:\n  0: {shape: [11, 10]}\n",
                     "cases/few.yaml");
  set_load_limits(saved);
  EXPECT_TRUE(refused_at(few, 7,
                         "an output of 110 elements of any dtype (110 bytes) "
                         "is over the limit of 100 elements per output "
                         "(CASEBOOK_MAX_OUTPUT_ELEMENTS)"))
      << all_errors(few);
}

class NamedFiles : public testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (fs::temp_directory_path() / "casebook_named_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    fs::create_directories(root_ / "repo/cases");
    std::ofstream(root_ / "outside.yaml") << kStringsHead << "op: torch.neg\n"
                                          << kInputs;
    std::ofstream(root_ / "repo/cases/real.yaml")
        << kStringsHead << "op: torch.neg\n"
        << kInputs;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  // find_case_files of one named path: the files taken, the refusals.
  std::vector<fs::path> find(const fs::path& named, std::string* refusals,
                             bool allow_links_outside = false) {
    std::vector<fs::path> missing;
    std::vector<CaseError> refused;
    const std::vector<fs::path> found =
        find_case_files({named}, &missing, &refused, allow_links_outside);
    for (const CaseError& error : refused) {
      *refusals += error.to_string() + "\n";
    }
    return found;
  }
  fs::path root_;
};

TEST_F(NamedFiles, ALinkOutsideItsRepositoryIsRefusedAsDiscoveryRefusesIt) {
  fs::create_directory(root_ / "repo/.git");
  const fs::path link = root_ / "repo/cases/evil.yaml";
  fs::create_symlink(root_ / "outside.yaml", link);
  std::string refusals;
  EXPECT_TRUE(find(link, &refusals).empty());
  EXPECT_NE(
      refusals.find(link.string() + ": a link to " +
                    fs::canonical(root_ / "outside.yaml").string() +
                    ", outside " + (root_ / "repo").string() + ": not taken"),
      std::string::npos)
      << refusals;
  // Discovery of its folder says the same of it.
  std::string walked;
  const std::vector<fs::path> found = find(root_ / "repo/cases", &walked);
  EXPECT_EQ(found, std::vector<fs::path>{root_ / "repo/cases/real.yaml"});
  EXPECT_NE(walked.find("evil.yaml: a link to"), std::string::npos) << walked;
  // --allow-links-outside takes it.
  std::string none;
  EXPECT_EQ(find(link, &none, true).size(), 1u);
  EXPECT_EQ(none, "");
}

TEST_F(NamedFiles, ALinkInsideItsRepositoryIsTaken) {
  fs::create_directory(root_ / "repo/.git");
  fs::create_directories(root_ / "repo/shared");
  fs::copy_file(root_ / "repo/cases/real.yaml", root_ / "repo/shared/s.yaml");
  const fs::path link = root_ / "repo/cases/shared.yaml";
  fs::create_symlink("../shared/s.yaml", link);
  std::string refusals;
  EXPECT_EQ(find(link, &refusals), std::vector<fs::path>{link});
  EXPECT_EQ(refusals, "");
}

TEST_F(NamedFiles, OutsideAnyRepositoryALinkMustStayInItsFolder) {
  const fs::path link = root_ / "repo/cases/evil.yaml";
  fs::create_symlink("../../outside.yaml", link);
  std::string refusals;
  EXPECT_TRUE(find(link, &refusals).empty());
  EXPECT_NE(refusals.find("a link to"), std::string::npos) << refusals;
  // A plain file named directly is taken as before.
  std::string none;
  EXPECT_EQ(find(root_ / "outside.yaml", &none).size(), 1u);
  EXPECT_EQ(none, "");
}

TEST_F(NamedFiles, AFifoOrALinkToADeviceIsAnErrorNamingIt) {
  const fs::path fifo = root_ / "repo/cases/pipe.yaml";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const fs::path zero = root_ / "repo/cases/zero.yaml";
  fs::create_symlink("/dev/zero", zero);
  std::string refusals;
  EXPECT_TRUE(find(fifo, &refusals).empty());
  EXPECT_TRUE(find(zero, &refusals).empty());
  EXPECT_NE(refusals.find(fifo.string() +
                          ": a FIFO: not read (a case file is a regular file)"),
            std::string::npos)
      << refusals;
  EXPECT_NE(refusals.find(zero.string() + ": a character device: not read"),
            std::string::npos)
      << refusals;
  // Found in a folder, they are refused too, never opened.
  std::string walked;
  EXPECT_EQ(find(root_ / "repo/cases", &walked).size(), 1u);
  EXPECT_NE(walked.find("pipe.yaml: a FIFO"), std::string::npos) << walked;
}

}  // namespace
}  // namespace casebook
