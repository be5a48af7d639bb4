#include "strategies.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <set>

#include "casebook/loader.h"
#include "casebook/op_catalog.h"
#include "casebook/ops.h"
#include "child/execute.h"
#include "compare/compare.h"
#include "elapsed.h"
#include "runner/session.h"

extern char** environ;

namespace casebook::bench {
namespace fs = std::filesystem;

namespace {

// A private folder on /dev/shm (else $TMPDIR) for output files, as the
// runner's own run folder.
std::string make_output_folder() {
  std::string base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  std::string pattern = base + "/casebook-bench-out-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("cannot create a folder like " + pattern);
  }
  return pattern;
}

}  // namespace

Timing run_casebook(const CaseSet& set, Isolation isolation, int jobs,
                    const std::vector<Backend>& backends, bool fork_server,
                    const OpRegistry* registry) {
  RunOptions options;
  options.registry = registry;
  options.cpu_fork_server = fork_server;
  options.backends = backends;
  options.isolation = isolation;
  options.jobs = jobs;
  Timing timing;
  auto start = std::chrono::steady_clock::now();
  Plan plan = load_plan({set.folder}, options);
  Execution execution = execute_plan(
      plan, options, [](const PlannedCase&, Backend) { return true; }, nullptr);
  timing.wall_s = seconds_since(start);
  timing.cases = static_cast<int>(plan.cases.size());
  timing.workers_started = execution.workers_started;
  timing.confirm_reruns = execution.confirm_reruns;
  for (const CaseVerdict& verdict : execution.summary.verdicts) {
    if (verdict.verdict == Verdict::kPass) {
      ++timing.passed;
    } else if (timing.problem.empty()) {
      timing.problem = verdict.case_id + "/" +
                       std::string(backend_name(verdict.backend)) + ": " +
                       std::string(verdict_name(verdict.verdict)) + " " +
                       verdict.message;
    }
  }
  timing.verdicts = std::move(execution.summary.verdicts);
  return timing;
}

double plan_ms_per_case(const CaseSet& set, const OpRegistry* registry,
                        int repeats) {
  RunOptions options;
  options.registry = registry;
  std::vector<double> ms;
  for (int i = 0; i < repeats; ++i) {
    auto start = std::chrono::steady_clock::now();
    Plan plan = load_plan({set.folder}, options);
    ms.push_back(1000.0 * seconds_since(start) /
                 static_cast<double>(std::max<size_t>(1, plan.cases.size())));
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

Timing run_in_process(const CaseSet& set) {
  Timing timing;
  auto start = std::chrono::steady_clock::now();
  std::vector<LoadedCase> loaded;
  loaded.reserve(set.files.size());  // the table points into it
  CaseTable table;
  std::vector<std::shared_ptr<const OpDef>> generated;  // dispatcher ops
  for (const fs::path& file : set.files) {
    loaded.push_back(load_case_file(file));
    if (!loaded.back().ok()) {
      timing.problem = loaded.back().errors.front().to_string();
      return timing;
    }
    table.cases.push_back(&*loaded.back().value);
    // The op as the runner resolves it (a dispatcher op for torch.softmax).
    ResolvedOp resolved = resolve_op(*loaded.back().value, default_registry());
    if (resolved.def == nullptr) {
      timing.problem = resolved.problems.front();
      return timing;
    }
    table.ops.push_back(resolved.def);
    generated.push_back(std::move(resolved.generated));
  }
  const BackendRuntime runtime = open_backend_runtime(Backend::kCpu);
  const std::string folder = make_output_folder();
  for (size_t i = 0; i < table.cases.size(); ++i) {
    RunRequest request;
    request.case_index = i;
    request.output_dir = folder;
    ChildReport report = execute_request(table, request, runtime);
    ++timing.cases;
    if (report.status != ChildReport::Status::kOutputs) {
      if (timing.problem.empty()) timing.problem = report.message;
      continue;
    }
    std::vector<at::Tensor> outputs;
    for (const TensorFile& file : report.outputs) {
      outputs.push_back(map_tensor_file(file));
    }
    const Case& kase = *table.cases[i];
    Comparison comparison =
        compare_outputs(outputs, outputs, {kase.tolerance, kase.equal_nan});
    if (comparison.equal()) ++timing.passed;
  }
  timing.wall_s = seconds_since(start);
  std::error_code ignored;
  fs::remove_all(folder, ignored);
  return timing;
}

Timing run_process_per_case(const fs::path& casebook,
                            const std::vector<fs::path>& files, int jobs) {
  Timing timing;
  posix_spawn_file_actions_t quiet;
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&quiet, 2, "/dev/null", O_WRONLY, 0);
  std::deque<fs::path> waiting(files.begin(), files.end());
  std::set<pid_t> running;
  auto start = std::chrono::steady_clock::now();
  while (!waiting.empty() || !running.empty()) {
    while (!waiting.empty() && static_cast<int>(running.size()) < jobs) {
      std::string exe = casebook.string();
      std::string file = waiting.front().string();
      waiting.pop_front();
      std::vector<char*> argv = {exe.data(),
                                 const_cast<char*>("run"),
                                 file.data(),
                                 const_cast<char*>("--backend"),
                                 const_cast<char*>("cpu"),
                                 nullptr};
      pid_t pid = -1;
      if (posix_spawn(&pid, exe.c_str(), &quiet, nullptr, argv.data(),
                      environ) != 0) {
        timing.problem = "cannot start " + exe;
        break;
      }
      running.insert(pid);
    }
    if (running.empty()) break;
    int status = 0;
    pid_t done = waitpid(-1, &status, 0);
    if (done < 0) break;
    if (running.erase(done) == 0) continue;  // not one of ours
    ++timing.cases;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      ++timing.passed;
    } else if (timing.problem.empty()) {
      timing.problem =
          "a casebook process ended with status " + std::to_string(status);
    }
  }
  timing.wall_s = seconds_since(start);
  posix_spawn_file_actions_destroy(&quiet);
  return timing;
}

fs::path casebook_beside_me() {
  std::error_code error;
  fs::path me = fs::read_symlink("/proc/self/exe", error);
  if (error) return {};
  fs::path candidate = me.parent_path() / "casebook";
  return fs::exists(candidate) ? candidate : fs::path();
}

}  // namespace casebook::bench
