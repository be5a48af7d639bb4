// Fixture files: tensors a case reads from `fixtures/` rather than writing
// them out, and the .npy files casebook writes as evidence.
//
// Every reader returns a contiguous CPU tensor and throws FixtureError naming
// the file and what was expected versus found.
#pragma once

#include <ATen/ATen.h>

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "files/file_writer.h"

namespace casebook {

class FixtureError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// NumPy .npy, format versions 1, 2 and 3, little-endian, C or Fortran order;
// bool, uint8, int8, int16, int32, int64, float16, float32, float64.
// NumPy itself has no bfloat16: an array of ml_dtypes' bfloat16 is saved with
// the descr '<V2' (two raw bytes), which plain NumPy loads as void. Such a
// file (also '|V2', and the descr 'bfloat16') is read as bfloat16 when
// `declared` says bfloat16 (the case's dtype) or when its sidecar
// `<file>.json` ({"dtype": "bfloat16"}) does; otherwise it is refused with
// what to add. The sidecar, read only for such a file, follows the fixtures'
// rule of links (casebook/confined.h) within the .npy's folder, holds at most
// 4 KiB, and a refusal quotes no more of it than a short printable excerpt.
at::Tensor read_npy(const std::filesystem::path& file,
                    std::optional<at::ScalarType> declared = std::nullopt);
// bfloat16 is written as '<V2' (what ml_dtypes writes, what plain NumPy
// loads) with the sidecar `<file>.json` recording the dtype and how to view
// the bits; a stale sidecar of another dtype is removed. Written as every
// file casebook writes (files/file_writer.h): no link followed, renamed into
// place; `existing` says whether a file already there is replaced. Throws
// WriteError.
void write_npy_in(const OpenFolder& folder, const std::string& name,
                  const at::Tensor& tensor,
                  OnExisting existing = OnExisting::kReplace);
void write_npy(const std::filesystem::path& file, const at::Tensor& tensor,
               OnExisting existing = OnExisting::kReplace);
// The sidecar of a .npy file: `<file>.json`.
std::filesystem::path npy_sidecar(const std::filesystem::path& file);
// The bytes of a .npy file before its data, for a C-order `shape` of `type`
// (what write_npy writes first).
std::string npy_header(at::ScalarType type, const std::vector<int64_t>& shape);
// read_npy without the copy: a tensor over a read-only private mapping of the
// file, alive as long as the tensor (Fortran order: a contiguous copy).
at::Tensor map_npy(const std::filesystem::path& file,
                   std::optional<at::ScalarType> declared = std::nullopt);

// `name` when `names` holds it, else the only name when `name` is empty;
// throws FixtureError naming the file and what it holds otherwise.
std::string pick_tensor_name(const std::vector<std::string>& names,
                             const std::string& name,
                             const std::filesystem::path& file);

// safetensors (tensors/safetensors.cpp): the tensor `name`, or the only
// tensor when `name` is empty. The whole header is checked first, as the
// format's own reader does: no key twice in one map (two tensors of one name,
// a tensor's dtype given twice), every entry a known dtype,
// a shape of non-negative integers and two integer data_offsets holding
// exactly its bytes, and the entries tiling the data with no overlap and no
// hole, the last ending at the end of the file.
at::Tensor read_safetensors(const std::filesystem::path& file,
                            const std::string& name);
std::vector<std::string> safetensors_names(const std::filesystem::path& file);
// read_safetensors without the copy: a tensor over a read-only private
// mapping of the file, alive as long as the tensor.
at::Tensor map_safetensors(const std::filesystem::path& file,
                           const std::string& name);

// A .pt written by Python's torch.save (or torch::jit::pickle_save): a single
// tensor, or a dict of them, from which `name` is taken (the only tensor
// when `name` is empty).
at::Tensor read_pt(const std::filesystem::path& file, const std::string& name);

// What a .pt holds, read by casebook's own reader (tensors/pt_archive.h,
// tensors/pt_fixture.cpp), never by LibTorch's archive reader or unpickler:
// a strict zip, a restricted unpickler (tensors, dicts, lists, tuples), each
// storage exactly its record's bytes (copied once), each view checked
// against its storage before it is made. Throws FixtureError naming the file
// and what is wrong otherwise (a legacy format, big-endian data included).
c10::IValue load_checked_pt(const std::filesystem::path& file);

// By extension: .npy, .safetensors, .pt / .pth.
// `declared`: the dtype the case gives, for files whose dtype is not
// self-describing (.npy '<V2').
// `over_mapping`: a read-only tensor over the file's mapping where the
// format allows (.npy in C order, .safetensors), for a reader that only
// looks (expected values); else a tensor of its own.
at::Tensor read_fixture(const std::filesystem::path& file,
                        const std::string& name,
                        std::optional<at::ScalarType> declared = std::nullopt,
                        bool over_mapping = false);

// Throws FixtureError unless a tensor of `shape` (from a file's header) and
// `type` is within load_limits(): called before anything is allocated.
void check_fixture_shape(const std::filesystem::path& file,
                         const std::vector<int64_t>& shape,
                         at::ScalarType type);

// The sha256 of a file's bytes, lower-case hex.
std::string sha256_file(const std::filesystem::path& file);

}  // namespace casebook
