// The limits that keep a hostile or mistaken case file (or fixture) from
// costing the runner its memory, its stack or its time. A case file arrives in
// a merge request from anyone: whatever it says, loading it must stay cheap,
// and a tensor it asks for must be refused before anything is allocated.
//
// Every check of "is this tensor too large?" asks check_tensor_size(), from
// the loader (a `shape` or `layout`) and from the fixture readers (a file's
// header), so the answer and its message are the same everywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "casebook/case.h"

namespace casebook {

struct LoadLimits {
  // A case file holds a computation, not its data: past this size the data
  // belongs in a fixture (.npy, .safetensors, .pt under fixtures/).
  uint64_t max_file_bytes = uint64_t{1} << 20;  // 1 MiB
  // Nesting of YAML lists and maps: a case needs about 6 levels.
  int max_depth = 64;
  // YAML nodes (scalars, lists, maps) in one file: 100,000 `values`.
  uint64_t max_nodes = 100'000;
  // One scalar (a key, a name, a string, a number as written): a case's
  // longest is a summary or an error's first line. As much as a message
  // shows (casebook/printable.h, kMessageBytes), so nothing read is longer
  // than what could be printed of it.
  uint64_t max_scalar_bytes = 4096;
  // One tensor (its storage, a layout's skipped elements included). Sized for
  // a 24 GiB machine: a case holds each input, its reference (float64 for
  // `reference: cpu64`), the outputs and the evidence at once, about five
  // copies, so one tensor of at most 4 GiB keeps a run within 20 GiB.
  uint64_t max_tensor_elements = uint64_t{1} << 30;
  uint64_t max_tensor_bytes = uint64_t{4} << 30;  // 4 GiB
  // One output of a run, on every backend: what the op made. An op's
  // outputs may be far larger than its inputs (torch.outer of two vectors
  // of 40,000 elements: 6 GB), and the runner holds them as it holds
  // inputs, so they are bounded the same way and by default as much.
  uint64_t max_output_elements = uint64_t{1} << 30;
  uint64_t max_output_bytes = uint64_t{4} << 30;  // 4 GiB
  // The evidence of a failing run (runner/evidence.h: its inputs, reference
  // and outputs as .npy) and of a whole run together: a 238-byte case can
  // ask for a tensor of gigabytes, and a merge request must not fill CI's
  // disk with it. Files past a limit are left out, and the run says so.
  uint64_t max_evidence_bytes = uint64_t{64} << 20;         // 64 MiB a run
  uint64_t max_evidence_total_bytes = uint64_t{512} << 20;  // 512 MiB in all
};

// The limits in force: the defaults above, where set the environment's
// CASEBOOK_MAX_TENSOR_BYTES (bytes, or with a K, M, G or T suffix: 8G),
// CASEBOOK_MAX_TENSOR_ELEMENTS, CASEBOOK_MAX_OUTPUT_BYTES and
// CASEBOOK_MAX_OUTPUT_ELEMENTS, CASEBOOK_MAX_EVIDENCE_BYTES and
// CASEBOOK_MAX_EVIDENCE_TOTAL_BYTES, read once; or what set_load_limits() set.
const LoadLimits& load_limits();
void set_load_limits(const LoadLimits& limits);

// The variables above and CASEBOOK_CHILD_MEMORY (process/child_limits.h),
// each set to what parse_byte_count does not read (or the child's memory to
// 0): one message each, naming the variable, what it takes and what it got.
// Empty when every one set reads. The command line refuses to start on any
// (a limit asked for and silently not applied is worse than none).
std::vector<std::string> limit_variable_errors();

// Parses "4294967296", "4G", "512M", "64K", "1T" (powers of 1024), a unit
// followed by B or iB in any case ("512MB", "512mib" are 512 MiB); nullopt
// for anything else (a sign, a fraction, a space, an overflow).
std::optional<uint64_t> parse_byte_count(const std::string& text);

// "4 GiB", "1.5 MiB", "312 bytes".
std::string format_bytes(long double bytes);

// Bytes of one element of `dtype`.
size_t element_size(DType dtype);

// The elements of `shape` (every size >= 0), saturated at UINT64_MAX.
uint64_t element_count(const std::vector<int64_t>& shape);

// nullopt when a tensor of `storage_elements` elements of `dtype_name`
// (`element_bytes` each) is within the limits; otherwise the message:
// "a tensor of 1000000000000000000 elements of float64 (7.3 EiB) is over the
// limit of 4 GiB per tensor (CASEBOOK_MAX_TENSOR_BYTES); ...".
std::optional<std::string> check_tensor_size(uint64_t storage_elements,
                                             size_t element_bytes,
                                             const std::string& dtype_name);

// The same for an output of `elements` elements: nullopt within
// max_output_bytes and max_output_elements; otherwise "an output of
// 1600000000 elements of float32 (6.0 GiB) is over the limit of 4 GiB per
// output (CASEBOOK_MAX_OUTPUT_BYTES). A case needs ...". Asked of a
// stated `outputs` shape when the case loads and of each output in the
// child before it is written (child/execute.cpp): a case over it is the
// case's fault (invalid_case), as an input over the tensor limits is.
std::optional<std::string> check_output_size(uint64_t elements,
                                             size_t element_bytes,
                                             const std::string& dtype_name);

}  // namespace casebook
