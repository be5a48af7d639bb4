// Running the real casebook executable (or any shell command) from a test and
// keeping what it printed and its exit status.
#pragma once

#include <stdlib.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace casebook::testing_support {

struct CommandResult {
  int status = -1;     // the exit status; -1 when it did not exit normally
  std::string output;  // stdout and stderr together
};

inline CommandResult run_shell(const std::string& command) {
  CommandResult result;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> chunk{};
  size_t n;
  while ((n = fread(chunk.data(), 1, chunk.size(), pipe)) > 0) {
    result.output.append(chunk.data(), n);
  }
  const int status = pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// `casebook <arguments>`, run from the repository root.
inline CommandResult run_casebook(const std::string& arguments) {
  return run_shell("cd '" + std::string(CASEBOOK_SOURCE_DIR) + "' && '" +
                   CASEBOOK_EXECUTABLE + "' " + arguments);
}

// `casebook <arguments>` run from `folder`, after `prefix` (settings, a
// setpriv), at most 120 s.
inline CommandResult casebook_in(const std::filesystem::path& folder,
                                 const std::string& arguments,
                                 const std::string& prefix = "") {
  return run_shell("cd '" + folder.string() + "' && " + prefix +
                   "timeout 120 '" + CASEBOOK_EXECUTABLE + "' " + arguments);
}

// A fresh folder under the temporary directory, removed with all it holds
// when the test ends.
class TempFolder {
 public:
  TempFolder() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "casebook-test-XXXXXX")
            .string();
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~TempFolder() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// The bytes of a file a command wrote ("" when it cannot be read).
inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Writes `bytes` to `file` as they are, making its folder first.
inline void write_file(const std::filesystem::path& file,
                       const std::string& bytes) {
  if (file.has_parent_path()) {
    std::filesystem::create_directories(file.parent_path());
  }
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
}

// Whether a line of `output` matches `pattern` (^ and $ match at lines).
inline bool has_line(const std::string& output, const std::string& pattern) {
  return std::regex_search(output, std::regex(pattern, std::regex::multiline));
}

// A shell prefix under which casebook cannot allocate more than `gib` GiB.
// `ulimit -v` would do it, but AddressSanitizer reserves terabytes of address
// space at start and cannot run under it; in an ASan build (the hardening
// lane) the same bound is ASan's own largest allocation, and an allocation
// over it fails as it would under the limit (allocator_may_return_null).
inline std::string address_space_limit(int gib) {
#if defined(__SANITIZE_ADDRESS__)
  constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
  constexpr bool kAddressSanitizer = __has_feature(address_sanitizer);
#else
  constexpr bool kAddressSanitizer = false;
#endif
  if (kAddressSanitizer) {
    return "ASAN_OPTIONS=\"${ASAN_OPTIONS:-}:allocator_may_return_null=1:"
           "max_allocation_size_mb=" +
           std::to_string(gib * 1024) + "\" ";
  }
  return "ulimit -v " + std::to_string(gib * 1024 * 1024) + " && ";
}

}  // namespace casebook::testing_support
