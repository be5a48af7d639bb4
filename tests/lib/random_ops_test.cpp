// Random ops: a `Generator` argument written `{seed: N}` is a generator of
// the backend's own device seeded with N (the CPU's draws what PyTorch's
// torch.Generator().manual_seed(N) draws); comparing a random op's values
// with the CPU (or cpu64) reference is refused with the reason, since a
// GPU's generator draws other numbers; the same seed gives the same bits.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "run_command.h"
#include "runner/session.h"
#include "test_ops.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;
using testing_support::read_text;
using testing_support::TempFolder;

const fs::path kCase = fs::path(CASEBOOK_SOURCE_DIR) / "cases" / "random" /
                       "bernoulli_seeded.yaml";

std::vector<CaseVerdict> run_text(const std::string& text,
                                  std::vector<Backend> backends = {
                                      Backend::kCpu}) {
  testing_support::use_single_thread();
  TempFolder folder;
  std::ofstream(folder.path() / "case.yaml") << text;
  RunOptions options;
  options.backends = std::move(backends);
  options.jobs = 1;
  Plan plan = load_plan({folder.path()}, options);
  return execute_plan(
             plan, options, [](const PlannedCase&, Backend) { return true; },
             nullptr)
      .summary.verdicts;
}

std::string with(std::string text, const std::string& from,
                 const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

TEST(RandomOps, ASeededGeneratorDrawsWhatPyTorchDraws) {
  // torch.zeros(1000).bernoulli_(0.5, generator=torch.Generator()
  // .manual_seed(7)).sum() is 484 (Debian's torch 1.13 and the 2.x wheels).
  const std::string summed =
      "casebook: 1\nsummary: the count of a seeded bernoulli\n"
      "steps:\n"
      "  - name: draw\n    op: aten::bernoulli.p\n    inputs: {self: self}\n"
      "    args: {p: 0.5, generator: {seed: 7}}\n"
      "  - op: aten::sum\n    inputs: {self: draw}\n"
      "inputs:\n  self: {dtype: float32, shape: [1000], fill: {full: 0}}\n"
      "reference: none\n"
      "outputs:\n  0: {dtype: float32, values: 484}\n  draw.0: {max: 1}\n";
  const std::vector<CaseVerdict> verdicts = run_text(summed);
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].verdict, Verdict::kPass) << verdicts[0].message;
  // Another seed draws another count.
  const std::vector<CaseVerdict> other =
      run_text(with(summed, "{seed: 7}", "{seed: 8}"));
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(other[0].verdict, Verdict::kFail) << other[0].message;
}

TEST(RandomOps, TheSameSeedGivesTheSameBitsTwice) {
  const std::vector<CaseVerdict> verdicts = run_text(read_text(kCase));
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].verdict, Verdict::kPass) << verdicts[0].message;
}

TEST(RandomOps, ComparingWithTheCpuReferenceIsRefusedWithTheReason) {
  // The default reference (cpu) with GPU backends in the case.
  const std::string text = with(read_text(kCase), "reference: none\n", "");
  const std::vector<CaseVerdict> verdicts =
      run_text(text, {Backend::kCpu, Backend::kCuda});
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].verdict, Verdict::kError);
  EXPECT_EQ(verdicts[0].family, Family::kInvalidCase);
  EXPECT_NE(verdicts[0].message.find(
                "case.yaml:7:5: `aten::bernoulli.p` is a random op (its "
                "schema is tagged nondeterministic_seeded): a GPU's generator "
                "draws other numbers than the CPU's"),
            std::string::npos)
      << verdicts[0].message;
  EXPECT_NE(verdicts[0].details.find("Write `reference: none`"),
            std::string::npos);
  // cpu64 draws in float64: refused on the CPU alone too.
  const std::vector<CaseVerdict> cpu64 =
      run_text(with(read_text(kCase), "reference: none", "reference: cpu64"));
  ASSERT_EQ(cpu64.size(), 1u);
  EXPECT_NE(cpu64[0].message.find("its float64 run draws other numbers"),
            std::string::npos)
      << cpu64[0].message;
  // A CPU-only case's CPU run is its own reference: nothing to refuse.
  const std::vector<CaseVerdict> cpu_only = run_text(with(
      text, "op: aten::bernoulli.p", "op: aten::bernoulli.p\nbackends: [cpu]"));
  ASSERT_EQ(cpu_only.size(), 1u);
  EXPECT_EQ(cpu_only[0].verdict, Verdict::kPass) << cpu_only[0].message;
}

TEST(RandomOps, ASeedIsANonNegativeInteger) {
  for (const auto& [seed, expected] :
       std::vector<std::pair<std::string, std::string>>{
           {"{seed: -1}", "expected a seed >= 0; got -1"},
           {"{seed: x}", "expected an integer"},
           {"{sed: 1}", "or `{seed: N}` for a Generator; got a map"},
       }) {
    const std::vector<CaseVerdict> verdicts = run_text(
        with(read_text(kCase), "generator: {seed: 7}", "generator: " + seed));
    ASSERT_EQ(verdicts.size(), 1u);
    EXPECT_EQ(verdicts[0].verdict, Verdict::kError);
    EXPECT_NE(verdicts[0].message.find(expected), std::string::npos)
        << seed << ": " << verdicts[0].message;
  }
}

}  // namespace
}  // namespace casebook
