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
  // One tensor (its storage, a layout's skipped elements included). Sized for
  // a 24 GiB machine: a case holds each input, its reference (float64 for
  // `reference: cpu64`), the outputs and the evidence at once, about five
  // copies, so one tensor of at most 4 GiB keeps a run within 20 GiB.
  uint64_t max_tensor_elements = uint64_t{1} << 30;
  uint64_t max_tensor_bytes = uint64_t{4} << 30;  // 4 GiB
};

// The limits in force: the defaults above, where set the environment's
// CASEBOOK_MAX_TENSOR_BYTES (bytes, or with a K, M, G or T suffix: 8G) and
// CASEBOOK_MAX_TENSOR_ELEMENTS, read once; or what set_load_limits() set.
const LoadLimits& load_limits();
void set_load_limits(const LoadLimits& limits);

// Parses "4294967296", "4G", "512M", "64K", "1T" (powers of 1024); nullopt for
// anything else (a sign, a fraction, an overflow).
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

}  // namespace casebook
