// What `casebook run` prints: a table of one row per case with a column per
// backend that ran, sorted by case id whatever the order runs finished in;
// each absent backend said once above it with its reason and how many runs it
// skipped; then a block per failure (the rerun command first) and the counts.
// The same verdicts as Markdown for CI summaries (`--summary FILE`).
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "casebook/runner.h"

namespace casebook {

struct TableStyle {
  bool colour = false;      // ANSI colours on the verdict words
  bool details = true;      // failure blocks with details and advice
  bool every_run = false;   // --verbose: a line per case and backend, absent
                            // backends' skips included
  bool quiet = false;       // only failures and the counts
  bool every_case = false;  // --table: a row per case however many
};

// `--durations N`: the `count` slowest runs, slowest first, a line each
// (wall seconds, case id, backend), as pytest's --durations.
void print_durations(std::ostream& out, const RunSummary& summary, int count);

// Past this many cases the table lists only the cases that did not pass
// everywhere, and counts the rest (TableStyle::every_case lists them all).
inline constexpr size_t kFullTableRows = 100;

// Colour only on a terminal and never with NO_COLOR set (no-color.org).
bool colour_wanted(int fd);

// The backends that were absent for this run: each with its reason (the
// first absent verdict's message) and the number of runs it skipped.
struct AbsentBackend {
  Backend backend = Backend::kCpu;
  std::string reason;
  int runs = 0;
};
std::vector<AbsentBackend> absent_backends(const RunSummary& summary);

// The verdicts sorted by case id, then backend (a copy).
std::vector<CaseVerdict> sorted_by_id(const RunSummary& summary);

void print_verdict_table(std::ostream& out, const RunSummary& summary,
                         const TableStyle& style);

// A failure's block: the verdict line, then "rerun: ..." and the details.
void print_failure_block(std::ostream& out, const CaseVerdict& verdict,
                         const TableStyle& style);

// "12 PASS, 1 FAIL, 238 SKIP (251 runs)": every verdict kind that occurred.
std::string counts_line(const RunSummary& summary);

// The Markdown summary: counts, absent backends, the cases x backends table
// and, per failure, its family, first message and the rerun command; fit for
// $GITHUB_STEP_SUMMARY or a merge-request comment. Throws std::runtime_error
// naming `file` when it cannot be written.
void write_markdown_summary(const std::filesystem::path& file,
                            const RunSummary& summary,
                            const std::string& environment_line);

}  // namespace casebook
