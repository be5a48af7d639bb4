// `casebook run --ctest-records DIR`: the folder run that casebook_add_cases
// registers as `<prefix>.cpu.batch` (cmake/CasebookAddCases.cmake) keeps each
// case file's result for that file's own ctest test, which then shows it
// without loading LibTorch (cmake/casebook_ctest_case.sh): a folder of N
// cases costs one run, not N LibTorch starts.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "casebook/runner.h"

namespace casebook {

// The file each case id was read from (a neighbour's: its file's).
using CaseFiles = std::map<std::string, std::filesystem::path>;

// Writes, for every case file in `files` under `folder` (the one folder the
// run named), `records/<its path under folder>.record`: a first line with
// the exit status its test takes (0 passed, 1 failed, 77 every run skipped),
// then the verdict line of each of its runs (its neighbours' included) and
// a block per failure, as `casebook run` prints them. The records of an
// earlier run are removed first, so none outlives the run that wrote it.
// Returns what could not be written ("" when all were).
std::string write_ctest_records(const CaseFiles& files,
                                const RunSummary& summary,
                                const std::filesystem::path& folder,
                                const std::filesystem::path& records);

}  // namespace casebook
