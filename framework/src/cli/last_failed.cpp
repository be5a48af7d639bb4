#include "cli/last_failed.h"

#include <chrono>
#include <cstdlib>
#include <fstream>

#include "files/file_writer.h"

namespace casebook {
namespace fs = std::filesystem;

namespace {

// How long a run waits for another one (ctest's parallel tests) to finish
// writing the record: a write takes microseconds.
constexpr std::chrono::milliseconds kRecordLockWait{2000};

// The folder the record goes beside: the nearest folder above `named` (as
// written, made absolute) that holds `.git`; else the one holding `named`.
fs::path record_root(const fs::path& named) {
  std::error_code error;
  const fs::path start = fs::absolute(named, error).lexically_normal();
  for (fs::path folder = start;; folder = folder.parent_path()) {
    if (fs::exists(folder / ".git", error)) return folder;
    if (folder == folder.root_path() || folder.empty()) break;
  }
  return start.parent_path();
}

}  // namespace

fs::path last_failed_file(const fs::path& first_named) {
  if (const char* cache = std::getenv("CASEBOOK_CACHE_DIR")) {
    if (*cache != '\0') return fs::path(cache) / "last-failed";
  }
  const fs::path root = record_root(first_named);
  std::error_code error;
  const fs::path here = fs::current_path(error);
  const fs::path shown = error ? root : root.lexically_proximate(here);
  const bool here_itself = shown.empty() || shown == ".";
  return (here_itself ? fs::path() : shown) / kCacheFolder / "last-failed";
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
  try {
    // Read and written under the record's lock: two runs at once (ctest's
    // parallel tests) lose neither's verdicts.
    const OpenFolder folder = OpenFolder::open(file.parent_path(), true);
    FileBeingWritten out(folder, file.filename().string(), kRecordLockWait);
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
    out.write(text);
    out.commit(OnExisting::kReplace);
  } catch (const WriteError& error) {
    return error.what();
  }
  return "";
}

}  // namespace casebook
