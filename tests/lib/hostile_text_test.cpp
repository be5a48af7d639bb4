// The rest of the untrusted-input rules (issue 35, part 6), through the real
// casebook executable, each from bytes the test writes itself: a 900 KB op
// name is one ERROR at its line, at once; an output over the output limit is
// invalid_case, refused before the op allocates it; a case file named
// directly that is a FIFO or a link out of its repository is an ERROR naming
// it; an id with a newline cannot forge a verdict row.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "run_command.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;
using testing_support::CommandResult;
using testing_support::has_line;
using testing_support::run_shell;
using testing_support::TempFolder;
using testing_support::write_file;

// `casebook <arguments>` in `folder`, the environment's `settings` first
// ("CASEBOOK_MAX_OUTPUT_BYTES=1M "), within `seconds`.
CommandResult hostile_text_casebook_in(const fs::path& folder,
                                       const std::string& arguments,
                                       const std::string& settings = "",
                                       int seconds = 120) {
  return run_shell("cd '" + folder.string() + "' && " + settings + "timeout " +
                   std::to_string(seconds) + " '" + CASEBOOK_EXECUTABLE + "' " +
                   arguments);
}

// No raw control byte but newline and tab in what casebook printed.
void hostile_text_expect_printable(const std::string& output) {
  for (const char c : output) {
    const auto byte = static_cast<unsigned char>(c);
    ASSERT_FALSE((byte < 0x20 && c != '\n' && c != '\t') || byte == 0x7f)
        << "raw control byte " << static_cast<int>(byte) << " in:\n"
        << output.substr(0, 4000);
  }
}

const char kNeg[] =
    "casebook: 1\nsummary: s\nop: torch.neg\n"
    "inputs:\n  input: {dtype: float32, values: [1, 2]}\n";

// Before: killed at 40 s with 591 MB and nothing printed (the suggestion's
// edit distance over 900 KB against every ATen operator).
TEST(HostileText, ANineHundredKilobyteOpNameIsOneErrorAtItsLineAtOnce) {
  TempFolder folder;
  write_file(folder.path() / "long.yaml",
             "casebook: 1\nsummary: s\nop: torch." + std::string(900'000, 'x') +
                 "\ninputs:\n  input: {dtype: float32, values: [1]}\n");
  const auto start = std::chrono::steady_clock::now();
  const CommandResult run = hostile_text_casebook_in(
      folder.path(), "run --verbose long.yaml --backend cpu --evidence ''", "",
      30);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_EQ(run.status, 1) << run.output.substr(0, 4000);
  EXPECT_LT(seconds, 20.0);
  EXPECT_TRUE(has_line(run.output,
                       "long\\.yaml:3:5: a scalar of 900006 bytes: over the "
                       "limit of 4096 bytes"))
      << run.output.substr(0, 4000);
  EXPECT_LT(run.output.size(), 16u * 1024);
}

std::string outer_case(int length) {
  const std::string n = std::to_string(length);
  return "casebook: 1\nsummary: an outer product over the output limit\n"
         "op: torch.outer\ninputs:\n"
         "  input: {dtype: float32, shape: [" +
         n + "], fill: {full: 1}}\n  vec2: {dtype: float32, shape: [" + n +
         "], fill: {full: 2}}\n";
}

// Before: PASS (6 GB at peak for 40,000 x 40,000). Under a 1 MiB limit a
// 1000 x 1000 float32 output (3.8 MiB) is the case's fault.
TEST(OutputLimit, AnOutputOverTheLimitIsInvalidCase) {
  TempFolder folder;
  write_file(folder.path() / "outer.yaml", outer_case(1000));
  const CommandResult run = hostile_text_casebook_in(
      folder.path(), "run --verbose outer.yaml --backend cpu --evidence ''",
      "CASEBOOK_MAX_OUTPUT_BYTES=1M ");
  EXPECT_EQ(run.status, 1) << run.output;
  EXPECT_TRUE(has_line(run.output,
                       "^ERROR +outer +cpu +invalid_case: output 0: an output "
                       "of 1000000 elements of float32 \\(3\\.8 MiB\\) is over "
                       "the limit of 1 MiB per output "
                       "\\(CASEBOOK_MAX_OUTPUT_BYTES\\)"))
      << run.output;
  // Within the limit it passes.
  const CommandResult small = hostile_text_casebook_in(
      folder.path(), "run --verbose outer.yaml --backend cpu --evidence ''");
  EXPECT_EQ(small.status, 0) << small.output;
}

// 100,000 x 100,000 float32 is 37 GiB: under an address-space limit of
// 12 GiB the op itself would fail to allocate (out_of_memory). Refused
// before, on the meta device, it is invalid_case, and nothing is allocated.
TEST(OutputLimit, AnOutputIsRefusedBeforeTheOpAllocatesIt) {
  TempFolder folder;
  write_file(folder.path() / "outer.yaml", outer_case(100'000));
  const CommandResult run = hostile_text_casebook_in(
      folder.path(), "run --verbose outer.yaml --backend cpu --evidence ''",
      testing_support::address_space_limit(12));
  EXPECT_EQ(run.status, 1) << run.output;
  EXPECT_TRUE(has_line(run.output,
                       "^ERROR +outer +cpu +invalid_case: output 0: an output "
                       "of 10000000000 elements of float32 \\(37\\.3 GiB\\) is "
                       "over the limit of 4 GiB per output"))
      << run.output;
}

// casebook's own torch.embedding has no meta kernel: the child checks what
// it made before writing it.
TEST(OutputLimit, AnOpWithoutAMetaKernelIsCheckedInTheChild) {
  TempFolder folder;
  write_file(folder.path() / "embedding.yaml",
             "casebook: 1\nsummary: s\nop: torch.embedding\ninputs:\n"
             "  weight: {dtype: float32, shape: [4, 8], fill: {full: 1}}\n"
             "  indices: {dtype: int64, values: [0, 1, 2, 3]}\n");
  const CommandResult run = hostile_text_casebook_in(
      folder.path(), "run --verbose embedding.yaml --backend cpu --evidence ''",
      "CASEBOOK_MAX_OUTPUT_ELEMENTS=16 ");
  EXPECT_EQ(run.status, 1) << run.output;
  EXPECT_TRUE(
      has_line(run.output,
               "invalid_case: output 0: an output of 32 elements of "
               "float32 \\(128 bytes\\) is over the limit of 16 "
               "elements per output \\(CASEBOOK_MAX_OUTPUT_ELEMENTS\\)"))
      << run.output;
}

// Before: "no case selected", exit 0.
TEST(NamedCaseFiles, AFifoOrALinkToDevZeroIsAnErrorNamingIt) {
  TempFolder folder;
  ASSERT_EQ(mkfifo((folder.path() / "pipe.yaml").c_str(), 0600), 0);
  fs::create_symlink("/dev/zero", folder.path() / "zero.yaml");
  const CommandResult run = hostile_text_casebook_in(
      folder.path(),
      "run --verbose pipe.yaml zero.yaml --backend cpu --evidence ''", "", 30);
  EXPECT_EQ(run.status, 1) << run.output;
  EXPECT_TRUE(has_line(run.output, "pipe\\.yaml: a FIFO: not read"))
      << run.output;
  EXPECT_TRUE(has_line(run.output, "zero\\.yaml: a character device: not read"))
      << run.output;
  EXPECT_FALSE(has_line(run.output, "no case selected")) << run.output;
}

// Before: the linked file was read and passed.
TEST(NamedCaseFiles, ALinkOutOfItsRepositoryIsRefused) {
  TempFolder folder;
  fs::create_directories(folder.path() / "repo/.git");
  fs::create_directories(folder.path() / "repo/cases");
  write_file(folder.path() / "elsewhere.yaml", kNeg);
  fs::create_symlink(folder.path() / "elsewhere.yaml",
                     folder.path() / "repo/cases/evil.yaml");
  const CommandResult run = hostile_text_casebook_in(
      folder.path() / "repo",
      "run --verbose cases/evil.yaml --backend cpu --evidence ''");
  EXPECT_EQ(run.status, 1) << run.output;
  EXPECT_TRUE(has_line(run.output,
                       "evil\\.yaml: a link to .*elsewhere\\.yaml, "
                       "outside .*repo: not taken"))
      << run.output;
  EXPECT_FALSE(has_line(run.output, "^PASS")) << run.output;
  const CommandResult allowed = hostile_text_casebook_in(
      folder.path() / "repo",
      "run --verbose cases/evil.yaml --backend cpu --evidence '' "
      "--allow-links-outside");
  EXPECT_EQ(allowed.status, 0) << allowed.output;
}

// Before: a `PASS  fake/case` row of its own, and ESC/BEL raw on the
// terminal.
TEST(HostileIds, AnIdWithANewlineOrAnEscapeForgesNoRow) {
  TempFolder folder;
  fs::create_directories(folder.path() / "cases");
  write_file(folder.path() / "cases/forged.yaml",
             std::string(kNeg) + "id: \"x\\nPASS    fake/case  cpu\"\n");
  write_file(folder.path() / "cases/escape.yaml",
             std::string(kNeg) + "id: \"bell\\a\\e[2J\"\n");
  const fs::path junit = folder.path() / "out.xml";
  const fs::path markdown = folder.path() / "summary.md";
  const CommandResult run = hostile_text_casebook_in(
      folder.path(), "run --verbose --backend cpu --evidence '' --junit " +
                         junit.string() + " --summary " + markdown.string());
  EXPECT_EQ(run.status, 1) << run.output;
  hostile_text_expect_printable(run.output);
  hostile_text_expect_printable(testing_support::read_text(junit));
  hostile_text_expect_printable(testing_support::read_text(markdown));
  EXPECT_FALSE(has_line(run.output, "^PASS +fake/case")) << run.output;
  EXPECT_TRUE(has_line(run.output, "^ERROR +forged +cpu +invalid_case"))
      << run.output;
  EXPECT_TRUE(has_line(run.output, "^ERROR +escape +cpu +invalid_case"))
      << run.output;
}

}  // namespace
}  // namespace casebook
