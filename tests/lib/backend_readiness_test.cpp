// The one answer to "can this backend run?": ready, absent (SKIP, the reason
// once) or broken (ERROR, exit 1). The rules alone, then real probe children
// (a plugin file that is not a plugin, a probe that crashes), then the real
// casebook executable with --require, CASEBOOK_REQUIRE and gtest mode.
#include "device/backend_readiness.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "casebook/runner.h"
#include "device/backend_runtime.h"
#include "run_command.h"
#include "runner/session.h"
#include "test_ops.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;
using testing_support::has_line;
using testing_support::run_casebook;

PartReadiness part(Readiness state, std::string reason = "why") {
  PartReadiness result;
  result.state = state;
  result.reason = std::move(reason);
  return result;
}

// A temporary folder, removed again.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "readiness-XXXXXX");
    path = mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

// Sets an environment variable for the length of a scope.
struct ScopedEnv {
  std::string name;
  std::string old;
  bool had = false;
  ScopedEnv(std::string n, const std::string& value) : name(std::move(n)) {
    const char* previous = std::getenv(name.c_str());
    had = previous != nullptr;
    if (had) old = previous;
    setenv(name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had) {
      setenv(name.c_str(), old.c_str(), 1);
    } else {
      unsetenv(name.c_str());
    }
  }
};

TEST(BackendReadiness, ABrokenPartMakesTheBackendBrokenWhateverTheOther) {
  for (Readiness other : {Readiness::kReady, Readiness::kAbsent}) {
    BackendReadiness both = combine_readiness(
        Backend::kCuda, part(other), part(Readiness::kBroken, "dlopen: bad"));
    EXPECT_EQ(both.state, Readiness::kBroken);
    EXPECT_NE(both.reason.find("the kernel plugin: dlopen: bad"),
              std::string::npos)
        << both.reason;
  }
  EXPECT_EQ(combine_readiness(Backend::kHip, part(Readiness::kBroken),
                              part(Readiness::kReady))
                .state,
            Readiness::kBroken);
}

TEST(BackendReadiness, OneReadyPartMakesItReadyTwoAbsentOnesAbsent) {
  EXPECT_EQ(combine_readiness(Backend::kCuda, part(Readiness::kAbsent),
                              part(Readiness::kReady))
                .state,
            Readiness::kReady);
  BackendReadiness none =
      combine_readiness(Backend::kCuda, part(Readiness::kAbsent, "cpu torch"),
                        part(Readiness::kAbsent, "no device"));
  EXPECT_EQ(none.state, Readiness::kAbsent);
  EXPECT_EQ(none.reason, "no device; cpu torch");
  // A CUDA LibTorch and the CUDA plugin asked the same runtime: said once.
  EXPECT_EQ(
      combine_readiness(Backend::kCuda, part(Readiness::kAbsent, "no device"),
                        part(Readiness::kAbsent, "no device"))
          .reason,
      "no device");
  EXPECT_EQ(combine_readiness(Backend::kCpu, part(Readiness::kAbsent),
                              part(Readiness::kAbsent))
                .state,
            Readiness::kReady);
}

TEST(BackendReadiness, ARuntimeWithoutDeviceIsAbsentUnlessTheHostShowsOne) {
  const std::string error =
      "cudaGetDeviceCount returned cudaErrorInsufficientDriver (...)";
  PartReadiness no_node = runtime_failure(Backend::kCuda, error, false);
  EXPECT_EQ(no_node.state, Readiness::kAbsent);
  // Not the runtime's words: with no driver at all, CUDA says its "driver
  // version is insufficient" (issue 34).
  EXPECT_EQ(no_node.reason,
            "no CUDA device: no NVIDIA driver or device (no /dev/nvidia0, "
            "nothing in /proc/driver/nvidia/gpus)");
  EXPECT_EQ(no_node.reason.find("Insufficient"), std::string::npos);
  PartReadiness node = runtime_failure(Backend::kCuda, error, true);
  EXPECT_EQ(node.state, Readiness::kBroken);
  EXPECT_NE(node.reason.find("/dev/nvidia0"), std::string::npos);
  EXPECT_EQ(runtime_failure(Backend::kHip, "hipErrorNoDevice", true).state,
            Readiness::kBroken);
}

TEST(BackendReadiness, DeviceNodesAreReadFromTheHostWithoutARuntime) {
  TempDir root;
  EXPECT_FALSE(device_node_present(Backend::kCuda, root.path));
  EXPECT_FALSE(device_node_present(Backend::kHip, root.path));
  fs::create_directories(root.path / "proc/driver/nvidia/gpus");
  EXPECT_FALSE(device_node_present(Backend::kCuda, root.path));
  fs::create_directories(root.path / "proc/driver/nvidia/gpus/0000:01:00.0");
  EXPECT_TRUE(device_node_present(Backend::kCuda, root.path));
  fs::create_directories(root.path / "dev");
  std::ofstream(root.path / "dev/kfd") << "";
  EXPECT_TRUE(device_node_present(Backend::kHip, root.path));
}

TEST(BackendReadiness, TheProbeAnswerSurvivesItsJsonLine) {
  BackendReadiness sent = combine_readiness(
      Backend::kCuda, part(Readiness::kAbsent, "torch: cpu only"),
      part(Readiness::kBroken, "bad \"plugin\"\n"));
  BackendReadiness got = readiness_from_json(readiness_to_json(sent));
  EXPECT_EQ(got.state, Readiness::kBroken);
  EXPECT_EQ(got.reason, sent.reason);
  EXPECT_EQ(got.torch.state, Readiness::kAbsent);
  EXPECT_EQ(got.kernels.reason, "bad \"plugin\"\n");
}

// A ready backend's device facts (what `when: {capability: ...}` reads):
// LibTorch's device first, the plugin's where LibTorch says nothing.
TEST(BackendReadiness, DeviceFactsCombineAndSurviveTheJsonLine) {
  PartReadiness torch = part(Readiness::kReady, "");
  torch.facts = {{"capability", "9.0"}};
  PartReadiness kernels = part(Readiness::kReady, "");
  kernels.facts = {{"capability", "8.6"}, {"gfx", "gfx90a"}};
  const BackendReadiness sent =
      combine_readiness(Backend::kCuda, torch, kernels);
  const BackendReadiness got = readiness_from_json(readiness_to_json(sent));
  EXPECT_EQ(got.facts, (DeviceFacts{{"capability", "9.0"}, {"gfx", "gfx90a"}}));
  EXPECT_EQ(got.kernels.facts, kernels.facts);
}

// This machine as it is (a real probe child): a GPU backend is absent or
// ready, never broken; without a device node it is absent.
TEST(BackendProbe, AGpuBackendWithoutItsDeviceIsAbsentNotBroken) {
  testing_support::use_single_thread();
  auto status = probe_backends({Backend::kCuda, Backend::kHip});
  for (Backend backend : {Backend::kCuda, Backend::kHip}) {
    SCOPED_TRACE(std::string(backend_name(backend)));
    EXPECT_NE(status[backend].state, Readiness::kBroken)
        << status[backend].reason;
    if (!device_node_present(backend)) {
      EXPECT_EQ(status[backend].state, Readiness::kAbsent);
      EXPECT_FALSE(status[backend].reason.empty());
    }
  }
}

TEST(BackendProbe, APluginFileThatDoesNotLoadIsBroken) {
  testing_support::use_single_thread();
  TempDir dir;
  std::ofstream(dir.path / "libcasebook_kernels_cuda.so") << "not an ELF file";
  ScopedEnv plugin_dir("CASEBOOK_KERNEL_PLUGIN_DIR", dir.path.string());
  BackendStatus cuda = probe_backends({Backend::kCuda})[Backend::kCuda];
  EXPECT_EQ(cuda.state, Readiness::kBroken);
  EXPECT_EQ(cuda.kernels.state, Readiness::kBroken);
  EXPECT_NE(cuda.reason.find("libcasebook_kernels_cuda.so"), std::string::npos)
      << cuda.reason;
}

TEST(BackendProbe, NoPluginFileIsAbsentNotBroken) {
  testing_support::use_single_thread();
  TempDir dir;
  ScopedEnv plugin_dir("CASEBOOK_KERNEL_PLUGIN_DIR", dir.path.string());
  BackendStatus hip = probe_backends({Backend::kHip})[Backend::kHip];
  EXPECT_EQ(hip.state, Readiness::kAbsent);
  EXPECT_NE(hip.reason.find("built without HIP"), std::string::npos)
      << hip.reason;
}

TEST(BackendProbe, AProbeThatCrashesIsBroken) {
  testing_support::use_single_thread();
  replace_backend_for_tests(Backend::kCuda,
                            []() -> BackendRuntime { std::abort(); });
  BackendStatus cuda = probe_backends({Backend::kCuda})[Backend::kCuda];
  replace_backend_for_tests(Backend::kCuda, nullptr);
  EXPECT_EQ(cuda.state, Readiness::kBroken);
  EXPECT_NE(cuda.reason.find("terminated by signal 6"), std::string::npos)
      << cuda.reason;
}

// A backend the probe finds broken: every run on it is an ERROR (exit 1),
// whatever its case expects; the cpu runs still PASS.
TEST(BackendProbe, EveryRunOnABrokenBackendIsAnError) {
  testing_support::use_single_thread();
  replace_backend_for_tests(Backend::kCuda, [] {
    BackendRuntime runtime;
    runtime.backend = Backend::kCuda;
    runtime.readiness = combine_readiness(
        Backend::kCuda, part(Readiness::kAbsent, "cpu-only LibTorch"),
        part(Readiness::kBroken, "libcasebook_kernels_cuda.so: bad ELF"));
    return runtime;
  });
  RunOptions options;
  options.backends = {Backend::kCpu, Backend::kCuda};
  options.evidence_root.clear();
  RunSummary summary = run_cases(
      {fs::path(CASEBOOK_SOURCE_DIR) / "cases" / "kernels" / "sum"}, options);
  replace_backend_for_tests(Backend::kCuda, nullptr);
  int cuda = 0;
  for (const CaseVerdict& v : summary.verdicts) {
    if (v.backend == Backend::kCpu) {
      EXPECT_TRUE(verdict_is_success(v.verdict)) << v.case_id;
      continue;
    }
    ++cuda;
    EXPECT_EQ(v.verdict, Verdict::kError) << v.case_id;
    EXPECT_NE(v.message.find("cuda cannot run: the kernel plugin: "
                             "libcasebook_kernels_cuda.so: bad ELF"),
              std::string::npos)
        << v.message;
  }
  EXPECT_GT(cuda, 0);
  EXPECT_EQ(summary.exit_code(), 1);
}

// `VAR=value casebook <arguments>` from the repository root.
testing_support::CommandResult run_with_env(const std::string& assignment,
                                            const std::string& arguments) {
  return testing_support::run_shell("cd '" + std::string(CASEBOOK_SOURCE_DIR) +
                                    "' && " + assignment + " '" +
                                    CASEBOOK_EXECUTABLE + "' " + arguments);
}

// The real executable: exit status, lines, and ctest's skip code.
TEST(BackendCli, AbsentIsSkipWithTheReasonOnceRequiredIsAnError) {
  if (device_node_present(Backend::kCuda)) GTEST_SKIP() << "a CUDA host";
  const std::string cases = "cases/validate cases/cross_entropy --brief";
  auto plain = run_casebook("run --verbose --backend cpu,cuda " + cases);
  EXPECT_EQ(plain.status, 0) << plain.output;
  EXPECT_TRUE(has_line(plain.output, "^SKIP +\\S+ +cuda +\\(cuda absent\\)$"))
      << plain.output;
  // The reason once, in the environment header; the count once, above the
  // table.
  EXPECT_TRUE(has_line(plain.output, "^  cuda +absent: ")) << plain.output;
  EXPECT_TRUE(has_line(plain.output, "^cuda absent: \\d+ runs skipped$"))
      << plain.output;

  auto required =
      run_casebook("run --verbose --backend cpu,cuda --require cuda " + cases);
  EXPECT_EQ(required.status, 1) << required.output;
  EXPECT_TRUE(has_line(required.output,
                       "^ERROR +\\S+ +cuda +op_unavailable: cuda cannot run: "
                       "required .* but absent"))
      << required.output;
  EXPECT_TRUE(has_line(required.output, "^PASS +\\S+ +cpu"));

  auto from_environment = run_with_env("CASEBOOK_REQUIRE=hip,cuda",
                                       "run --backend cpu,cuda " + cases);
  EXPECT_EQ(from_environment.status, 1) << from_environment.output;

  // CASEBOOK_REQUIRE=cuda leaves a cpu-only run alone.
  auto cpu_only =
      run_casebook("run --verbose --backend cpu --require cuda " + cases);
  EXPECT_EQ(cpu_only.status, 0) << cpu_only.output;
}

TEST(BackendCli, GtestModeSkipsWhenItsBackendIsAbsentAndFailsWhenRequired) {
  if (device_node_present(Backend::kCuda)) GTEST_SKIP() << "a CUDA host";
  auto absent = run_casebook("test --backend cuda cases/kernels/sum");
  EXPECT_EQ(absent.status, 77) << absent.output;
  auto required =
      run_casebook("test --backend cuda --require cuda cases/kernels/sum");
  EXPECT_EQ(required.status, 1) << required.output;
  auto cpu = run_casebook("test --backend cpu cases/validate");
  EXPECT_EQ(cpu.status, 0) << cpu.output;
}

// A lane that selects nothing (validate.* ops give cpu verdicts only) ran
// nothing: Skipped, not "0 tests, PASSED"; an error when required.
TEST(BackendCli, GtestModeThatSelectsNothingIsSkippedNotPassed) {
  auto nothing = run_casebook("test --backend cuda cases/validate");
  EXPECT_EQ(nothing.status, 77) << nothing.output;
  EXPECT_NE(nothing.output.find("casebook test: nothing was tested: no run "
                                "was selected"),
            std::string::npos)
      << nothing.output;
  auto required =
      run_casebook("test --backend cuda --require cuda cases/validate");
  EXPECT_EQ(required.status, 1) << required.output;
  auto listed =
      run_casebook("test --backend cuda cases/validate --gtest_list_tests");
  EXPECT_EQ(listed.status, 0) << listed.output;
}

TEST(BackendCli, ABrokenPluginIsAnErrorAndExitsOne) {
  TempDir dir;
  std::ofstream(dir.path / "libcasebook_kernels_cuda.so") << "not an ELF file";
  auto broken = run_with_env(
      "CASEBOOK_KERNEL_PLUGIN_DIR='" + dir.path.string() + "'",
      "run --verbose --backend cuda --brief --evidence '' cases/kernels/sum");
  EXPECT_EQ(broken.status, 1) << broken.output;
  EXPECT_TRUE(has_line(broken.output,
                       "^ERROR +kernels/sum/\\S+ +cuda +op_unavailable: cuda "
                       "cannot run: the kernel plugin: "))
      << broken.output;
  EXPECT_FALSE(has_line(broken.output, "^SKIP +kernels/sum/\\S+ +cuda"))
      << broken.output;
}

}  // namespace
}  // namespace casebook
