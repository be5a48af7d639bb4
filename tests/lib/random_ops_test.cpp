// Random ops: a `Generator` argument written `{seed: N}` is a generator of
// the backend's own device seeded with N (the CPU's draws what PyTorch's
// torch.Generator().manual_seed(N) draws); a random op's values stated or
// compared with a reference are the case's claim (issue 36): a case whose
// values do not depend on the draw passes as written, and a mismatch from
// another generator says so in its first check; the same seed gives the
// same bits.
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

const fs::path kRandomOpsCase = fs::path(CASEBOOK_SOURCE_DIR) / "cases" /
                                "random" / "bernoulli_seeded.yaml";

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
  const std::vector<CaseVerdict> verdicts = run_text(read_text(kRandomOpsCase));
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].verdict, Verdict::kPass) << verdicts[0].message;
}

// The shapes of the OpInfo-made cases of issue 36: a random op whose
// outputs do not depend on the generator, stated as values, with the
// default reference (cpu) and the default backends. Each loads, runs and
// PASSes on cpu; before, the loader refused every one ("is a random op").
struct DrawFreeCase {
  std::string op;
  std::string inputs;  // the YAML of `inputs:`' entries
  std::string args;    // `{...}`
  std::string output;  // the YAML of output 0
};

std::vector<DrawFreeCase> draw_free_cases() {
  const std::string x =
      "  input: {dtype: float32, values: [[1.5, -2], [0, 4]]}\n";
  const std::string same = "{dtype: float32, values: [[1.5, -2], [0, 4]]}";
  std::vector<DrawFreeCase> cases;
  for (const std::string op :
       {"torch.dropout", "torch.feature_dropout", "torch.feature_alpha_dropout",
        "aten::dropout", "aten::feature_dropout", "aten::alpha_dropout"}) {
    cases.push_back({op, x, "{p: 0.0, train: true}", same});
    cases.push_back({op, x, "{p: 0.5, train: false}", same});
  }
  const std::string ones =
      "  self: {dtype: float32, values: [[0, 1, 1], [1, 0, 0]]}\n";
  cases.push_back({"torch.bernoulli", ones, "{}",
                   "{dtype: float32, values: [[0, 1, 1], [1, 0, 0]]}"});
  cases.push_back({"aten::bernoulli.p",
                   "  self: {dtype: float64, shape: [2, 3], fill: {full: 0}}\n",
                   "{p: 1.0}",
                   "{dtype: float64, shape: [2, 3], min: 1, max: 1}"});
  // rrelu in eval mode: the slope of a negative value is (lower + upper) / 2.
  cases.push_back({"torch.rrelu",
                   "  self: {dtype: float32, values: [-4, 2, 0]}\n",
                   "{lower: 0.25, upper: 0.75, training: false}",
                   "{dtype: float32, values: [-2, 2, 0]}"});
  cases.push_back({"aten::rrelu", "  self: {dtype: float64, values: [-4, 2]}\n",
                   "{lower: 0.25, upper: 0.75, training: false}",
                   "{dtype: float64, values: [-2, 2]}"});
  for (const std::string op : {"torch.rand_like", "torch.randn_like"}) {
    cases.push_back({op,
                     "  self: {dtype: float32, shape: [0, 3], values: []}\n",
                     "{}", "{dtype: float32, shape: [0, 3], values: []}"});
  }
  return cases;
}

TEST(RandomOps, ACaseWhoseValuesDoNotDependOnTheDrawPassesAsWritten) {
  const std::vector<DrawFreeCase> cases = draw_free_cases();
  ASSERT_EQ(cases.size(), 18u);
  for (const DrawFreeCase& each : cases) {
    const std::string text = "casebook: 1\nsummary: draw-free\nop: " + each.op +
                             "\ninputs:\n" + each.inputs +
                             "args: " + each.args +
                             "\noutputs:\n  0: " + each.output + "\n";
    SCOPED_TRACE(text);
    // A random op: the schema it resolves to is tagged nondeterministic_seeded.
    TempFolder folder;
    std::ofstream(folder.path() / "case.yaml") << text;
    RunOptions options;
    options.backends = {Backend::kCpu, Backend::kCuda};
    Plan plan = load_plan({folder.path()}, options);
    ASSERT_EQ(plan.cases.size(), 1u);
    ASSERT_NE(plan.cases[0].op, nullptr)
        << (plan.cases[0].plan_errors.empty() ? std::string("no op")
                                              : plan.cases[0].plan_errors[0]);
    EXPECT_TRUE(plan.cases[0].op->random);
    for (const std::string reference : {"", "reference: cpu64\n"}) {
      // Where cuda is present it is judged too, and passes as well.
      const std::vector<CaseVerdict> verdicts =
          run_text(text + reference, {Backend::kCpu, Backend::kCuda});
      ASSERT_FALSE(verdicts.empty());
      for (const CaseVerdict& verdict : verdicts) {
        if (verdict.backend != Backend::kCpu &&
            verdict.verdict == Verdict::kSkip) {
          continue;  // cuda absent
        }
        EXPECT_EQ(verdict.verdict, Verdict::kPass)
            << reference << verdict.message << "\n"
            << verdict.details;
      }
    }
  }
}

TEST(RandomOps, ValuesThatDifferFromAnotherGeneratorsSaySoFirst) {
  // cpu64's float64 run draws other normal numbers than float32's: the case
  // loads, runs, and its mismatch's first check names the generator.
  const std::string normal =
      "casebook: 1\nsummary: normal against cpu64\n"
      "op: aten::normal.Tensor_float\n"
      "inputs:\n  mean: {dtype: float32, shape: [1000], fill: {full: 0}}\n"
      "args: {std: 1.0, generator: {seed: 7}}\n"
      "reference: cpu64\n";
  const std::vector<CaseVerdict> verdicts = run_text(normal);
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].verdict, Verdict::kFail) << verdicts[0].message;
  EXPECT_EQ(verdicts[0].family, Family::kMismatch);
  EXPECT_NE(verdicts[0].details.find(
                "first check (mismatch): `aten::normal.Tensor_float` is a "
                "random op (its schema is tagged nondeterministic_seeded): "
                "its float64 run (the cpu64 reference) draws other numbers"),
            std::string::npos)
      << verdicts[0].details;
  EXPECT_NE(verdicts[0].details.find("write `reference: none`"),
            std::string::npos)
      << verdicts[0].details;
  // The default reference with a GPU backend in the run loads: cpu is
  // judged against itself; cuda, where present, draws other numbers and
  // its mismatch says so (absent here: skipped).
  const std::vector<CaseVerdict> gpu =
      run_text(with(read_text(kRandomOpsCase), "reference: none\n", ""),
               {Backend::kCpu, Backend::kCuda});
  ASSERT_FALSE(gpu.empty());
  for (const CaseVerdict& verdict : gpu) {
    if (verdict.backend == Backend::kCpu) {
      EXPECT_EQ(verdict.verdict, Verdict::kPass) << verdict.message;
    } else if (verdict.verdict != Verdict::kSkip) {
      EXPECT_EQ(verdict.verdict, Verdict::kFail) << verdict.message;
      EXPECT_NE(verdict.details.find("cuda's generator draws other numbers "
                                     "than the CPU's"),
                std::string::npos)
          << verdict.details;
    }
  }
}

TEST(RandomOps, ASeedIsANonNegativeInteger) {
  for (const auto& [seed, expected] :
       std::vector<std::pair<std::string, std::string>>{
           {"{seed: -1}", "expected a seed >= 0; got -1"},
           {"{seed: x}", "expected an integer"},
           {"{sed: 1}", "or `{seed: N}` for a Generator; got a map"},
       }) {
    const std::vector<CaseVerdict> verdicts =
        run_text(with(read_text(kRandomOpsCase), "generator: {seed: 7}",
                      "generator: " + seed));
    ASSERT_EQ(verdicts.size(), 1u);
    EXPECT_EQ(verdicts[0].verdict, Verdict::kError);
    EXPECT_NE(verdicts[0].message.find(expected), std::string::npos)
        << seed << ": " << verdicts[0].message;
  }
}

}  // namespace
}  // namespace casebook
