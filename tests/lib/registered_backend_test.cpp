// A backend added by a row alone (issue 25): the test registers the simulated
// device as a backend of its own, `simulated`, through device/'s
// BackendRegistration, and runs cases on it with the real runner and real
// children, touching no file outside device/ and the tests. Its name is
// known to case files, its column is in the table, a sticky error on it
// retires its worker as on cuda; once the registration ends, the name is
// unknown again.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

#include "casebook/loader.h"
#include "casebook/runner.h"
#include "cli/command_line.h"
#include "device/backend_hooks.h"
#include "run_command.h"
#include "run_plan.h"
#include "runner/diagnose_plan.h"
#include "runner/session.h"
#include "runner/verdict_table.h"
#include "simulated_device.h"
#include "test_ops.h"

namespace casebook {
namespace {

using testing_support::TempFolder;

BackendHooks simulated_hooks() {
  BackendHooks hooks;
  hooks.runtime = "simulated";
  hooks.vendor_device = "a simulated device";
  hooks.device_facts = [](int major, int minor, const std::string&) {
    return DeviceFacts{
        {"sim_level", std::to_string(major) + "." + std::to_string(minor)}};
  };
  hooks.probe_torch = [](Backend) {
    return PartReadiness{Readiness::kAbsent,
                         "the simulated backend has no LibTorch device",
                         {},
                         {}};
  };
  hooks.synchronize_torch = [](bool*) { return std::string(); };
  return hooks;
}

class RegisteredBackend : public ::testing::Test {
 protected:
  void SetUp() override {
    testing_support::use_single_thread();
    register_simulated();
    simulated_device::install(backend());
  }
  void TearDown() override {
    simulated_device::uninstall(backend());
    registration_.reset();
  }

  Backend backend() const { return registration_->backend(); }

  // Its device reports `sim_level` (the simulated device's 8.6).
  void register_simulated() {
    registration_.emplace(
        "simulated", simulated_hooks(),
        std::vector<DeviceFactName>{{"sim_level", "simulated device level"}});
  }

  void write(const std::string& name, const std::string& text) {
    std::ofstream(folder_.path() / (name + ".yaml")) << text;
  }

  // testing.simulated_step on cpu and the registered backend.
  void write_step(const std::string& name, const std::string& then,
                  const std::string& expect = "") {
    write(name, "casebook: 1\nsummary: " + name +
                    "\nop: testing.simulated_step\n"
                    "backends: [cpu, simulated]\nargs: {then: " +
                    then +
                    "}\ninputs:\n  input: {dtype: float32, values: [1, 2]}\n" +
                    expect);
  }

  RunSummary run() {
    return testing_support::run_folder(folder_.path(),
                                       {Backend::kCpu, backend()},
                                       &simulated_device::registry());
  }

  const CaseVerdict& verdict(const RunSummary& summary, const std::string& id,
                             Backend on) {
    for (const CaseVerdict& v : summary.verdicts) {
      if (v.case_id == id && v.backend == on) return v;
    }
    throw std::runtime_error("no verdict for " + id);
  }

  std::optional<BackendRegistration> registration_;
  TempFolder folder_;
};

TEST_F(RegisteredBackend, RunsCasesAsAGpuBackendOfItsOwn) {
  ASSERT_EQ(backend_name(backend()), "simulated");
  ASSERT_EQ(parse_backend("simulated"), backend());
  write_step("a_clean", "pass");
  write_step("b_sticky", "sticky",
             "expect:\n  simulated: {error: device_assert}\n");
  write("c_torch",
        "casebook: 1\nsummary: a LibTorch op\nop: torch.neg\n"
        "backends: [cpu, simulated]\n"
        "inputs:\n  input: {dtype: float32, values: [1, 2]}\n");
  const RunSummary summary = run();
  EXPECT_EQ(verdict(summary, "a_clean", backend()).verdict, Verdict::kPass)
      << verdict(summary, "a_clean", backend()).message;
  const CaseVerdict& sticky = verdict(summary, "b_sticky", backend());
  EXPECT_EQ(sticky.verdict, Verdict::kPass) << sticky.message;
  EXPECT_TRUE(sticky.poisoned_worker);
  // Its LibTorch part is absent: the torch op skips there, saying why.
  const CaseVerdict& torch = verdict(summary, "c_torch", backend());
  EXPECT_EQ(torch.verdict, Verdict::kSkip);
  EXPECT_NE(torch.message.find("no LibTorch device"), std::string::npos)
      << torch.message;
  EXPECT_EQ(verdict(summary, "c_torch", Backend::kCpu).verdict, Verdict::kPass);
  // The table has its column.
  std::ostringstream table;
  print_verdict_table(table, summary, TableStyle{});
  EXPECT_NE(table.str().find("simulated"), std::string::npos) << table.str();
}

// Every message that lists the backends lists it, from the same rows as the
// built-in ones (issue 37: a registered backend is seen wherever a built-in
// one is).
TEST_F(RegisteredBackend, ItIsNamedWhereverTheBackendsAreListed) {
  EXPECT_EQ(backend_names(), "cpu, cuda, hip, simulated");
  EXPECT_EQ(backend_alternatives(), "cpu, cuda, hip or simulated");
  EXPECT_EQ(parse_backend_option("show", "simulated"), backend());
  testing::internal::CaptureStderr();
  EXPECT_FALSE(parse_backend_option("show", "simulatd").has_value());
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "casebook show: --backend: expected cpu, cuda, hip or simulated; "
            "got `simulatd`; did you mean `simulated`?\n");
  simulated_device::uninstall(backend());
  registration_.reset();
  EXPECT_EQ(backend_alternatives(), "cpu, cuda or hip");
}

// `casebook diagnose` probes every GPU backend, not a list of its own: a
// registered one that is ready is where a case naming it reruns.
TEST_F(RegisteredBackend, DiagnosisProbesItAndRerunsOnItWhereItIsReady) {
  EXPECT_EQ(gpu_backends(),
            (std::vector<Backend>{Backend::kCuda, Backend::kHip, backend()}));
  const auto status = probe_backends(gpu_backends());
  ASSERT_EQ(status.count(backend()), 1u);
  EXPECT_TRUE(status.at(backend()).ready()) << status.at(backend()).description;
  write_step("diagnosed", "pass");
  const LoadedCase loaded = load_case_file(folder_.path() / "diagnosed.yaml");
  ASSERT_TRUE(loaded.ok());
  const RerunStack stack = rerun_stack(*loaded.value, "", status, "cpu");
  EXPECT_EQ(stack.target, backend()) << stack.text;
  EXPECT_TRUE(stack.gpu_wanted);
}

TEST_F(RegisteredBackend, ItsNameIsUnknownOnceTheRegistrationEnds) {
  write_step("clean", "pass");
  simulated_device::uninstall(backend());
  registration_.reset();
  EXPECT_FALSE(parse_backend("simulated").has_value());
  EXPECT_EQ(all_backends().size(), 3u);
  RunOptions options;
  options.backends = {Backend::kCpu};
  Plan plan = load_plan({folder_.path()}, options);
  ASSERT_EQ(plan.cases.size(), 1u);
  ASSERT_FALSE(plan.cases[0].runnable());
  ASSERT_FALSE(plan.cases[0].loaded.errors.empty());
  EXPECT_NE(plan.cases[0].loaded.errors.front().message.find(
                "expected one of cpu, cuda, hip"),
            std::string::npos);
  register_simulated();  // for TearDown
}

TEST_F(RegisteredBackend, ItsDevicesFactsAreReadByItsEntriesAlone) {
  write_step("new_devices", "pass",
             "expect:\n  simulated:\n    - when: {sim_level: '>=8.0'}\n"
             "      skip: new devices\n");
  write("other_backend",
        "casebook: 1\nsummary: s\nop: testing.simulated_step\n"
        "backends: [cpu, cuda, simulated]\n"
        "inputs:\n  input: {dtype: float32, values: [1, 2]}\n"
        "expect:\n  cuda:\n    - when: {sim_level: '>=8.0'}\n"
        "      skip: never read\n");
  const RunSummary summary = run();
  // The probe's facts decide: 8.6 holds.
  const CaseVerdict& skipped = verdict(summary, "new_devices", backend());
  EXPECT_EQ(skipped.verdict, Verdict::kSkip) << skipped.message;
  EXPECT_EQ(skipped.expectation_reason, "new devices");
  // Under another backend's entries it is a load error naming the owner.
  const CaseVerdict& wrong = verdict(summary, "other_backend", Backend::kCpu);
  EXPECT_EQ(wrong.verdict, Verdict::kError);
  EXPECT_NE(wrong.message.find("`sim_level` is a fact of the simulated device"),
            std::string::npos)
      << wrong.message;
}

TEST_F(RegisteredBackend, RunsOnlyTheCasesThatNameIt) {
  write("unnamed",
        "casebook: 1\nsummary: s\nop: torch.neg\n"
        "inputs:\n  input: {dtype: float32, values: [1, 2]}\n");
  RunOptions options;
  options.backends = {Backend::kCpu, backend()};
  Plan plan = load_plan({folder_.path()}, options);
  ASSERT_EQ(plan.cases.size(), 1u);
  ASSERT_TRUE(plan.cases[0].runnable());
  EXPECT_EQ(plan.cases[0].value().backends, built_in_backends());
}

TEST(BackendNames, ARegisteredNameMustBeNewAndWellFormed) {
  EXPECT_THROW(BackendRegistration("cuda", BackendHooks{}),
               std::invalid_argument);
  EXPECT_THROW(BackendRegistration("Sim ulated", BackendHooks{}),
               std::invalid_argument);
  // A row a child cannot use is refused, and nothing is registered.
  BackendHooks no_probe = simulated_hooks();
  no_probe.probe_torch = nullptr;
  EXPECT_THROW(BackendRegistration("simulated", no_probe),
               std::invalid_argument);
  EXPECT_FALSE(parse_backend("simulated").has_value());
  // A device fact is no host fact and no other device's.
  for (const char* taken : {"os", "capability"}) {
    EXPECT_THROW(BackendRegistration("simulated", BackendHooks{},
                                     {DeviceFactName{taken, ""}}),
                 std::invalid_argument)
        << taken;
  }
  EXPECT_EQ(all_backends().size(), 3u);
}

}  // namespace
}  // namespace casebook
