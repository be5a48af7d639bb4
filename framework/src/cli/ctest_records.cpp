#include "cli/ctest_records.h"

#include <algorithm>
#include <sstream>

#include "cli/commands.h"
#include "files/file_writer.h"
#include "runner/output.h"
#include "runner/verdict_table.h"

namespace casebook {
namespace fs = std::filesystem;

namespace {

// What one file's test shows and exits with: its runs' lines, then a block
// per failure.
std::string record_text(const std::vector<const CaseVerdict*>& runs) {
  const bool failed = std::any_of(runs.begin(), runs.end(), [](auto* run) {
    return !verdict_is_success(run->verdict);
  });
  const bool skipped = std::all_of(runs.begin(), runs.end(), [](auto* run) {
    return run->verdict == Verdict::kSkip;
  });
  std::ostringstream text;
  text << (failed ? 1 : skipped ? kExitNothingRan : 0) << "\n";
  for (const CaseVerdict* run : runs) print_verdict_line(text, *run, false);
  for (const CaseVerdict* run : runs) {
    if (!verdict_is_success(run->verdict)) {
      text << "\n";
      print_failure_block(text, *run, TableStyle{});
    }
  }
  return text.str();
}

}  // namespace

std::string write_ctest_records(const CaseFiles& files,
                                const RunSummary& summary,
                                const fs::path& folder,
                                const fs::path& records) {
  std::map<fs::path, std::vector<const CaseVerdict*>> runs_of_file;
  for (const CaseVerdict& verdict : summary.verdicts) {
    const auto file = files.find(verdict.case_id);
    if (file == files.end()) continue;
    const fs::path under = file->second.lexically_relative(folder);
    // A file taken from outside the folder (--allow-links-outside) has no
    // test of its own: the batch's output shows it.
    if (under.empty() || *under.begin() == "..") continue;
    runs_of_file[under].push_back(&verdict);
  }
  try {
    const OpenFolder parent =
        OpenFolder::open(records.parent_path(), /*create=*/true);
    const std::string name = records.filename().string();
    remove_tree_in(parent, name);
    const OpenFolder root = parent.folder(name, /*create=*/true);
    for (const auto& [under, runs] : runs_of_file) {
      const OpenFolder in =
          OpenFolder::open(root.path() / under.parent_path(), /*create=*/true);
      write_file_in(in, under.filename().string() + ".record",
                    record_text(runs), OnExisting::kReplace);
    }
  } catch (const WriteError& error) {
    return error.what();
  }
  return "";
}

}  // namespace casebook
