// Fixture files: tensors a case reads from `fixtures/` rather than writing
// them out, and the .npy files casebook writes as evidence.
//
// Every reader returns a contiguous CPU tensor and throws FixtureError naming
// the file and what was expected versus found.
#pragma once

#include <ATen/ATen.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace casebook {

class FixtureError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// NumPy .npy, format versions 1, 2 and 3, little-endian, C or Fortran order;
// bool, uint8, int8, int16, int32, int64, float16, float32, float64, and
// bfloat16 written with the descr 'bfloat16' (what ml_dtypes registers with
// NumPy; NumPy itself has no bfloat16).
at::Tensor read_npy(const std::filesystem::path& file);
void write_npy(const std::filesystem::path& file, const at::Tensor& tensor);
// The bytes of a .npy file before its data, for a C-order `shape` of `type`
// (what write_npy writes first).
std::string npy_header(at::ScalarType type, const std::vector<int64_t>& shape);
// read_npy without the copy: a tensor over a read-only private mapping of the
// file, alive as long as the tensor (Fortran order: a contiguous copy).
at::Tensor map_npy(const std::filesystem::path& file);

// safetensors: the tensor `name`, or the only tensor when `name` is empty.
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

// By extension: .npy, .safetensors, .pt / .pth.
at::Tensor read_fixture(const std::filesystem::path& file,
                        const std::string& name);

// The sha256 of a file's bytes, lower-case hex.
std::string sha256_file(const std::filesystem::path& file);

// A whole file's bytes; throws FixtureError when it cannot be read.
std::vector<char> read_file_bytes(const std::filesystem::path& file);

}  // namespace casebook
