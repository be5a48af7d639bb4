// `casebook run --last-failed`: the runs that failed, remembered from one
// run to the next beside the cases, as pytest's .pytest_cache: every
// run records its verdicts (a run that failed is added, one that passed or
// XFAILed is removed, a skipped one is left as it was), and --last-failed
// runs only those recorded.
//
// The record is a text file, a line per run: "<backend> <case id>". It
// lives in $CASEBOOK_CACHE_DIR when set; else in `.casebook_cache/` of the
// repository that holds the first path the run names (the nearest folder
// above it holding `.git`), else beside that path: one project's failures
// are never rerun in another's folder.
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <utility>

#include "casebook/runner.h"

namespace casebook {

using RecordedRun = std::pair<std::string, Backend>;  // case id, backend

// The folder the record lives in, beside the cases (pytest's .pytest_cache).
inline constexpr char kCacheFolder[] = ".casebook_cache";

// The record's file for a run whose first named path is `first_named`
// (its folder may not exist yet), relative to the current folder where it
// can be.
std::filesystem::path last_failed_file(
    const std::filesystem::path& first_named);

// The runs recorded as failed; empty when there is no record.
std::set<RecordedRun> read_last_failed(const std::filesystem::path& file);

// Records `summary`'s verdicts into `file` (made with its folders,
// replaced by rename). Returns an error to warn about, or empty.
std::string record_verdicts(const std::filesystem::path& file,
                            const RunSummary& summary);

}  // namespace casebook
