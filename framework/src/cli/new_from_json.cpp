// `casebook new --from-json FILE...`: a case a program describes (the OpInfo
// tool's, a script's) written as a case file by casebook's one case-text
// writer (case_to_yaml), so that no program writes case text of its own.
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "casebook/case_writer.h"
#include "casebook/internal_error.h"
#include "casebook/loader.h"
#include "casebook/printable.h"
#include "cli/commands.h"
#include "files/file_writer.h"

namespace casebook {
namespace fs = std::filesystem;
namespace {

// One description into its case file; false with what went wrong on
// stderr.
bool write_from_json(const fs::path& source) {
  if (source.extension() != ".json") {
    std::cerr << "casebook new: " << source.string()
              << ": expected a file ending in .json\n";
    return false;
  }
  const LoadedCase loaded = load_case_file(source);
  if (!loaded.ok()) {
    for (const CaseError& error : loaded.errors) {
      std::cerr << error.to_string() << "\n";
    }
    std::cerr << "casebook new: " << source.string()
              << ": not written (fix the errors above)\n";
    return false;
  }
  fs::path target = source;
  target.replace_extension(".yaml");
  std::string text = case_to_yaml(*loaded.value);
  // The written case loads as what was described: the writer's promise
  // (tests/core/case_text_round_trip_test.cpp), checked before it is kept.
  const LoadedCase written = load_case_text(text, target);
  CASEBOOK_ASSERT(written.ok() && case_to_yaml(*written.value) == text,
                  "case_to_yaml wrote " + source.string() +
                      " as a case that does not read back as itself");
  if (auto modeline = schema_modeline(target)) text = *modeline + "\n" + text;
  try {
    write_file(target, text, OnExisting::kRefuse, false);
  } catch (const WriteError& error) {
    std::cerr << "casebook new: " << printable_line(error.what()) << "\n";
    return false;
  }
  std::cout << "wrote " << target.string() << "\n";
  return true;
}

}  // namespace

int new_from_json_command(const std::vector<std::string>& files) {
  size_t refused = 0;
  for (const std::string& file : files) {
    if (!write_from_json(file)) ++refused;
  }
  if (refused > 0) {
    std::cerr << "casebook new: " << refused << " of " << files.size()
              << " not written\n";
  }
  return refused == 0 ? 0 : 1;
}

}  // namespace casebook
