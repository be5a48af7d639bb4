#include "runner/rerun.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace casebook {
namespace {

// Single-quoted for a POSIX shell when it holds anything but safe characters.
std::string shell_word(const std::string& text) {
  const bool safe =
      !text.empty() && text.find_first_not_of(
                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
                           "WXYZ0123456789_-+=./:,@%") == std::string::npos;
  if (safe) return text;
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

std::string executable() {
  std::error_code error;
  const std::filesystem::path exe =
      std::filesystem::read_symlink("/proc/self/exe", error);
  if (error || exe.filename() != "casebook") return "casebook";
  return exe.string();
}

}  // namespace

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
  line += shell_word(executable()) + " run " +
          shell_word(planned.loaded.file.string()) + " --backend " +
          std::string(backend_name(backend)) + " --isolation " +
          (options.isolation == Isolation::kStrict ? "strict" : "pooled");
  // A neighbour is one of the file's cases: its id, as a glob that matches
  // it alone (`[` and `]` escaped).
  if (planned.neighbor) {
    std::string glob;
    for (char c : planned.loaded.id) {
      if (c == '[' || c == ']' || c == '*' || c == '?' || c == '\\') {
        glob += '\\';
      }
      glob += c;
    }
    line += " --filter " + shell_word(glob);
  }
  return line;
}

}  // namespace casebook
