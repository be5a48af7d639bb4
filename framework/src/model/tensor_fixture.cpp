// `file` and `sha256`: a fixture inside the `fixtures/` folder beside the
// case file or in the nearest folder above it. Its content (shape, dtype,
// hash) is checked when the tensor is made, not here.
#include <algorithm>
#include <cctype>
#include <string>
#include <system_error>

#include "casebook/confined.h"
#include "model/sections.h"

namespace casebook::model {
namespace fs = std::filesystem;

namespace {

// The checks of the path as written; returns it normalised or nullopt.
std::optional<fs::path> check_path(Reader& reader, const Entry& entry,
                                   const std::string& path,
                                   const std::string& written,
                                   TensorSpec& spec) {
  const size_t hash = written.find('#');
  const fs::path relative = written.substr(0, hash);
  const std::string extension = relative.extension().string();
  const SourceLocation at = reader.where(entry);
  const std::string got = "; got `" + written + "`";
  if (extension != ".npy" && extension != ".safetensors" &&
      extension != ".pt") {
    reader.error(at, path, "expected a .npy, .safetensors or .pt file" + got);
    return std::nullopt;
  }
  if (hash != std::string::npos) {
    spec.file_tensor = written.substr(hash + 1);
    if (extension != ".safetensors" && extension != ".pt") {
      reader.error(at, path,
                   "expected `#tensor` only after a .safetensors or .pt file "
                   "(a dict of tensors)" +
                       got);
      return std::nullopt;
    }
    if (spec.file_tensor.empty()) {
      reader.error(at, path, "expected a tensor name after `#`" + got);
      return std::nullopt;
    }
  }
  if (relative.has_root_path()) {
    reader.error(at, path,
                 "expected a path inside the fixtures folder, not an "
                 "absolute one" +
                     got);
    return std::nullopt;
  }
  fs::path normal = relative.lexically_normal();
  if (normal.empty() || *normal.begin() == "..") {
    reader.error(at, path,
                 "expected a path inside the fixtures folder; `" +
                     relative.generic_string() + "` leaves it");
    return std::nullopt;
  }
  return normal;
}

// The path as the file system resolves it (symbolic links followed, in the
// folders and the file itself) must stay inside the fixtures folder, itself
// resolved (casebook/confined.h): a link in fixtures/ to /etc/passwd or
// ~/.ssh is refused.
void check_confined(Reader& reader, const Entry& entry, const std::string& path,
                    const fs::path& folder, const fs::path& relative,
                    const fs::path& file) {
  if (const auto why = leaves_folder(
          file, folder, "the fixtures folder `" + folder.string() + "`")) {
    reader.error(reader.where(entry), path,
                 "fixture `" + relative.generic_string() + "` " + *why +
                     "; expected a file inside it");
  }
}

bool is_sha256(const std::string& text) {
  return text.size() == 64 &&
         std::all_of(text.begin(), text.end(),
                     [](unsigned char c) { return std::isxdigit(c) != 0; });
}

}  // namespace

void read_fixture(Reader& reader, const Entry& entry, const Entry* sha256,
                  const std::string& path, const fs::path& case_file,
                  TensorSpec& spec) {
  if (sha256 != nullptr) {
    const std::string sha_path = path.substr(0, path.rfind('.') + 1) + "sha256";
    if (auto text = reader.read_string(*sha256, sha_path)) {
      if (is_sha256(*text)) {
        std::transform(text->begin(), text->end(), text->begin(),
                       [](unsigned char c) { return std::tolower(c); });
        spec.sha256 = *text;
      } else {
        reader.error(reader.where(*sha256), sha_path,
                     "expected 64 hexadecimal digits (a sha256); got " +
                         describe(sha256->value));
      }
    }
  }
  const auto written = reader.read_string(entry, path);
  if (!written) return;
  spec.file = *written;
  const auto relative = check_path(reader, entry, path, *written, spec);
  if (!relative) return;
  const auto folder = find_fixtures_folder(case_file);
  if (!folder) {
    fs::path from = case_file.parent_path();
    if (from.empty()) from = ".";
    reader.error(reader.where(entry), path,
                 "no `fixtures` folder beside the case file or above it "
                 "(searched from `" +
                     from.string() + "` upwards)");
    return;
  }
  spec.resolved_file = *folder / *relative;
  std::error_code error;
  if (!fs::is_regular_file(spec.resolved_file, error)) {
    reader.error(reader.where(entry), path,
                 "fixture `" + relative->generic_string() + "` not found in `" +
                     folder->string() + "`");
    return;
  }
  check_confined(reader, entry, path, *folder, *relative, spec.resolved_file);
}

}  // namespace casebook::model
