#include "tensors/fixtures.h"

#include <openssl/evp.h>

#include <cstring>
#include <iomanip>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "casebook/joined.h"
#include "casebook/limits.h"
#include "tensors/mapped_file.h"

namespace casebook {
namespace {

std::string names_or_none(const std::vector<std::string>& names) {
  return names.empty() ? "(none)" : joined(names);
}

}  // namespace

std::string pick_tensor_name(const std::vector<std::string>& names,
                             const std::string& name,
                             const std::filesystem::path& file) {
  if (name.empty()) {
    if (names.size() == 1) return names.front();
    throw FixtureError(file.string() + ": holds " +
                       std::to_string(names.size()) + " tensors (" +
                       names_or_none(names) + "); name one with `#name`");
  }
  for (const std::string& known : names) {
    if (known == name) return name;
  }
  throw FixtureError(file.string() + ": no tensor named `" + name +
                     "`; it holds " + names_or_none(names));
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
