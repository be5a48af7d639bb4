#include "tensors/fixtures.h"

#include <caffe2/serialize/inline_container.h>
#include <openssl/evp.h>
#include <torch/csrc/jit/serialization/import_read.h>
#include <torch/csrc/jit/serialization/storage_context.h>

#include <cstring>
#include <fstream>
#include <iomanip>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "casebook/limits.h"
#include "tensors/mapped_file.h"
#include "tensors/pt_archive.h"

namespace casebook {
namespace {

// safetensors dtype names, https://github.com/huggingface/safetensors
at::ScalarType safetensors_type(const std::string& name,
                                const std::filesystem::path& file) {
  static const std::pair<const char*, at::ScalarType> kTypes[] = {
      {"BOOL", at::kBool}, {"U8", at::kByte},       {"I8", at::kChar},
      {"I16", at::kShort}, {"I32", at::kInt},       {"I64", at::kLong},
      {"F16", at::kHalf},  {"BF16", at::kBFloat16}, {"F32", at::kFloat},
      {"F64", at::kDouble}};
  for (const auto& [spelling, type] : kTypes) {
    if (name == spelling) return type;
  }
  throw FixtureError(file.string() + ": safetensors dtype '" + name +
                     "' is not supported; expected one of BOOL, U8, I8, I16, "
                     "I32, I64, F16, BF16, F32, F64");
}

struct SafetensorsFile {
  MappedFile mapped;
  nlohmann::json header;
  size_t data_start = 0;
};

SafetensorsFile open_safetensors(const std::filesystem::path& file) {
  SafetensorsFile opened;
  std::string why;
  std::optional<MappedFile> mapped = map_file(file, &why);
  if (!mapped) throw FixtureError(file.string() + ": " + why);
  opened.mapped = std::move(*mapped);
  const unsigned char* bytes = opened.mapped.bytes;
  const size_t size = opened.mapped.size;
  if (size < 8) {
    throw FixtureError(file.string() +
                       ": not a safetensors file (shorter "
                       "than its 8-byte header length)");
  }
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | bytes[i];
  if (length > size - 8) {
    throw FixtureError(file.string() + ": safetensors header length " +
                       std::to_string(length) + " exceeds the file");
  }
  try {
    opened.header = nlohmann::json::parse(bytes + 8, bytes + 8 + length);
  } catch (const nlohmann::json::exception& error) {
    throw FixtureError(file.string() +
                       ": safetensors header is not JSON: " + error.what());
  }
  if (!opened.header.is_object()) {
    throw FixtureError(file.string() + ": safetensors header is not an object");
  }
  opened.data_start = 8 + length;
  return opened;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string joined;
  for (const std::string& name : names) {
    joined += (joined.empty() ? "" : ", ") + name;
  }
  return joined.empty() ? "(none)" : joined;
}

// The tensor `name` of a set, or the only one when `name` is empty.
std::string pick_name(const std::vector<std::string>& names,
                      const std::string& name,
                      const std::filesystem::path& file) {
  if (name.empty()) {
    if (names.size() == 1) return names.front();
    throw FixtureError(file.string() + ": holds " +
                       std::to_string(names.size()) + " tensors (" +
                       join_names(names) + "); name one with `#name`");
  }
  for (const std::string& known : names) {
    if (known == name) return name;
  }
  throw FixtureError(file.string() + ": no tensor named `" + name +
                     "`; it holds " + join_names(names));
}

std::vector<std::string> tensor_names(const SafetensorsFile& opened) {
  std::vector<std::string> names;
  for (const auto& item : opened.header.items()) {
    if (item.key() != "__metadata__") names.push_back(item.key());
  }
  return names;
}

// The one reader of safetensors files: every check, then the tensor over
// the file's mapping (`over_mapping`: read-only, alive as long as the tensor)
// or a copy of it.
at::Tensor load_safetensors(const std::filesystem::path& file,
                            const std::string& name, bool over_mapping) {
  const SafetensorsFile opened = open_safetensors(file);
  const std::string chosen = pick_name(tensor_names(opened), name, file);
  const nlohmann::json& entry = opened.header.at(chosen);
  try {
    const at::ScalarType type =
        safetensors_type(entry.at("dtype").get<std::string>(), file);
    const auto shape = entry.at("shape").get<std::vector<int64_t>>();
    const auto offsets = entry.at("data_offsets").get<std::vector<uint64_t>>();
    check_fixture_shape(file, shape, type);  // sizes >= 0, within the limit
    const uint64_t size = element_count(shape) * c10::elementSize(type);
    const uint64_t room = opened.mapped.size - opened.data_start;
    if (offsets.size() != 2 || offsets[1] < offsets[0] ||
        offsets[1] - offsets[0] != size || offsets[1] > room) {
      throw FixtureError(file.string() + ": tensor `" + chosen +
                         "`: data_offsets " + entry.at("data_offsets").dump() +
                         " do not hold " + std::to_string(size) +
                         " bytes inside the file");
    }
    void* data = const_cast<unsigned char*>(opened.mapped.bytes +
                                            opened.data_start + offsets[0]);
    const at::Tensor tensor = at::from_blob(
        data, shape, [keep = opened.mapped.keep](void*) {},
        at::TensorOptions().dtype(type));
    return over_mapping ? tensor : tensor.clone();
  } catch (const nlohmann::json::exception& error) {
    throw FixtureError(file.string() + ": tensor `" + chosen +
                       "`: malformed header entry " + entry.dump() + ": " +
                       error.what());
  }
}

}  // namespace

void check_fixture_shape(const std::filesystem::path& file,
                         const std::vector<int64_t>& shape,
                         at::ScalarType type) {
  for (const int64_t size : shape) {
    if (size < 0) {
      throw FixtureError(file.string() + ": negative size " +
                         std::to_string(size) + " in the shape");
    }
  }
  if (auto problem = check_tensor_size(
          element_count(shape), c10::elementSize(type), c10::toString(type))) {
    throw FixtureError(file.string() + ": " + *problem);
  }
}

std::vector<char> read_file_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw FixtureError(file.string() + ": cannot open the file");
  return std::vector<char>(std::istreambuf_iterator<char>(in),
                           std::istreambuf_iterator<char>());
}

std::string sha256_file(const std::filesystem::path& file) {
  std::string why;
  const std::optional<MappedFile> mapped = map_file(file, &why);
  if (!mapped) throw FixtureError(file.string() + ": " + why);
  const std::string_view bytes = mapped->view();
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(
      EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_size = 0;
  if (!context ||
      EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1 ||
      EVP_DigestUpdate(context.get(), bytes.data(), bytes.size()) != 1 ||
      EVP_DigestFinal_ex(context.get(), digest, &digest_size) != 1) {
    throw FixtureError(file.string() + ": OpenSSL could not compute sha256");
  }
  std::ostringstream hex;
  for (unsigned int i = 0; i < digest_size; ++i) {
    hex << std::hex << std::setw(2) << std::setfill('0')
        << static_cast<int>(digest[i]);
  }
  return hex.str();
}

std::vector<std::string> safetensors_names(const std::filesystem::path& file) {
  return tensor_names(open_safetensors(file));
}

at::Tensor read_safetensors(const std::filesystem::path& file,
                            const std::string& name) {
  return load_safetensors(file, name, /*over_mapping=*/false);
}

namespace {

// The bytes a view of `tensor` reaches in its storage: offset plus the
// furthest element, times the element size; nullopt for a negative stride
// or an overflow.
std::optional<uint64_t> bytes_reached(const at::Tensor& tensor) {
  if (tensor.numel() == 0) return 0;
  uint64_t last = static_cast<uint64_t>(tensor.storage_offset());
  for (int64_t dim = 0; dim < tensor.dim(); ++dim) {
    const int64_t stride = tensor.stride(dim);
    if (stride < 0) return std::nullopt;
    const uint64_t span = static_cast<uint64_t>(tensor.size(dim) - 1);
    if (stride > 0 && span > (std::numeric_limits<uint64_t>::max() - last) /
                                 static_cast<uint64_t>(stride)) {
      return std::nullopt;
    }
    last += span * static_cast<uint64_t>(stride);
  }
  const uint64_t size = tensor.element_size();
  if (last + 1 > std::numeric_limits<uint64_t>::max() / size) {
    return std::nullopt;
  }
  return (last + 1) * size;
}

void check_tensors(const c10::IValue& value, const std::filesystem::path& file,
                   const std::set<const c10::StorageImpl*>& storages) {
  if (value.isTensor()) {
    const at::Tensor& tensor = value.toTensor();
    if (!tensor.defined()) return;
    if (storages.count(tensor.storage().unsafeGetStorageImpl()) == 0) {
      throw FixtureError(file.string() +
                         ": a tensor whose storage is none of the archive's "
                         "records (resized by its own sizes?)");
    }
    const std::optional<uint64_t> reached = bytes_reached(tensor);
    if (!reached) {
      throw FixtureError(file.string() +
                         ": a tensor with a negative or overflowing stride");
    }
    if (*reached > tensor.storage().nbytes()) {
      throw FixtureError(file.string() + ": a tensor of shape " +
                         c10::str(tensor.sizes()) + " views " +
                         std::to_string(*reached) + " bytes of a storage of " +
                         std::to_string(tensor.storage().nbytes()));
    }
    if (auto problem = check_tensor_size(static_cast<uint64_t>(tensor.numel()),
                                         tensor.element_size(),
                                         c10::toString(tensor.scalar_type()))) {
      throw FixtureError(file.string() + ": " + *problem);
    }
    return;
  }
  if (value.isGenericDict()) {
    for (const auto& item : value.toGenericDict()) {
      check_tensors(item.value(), file, storages);
    }
  } else if (value.isList()) {
    for (const c10::IValue& item : value.toListRef()) {
      check_tensors(item, file, storages);
    }
  } else if (value.isTuple()) {
    for (const c10::IValue& item : value.toTupleRef().elements()) {
      check_tensors(item, file, storages);
    }
  }
}

}  // namespace

c10::IValue load_checked_pt(const std::filesystem::path& file) {
  std::string why;
  const std::optional<MappedFile> mapped = map_file(file, &why);
  if (!mapped) throw FixtureError(file.string() + ": " + why);
  std::map<std::string, uint64_t> record_sizes;
  if (auto problem = pt_archive_problem(mapped->view(), &record_sizes)) {
    throw FixtureError(file.string() +
                       ": not a torch.save file casebook reads: " + *problem);
  }
  // Every storage LibTorch makes goes through this context, keyed by its
  // record: one read per record, and afterwards each storage is compared with
  // the record it came from.
  auto storages = std::make_shared<torch::jit::DeserializationStorageContext>();
  c10::IValue value;
  try {
    caffe2::serialize::PyTorchStreamReader reader(file.string());
    value = torch::jit::readArchiveAndTensors(
        "data", /*pickle_prefix=*/"", /*tensor_prefix=*/"",
        /*type_resolver=*/{}, /*obj_loader=*/{}, /*device=*/{}, reader,
        torch::jit::Unpickler::defaultTypeParser, storages);
  } catch (const c10::Error& error) {
    throw FixtureError(file.string() +
                       ": not a torch.save file LibTorch can read: " +
                       error.what_without_backtrace());
  } catch (const std::bad_alloc&) {
    // pt_archive_problem refuses the claims fuzzing found; this is the
    // last line should LibTorch still allocate more than the run may.
    throw FixtureError(file.string() +
                       ": not a torch.save file LibTorch can read: it claims "
                       "more memory than the run may use");
  } catch (const std::exception& error) {
    throw FixtureError(
        file.string() +
        ": not a torch.save file LibTorch can read: " + error.what());
  }
  std::set<const c10::StorageImpl*> from_records;
  for (const auto& [name, size] : record_sizes) {
    if (name.rfind("data/", 0) != 0) continue;
    const std::string key = name.substr(5);
    if (!storages->hasStorage(key)) continue;
    const c10::Storage storage = storages->getStorage(key);
    if (storage.nbytes() != size) {
      throw FixtureError(file.string() + ": storage `" + key + "` claims " +
                         std::to_string(storage.nbytes()) +
                         " bytes; its record holds " + std::to_string(size));
    }
    from_records.insert(storage.unsafeGetStorageImpl());
  }
  check_tensors(value, file, from_records);
  return value;
}

at::Tensor read_pt(const std::filesystem::path& file, const std::string& name) {
  const c10::IValue value = load_checked_pt(file);
  if (value.isTensor()) {
    if (!name.empty()) {
      throw FixtureError(file.string() +
                         ": holds a single tensor, not a dict "
                         "with `" +
                         name + "`");
    }
    return value.toTensor().contiguous();
  }
  if (!value.isGenericDict()) {
    throw FixtureError(file.string() +
                       ": expected a tensor or a dict of "
                       "tensors, found " +
                       value.tagKind());
  }
  std::vector<std::string> names;
  for (const auto& item : value.toGenericDict()) {
    if (item.key().isString() && item.value().isTensor()) {
      names.push_back(item.key().toStringRef());
    }
  }
  const std::string chosen = pick_name(names, name, file);
  return value.toGenericDict().at(chosen).toTensor().contiguous();
}

at::Tensor read_fixture(const std::filesystem::path& file,
                        const std::string& name,
                        std::optional<at::ScalarType> declared,
                        bool over_mapping) {
  const std::string extension = file.extension().string();
  if (extension == ".npy") {
    if (!name.empty()) {
      throw FixtureError(file.string() +
                         ": a .npy file holds one tensor; "
                         "`#" +
                         name + "` names none");
    }
    return over_mapping ? map_npy(file, declared) : read_npy(file, declared);
  }
  if (extension == ".safetensors") {
    return over_mapping ? map_safetensors(file, name)
                        : read_safetensors(file, name);
  }
  if (extension == ".pt" || extension == ".pth") return read_pt(file, name);
  throw FixtureError(file.string() + ": unknown fixture kind `" + extension +
                     "`; expected .npy, .safetensors or .pt");
}

at::Tensor map_safetensors(const std::filesystem::path& file,
                           const std::string& name) {
  return load_safetensors(file, name, /*over_mapping=*/true);
}

}  // namespace casebook
