#include "runner/child_launcher.h"

#include <filesystem>
#include <utility>

namespace casebook {
namespace {

// Moving LibTorch's code onto huge pages costs 30-250 ms once and saves about
// 2 ms a CPU run (process/huge_text.h).
constexpr size_t kHugeTextMinimumRuns = 64;

}  // namespace

ChildLauncher::ChildLauncher(const CaseTable& table,
                             const ChildEnvironment& environment,
                             std::string scratch_dir, bool use_fork_server)
    : table_(table),
      environment_(environment),
      scratch_dir_(std::move(scratch_dir)),
      use_fork_server_(use_fork_server) {}

ChildLauncher::~ChildLauncher() { stop(); }

void ChildLauncher::stop() {
  if (server_) kill_process_group(server_->pid());
  server_.reset();
}

bool ChildLauncher::launch_from_server(const RunRequest& request,
                                       size_t cpu_runs_left,
                                       ChildProcess* child) {
  if (!use_fork_server_ || request.backend != Backend::kCpu) return false;
  try {
    if (!server_) {
      std::filesystem::create_directories(scratch_dir_);
      server_ = std::make_unique<ForkServer>(
          cpu_fork_server_work(table_, environment_, scratch_dir_),
          cpu_runs_left + 1 >= kHugeTextMinimumRuns);
    }
    *child = server_->spawn(encode_request(request));
    return true;
  } catch (const std::exception&) {
    use_fork_server_ = false;  // from now on the runner forks
    stop();
    return false;
  }
}

ChildProcess ChildLauncher::launch(const RunRequest& request,
                                   size_t cpu_runs_left) {
  // No fork rule is read here: the server forks from its own single-threaded,
  // GPU-free state, whatever the runner does meanwhile (execute_plan checked
  // the runner once, before the first run); a fork by the runner itself is
  // checked by spawn_child, outside the fallback's catch, so that a refusal
  // is thrown, not swallowed. Reading the rules per run cost the runner a
  // walk of /proc/self/maps (thousands of LibTorch mappings) per case.
  ChildProcess child;
  if (launch_from_server(request, cpu_runs_left, &child)) return child;
  const CaseTable& table = table_;
  const ChildEnvironment& environment = environment_;
  return spawn_child(
      [&table, &environment, request](int report_fd, int) {
        apply_child_environment(environment);
        return run_one_shot_child(table, request, report_fd);
      },
      false);
}

}  // namespace casebook
