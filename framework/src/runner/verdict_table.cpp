#include "runner/verdict_table.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "casebook/joined.h"
#include "casebook/printable.h"
#include "files/file_writer.h"
#include "runner/output.h"

namespace casebook {
namespace {

// "PASS", "FAIL mismatch", "ERROR invalid_case".
std::string cell_text(const CaseVerdict& verdict) {
  std::string text(verdict_name(verdict.verdict));
  if (!verdict_is_success(verdict.verdict) && verdict.family != Family::kNone) {
    text += " " + std::string(family_name(verdict.family));
  }
  return text;
}

std::string painted(const std::string& text, Verdict verdict, bool colour) {
  if (!colour) return text;
  return std::string(verdict_colour(verdict)) + text + "\033[0m";
}

// Backends with at least one verdict that is not an absent skip, in
// cpu, cuda, hip order: the table's columns.
std::vector<Backend> columns_of(const std::vector<CaseVerdict>& verdicts,
                                bool every_run) {
  std::set<Backend> seen;
  for (const CaseVerdict& verdict : verdicts) {
    if (every_run || !verdict.backend_absent) seen.insert(verdict.backend);
  }
  return {seen.begin(), seen.end()};
}

// The rows: case id -> backend -> verdict, in id order.
using Rows = std::map<std::string, std::map<Backend, const CaseVerdict*>>;

Rows rows_of(const std::vector<CaseVerdict>& verdicts) {
  Rows rows;
  for (const CaseVerdict& verdict : verdicts) {
    rows[verdict.case_id][verdict.backend] = &verdict;
  }
  return rows;
}

std::string markdown_escape(const std::string& text) {
  // Printable first (casebook/printable.h), as every writer's text is: a
  // newline shows as `\n` and cannot end a table row.
  std::string out;
  for (char c : printable_line(text)) {
    if (c == '|' || c == '`' || c == '*' || c == '_' || c == '<' || c == '>') {
      out += '\\';
    }
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

}  // namespace

bool colour_wanted(int fd) {
  const char* no_colour = std::getenv("NO_COLOR");
  if (no_colour != nullptr && *no_colour != '\0') return false;
  const char* term = std::getenv("TERM");
  if (term != nullptr && std::string(term) == "dumb") return false;
  return isatty(fd) == 1;
}

std::vector<AbsentBackend> absent_backends(const RunSummary& summary) {
  std::map<Backend, AbsentBackend> absent;
  for (const CaseVerdict& verdict : summary.verdicts) {
    if (!verdict.backend_absent) continue;
    AbsentBackend& entry = absent[verdict.backend];
    if (entry.runs++ == 0) {
      entry.backend = verdict.backend;
      entry.reason = first_line(verdict.message);
    }
  }
  std::vector<AbsentBackend> list;
  for (auto& [backend, entry] : absent) list.push_back(std::move(entry));
  return list;
}

std::vector<CaseVerdict> sorted_by_id(const RunSummary& summary) {
  std::vector<CaseVerdict> sorted = summary.verdicts;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const CaseVerdict& a, const CaseVerdict& b) {
                     return a.case_id != b.case_id ? a.case_id < b.case_id
                                                   : a.backend < b.backend;
                   });
  return sorted;
}

std::string counts_line(const RunSummary& summary) {
  // The verdicts of runs that happened first; an absent backend's skips are
  // said apart, after them (a lane without a GPU must not read as mostly
  // SKIP).
  std::map<Verdict, int> counts;
  size_t ran = 0;
  for (const CaseVerdict& verdict : summary.verdicts) {
    if (verdict.backend_absent) continue;
    ++counts[verdict.verdict];
    ++ran;
  }
  std::ostringstream out;
  out << joined(counts, ", ", [](const auto& entry) {
    return std::to_string(entry.second) + " " +
           std::string(verdict_name(entry.first));
  });
  if (counts.empty())
    out << (summary.verdicts.empty() ? "no case selected" : "none ran");
  out << " (" << ran << " runs";
  const std::vector<AbsentBackend> absent = absent_backends(summary);
  if (!absent.empty()) {
    int skipped = 0;
    for (const AbsentBackend& each : absent) skipped += each.runs;
    out << "; " << skipped << " skipped: "
        << joined(absent, ", ",
                  [](const AbsentBackend& each) {
                    return backend_name(each.backend);
                  })
        << " absent";
  }
  out << (summary.interrupted ? ", interrupted" : "") << ")";
  return out.str();
}

void print_failure_block(std::ostream& out, const CaseVerdict& verdict,
                         const TableStyle& style) {
  out << painted(std::string(verdict_name(verdict.verdict)), verdict.verdict,
                 style.colour)
      << "  " << verdict.case_id << "  " << backend_name(verdict.backend)
      << "\n";
  out << "      rerun: " << verdict.rerun_command << "\n";
  std::string what;
  if (verdict.family != Family::kNone) {
    what = std::string(family_name(verdict.family)) + ": ";
  }
  out << "      " << what << first_line(verdict.message) << "\n";
  // Whose fault an INTERNAL is (its details) is said even without details.
  if (!style.details && verdict.verdict != Verdict::kInternal) return;
  // The message's further lines, the details, the possible consequences.
  const size_t newline = verdict.message.find('\n');
  if (newline != std::string::npos) {
    out << indent(verdict.message.substr(newline + 1), "      ");
  }
  std::string details = verdict.details;
  if (first_line(details) == first_line(verdict.message)) {
    // An invalid case's details list every error, the first included.
    const size_t next = details.find('\n');
    details = next == std::string::npos ? "" : details.substr(next + 1);
  }
  if (!details.empty()) out << indent(details, "      ");
  for (const std::string& later : verdict.consequences) {
    out << "      possible consequence (not a cause): " << later << "\n";
  }
}

namespace {

// Whether every run of a row passed (PASS, XFAIL, SKIP).
bool row_passed(const std::map<Backend, const CaseVerdict*>& cells) {
  return std::all_of(cells.begin(), cells.end(), [](const auto& cell) {
    return verdict_is_success(cell.second->verdict);
  });
}

// The table: a row per case, a column per backend that ran. Past
// kFullTableRows rows (and without --table or --verbose) the rows that
// passed everywhere are counted, not listed: a large run shows its
// failures, as pytest's compact output does.
void print_case_rows(std::ostream& out,
                     const std::vector<CaseVerdict>& verdicts,
                     const TableStyle& style) {
  const std::vector<Backend> columns = columns_of(verdicts, style.every_run);
  const Rows rows = rows_of(verdicts);
  const bool compact =
      !style.every_case && !style.every_run && rows.size() > kFullTableRows;
  size_t id_width = 4;
  for (const auto& [id, cells] : rows) {
    if (!compact || !row_passed(cells))
      id_width = std::max(id_width, id.size());
  }
  constexpr int kCellWidth = 26;
  std::ostringstream header;
  header << std::left << std::setw(static_cast<int>(id_width) + 2) << "case";
  for (Backend backend : columns) {
    header << std::setw(kCellWidth) << backend_name(backend);
  }
  std::string header_text = header.str();
  header_text.erase(header_text.find_last_not_of(' ') + 1);
  out << "\n" << header_text << "\n";
  size_t hidden = 0;
  for (const auto& [id, cells] : rows) {
    if (compact && row_passed(cells)) {
      ++hidden;
      continue;
    }
    std::ostringstream line;
    line << std::left << std::setw(static_cast<int>(id_width) + 2) << id;
    for (Backend backend : columns) {
      const auto found = cells.find(backend);
      std::string text = found == cells.end() ? "-" : cell_text(*found->second);
      const size_t pad =
          text.size() < kCellWidth ? kCellWidth - text.size() : 1;
      if (found != cells.end()) {
        text = painted(text, found->second->verdict, style.colour);
      }
      line << text << std::string(pad, ' ');
    }
    std::string text = line.str();
    text.erase(text.find_last_not_of(' ') + 1);
    out << text << "\n";
  }
  if (hidden > 0) {
    out << "(" << hidden
        << " more cases, none failed: --table lists every case)\n";
  }
}

}  // namespace

void print_durations(std::ostream& out, const RunSummary& summary, int count) {
  std::vector<const CaseVerdict*> runs;
  for (const CaseVerdict& verdict : summary.verdicts) {
    if (!verdict.backend_absent) runs.push_back(&verdict);
  }
  const size_t shown = std::min(runs.size(), static_cast<size_t>(count));
  std::partial_sort(runs.begin(), runs.begin() + static_cast<long>(shown),
                    runs.end(), [](const CaseVerdict* a, const CaseVerdict* b) {
                      return a->seconds != b->seconds ? a->seconds > b->seconds
                                                      : a->case_id < b->case_id;
                    });
  out << "\nslowest " << shown << " runs:\n";
  for (size_t i = 0; i < shown; ++i) {
    out << std::right << std::fixed << std::setprecision(3) << std::setw(9)
        << runs[i]->seconds << "s  " << runs[i]->case_id << "  "
        << backend_name(runs[i]->backend) << "\n";
  }
  out << std::defaultfloat << std::left;
}

void print_verdict_table(std::ostream& out, const RunSummary& summary,
                         const TableStyle& style) {
  const std::vector<CaseVerdict> verdicts = sorted_by_id(summary);
  for (const AbsentBackend& absent : absent_backends(summary)) {
    // The environment header above gives the reason, unless quiet.
    out << backend_name(absent.backend) << " absent: " << absent.runs
        << " runs skipped"
        << (style.quiet ? " (" + absent.reason + ")" : std::string()) << "\n";
  }
  if (!style.quiet) print_case_rows(out, verdicts, style);
  bool heading = false;
  for (const CaseVerdict& verdict : verdicts) {
    if (verdict_is_success(verdict.verdict)) continue;
    if (!heading) out << "\n";
    heading = true;
    print_failure_block(out, verdict, style);
  }
  out << "\n" << counts_line(summary) << "\n";
}

void write_markdown_summary(const std::filesystem::path& file,
                            const RunSummary& summary,
                            const std::string& environment_line) {
  std::ostringstream out;
  const std::vector<CaseVerdict> verdicts = sorted_by_id(summary);
  const bool green = summary.exit_code() == 0;
  out << "## casebook: " << (green ? "passed" : "failed") << "\n\n"
      << counts_line(summary) << "\n\n";
  if (!environment_line.empty()) {
    out << "<sub>" << markdown_escape(environment_line) << "</sub>\n\n";
  }
  for (const AbsentBackend& absent : absent_backends(summary)) {
    out << "- **" << backend_name(absent.backend)
        << "** absent: " << markdown_escape(absent.reason) << " ("
        << absent.runs << " runs skipped)\n";
  }
  // The failures first: on a large run they are what a reader came for.
  bool heading = false;
  for (const CaseVerdict& verdict : verdicts) {
    if (verdict_is_success(verdict.verdict)) continue;
    if (!heading) out << "\n### Failures\n";
    heading = true;
    out << "\n#### " << markdown_escape(verdict.case_id) << " on "
        << backend_name(verdict.backend) << ": " << cell_text(verdict) << "\n\n"
        << markdown_escape(first_line(verdict.message)) << "\n\n";
    if (verdict.verdict == Verdict::kInternal) {
      out << markdown_escape(std::string(kInternalErrorNote)) << "\n\n";
    }
    out << "```sh\n" << verdict.rerun_command << "\n```\n";
  }
  const std::vector<Backend> columns = columns_of(verdicts, false);
  const Rows rows = rows_of(verdicts);
  out << "\n### Every case\n\n| case |";
  for (Backend backend : columns) out << " " << backend_name(backend) << " |";
  out << "\n|---|";
  for (size_t i = 0; i < columns.size(); ++i) out << "---|";
  out << "\n";
  for (const auto& [id, cells] : rows) {
    out << "| " << markdown_escape(id) << " |";
    for (Backend backend : columns) {
      const auto found = cells.find(backend);
      if (found == cells.end()) {
        out << " - |";
        continue;
      }
      const bool bad = !verdict_is_success(found->second->verdict);
      out << " " << (bad ? "**" : "") << cell_text(*found->second)
          << (bad ? "**" : "") << " |";
    }
    out << "\n";
  }
  // Whole or not at all (files/file_writer.h): a full disk is an error,
  // never a summary cut short.
  // Its folder is not made: a mistyped folder is an error, not a new tree.
  write_file(file, out.str(), OnExisting::kReplace, false);
}

}  // namespace casebook
