#include "cli/last_failed.h"

#include <cstdlib>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>

#include "files/file_writer.h"

namespace casebook {
namespace fs = std::filesystem;

namespace {

// <build> when this executable is <build>/bin/<name> of a CMake build tree.
std::optional<fs::path> build_folder_of_executable() {
  std::error_code error;
  const fs::path executable = fs::read_symlink("/proc/self/exe", error);
  if (error) return std::nullopt;
  const fs::path build = executable.parent_path().parent_path();
  if (executable.parent_path().filename() != "bin" ||
      !fs::exists(build / "CMakeCache.txt", error)) {
    return std::nullopt;
  }
  return build;
}

// The working folder as a short name: only this machine's later runs read
// it, so std::hash (stable within one build) is enough.
std::string working_folder_key() {
  std::error_code error;
  const std::string folder = fs::current_path(error).string();
  std::ostringstream text;
  text << std::hex << std::hash<std::string>{}(folder);
  return text.str();
}

}  // namespace

fs::path last_failed_file() {
  if (const char* cache = std::getenv("CASEBOOK_CACHE_DIR")) {
    if (*cache != '\0') return fs::path(cache) / "last-failed";
  }
  if (const auto build = build_folder_of_executable()) {
    return *build / "casebook-cache" / "last-failed";
  }
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  const fs::path root =
      xdg != nullptr && *xdg != '\0'
          ? fs::path(xdg)
          : fs::path(home != nullptr ? home : "/tmp") / ".cache";
  return root / "casebook" / working_folder_key() / "last-failed";
}

std::set<RecordedRun> read_last_failed(const fs::path& file) {
  std::set<RecordedRun> runs;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    const size_t space = line.find(' ');
    if (space == std::string::npos) continue;
    const auto backend = parse_backend(line.substr(0, space));
    if (backend) runs.emplace(line.substr(space + 1), *backend);
  }
  return runs;
}

std::string record_verdicts(const fs::path& file, const RunSummary& summary) {
  std::set<RecordedRun> runs = read_last_failed(file);
  for (const CaseVerdict& verdict : summary.verdicts) {
    const RecordedRun run{verdict.case_id, verdict.backend};
    if (verdict.verdict == Verdict::kSkip ||
        verdict.verdict == Verdict::kNotRun) {
      continue;  // nothing learned about it
    }
    if (verdict_is_success(verdict.verdict)) {
      runs.erase(run);
    } else {
      runs.insert(run);
    }
  }
  std::string text;
  for (const auto& [id, backend] : runs) {
    text += std::string(backend_name(backend)) + ' ' + id + '\n';
  }
  try {
    write_file(file, text, OnExisting::kReplace);
  } catch (const WriteError& error) {
    return error.what();
  }
  return "";
}

}  // namespace casebook
