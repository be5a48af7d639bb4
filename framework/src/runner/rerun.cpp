#include "runner/rerun.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "casebook/printable.h"

namespace casebook {
namespace {

// A relative path that starts with `-` would be read as an option.
std::string path_word(const std::filesystem::path& file) {
  const std::string text = file.string();
  if (!text.empty() && text[0] == '-') return shell_word("./" + text);
  return shell_word(text);
}

namespace fs = std::filesystem;

// Whether `casebook` as a command (the first on $PATH) is `exe`.
bool first_on_path(const fs::path& exe) {
  const char* path = std::getenv("PATH");
  std::string rest = path != nullptr ? path : "";
  while (!rest.empty()) {
    const size_t colon = rest.find(':');
    const std::string folder = rest.substr(0, colon);
    rest = colon == std::string::npos ? "" : rest.substr(colon + 1);
    std::error_code error;
    const fs::path candidate =
        fs::path(folder.empty() ? "." : folder) / "casebook";
    if (fs::exists(candidate, error))
      return fs::equivalent(candidate, exe, error);
  }
  return false;
}

// The executable as a person reruns it: `casebook` when that is the one on
// $PATH, else relative to the folder the run started in when it lies
// below it, else its absolute path (never a CI machine's path where a
// shorter one names it).
std::string executable() {
  static const std::string shown = [] {
    std::error_code error;
    const fs::path exe = fs::read_symlink("/proc/self/exe", error);
    if (error || exe.filename() != "casebook" || first_on_path(exe)) {
      return std::string("casebook");
    }
    const fs::path relative = exe.lexically_proximate(fs::current_path(error));
    if (!error && !relative.empty() && *relative.begin() != "..") {
      return relative.has_parent_path() ? relative.string()
                                        : "./" + relative.string();
    }
    return exe.string();
  }();
  return shown;
}

}  // namespace

// As a POSIX shell reads it back: bare when it holds only safe characters,
// else single-quoted; with a control character or a byte that is not UTF-8,
// bash's
// $'...' with \xHH escapes, so that the line stays one printable line (a
// newline in a file name must not break it, nor an escape reach the
// terminal) and still names the same bytes when pasted.
std::string shell_word(const std::string& text) {
  const bool safe =
      !text.empty() && text.find_first_not_of(
                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
                           "WXYZ0123456789_-+=./:,@%") == std::string::npos;
  if (safe) return text;
  if (printable_line(text) == text) {
    std::string quoted = "'";
    for (char c : text) {
      quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return quoted + "'";
  }
  std::string quoted = "$'";
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7F) {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      quoted += escaped;
    } else if (c == '\'' || c == '\\') {
      quoted += '\\';
      quoted += c;
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

const std::vector<std::string>& rerun_environment_names() {
  static const std::vector<std::string> names = {
      "CUDA_VISIBLE_DEVICES",       "HIP_VISIBLE_DEVICES",
      "ROCR_VISIBLE_DEVICES",       "CUDA_LAUNCH_BLOCKING",
      "AMD_SERIALIZE_KERNEL",       "PYTORCH_NO_CUDA_MEMORY_CACHING",
      "CASEBOOK_KERNEL_PLUGIN_DIR", "CASEBOOK_BROKEN_VARIANT"};
  return names;
}

std::string rerun_line(const PlannedCase& planned, Backend backend,
                       const RunOptions& options) {
  std::string line;
  std::vector<std::string> named;
  // The run's own child environment wins over the runner's.
  for (const auto& [name, value] : options.child_environment) {
    line += name + "=" + shell_word(value) + " ";
    named.push_back(name);
  }
  // The CPU's runs read none of them.
  if (is_gpu(backend)) {
    for (const std::string& name : rerun_environment_names()) {
      const char* value = std::getenv(name.c_str());
      if (value == nullptr ||
          std::find(named.begin(), named.end(), name) != named.end()) {
        continue;
      }
      line += name + "=" + shell_word(value) + " ";
    }
  }
  line += shell_word(executable()) + " run " + path_word(planned.loaded.file) +
          " --backend " + std::string(backend_name(backend)) + " --isolation " +
          (options.isolation == Isolation::kStrict ? "strict" : "pooled");
  // A file's cases are its base case and its neighbours: `--id` selects
  // exactly the one this line is for (a --filter word would match as a
  // substring, and the base case's id is in every neighbour's).
  const bool has_neighbours =
      planned.neighbor ||
      (planned.loaded.value && !planned.loaded.value->neighbors.empty());
  if (has_neighbours) line += " --id " + shell_word(planned.loaded.id);
  return line;
}

}  // namespace casebook
