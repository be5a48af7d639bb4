// What the runner asks of a child, and what the child reports back.
//
// Requests and reports are single JSON lines on pipes; a request with a
// `then` part (a case's CPU reference and its CPU run, which share one child)
// is answered by two report lines, the first part's first. Output tensors do
// not travel through the pipe: the child writes each to a file in a run folder
// on a memory file system (/dev/shm where there is one), and the runner maps it
// (one copy in all, made by the child; the runner reads the mapped pages).
#pragma once

#include <ATen/core/Tensor.h>

#include <optional>
#include <string>
#include <vector>

#include "casebook/backend.h"
#include "casebook/family.h"

namespace casebook {

enum class JobKind {
  kRun,             // the op in the case's own dtypes on a backend
  kReferenceCpu64,  // `reference: cpu64`: the op on float64 inputs, CPU
  kReferenceTorch,  // `reference: torch`: LibTorch's equivalent, CPU
};

struct RunRequest {
  size_t case_index = 0;  // into the runner's case list (shared by fork)
  Backend backend = Backend::kCpu;
  JobKind kind = JobKind::kRun;
  std::string output_dir;  // where the child writes its output tensors
  // A case of `steps` rerun to locate its failing launch: the backend
  // synchronises after every step (child/execute.cpp).
  bool synchronise_steps = false;
  // A second part run after this one in the same process (a one-shot CPU
  // child only): the case's CPU run after its cpu64 or torch reference, so
  // that the pair costs one fork. Its own kind, folder and report line.
  std::optional<JobKind> then_kind;
  std::string then_output_dir;
};

struct TensorFile {
  std::string path;
  std::string dtype;  // casebook dtype name ("float32")
  std::vector<int64_t> shape;
  // The output's name where the op gives one (a schema's return name,
  // `grad.<input>` for a gradient); empty: known by its index alone.
  std::string name;
};

struct ChildReport {
  enum class Status { kOutputs, kError, kSkipped };
  Status status = Status::kError;
  Family family = Family::kNone;
  std::string message;         // the first error, or why skipped
  std::string exception_type;  // "c10::IndexError"
  std::vector<std::string> consequences;
  // The positions the op rejected (an OpError's, or its reported count's).
  std::optional<std::vector<int64_t>> positions;
  // How many entries the op reports it processed (OpCall::report_count);
  // nullopt where it reported none.
  std::optional<int64_t> processed;
  std::vector<TensorFile> outputs;
  // A case of `steps` that failed: the step (0-based) at which the first
  // error was seen; the number of steps when it was seen at the
  // synchronisation after the last one.
  std::optional<int> step;
  bool poisoned = false;  // the process must not run another GPU case
  // casebook itself broke (an InternalError, casebook/internal_error.h)
  // while running the request: `status` is kError and `message` says what
  // broke; the judge makes the run INTERNAL, never the case's failure.
  bool internal = false;
  double seconds =
      0.0;  // the op alone, inputs made and outputs written excluded
};

std::string encode_request(const RunRequest& request);
RunRequest decode_request(const std::string& line);
std::string encode_report(const ChildReport& report);
// A line that does not parse yields an internal kError report: the child
// and the runner are both casebook, so the protocol itself broke.
ChildReport decode_report(const std::string& line);

// Writes `tensor` (any device, any layout) contiguously to `path`.
TensorFile write_tensor_file(const at::Tensor& tensor, const std::string& path);
// Maps a tensor file read-only as a CPU tensor; unmapped when the tensor dies.
at::Tensor map_tensor_file(const TensorFile& file);

// The runner's side of a kOutputs report: maps each output file. A file the
// child wrote that cannot be read back is casebook's own fault, not the
// case's: the report becomes internal (kError, no outputs, "internal error:
// outputs unreadable: ...") and nothing is returned.
std::vector<at::Tensor> read_report_outputs(ChildReport* report);

}  // namespace casebook
