// The child's side: running one request (make the inputs, run the op,
// synchronise, write the outputs) and the loops of one-shot children and GPU
// workers.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "casebook/case.h"
#include "casebook/ops.h"
#include "child/child_protocol.h"
#include "device/backend_runtime.h"
#include "process/fork_server.h"

namespace casebook {

// The cases a run holds, shared with children through fork().
struct CaseTable {
  std::vector<const Case*> cases;
  std::vector<const OpDef*> ops;  // ops[i] runs cases[i]
};

// Variables a child sets (setenv) right after fork, before it opens its
// backend, so that CUDA and HIP read them when they initialise.
using ChildEnvironment = std::vector<std::pair<std::string, std::string>>;
void apply_child_environment(const ChildEnvironment& environment);

// The inputs of one run of `kase`, in its order, as the child makes them:
// each materialised (tensors/materialise.h), placed on `device`, floating
// ones float64 for the cpu64 reference and contiguous for a reference of
// its own (unless the case keeps its layout); an alias (`same_as`) is its
// target's at::Tensor itself, after all of that.
std::vector<at::Tensor> make_inputs(const Case& kase, const OpDef& op,
                                    const RunRequest& request,
                                    at::Device device);

ChildReport execute_request(const CaseTable& table, const RunRequest& request,
                            const BackendRuntime& runtime);

// A one-shot child: opens the backend, runs `request` (then its `then` part,
// if any), reports each, returns 0.
int run_one_shot_child(const CaseTable& table, const RunRequest& request,
                       int report_fd);

// A GPU worker: opens `backend` once, then runs the requests that arrive on
// `request_fd` one after another. Returns 0 when the runner closes the pipe,
// 3 after reporting a run that poisoned the process.
int run_gpu_worker(const CaseTable& table, Backend backend, int report_fd,
                   int request_fd);

constexpr int kWorkerPoisonedStatus = 3;

// Runs LibTorch's CPU path once on a fixed small tensor of its own (a seeded
// fill, softmax, an output file in `scratch_dir`, removed again, a report),
// so that a process forked afterwards finds symbols bound, OpenMP and cpuinfo
// started and first-call caches filled. Never runs a case: a case may crash
// or hang, and this runs in the long-lived fork server.
void warm_up_cpu(const std::string& scratch_dir);

// The fork server's work for CPU runs of `table` (process/fork_server.h):
// apply `environment` and warm_up_cpu(scratch_dir) once, then
// run_one_shot_child for each request. The references must outlive the
// server.
ForkServerWork cpu_fork_server_work(const CaseTable& table,
                                    const ChildEnvironment& environment,
                                    const std::string& scratch_dir);

}  // namespace casebook
