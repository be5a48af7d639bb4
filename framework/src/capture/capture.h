// Capture: tensors as people save them (or as a program holds them) into a
// case file and content-named fixtures, written atomically, never
// overwriting anything. It builds the case (casebook/case.h) and writes it
// with casebook's one case-text writer (case_to_yaml), so that a captured
// case reads as any case casebook writes.
#pragma once

#include <ATen/core/Tensor.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace casebook {

// A capture that cannot be made: bad input, or a file that already exists.
// The message names the file and what was found.
class CaptureError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A tensor that is an earlier one of the request (the same data, sizes,
// strides, offset and dtype on the same device: `out=x`) is written
// `{same_as: NAME}`, the earlier one's name.
struct CapturedTensor {
  std::string name;   // the op's argument name (`input`, `target`)
  at::Tensor tensor;  // any strides; a CUDA tensor is copied to the CPU
};

struct CaptureRequest {
  std::string op;    // `torch.cross_entropy`, `aten::add.Tensor`, ...
  std::string name;  // the case's file name, without .yaml
  std::filesystem::path cases = "cases";
  // Empty: the nearest `fixtures/` folder above <cases>/<op>/ (the one the
  // loader will look in), else <cases>/../fixtures, created.
  std::filesystem::path fixtures;
  std::string summary;  // empty: "captured <op> failure <name>"
  // `args`: key and YAML text (`mean`, `-100`, `[0, 1]`, JSON too), read as
  // a case file's `args` entry is (an error names the `--arg`).
  std::vector<std::pair<std::string, std::string>> args;
  std::vector<CapturedTensor> tensors;
  // `origin`: key (`iteration`, `versions.cuda`, `data.id`) and value; these
  // win over what is detected (versions.torch, revision, backend).
  std::vector<std::pair<std::string, std::string>> origin;
  // The tensors come from this process's LibTorch (casebook::Recorder), so
  // its version is the one that hit the failure: versions.torch. Saved
  // files (`casebook capture`) do not say which PyTorch wrote them (a .pt
  // records its format, not its writer): versions.torch is then only what
  // `origin` gives (the Python Recorder: its torch.__version__).
  bool libtorch_of_failure = false;
};

struct CaptureResult {
  std::filesystem::path case_file;
  std::vector<std::filesystem::path> fixtures;  // written or already there
  std::vector<std::string> notes;  // what could not be kept (a layout)
};

// Tensors of at most this many elements, of any dtype, are written inline as
// `values` (floating ones in text that reads back bit for bit), so that the
// neighbour rules can vary them (`dtypes`, `lengths`, `label_limits`);
// larger ones go to a fixture. 64: a 16 x 4 batch of logits, the labels of
// a batch of 64.
constexpr int64_t kInlineLimit = 64;

// Writes <cases>/<op without torch.>/<name>.yaml and its fixtures
// (<fixtures>/<op folder>/<sha256>.npy). Every tensor is checked first; a
// fixture is streamed to a temporary file while hashed, then linked to its
// name (an existing fixture of that name with other bytes is an error; with
// the same bytes it is shared); the case file is written the same way and
// never replaces one. On an error nothing it created is left behind.
CaptureResult write_capture(const CaptureRequest& request);

// The tensor's logical values as the fixture <folder>/<sha256>.npy (the
// folder made), streamed while hashed; an existing fixture of that name
// must hold the same bytes (then it is shared): its path. Throws
// CaptureError, WriteError.
std::filesystem::path write_fixture(const at::Tensor& tensor,
                                    const std::filesystem::path& folder);

// The folder of a case for `op`: `torch.cross_entropy` -> `cross_entropy`,
// `aten::add.Tensor` -> `add.Tensor`, `kernels.sum` -> `kernels/sum`.
std::string op_folder(const std::string& op);

// origin detected here: revision (git of the current folder, if any), the
// GPU driver, and versions.torch (this process's LibTorch) where
// `libtorch_of_failure`.
std::vector<std::pair<std::string, std::string>> detected_origin(
    bool libtorch_of_failure);

// The tensor `key` of a saved file, as saved (strides kept where the format
// keeps them: .pt): `.pt`/`.pth` (torch.save of a tensor, a dict or a list of
// tensors; `key` a dict key, `outer.inner` in a nested dict, or a list
// index; without `key`, a dict's only tensor; each storage read once),
// `.npy` and `.safetensors` (mapped): one copy in memory. Throws
// CaptureError naming the file and what was found.
at::Tensor read_saved_tensor(const std::filesystem::path& file,
                             const std::string& key);

// `NAME=FILE[#KEY]` into its parts; throws CaptureError.
struct TensorArgument {
  std::string name;
  std::filesystem::path file;
  std::string key;
};
TensorArgument parse_tensor_argument(const std::string& text);

}  // namespace casebook
