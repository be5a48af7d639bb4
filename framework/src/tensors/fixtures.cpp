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
#include <set>
#include <sstream>

#include "casebook/limits.h"
#include "tensors/mapped_file.h"
#include "tensors/pt_archive.h"

namespace casebook {
namespace {

std::string join_names(const std::vector<std::string>& names) {
  std::string joined;
  for (const std::string& name : names) {
    joined += (joined.empty() ? "" : ", ") + name;
  }
  return joined.empty() ? "(none)" : joined;
}

}  // namespace

std::string pick_tensor_name(const std::vector<std::string>& names,
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
  const std::string chosen = pick_tensor_name(names, name, file);
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

}  // namespace casebook
