// write_capture: a case file and its fixtures, streamed, hashed on the way,
// published with link() so that nothing is ever replaced.
#include "capture/capture.h"

#include <ATen/ATen.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <torch/version.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "casebook/case_writer.h"
#include "casebook/gpu_stack.h"
#include "casebook/loader.h"
#include "casebook/printable.h"
#include "casebook_build_config.h"
#include "files/file_writer.h"
#include "model/arg_text.h"
#include "tensors/fixtures.h"
#include "tensors/layout.h"
#include "tensors/materialise.h"
#include "tensors/values_text.h"

namespace casebook {
namespace fs = std::filesystem;
namespace {

constexpr size_t kChunkBytes = size_t{4} << 20;

class Sha256 {
 public:
  Sha256() : context_(EVP_MD_CTX_new(), &EVP_MD_CTX_free) {
    if (!context_ ||
        EVP_DigestInit_ex(context_.get(), EVP_sha256(), nullptr) != 1) {
      throw CaptureError("OpenSSL could not start a sha256");
    }
  }
  void update(const void* data, size_t size) {
    EVP_DigestUpdate(context_.get(), data, size);
  }
  std::string hex() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    EVP_DigestFinal_ex(context_.get(), digest, &size);
    std::ostringstream text;
    for (unsigned int i = 0; i < size; ++i) {
      text << std::hex << std::setw(2) << std::setfill('0')
           << static_cast<int>(digest[i]);
    }
    return text.str();
  }

 private:
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context_;
};

// The sha256 of a file, read in chunks (a fixture may be large).
std::string sha256_streamed(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw CaptureError(file.string() + ": cannot read it");
  Sha256 sha;
  std::vector<char> buffer(kChunkBytes);
  for (;;) {
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    sha.update(buffer.data(), static_cast<size_t>(got));
  }
  ::close(fd);
  return sha.hex();
}

// A temporary file beside `final`, created exclusively; removed unless
// published.
bool inline_values(const at::Tensor& tensor) {
  return tensor.numel() <= kInlineLimit;
}

// The tensor's logical values, C order, into `file` and `sha`, a chunk at a
// time: a non-contiguous tensor is never copied whole.
void stream_values(const at::Tensor& tensor, FileBeingWritten& file,
                   Sha256& sha) {
  auto put = [&](const at::Tensor& chunk) {
    const size_t size = chunk.numel() * chunk.element_size();
    const char* data = static_cast<const char*>(chunk.data_ptr());
    for (size_t done = 0; done < size; done += kChunkBytes) {
      const size_t count = std::min(kChunkBytes, size - done);
      file.write(std::string_view(data + done, count));
      sha.update(data + done, count);
    }
  };
  if (tensor.is_contiguous() || tensor.dim() == 0) {
    put(tensor.contiguous());
    return;
  }
  const int64_t row_bytes = std::max<int64_t>(
      1, tensor.numel() / std::max<int64_t>(1, tensor.size(0)) *
             tensor.element_size());
  const int64_t rows =
      std::max<int64_t>(1, static_cast<int64_t>(kChunkBytes) / row_bytes);
  for (int64_t start = 0; start < tensor.size(0); start += rows) {
    put(tensor.narrow(0, start, std::min(rows, tensor.size(0) - start))
            .contiguous());
  }
}

// The strides of a non-contiguous tensor as its `layout`; the default for
// a contiguous one, and for one whose strides a case cannot state
// (overlapping, negative: a note says so; its values are kept).
Layout captured_layout(const std::string& name, const at::Tensor& tensor,
                       std::vector<std::string>* notes) {
  if (tensor.is_contiguous() || tensor.numel() <= 1) return {};
  Layout layout;
  layout.kind = Layout::Kind::kStrided;
  layout.stride.assign(tensor.strides().begin(), tensor.strides().end());
  layout.storage_offset = tensor.storage_offset();
  try {
    layout_geometry(layout, {tensor.sizes().begin(), tensor.sizes().end()});
  } catch (const std::invalid_argument& refused) {
    notes->push_back("tensor `" + name + "`: layout not kept (" +
                     refused.what() + ")");
    return {};
  }
  return layout;
}

// One captured tensor as the case's input: its values inline when small,
// else a fixture (written, or one of the same bytes shared), with its
// layout.
TensorSpec captured_input(const CapturedTensor& captured,
                          const fs::path& fixture_folder,
                          const std::string& folder_name,
                          CaptureResult* result) {
  const at::Tensor tensor =
      captured.tensor.is_cpu() ? captured.tensor : captured.tensor.to(at::kCPU);
  TensorSpec spec;
  if (inline_values(tensor)) {
    spec = values_spec(captured.name, tensor);
  } else {
    const fs::path fixture = write_fixture(tensor, fixture_folder);
    result->fixtures.push_back(fixture);
    spec.name = captured.name;
    spec.dtype = *to_dtype(tensor.scalar_type());
    spec.shape.assign(tensor.sizes().begin(), tensor.sizes().end());
    spec.source = TensorSpec::Source::kFile;
    spec.sha256 = fixture.stem().string();
    spec.file = folder_name + "/" + spec.sha256 + ".npy";
  }
  spec.layout = captured_layout(captured.name, tensor, &result->notes);
  return spec;
}

// The index of the earlier tensor of `tensors` that tensors[k] is, as
// PyTorch passes one tensor twice (`out=x`): the same data, sizes, strides,
// offset and dtype on the same device; nullopt for a tensor of its own.
std::optional<size_t> same_tensor_before(
    const std::vector<CapturedTensor>& tensors, size_t k) {
  const at::Tensor& tensor = tensors[k].tensor;
  if (!tensor.defined() || tensor.data_ptr() == nullptr) return std::nullopt;
  for (size_t i = 0; i < k; ++i) {
    const at::Tensor& other = tensors[i].tensor;
    if (other.defined() && other.data_ptr() == tensor.data_ptr() &&
        other.sizes() == tensor.sizes() &&
        other.strides() == tensor.strides() &&
        other.storage_offset() == tensor.storage_offset() &&
        other.scalar_type() == tensor.scalar_type() &&
        other.device() == tensor.device()) {
      return i;
    }
  }
  return std::nullopt;
}

// The request's tensors as the case's inputs (captured_input), one that is
// an earlier one written `{same_as: NAME}`, with no values or file of its
// own.
std::vector<TensorSpec> captured_inputs(const CaptureRequest& request,
                                        const fs::path& fixture_folder,
                                        CaptureResult* result) {
  std::vector<TensorSpec> inputs;
  for (size_t k = 0; k < request.tensors.size(); ++k) {
    const CapturedTensor& captured = request.tensors[k];
    if (const auto same = same_tensor_before(request.tensors, k)) {
      TensorSpec alias;
      alias.name = captured.name;
      alias.same_as = request.tensors[*same].name;
      inputs.push_back(std::move(alias));
      continue;
    }
    inputs.push_back(captured_input(captured, fixture_folder,
                                    op_folder(request.op), result));
  }
  follow_aliases(inputs);
  return inputs;
}

// `--arg` values, each read as a case's `args` entry is.
std::map<std::string, ArgValue> captured_args(
    const std::vector<std::pair<std::string, std::string>>& given) {
  std::map<std::string, ArgValue> args;
  for (const auto& [key, text] : given) {
    std::string error;
    auto value = model::read_arg_text(key, text, &error);
    if (!value) {
      throw CaptureError("capture: --arg `" + key + "=" + text + "`: " + error);
    }
    args[key] = *value;
  }
  return args;
}

// The most of one origin text a captured case keeps: well under the
// loader's limit of a scalar (4096 bytes), quoting and escapes included.
constexpr size_t kOriginValueBytes = 1024;

bool plain_key(const std::string& key) {
  if (key.empty()) return false;
  for (char c : key) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

const std::set<std::string>& origin_keys() {
  static const std::set<std::string> kKeys = {
      "first_error", "iteration", "last_completed_step", "revision", "versions",
      "backend",     "data",      "distinguishing",      "cause",    "change",
      "control"};
  return kKeys;
}

// The captured case's origin: what was detected, then what was given (a
// given value wins, in the detected one's place), each value made printable
// and bounded first (the failing program's own words: an ANSI colour, a byte
// that is not UTF-8, a long traceback), so that the case written always
// loads.
Origin captured_origin(
    const std::vector<std::pair<std::string, std::string>>& detected,
    const std::vector<std::pair<std::string, std::string>>& given) {
  Origin origin;
  auto put = [&origin](const std::pair<std::string, std::string>& entry) {
    const std::string value =
        bounded_text(printable_line(entry.second), kOriginValueBytes);
    for (auto& existing : origin.entries) {
      if (existing.first == entry.first) {
        existing.second = value;
        return;
      }
    }
    origin.entries.emplace_back(entry.first, value);
  };
  for (const auto& entry : detected) put(entry);
  for (const auto& entry : given) put(entry);
  return origin;
}

// ROCm keeps PyTorch's `cuda` names for AMD GPUs: a `cuda` backend seen
// with a ROCm PyTorch (origin `versions.hip`, the Recorder's
// torch.version.hip) or by this program's ROCm LibTorch is casebook's hip.
void name_rocm_gpu_hip(Origin* origin) {
  bool rocm = std::string_view(CASEBOOK_TORCH_FLAVOUR) == "rocm";
  for (const auto& [key, value] : origin->entries) {
    if (key == "versions.hip" && !value.empty()) rocm = true;
  }
  for (auto& [key, value] : origin->entries) {
    if (key != "backend") continue;
    if (auto backend = backend_of_torch_device(value, rocm)) {
      value = std::string(backend_name(*backend));
    }
  }
}

// Each tensor: a distinct plain name, defined, of a dtype casebook has.
void check_tensors(const std::vector<CapturedTensor>& tensors) {
  if (tensors.empty()) throw CaptureError("capture: no --tensor given");
  std::set<std::string> names;
  for (const CapturedTensor& captured : tensors) {
    if (!plain_key(captured.name) || !names.insert(captured.name).second) {
      throw CaptureError("capture: tensor name `" + captured.name +
                         "`: expected a distinct name of letters, digits "
                         "and _");
    }
    if (!captured.tensor.defined()) {
      throw CaptureError("capture: tensor `" + captured.name +
                         "` is undefined");
    }
    if (!to_dtype(captured.tensor.scalar_type())) {
      throw CaptureError("capture: tensor `" + captured.name + "`: dtype " +
                         c10::toString(captured.tensor.scalar_type()) +
                         " is not one casebook supports");
    }
  }
}

// Each --origin key: one of the dossier's, or versions.NAME / data.NAME.
void check_origin(
    const std::vector<std::pair<std::string, std::string>>& origin) {
  for (const auto& entry : origin) {
    const std::string& key = entry.first;
    const std::string top = key.substr(0, key.find('.'));
    const bool group = key.find('.') != std::string::npos;
    if (!origin_keys().count(top) ||
        (group && top != "versions" && top != "data") ||
        (group && !plain_key(key.substr(key.find('.') + 1)))) {
      std::string known;
      for (const std::string& k : origin_keys()) known += " " + k;
      throw CaptureError("capture: --origin `" + key + "`: expected one of" +
                         known +
                         " (versions.NAME and data.NAME for their keys)");
    }
  }
}

void check_request(const CaptureRequest& request) {
  if (request.op.empty()) throw CaptureError("capture: no --op given");
  const std::string& name = request.name;
  // One file name in its op's folder (files/file_writer.h's rules; a
  // newline or ESC would forge or paint a line where it is echoed).
  std::string problem = name_problem(name, false);
  if (problem.empty() && name[0] == '.') problem = "a hidden file";
  if (!problem.empty()) {
    throw CaptureError("capture: --name `" + printable_line(name) +
                       "`: " + problem +
                       " (expected a file name: no `/`, not starting "
                       "with `.`)");
  }
  check_tensors(request.tensors);
  for (const auto& [key, value] : request.args) {
    if (!plain_key(key) || value.empty()) {
      throw CaptureError("capture: --arg `" + key + "=" + value +
                         "`: expected KEY=VALUE");
    }
  }
  check_origin(request.origin);
}

fs::path fixtures_folder(const CaptureRequest& request,
                         const fs::path& case_folder) {
  if (!request.fixtures.empty()) return request.fixtures;
  if (auto found = find_fixtures_folder(case_folder / "probe.yaml")) {
    return *found;
  }
  fs::path cases = fs::absolute(request.cases).lexically_normal();
  if (cases.filename().empty()) cases = cases.parent_path();  // `cases/`
  return cases.parent_path() / "fixtures";
}

std::string first_line_of_file(const char* file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

fs::path write_fixture(const at::Tensor& tensor, const fs::path& folder) {
  const OpenFolder open = OpenFolder::open(folder, true);
  static std::atomic<unsigned> counter{0};
  // A name of its own until its digest is known (files/file_writer.h).
  FileBeingWritten file(open, ".capture-" + std::to_string(::getpid()) + "-" +
                                  std::to_string(counter++));
  Sha256 sha;
  std::vector<int64_t> shape(tensor.sizes().begin(), tensor.sizes().end());
  const std::string header = npy_header(tensor.scalar_type(), shape);
  file.write(header);
  sha.update(header.data(), header.size());
  stream_values(tensor, file, sha);
  const std::string digest = sha.hex();
  const fs::path fixture = folder / (digest + ".npy");
  if (!file.try_commit_as(digest + ".npy", OnExisting::kRefuse)) {
    const std::string existing = sha256_streamed(fixture);
    if (existing != digest) {
      throw CaptureError(fixture.string() +
                         ": a fixture of that name already exists with "
                         "other bytes (sha256 " +
                         existing + ", this tensor's " + digest + ")");
    }
  }
  return fixture;
}

std::string op_folder(const std::string& op) {
  for (const char* prefix : {"torch.", "aten::"}) {
    if (op.rfind(prefix, 0) == 0) return op.substr(std::strlen(prefix));
  }
  std::string folder = op;
  const size_t dot = folder.find('.');
  if (dot != std::string::npos) folder[dot] = '/';
  return folder;
}

std::vector<std::pair<std::string, std::string>> detected_origin(
    bool libtorch_of_failure) {
  std::vector<std::pair<std::string, std::string>> origin;
  std::array<char, 128> line{};
  std::string revision;
  if (FILE* pipe = ::popen("git rev-parse --short=12 HEAD 2>/dev/null", "r")) {
    while (std::fgets(line.data(), line.size(), pipe) != nullptr) {
      revision += line.data();
    }
    if (::pclose(pipe) != 0) revision.clear();
  }
  while (!revision.empty() &&
         std::isspace(static_cast<unsigned char>(revision.back()))) {
    revision.pop_back();
  }
  if (!revision.empty()) origin.emplace_back("revision", revision);
  if (libtorch_of_failure) origin.emplace_back("versions.torch", TORCH_VERSION);
  // The GPU driver, from the kernel module (no CUDA or HIP call: this
  // process may fork a runner later, and a recorder's host owns its GPU).
  const std::string nvidia = first_line_of_file("/proc/driver/nvidia/version");
  const size_t module = nvidia.find("Kernel Module");
  if (module != std::string::npos) {
    std::istringstream words(nvidia.substr(module + 13));
    std::string version;
    if (words >> version) origin.emplace_back("versions.driver", version);
  } else {
    const std::string amdgpu = first_line_of_file("/sys/module/amdgpu/version");
    if (!amdgpu.empty()) origin.emplace_back("versions.driver", amdgpu);
  }
  return origin;
}

CaptureResult write_capture(const CaptureRequest& request) {
  check_request(request);
  // Read before anything is created: a bad `--arg` leaves nothing behind.
  std::map<std::string, ArgValue> args = captured_args(request.args);
  const fs::path case_folder = request.cases / op_folder(request.op);
  const OpenFolder cases = OpenFolder::open(case_folder, true);
  CaptureResult result;
  result.case_file = case_folder / (request.name + ".yaml");
  if (exists_in(cases, request.name + ".yaml")) {
    throw CaptureError(result.case_file.string() +
                       ": a case of that name already exists; choose "
                       "another --name");
  }
  const fs::path fixtures = fixtures_folder(request, case_folder);
  const fs::path fixture_folder = fixtures / op_folder(request.op);

  Case kase;
  kase.summary = request.summary.empty()
                     ? "captured " + request.op + " failure " + request.name
                     : request.summary;
  kase.op = request.op;
  kase.args = std::move(args);
  kase.backends = built_in_backends();
  std::string device = "cpu";
  for (const CapturedTensor& captured : request.tensors) {
    if (!captured.tensor.is_cpu()) {
      device = c10::DeviceTypeName(captured.tensor.device().type(), true);
    }
  }
  kase.inputs = captured_inputs(request, fixture_folder, &result);
  auto detected = detected_origin(request.libtorch_of_failure);
  detected.emplace_back("backend", device);
  kase.origin = captured_origin(detected, request.origin);
  name_rocm_gpu_hip(&kase.origin);
  std::string text = case_to_yaml(kase);
  if (auto modeline = schema_modeline(result.case_file)) {
    text = *modeline + "\n" + text;
  }

  // Another capture of the same name at once: it finishes first, and this
  // one is refused as written meanwhile, below.
  FileBeingWritten file(cases, request.name + ".yaml",
                        std::chrono::milliseconds(2000));
  file.write(text);
  if (!file.try_commit_as(request.name + ".yaml", OnExisting::kRefuse)) {
    throw CaptureError(result.case_file.string() +
                       ": a case of that name already exists (written "
                       "meanwhile); choose another --name");
  }
  return result;
}

}  // namespace casebook
