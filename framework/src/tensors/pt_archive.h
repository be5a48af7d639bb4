// casebook's own reader of torch.save files: bytes in, a checked description
// of the tensors out. Knows no LibTorch: fixtures.cpp makes at::Tensor from
// what this returns, and nothing of a .pt ever reaches LibTorch's archive
// reader or unpickler (two parsers of the same bytes disagree; a crafted file
// made LibTorch crash or hand back the run's heap).
//
// The zip layer is tensors/pt_zip.h. The pickle is read by a restricted
// unpickler in the spirit of torch.load(weights_only=True): only the opcodes
// and globals that a tensor, or a dict, OrderedDict, list or tuple of them,
// needs (torch._utils._rebuild_tensor_v2 and _rebuild_parameter, the storage
// classes, collections.OrderedDict, the dtypes, TorchScript's type tags and
// specialised lists), storages by persistent id, every limit below enforced
// as it reads, and every view checked against its storage in overflow-safe
// 64-bit arithmetic before anyone may make a tensor of it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tensors/pt_zip.h"

namespace casebook {

// What the reader allows (docs/case-format.md, "Limits").
struct PtLimits {
  static constexpr uint64_t kMaxPickleBytes = uint64_t{64} << 20;  // data.pkl
  static constexpr int kMaxDepth = 64;             // nesting of containers
  static constexpr uint64_t kMaxValues = 500'000;  // made while unpickling
  static constexpr uint64_t kMaxMemo = 500'000;    // memo entries
  static constexpr uint64_t kMaxResult = 100'000;  // in the result, expanded
  static constexpr uint64_t kMaxString = 1 << 16;  // bytes of one string
  static constexpr int kMaxDims = 64;              // of one tensor
};

// A storage class's element type, as torch.save names it (torch.FloatStorage).
enum class PtDtype {
  kFloat32,
  kFloat64,
  kFloat16,
  kBFloat16,
  kInt64,
  kInt32,
  kInt16,
  kInt8,
  kUInt8,
  kBool,
  kComplex64,
  kComplex128
};
size_t pt_dtype_size(PtDtype dtype);
std::string pt_dtype_name(PtDtype dtype);  // "float32"

// One storage: a record's bytes, exactly.
struct PtStorage {
  std::string key;  // the record `<archive>/data/<key>`
  PtDtype dtype = PtDtype::kFloat32;
  uint64_t elements = 0;
  std::string_view bytes;  // elements × dtype size bytes of the archive
};

// One view of a storage, checked: offset, sizes and strides none negative,
// the furthest element inside the storage, the element count within
// load_limits().
struct PtTensor {
  size_t storage = 0;  // into PtContents::storages
  int64_t offset = 0;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
};

// What the pickle holds, expanded into a tree (no cycles, at most
// kMaxResult values, at most kMaxDepth deep).
struct PtValue {
  enum class Kind {
    kNone,
    kBool,
    kInt,
    kFloat,
    kString,
    kDtype,
    kTensor,
    kList,
    kTuple,
    kDict
  };
  Kind kind = Kind::kNone;
  int64_t integer = 0;  // kBool, kInt; kTensor: into PtContents::tensors
  double real = 0;
  std::string text;            // kString; kDtype: its name (torch.float32)
  std::vector<PtValue> items;  // kList, kTuple; kDict: key, value, key, ...
};

struct PtContents {
  PtValue root;
  std::vector<PtTensor> tensors;
  std::vector<PtStorage> storages;
};

// What is wrong with `tensor` as a view of `storage` (a negative offset,
// size or stride, even where another size is 0; strides whose reach
// overflows 64 bits; an element past the storage; more elements than
// load_limits() allow), or nullopt.
std::optional<std::string> pt_view_problem(const PtTensor& tensor,
                                           const PtStorage& storage);

// Reads `bytes` as a torch.save file; throws PtRefusal saying what is wrong
// (a legacy tar or pickle .pt, big-endian data, a zip or pickle that breaks
// a rule above). The views in the result point into `bytes`.
PtContents read_pt_contents(std::string_view bytes);

// Unpickles `pickle` (a data.pkl) against `storage_records` (the bytes of
// each `<archive>/data/<key>` record, by key); read_pt_contents's second
// half (tensors/pt_pickle.cpp).
PtContents unpickle_pt(
    std::string_view pickle,
    const std::map<std::string, std::string_view>& storage_records);

}  // namespace casebook
