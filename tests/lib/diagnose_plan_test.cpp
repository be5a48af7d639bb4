// The plan of `casebook diagnose`'s reruns (runner/diagnose_plan.h), asked
// directly with a fabricated probe: which stack, which reruns with which
// changed case and environment, and why one is not run here. No process
// starts; tests/lib/diagnose_test.cpp runs the command itself.
#include "runner/diagnose_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "casebook/loader.h"
#include "casebook/op_catalog.h"
#include "casebook/ops.h"
#include "runner/diagnose_rerun.h"

namespace casebook {
namespace {

// A label of 4 among 4 classes, on every backend.
const char* const kLabels =
    "casebook: 1\n"
    "summary: a label of 4 in a 4-class problem\n"
    "op: torch.cross_entropy\n"
    "inputs:\n"
    "  input: {shape: [3, 4], dtype: float32, fill: {normal: {mean: 0, std: "
    "1}}, seed: 7}\n"
    "  target: {dtype: int64, values: [0, 2, 4]}\n"
    "expect:\n"
    "  cpu: {error: index_out_of_range}\n"
    "  cuda: {error: device_assert}\n"
    "  hip: {error: device_assert}\n";

Case diagnose_plan_case_of(const std::string& text) {
  const LoadedCase loaded = load_case_text(text, "cases/c.yaml");
  for (const CaseError& error : loaded.errors) {
    ADD_FAILURE() << error.to_string();
  }
  return loaded.value ? *loaded.value : Case{};
}

Case labels_case() { return diagnose_plan_case_of(kLabels); }

// A matmul of float32 values, on the backends `backends` lists.
Case matmul_case(const std::string& backends) {
  return diagnose_plan_case_of(
      "casebook: 1\nsummary: s\nop: torch.matmul\nbackends: " + backends +
      "\ninputs:\n"
      "  input: {dtype: float32, shape: [1, 2], values: [1.5, 2.25]}\n"
      "  other: {dtype: float32, shape: [2, 1], values: [0.5, -3]}\n");
}

BackendReadiness absent(const std::string& reason) {
  BackendReadiness readiness;
  readiness.state = Readiness::kAbsent;
  readiness.reason = reason;
  return readiness;
}

BackendReadiness ready(const std::string& description) {
  BackendReadiness readiness;
  readiness.state = Readiness::kReady;
  readiness.description = description;
  return readiness;
}

const PlannedRerun& rerun_named(const std::vector<PlannedRerun>& reruns,
                                const std::string& name) {
  for (const PlannedRerun& rerun : reruns) {
    if (rerun.name == name) return rerun;
  }
  ADD_FAILURE() << "no rerun named " << name;
  static const PlannedRerun none;
  return none;
}

std::vector<std::string> names_of(const std::vector<PlannedRerun>& reruns) {
  std::vector<std::string> names;
  for (const PlannedRerun& rerun : reruns) names.push_back(rerun.name);
  return names;
}

bool sets_a_cuda_variable(const ChildEnvironment& environment) {
  return std::any_of(environment.begin(), environment.end(),
                     [](const auto& variable) {
                       return variable.first.rfind("CUDA_", 0) == 0;
                     });
}

TEST(DiagnosePlan, OnACpuOnlyMachineTheGpuRerunsNeedTheGpuTheCaseAsksFor) {
  const Case kase = matmul_case("[cpu, cuda]");
  const std::map<Backend, BackendReadiness> status = {
      {Backend::kCuda, absent("no CUDA device")},
      {Backend::kHip, absent("no HIP device")}};
  const RerunStack stack = rerun_stack(kase, "", status, "cpu");
  EXPECT_EQ(stack.target, Backend::kCpu);
  EXPECT_TRUE(stack.gpu_wanted);
  EXPECT_FALSE(stack.rocm);
  EXPECT_EQ(stack.text, "LibTorch build: cpu; GPU backends ready: none");
  // hip is absent too, but the case does not ask for it.
  ASSERT_EQ(stack.missing_gpus.size(), 1u);
  EXPECT_EQ(stack.missing_gpus[0].first, Backend::kCuda);
  EXPECT_EQ(stack.missing_gpus[0].second, "absent: no CUDA device");

  const auto reruns =
      plan_reruns(kase, stack, Family::kMismatch, "/opt/compute-sanitizer");
  const PlannedRerun& blocking = rerun_named(reruns, "launch blocking");
  EXPECT_FALSE(blocking.kase.has_value());
  EXPECT_TRUE(blocking.needs_gpu);
  EXPECT_EQ(blocking.not_run, "needs a GPU");
  EXPECT_TRUE(blocking.environment.empty());
  const PlannedRerun& memcheck = rerun_named(reruns, "memcheck");
  EXPECT_TRUE(memcheck.needs_gpu);
  EXPECT_EQ(memcheck.not_run, "needs a CUDA device");
  const PlannedRerun& cpu = rerun_named(reruns, "cpu");
  EXPECT_FALSE(cpu.kase.has_value());
  EXPECT_EQ(cpu.not_run, "the reruns already run on the CPU");
  EXPECT_FALSE(cpu.needs_gpu);

  EXPECT_EQ(gpu_reruns_elsewhere(stack, reruns, "cases/c.yaml"),
            (std::vector<std::string>{
                "not run here: the GPU reruns (launch blocking, memcheck); "
                "the reruns above ran on the CPU",
                "  cuda: absent: no CUDA device",
                "  on a machine with an NVIDIA GPU: casebook diagnose "
                "cases/c.yaml --backend cuda"}));
}

TEST(DiagnosePlan, AGpuReadyOnlyThroughThePartTheOpDoesNotNeedIsMissing) {
  const Case kase = matmul_case("[cpu, cuda]");
  const ResolvedOp op = resolve_op(kase, default_registry());
  ASSERT_NE(op.def, nullptr);
  // The kernel plugin is there; LibTorch's CUDA device, which a torch op
  // needs, is not.
  const std::map<Backend, BackendReadiness> status = {
      {Backend::kCuda,
       combine_readiness(
           Backend::kCuda,
           PartReadiness{Readiness::kAbsent, "a CPU-only LibTorch", {}, {}},
           PartReadiness{Readiness::kReady, {}, "plugin", {}})}};
  ASSERT_TRUE(status.at(Backend::kCuda).ready());
  const RerunStack stack = rerun_stack(kase, "", status, "cpu", op.def);
  EXPECT_EQ(stack.target, Backend::kCpu);
  ASSERT_EQ(stack.missing_gpus.size(), 1u);
  EXPECT_EQ(stack.missing_gpus[0].second, "absent: a CPU-only LibTorch");
  // Without the op, the whole backend decides, as before.
  EXPECT_EQ(rerun_stack(kase, "", status, "cpu").target, Backend::kCuda);
}

TEST(DiagnosePlan, ACaseForTheCpuAloneHasNoGpuRerunsAndNothingMissing) {
  const Case kase = matmul_case("[cpu]");
  const RerunStack stack = rerun_stack(
      kase, "", {{Backend::kCuda, absent("no CUDA device")}}, "cpu");
  EXPECT_FALSE(stack.gpu_wanted);
  EXPECT_TRUE(stack.missing_gpus.empty());
  const auto reruns = plan_reruns(kase, stack, Family::kMismatch, "");
  EXPECT_EQ(rerun_named(reruns, "launch blocking").not_run,
            "the case runs on the CPU only");
  EXPECT_FALSE(rerun_named(reruns, "launch blocking").needs_gpu);
  EXPECT_EQ(rerun_named(reruns, "memcheck").not_run,
            "the case runs on the CPU only");
  EXPECT_TRUE(gpu_reruns_elsewhere(stack, reruns, "cases/c.yaml").empty());
}

TEST(DiagnosePlan, WithCudaReadyTheRerunsRunThereWithCudaLaunchBlocking) {
  const Case kase = matmul_case("[cpu, cuda, hip]");
  const std::map<Backend, BackendReadiness> status = {
      {Backend::kCuda, ready("CUDA 12.4, NVIDIA H100")},
      {Backend::kHip, absent("no HIP device")}};
  const RerunStack stack = rerun_stack(kase, "", status, "cuda");
  EXPECT_EQ(stack.target, Backend::kCuda);
  EXPECT_FALSE(stack.rocm);
  EXPECT_EQ(stack.text,
            "LibTorch build: cuda; GPU backends ready: cuda (CUDA 12.4, "
            "NVIDIA H100); stack: CUDA");

  const auto reruns =
      plan_reruns(kase, stack, Family::kMismatch, "/opt/compute-sanitizer");
  const PlannedRerun& blocking = rerun_named(reruns, "launch blocking");
  ASSERT_TRUE(blocking.kase.has_value()) << blocking.not_run;
  EXPECT_EQ(blocking.backend, Backend::kCuda);
  EXPECT_EQ(blocking.change, "CUDA_LAUNCH_BLOCKING=1");
  EXPECT_EQ(blocking.environment,
            (ChildEnvironment{{"CUDA_LAUNCH_BLOCKING", "1"}}));
  // The CPU rerun is the same case on the CPU.
  const PlannedRerun& cpu = rerun_named(reruns, "cpu");
  ASSERT_TRUE(cpu.kase.has_value());
  EXPECT_EQ(cpu.backend, Backend::kCpu);
  EXPECT_TRUE(cpu.environment.empty());
  EXPECT_EQ(rerun_named(reruns, "float64").backend, Backend::kCuda);
  EXPECT_EQ(rerun_named(reruns, "memcheck").not_run, "");
  EXPECT_EQ(
      rerun_named(plan_reruns(kase, stack, Family::kMismatch, ""), "memcheck")
          .not_run,
      "compute-sanitizer is not installed (not on PATH, nor in "
      "$CUDA_HOME/bin or /usr/local/cuda/bin)");
  // hip is missing, but the reruns ran on a GPU: no "above ran on the CPU".
  EXPECT_EQ(gpu_reruns_elsewhere(stack, reruns, "cases/c.yaml").front(),
            "not run here: the GPU reruns");
}

TEST(DiagnosePlan, WithHipReadyNoCudaVariableIsApplied) {
  const Case kase = matmul_case("[cpu, cuda, hip]");
  const std::map<Backend, BackendReadiness> status = {
      {Backend::kCuda, absent("no CUDA device")},
      {Backend::kHip, ready("HIP 6.1, gfx90a")}};
  for (const std::string flavour : {"cpu", "rocm"}) {
    SCOPED_TRACE(flavour);
    const RerunStack stack = rerun_stack(kase, "", status, flavour);
    EXPECT_EQ(stack.target, Backend::kHip);
    EXPECT_TRUE(stack.rocm);
    EXPECT_NE(stack.text.find("; stack: ROCm"), std::string::npos)
        << stack.text;
    const auto reruns = plan_reruns(kase, stack, Family::kDeviceAssert,
                                    "/opt/compute-sanitizer");
    const PlannedRerun& blocking = rerun_named(reruns, "launch blocking");
    ASSERT_TRUE(blocking.kase.has_value()) << blocking.not_run;
    EXPECT_EQ(blocking.backend, Backend::kHip);
    EXPECT_FALSE(sets_a_cuda_variable(blocking.environment));
    EXPECT_EQ(blocking.environment,
              (ChildEnvironment{{"HIP_LAUNCH_BLOCKING", "1"},
                                {"AMD_SERIALIZE_KERNEL", "3"}}));
    EXPECT_EQ(blocking.change.find("CUDA_"), std::string::npos);
    for (const PlannedRerun& rerun : reruns) {
      EXPECT_FALSE(sets_a_cuda_variable(rerun.environment)) << rerun.name;
    }
    // compute-sanitizer is NVIDIA's: not for a HIP device.
    EXPECT_EQ(rerun_named(reruns, "memcheck").not_run, "needs a CUDA device");
    EXPECT_EQ(gpu_reruns_elsewhere(stack, reruns, "cases/c.yaml").front(),
              "not run here: the GPU reruns (memcheck)");
  }
}

TEST(DiagnosePlan, OnARocmBuildCudaAskedKeepsTheHipSwitches) {
  // A ROCm LibTorch serves AMD devices under PyTorch's `cuda` names.
  const Case kase = matmul_case("[cpu, cuda]");
  const RerunStack stack = rerun_stack(
      kase, "cuda", {{Backend::kCuda, ready("HIP 6.1, gfx90a")}}, "rocm");
  EXPECT_EQ(stack.target, Backend::kCuda);
  EXPECT_TRUE(stack.rocm);
  const auto reruns = plan_reruns(kase, stack, Family::kDeviceAssert, "/x");
  EXPECT_FALSE(
      sets_a_cuda_variable(rerun_named(reruns, "launch blocking").environment));
  EXPECT_EQ(rerun_named(reruns, "memcheck").not_run, "needs a CUDA device");
}

TEST(DiagnosePlan, TheBackendAskedIsTheTargetWhereItIsReady) {
  const Case kase = matmul_case("[cpu, cuda, hip]");
  const std::map<Backend, BackendReadiness> status = {
      {Backend::kCuda, ready("CUDA")}, {Backend::kHip, ready("HIP")}};
  EXPECT_EQ(rerun_stack(kase, "", status, "cuda").target, Backend::kCuda);
  EXPECT_EQ(rerun_stack(kase, "hip", status, "cuda").target, Backend::kHip);
  const RerunStack cpu = rerun_stack(kase, "cpu", status, "cuda");
  EXPECT_EQ(cpu.target, Backend::kCpu);
  EXPECT_FALSE(cpu.gpu_wanted);
}

TEST(DiagnosePlan, Float64ChangesTheFloat32InputsAndSaysSo) {
  const Case kase = matmul_case("[cpu]");
  const RerunStack stack = rerun_stack(kase, "", {}, "cpu");
  const auto reruns = plan_reruns(kase, stack, Family::kMismatch, "");
  const PlannedRerun& float64 = rerun_named(reruns, "float64");
  EXPECT_EQ(float64.kind, RerunKind::kFloat64);
  EXPECT_EQ(float64.detail, "float32 -> float64");
  ASSERT_TRUE(float64.kase.has_value()) << float64.not_run;
  const TensorSpec& input = float64.kase->inputs.at(0);
  EXPECT_EQ(input.dtype, DType::kFloat64);
  EXPECT_EQ(input.float_values, (std::vector<double>{1.5, 2.25}));
  EXPECT_EQ(input.shape, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(float64.kase->inputs.at(1).float_values,
            (std::vector<double>{0.5, -3}));
  // The case itself is not changed.
  EXPECT_EQ(kase.inputs.at(0).dtype, DType::kFloat32);

  const PlannedRerun& float32 = rerun_named(reruns, "float32");
  EXPECT_FALSE(float32.kase.has_value());
  EXPECT_EQ(float32.not_run, "every floating input already is float32");
  EXPECT_EQ(rerun_named(reruns, "contiguous").not_run,
            "every input already is contiguous");
}

TEST(DiagnosePlan, APrecisionRerunWhoseInputsCannotBeMadeSaysWhy) {
  Case kase = matmul_case("[cpu]");
  TensorSpec& input = kase.inputs.at(0);
  input.source = TensorSpec::Source::kFile;
  input.file = "gone.npy";
  input.resolved_file = "cases/gone.npy";
  const auto reruns = plan_reruns(kase, rerun_stack(kase, "", {}, "cpu"),
                                  Family::kMismatch, "");
  const PlannedRerun& float64 = rerun_named(reruns, "float64");
  EXPECT_FALSE(float64.kase.has_value());
  EXPECT_EQ(float64.not_run.rfind("the inputs could not be made: ", 0), 0u)
      << float64.not_run;
  // float32 changes nothing, so it reads no file.
  EXPECT_EQ(rerun_named(reruns, "float32").not_run,
            "every floating input already is float32");
  EXPECT_EQ(names_of(reruns),
            (std::vector<std::string>{"launch blocking", "cpu", "float32",
                                      "float64", "contiguous", "memcheck"}));
}

TEST(DiagnosePlan, AFilledInputKeepsItsNumbersInFloat64) {
  const Case kase = labels_case();
  const auto reruns = plan_reruns(kase, rerun_stack(kase, "cpu", {}, "cpu"),
                                  Family::kIndexOutOfRange, "");
  const PlannedRerun& float64 = rerun_named(reruns, "float64");
  ASSERT_TRUE(float64.kase.has_value()) << float64.not_run;
  const TensorSpec& input = float64.kase->inputs.at(0);
  EXPECT_EQ(input.source, TensorSpec::Source::kValues);
  EXPECT_EQ(input.float_values.size(), 12u);
  EXPECT_EQ(input.shape, (std::vector<int64_t>{3, 4}));
  // The labels are not floating: kept as they are.
  EXPECT_EQ(float64.kase->inputs.at(1).int_values,
            (std::vector<int64_t>{0, 2, 4}));
}

// Issue 34: a bfloat16 case's float32 rerun expects its output in float32
// (it was `dtype differs from the case's: expected bfloat16`), its values
// within bfloat16's tolerance, which they were written with.
TEST(DiagnosePlan, ThePrecisionRerunsMoveTheExpectedOutputsDtype) {
  const Case kase = diagnose_plan_case_of(
      "casebook: 1\nsummary: s\nop: torch.softmax\n"
      "inputs:\n  input: {dtype: bfloat16, values: [1.0, 2.0, 3.0, 4.0]}\n"
      "args: {dim: 0}\n"
      "outputs:\n"
      "  0: {dtype: bfloat16, values: [0.0320, 0.0869, 0.2363, 0.6445]}\n"
      "  1: {dtype: int64}\n");
  const auto reruns = plan_reruns(kase, rerun_stack(kase, "cpu", {}, "cpu"),
                                  Family::kMismatch, "");
  for (const char* name : {"float32", "float64"}) {
    const PlannedRerun& rerun = rerun_named(reruns, name);
    ASSERT_TRUE(rerun.kase.has_value()) << rerun.not_run;
    const DType moved = *parse_dtype(name);
    const OutputExpectation& output = rerun.kase->outputs.at(0);
    ASSERT_TRUE(output.values.has_value());
    EXPECT_EQ(output.values->dtype, moved) << name;
    ASSERT_TRUE(output.tolerance.has_value()) << name;
    EXPECT_EQ(output.tolerance->rtol, default_tolerance(DType::kBFloat16).rtol);
    EXPECT_EQ(output.values->float_values.size(), 4u);
    // An output of another dtype stays.
    EXPECT_EQ(rerun.kase->outputs.at(1).dtype, DType::kInt64) << name;
    EXPECT_EQ(rerun.detail, std::string("bfloat16 -> ") + name +
                                "; expected output 0 as " + name);
  }
  EXPECT_EQ(kase.outputs.at(0).values->dtype, DType::kBFloat16);
}

TEST(DiagnosePlan, NonFiniteInputsAreNamedWithTheirCountsAndFirstPlace) {
  const Case kase = diagnose_plan_case_of(
      "casebook: 1\nsummary: s\nop: torch.cross_entropy\n"
      "inputs:\n"
      "  input: {dtype: float32, values: [[0.5, .nan, 1.0], [0.1, 0.2, "
      ".inf]]}\n"
      "  target: {dtype: int64, values: [0, 2]}\n");
  EXPECT_EQ(non_finite_inputs(kase),
            (std::vector<std::string>{"input `input` holds 1 NaN and 1 inf "
                                      "among its 6 elements (first at [0, "
                                      "1])"}));
  EXPECT_TRUE(non_finite_inputs(labels_case()).empty());
  // The NaN a strided layout leaves in skipped storage is not the input's.
  EXPECT_TRUE(
      non_finite_inputs(diagnose_plan_case_of(
                            "casebook: 1\nsummary: s\nop: torch.sum\n"
                            "inputs:\n  input: {dtype: float32, shape: [2, 2], "
                            "values: [1, 2, 3, 4], layout: {stride: [4, 1], "
                            "storage_offset: 1}}\n"))
          .empty());
}

// Issue 51: an alias (`same_as`) is its target's tensor: the precision
// rerun changes the target and the alias follows, and a NaN is told once.
TEST(DiagnosePlan, AnAliasFollowsItsTargetAndIsToldOnce) {
  const Case kase = diagnose_plan_case_of(
      "casebook: 1\nsummary: s\nop: aten::add.out\n"
      "inputs:\n  self: {dtype: float32, values: [1.5, .nan]}\n"
      "  other: {dtype: int64, values: [1, 2]}\n"
      "  out: {same_as: self}\n");
  const auto reruns = plan_reruns(kase, rerun_stack(kase, "cpu", {}, "cpu"),
                                  Family::kMismatch, "");
  const PlannedRerun& float64 = rerun_named(reruns, "float64");
  ASSERT_TRUE(float64.kase.has_value()) << float64.not_run;
  const TensorSpec& out = float64.kase->inputs.at(2);
  EXPECT_EQ(out.same_as, "self");
  EXPECT_EQ(out.dtype, DType::kFloat64);
  EXPECT_EQ(out.float_values.size(), 2u);
  EXPECT_EQ(non_finite_inputs(kase),
            (std::vector<std::string>{"input `self` holds 1 NaN among its 2 "
                                      "elements (first at [1])"}));
}

TEST(DiagnosePlan, TheValidIndexRerunIsForIndexFamiliesOnly) {
  const Case kase = labels_case();
  const RerunStack stack = rerun_stack(kase, "cpu", {}, "cpu");
  for (Family family : {Family::kIndexOutOfRange, Family::kDeviceAssert}) {
    SCOPED_TRACE(family_name(family));
    const auto reruns = plan_reruns(kase, stack, family, "");
    const PlannedRerun& valid = rerun_named(reruns, "valid indices");
    EXPECT_EQ(valid.kind, RerunKind::kValidIndices);
    ASSERT_TRUE(valid.kase.has_value()) << valid.not_run;
    EXPECT_EQ(valid.detail, "target[2]: 4 -> 0");
  }
  for (Family family :
       {Family::kNone, Family::kMismatch, Family::kIllegalAddress}) {
    SCOPED_TRACE(family_name(family));
    EXPECT_EQ(names_of(plan_reruns(kase, stack, family, "")),
              (std::vector<std::string>{"launch blocking", "cpu", "float32",
                                        "float64", "contiguous", "memcheck"}));
  }
}

TEST(DiagnosePlan, ValidIndicesReplaceTheOutOfRangeLabelsAndNameThem) {
  const Case kase = labels_case();
  std::string detail;
  std::string why_not;
  const auto changed = with_valid_indices(kase, &detail, &why_not);
  ASSERT_TRUE(changed.has_value()) << why_not;
  EXPECT_EQ(detail, "target[2]: 4 -> 0");
  EXPECT_EQ(why_not, "");
  EXPECT_EQ(changed->inputs.at(1).int_values, (std::vector<int64_t>{0, 2, 0}));
  EXPECT_EQ(changed->id, kase.id);
  EXPECT_EQ(changed->summary, kase.summary);
}

TEST(DiagnosePlan, ValidIndicesNameFourChangesThenCountTheRest) {
  std::string text = kLabels;
  text.replace(text.find("[0, 2, 4]"), 9, "[1, 5, 6, 7, 8, 9]");
  text.replace(text.find("[3, 4]"), 6, "[6, 4]");
  std::string detail;
  std::string why_not;
  const auto changed =
      with_valid_indices(diagnose_plan_case_of(text), &detail, &why_not);
  ASSERT_TRUE(changed.has_value()) << why_not;
  // The valid first label (1) is kept.
  EXPECT_EQ(changed->inputs.at(1).int_values.front(), 1);
  EXPECT_EQ(detail.rfind("target[1]: 5 -> ", 0), 0u) << detail;
  EXPECT_NE(detail.find(", target[4]: 8 -> "), std::string::npos) << detail;
  EXPECT_EQ(detail.find("target[5]"), std::string::npos) << detail;
  EXPECT_EQ(detail.substr(detail.size() - 11), " and 1 more") << detail;
}

TEST(DiagnosePlan, ValidIndicesSayWhyNotWhereNoRuleKnowsTheRange) {
  std::string detail;
  std::string why_not;
  EXPECT_FALSE(
      with_valid_indices(matmul_case("[cpu]"), &detail, &why_not).has_value());
  EXPECT_EQ(
      why_not.rfind("no rule knows the valid range of this op's indices", 0),
      0u)
      << why_not;
  EXPECT_EQ(detail, "");

  std::string text = kLabels;
  text.replace(text.find("[0, 2, 4]"), 9, "[0, 2, 3]");
  why_not.clear();
  EXPECT_FALSE(
      with_valid_indices(diagnose_plan_case_of(text), &detail, &why_not));
  EXPECT_EQ(why_not, "every index is already in range");
  // In the plan: the rerun is listed, not run, with the reason.
  const Case matmul = matmul_case("[cpu]");
  const auto reruns = plan_reruns(matmul, rerun_stack(matmul, "", {}, "cpu"),
                                  Family::kIndexOutOfRange, "");
  const PlannedRerun& valid = rerun_named(reruns, "valid indices");
  EXPECT_FALSE(valid.kase.has_value());
  EXPECT_EQ(valid.not_run.rfind("no rule knows", 0), 0u) << valid.not_run;
}

TEST(DiagnoseRerun, AnOutcomeIsWhatTheVerdictSaysHappened) {
  CaseVerdict verdict;
  verdict.verdict = Verdict::kFail;
  verdict.family = Family::kIndexOutOfRange;
  verdict.message = "Target 4 is out of bounds.\n  at step 1";
  RunOutcome outcome = outcome_of(verdict);
  EXPECT_TRUE(outcome.ran);
  EXPECT_FALSE(outcome.matched);
  EXPECT_EQ(outcome.family, Family::kIndexOutOfRange);
  EXPECT_EQ(outcome.message, "Target 4 is out of bounds.");

  verdict.verdict = Verdict::kPass;
  outcome = outcome_of(verdict);
  EXPECT_TRUE(outcome.matched);
  EXPECT_EQ(outcome.family, Family::kNone);

  // INTERNAL is casebook's error: it says nothing of the op.
  for (Verdict not_run :
       {Verdict::kNotRun, Verdict::kSkip, Verdict::kInternal}) {
    verdict.verdict = not_run;
    EXPECT_FALSE(outcome_of(verdict).ran);
    EXPECT_FALSE(outcome_of(verdict).matched);
  }
}

}  // namespace
}  // namespace casebook
