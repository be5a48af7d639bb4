// Counting (`processed`): the ops that count their entries report them
// through OpCall::report_count, on the CPU and through the device path of
// the kernel glue; the child's report carries the count; the judge fails a
// run that processed fewer entries than the case says, and a case cannot
// expect a count from an op that keeps none.
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "arg_values.h"
#include "casebook/ops.h"
#include "casebook/runner.h"
#include "child/child_protocol.h"
#include "simulated_device.h"
#include "test_ops.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;

using testing_support::int_arg;

// Runs `name` on `backend` (a GPU one through the simulated device) and
// returns what it counted; `error` gets the family of an OpError, if any.
EntryCount count_of(const std::string& name,
                    const std::vector<at::Tensor>& inputs, Backend backend,
                    const std::map<std::string, ArgValue>& args,
                    Family* error = nullptr) {
  const OpDef* op = simulated_device::registry().find(name);
  const simulated_device::Installed device(backend);
  EntryCount count;
  OpCall call{inputs, args, backend, at::Device(at::kCPU), &count};
  try {
    op->run(call);
  } catch (const OpError& thrown) {
    if (error != nullptr) *error = thrown.family();
  }
  return count;
}

TEST(Counting, ClassTargetsCountsEveryEntryAndItsRejections) {
  const std::map<std::string, ArgValue> args{{"num_classes", int_arg(4)}};
  const EntryCount valid =
      count_of("validate.class_targets",
               {at::tensor({0, 3, -100, 2}, at::kLong)}, Backend::kCpu, args);
  EXPECT_TRUE(valid.reported);
  EXPECT_EQ(valid.processed, 4);
  EXPECT_TRUE(valid.rejected.empty());
  Family family = Family::kNone;
  const EntryCount bad =
      count_of("validate.class_targets", {at::tensor({1, 4, 2, 5}, at::kLong)},
               Backend::kCpu, args, &family);
  EXPECT_EQ(family, Family::kIndexOutOfRange);
  EXPECT_TRUE(bad.reported);
  EXPECT_EQ(bad.processed, 4);
  EXPECT_EQ(bad.rejected, (std::vector<int64_t>{1, 3}));
}

// The count is the kernel's own (the mean's divisor), on the CPU reference
// and through the device path alike: ignored targets are not counted.
TEST(Counting, NllLossCountsTheTargetsItTookOnEveryPath) {
  testing_support::use_single_thread();
  const at::Tensor input = at::randn({600, 5});
  at::Tensor target = at::randint(0, 5, {600}, at::kLong);
  target.index_put_({at::arange(0, 600, 7)}, -100);  // 86 ignored
  for (const char* reduction : {"mean", "sum", "none"}) {
    ArgValue text;
    text.kind = ArgValue::Kind::kString;
    text.string_value = reduction;
    const std::map<std::string, ArgValue> args{{"reduction", text}};
    for (Backend backend : {Backend::kCpu, Backend::kCuda}) {
      const EntryCount count =
          count_of("kernels.nll_loss", {input, target}, backend, args);
      EXPECT_TRUE(count.reported) << reduction;
      EXPECT_EQ(count.processed, 600 - 86) << reduction;
    }
  }
  Family family = Family::kNone;
  const EntryCount failed =
      count_of("kernels.nll_loss", {input.narrow(1, 0, 4), target},
               Backend::kCpu, {}, &family);
  EXPECT_EQ(family, Family::kIndexOutOfRange);
  EXPECT_FALSE(failed.reported);  // it stops at the first bad target
}

TEST(Counting, TheReportCarriesTheCountAndTheRejectedPositions) {
  ChildReport report;
  report.status = ChildReport::Status::kOutputs;
  report.processed = 514;
  report.positions = std::vector<int64_t>{};
  const ChildReport back = decode_report(encode_report(report));
  EXPECT_EQ(back.processed, std::optional<int64_t>(514));
  EXPECT_EQ(back.positions,
            std::optional<std::vector<int64_t>>(std::vector<int64_t>{}));
  const ChildReport none = decode_report(encode_report(ChildReport{}));
  EXPECT_FALSE(none.processed.has_value());
}

class CountingCases : public testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() /
              ("casebook_counting_" + std::to_string(getpid()));
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }

  void write(const std::string& name, const std::string& text) {
    std::ofstream(folder_ / (name + ".yaml")) << text;
  }

  std::map<std::string, CaseVerdict> run() {
    testing_support::use_single_thread();
    RunOptions options;
    options.backends = {Backend::kCpu};
    options.evidence_root.clear();
    std::map<std::string, CaseVerdict> verdicts;
    for (const CaseVerdict& verdict : run_cases({folder_}, options).verdicts) {
      // The id is the path from where the test runs: keep its last part.
      verdicts[fs::path(verdict.case_id).filename().string()] = verdict;
    }
    return verdicts;
  }

  fs::path folder_;
};

std::string nll_case(const std::string& expect) {
  return "casebook: 1\n"
         "summary: s\n"
         "op: kernels.nll_loss\n"
         "inputs:\n"
         "  input: {shape: [4, 3], dtype: float32, fill: {full: -1}}\n"
         "  target: {dtype: int64, values: [2, -100, 0, 2]}\n"
         "expect:\n"
         "  cpu: " +
         expect + "\n";
}

TEST_F(CountingCases, FewerIsSkippedEntriesMoreIsMismatchNoneIsAnError) {
  write("exact", nll_case("{processed: 3}"));
  write("fewer", nll_case("{processed: 4}"));
  write("more", nll_case("{processed: 2}"));
  write("xfail", nll_case("{xfail: counts one more, processed: 4}"));
  write("uncounted",
        "casebook: 1\nsummary: s\nop: kernels.sum\n"
        "inputs: {input: {dtype: float32, values: [1, 2]}}\n"
        "expect: {cpu: {processed: 2}}\n");
  write("rejected",
        "casebook: 1\nsummary: s\nop: validate.class_targets\n"
        "args: {num_classes: 3}\n"
        "inputs: {target: {dtype: int64, values: [0, 3, 1, 7]}}\n"
        "expect: {cpu: {error: index_out_of_range, positions: [1, 3], "
        "processed: 4}}\n");
  // A kernel reports its first bad target's position.
  const std::string bad_target =
      "casebook: 1\nsummary: s\nop: kernels.nll_loss\n"
      "inputs:\n"
      "  input: {shape: [3, 3], dtype: float32, fill: {full: -1}}\n"
      "  target: {dtype: int64, values: [0, 3, 5]}\n"
      "expect:\n  cpu: {error: index_out_of_range, positions: ";
  write("unpositioned",
        "casebook: 1\nsummary: s\nop: kernels.sum\n"
        "inputs: {input: {dtype: float32, values: [1, 2]}}\n"
        "expect: {cpu: {error: contract, positions: [0]}}\n");
  write("kernel_position", bad_target + "[1]}\n");
  write("kernel_position_wrong", bad_target + "[2]}\n");
  std::map<std::string, CaseVerdict> verdicts = run();
  ASSERT_EQ(verdicts.size(), 9u);
  EXPECT_EQ(verdicts["unpositioned"].verdict, Verdict::kError);
  EXPECT_NE(verdicts["unpositioned"].message.find(
                "unpositioned.yaml:5:33: `expect.cpu.positions`: "
                "`kernels.sum` reports no rejected "
                "positions, so `positions` cannot be checked (ops that do: "
                "kernels.embedding, kernels.nll_loss, validate.class_mapping, "
                "validate.class_targets)"),
            std::string::npos)
      << verdicts["unpositioned"].message;
  EXPECT_EQ(verdicts["kernel_position"].verdict, Verdict::kPass)
      << verdicts["kernel_position"].message;
  EXPECT_EQ(verdicts["kernel_position_wrong"].verdict, Verdict::kFail);
  EXPECT_EQ(verdicts["kernel_position_wrong"].message.rfind(
                "expected index_out_of_range at positions [2], got positions "
                "[1]: kernels.nll_loss: target 3 at position 1",
                0),
            0u)
      << verdicts["kernel_position_wrong"].message;
  EXPECT_EQ(verdicts["exact"].verdict, Verdict::kPass)
      << verdicts["exact"].message;
  EXPECT_EQ(verdicts["rejected"].verdict, Verdict::kPass)
      << verdicts["rejected"].message;
  EXPECT_EQ(verdicts["fewer"].verdict, Verdict::kFail);
  EXPECT_EQ(verdicts["fewer"].family, Family::kSkippedEntries);
  EXPECT_EQ(verdicts["fewer"].message,
            "processed 3 entries, the case expects `processed: 4`: 1 skipped "
            "instead of failing");
  EXPECT_EQ(verdicts["more"].verdict, Verdict::kFail);
  EXPECT_EQ(verdicts["more"].family, Family::kMismatch);
  EXPECT_EQ(verdicts["xfail"].verdict, Verdict::kXfail)
      << verdicts["xfail"].message;
  EXPECT_EQ(verdicts["uncounted"].verdict, Verdict::kError);
  EXPECT_NE(verdicts["uncounted"].message.find(
                "uncounted.yaml:5:16: `expect.cpu.processed`: "
                "`kernels.sum` does not count the "
                "entries it processes, so `processed` cannot be checked "
                "(ops that do: kernels.nll_loss, validate.class_mapping, "
                "validate.class_targets)"),
            std::string::npos)
      << verdicts["uncounted"].message;
}

TEST(ChildProtocol, AReportWrittenOverIsACrashAFieldMissingIsInternal) {
  // The run's process wrote over its report (the op's code runs there).
  const ChildReport garbled = decode_report("\x01\x02 not json");
  EXPECT_FALSE(garbled.internal);
  EXPECT_EQ(garbled.family, Family::kCrash);
  EXPECT_NE(garbled.message.find("unreadable child report"), std::string::npos);
  // JSON without the protocol's fields: casebook's own disagreement.
  const ChildReport partial = decode_report("{\"status\": \"outputs\"}");
  EXPECT_TRUE(partial.internal);
  EXPECT_EQ(partial.message.rfind("internal error: ", 0), 0u)
      << partial.message;
}

}  // namespace
}  // namespace casebook
