#include "casebook/confined.h"

#include <algorithm>
#include <system_error>

namespace casebook {

std::optional<std::string> leaves_folder(const std::filesystem::path& file,
                                         const std::filesystem::path& folder,
                                         const std::string& folder_named) {
  std::error_code error;
  const std::filesystem::path real_folder =
      std::filesystem::canonical(folder, error);
  const std::filesystem::path real_file =
      error ? std::filesystem::path() : std::filesystem::canonical(file, error);
  if (error) return "cannot be resolved (" + error.message() + ")";
  const auto [folder_end, file_at] =
      std::mismatch(real_folder.begin(), real_folder.end(), real_file.begin(),
                    real_file.end());
  if (folder_end == real_folder.end() && file_at != real_file.end()) {
    return std::nullopt;
  }
  return "resolves (through a symbolic link) to `" + real_file.string() +
         "`, outside " + folder_named;
}

}  // namespace casebook
