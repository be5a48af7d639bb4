// Starts the runner's one-shot children: CPU runs through the fork server
// (process/fork_server.h, started with the first of them), every other run,
// and every run once the server is off or has failed, forked by the runner
// itself. A failed server only makes the run slower, never its verdicts
// different.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "child/execute.h"
#include "process/fork_server.h"
#include "process/subprocess.h"

namespace casebook {

class ChildLauncher {
 public:
  ChildLauncher(const CaseTable& table, const ChildEnvironment& environment,
                std::string scratch_dir, bool use_fork_server);
  ~ChildLauncher();
  ChildLauncher(const ChildLauncher&) = delete;
  ChildLauncher& operator=(const ChildLauncher&) = delete;

  // `cpu_runs_left`: CPU runs still queued after this one; a server started
  // now moves LibTorch's code onto huge pages only for long runs.
  ChildProcess launch(const RunRequest& request, size_t cpu_runs_left);

  // Kills and reaps the fork server, if one runs.
  void stop();

 private:
  bool launch_from_server(const RunRequest& request, size_t cpu_runs_left,
                          ChildProcess* child);

  const CaseTable& table_;
  const ChildEnvironment& environment_;
  std::string scratch_dir_;
  bool use_fork_server_;
  std::unique_ptr<ForkServer> server_;
};

}  // namespace casebook
