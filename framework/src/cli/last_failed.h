// `casebook run --last-failed`: the runs that failed, remembered from one
// run to the next outside the source tree, as pytest's cache does: every
// run records its verdicts (a run that failed is added, one that passed or
// XFAILed is removed, a skipped one is left as it was), and --last-failed
// runs only those recorded.
//
// The record is a text file, a line per run: "<backend> <case id>". It
// lives in $CASEBOOK_CACHE_DIR when set; else in the build folder of the
// running executable (<build>/casebook-cache/, where <build>/bin/casebook
// sits beside <build>/CMakeCache.txt); else in
// ${XDG_CACHE_HOME:-~/.cache}/casebook/<hash of the working folder>/.
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <utility>

#include "casebook/runner.h"

namespace casebook {

using RecordedRun = std::pair<std::string, Backend>;  // case id, backend

// The record's file (its folder may not exist yet).
std::filesystem::path last_failed_file();

// The runs recorded as failed; empty when there is no record.
std::set<RecordedRun> read_last_failed(const std::filesystem::path& file);

// Records `summary`'s verdicts into `file` (made with its folders,
// replaced by rename). Returns an error to warn about, or empty.
std::string record_verdicts(const std::filesystem::path& file,
                            const RunSummary& summary);

}  // namespace casebook
