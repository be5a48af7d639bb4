#pragma once
// What the loader's tests ask of a LoadedCase (casebook/loader.h), written
// once for tests/core: its errors as the user reads them, whether one is at a
// line, and the case of a text that must load.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "casebook/loader.h"

namespace casebook {

// Every error, one a line, as `file:line:col: message`.
inline std::string all_errors(const LoadedCase& loaded) {
  std::string out;
  for (const CaseError& error : loaded.errors) out += error.to_string() + "\n";
  return out;
}

// Every error's text, in the order the loader gave them.
inline std::vector<std::string> error_lines(const LoadedCase& loaded) {
  std::vector<std::string> out;
  for (const CaseError& error : loaded.errors) out.push_back(error.to_string());
  return out;
}

// Whether an error is at `line` (0: the whole file) and says `text`, in the
// `file:line:col: ` form.
inline bool refused_at(const LoadedCase& loaded, int line,
                       const std::string& text) {
  const std::string prefix =
      loaded.file.string() +
      (line > 0 ? ":" + std::to_string(line) + ":" : std::string(": "));
  for (const CaseError& error : loaded.errors) {
    const std::string shown = error.to_string();
    if (error.where.line == line && shown.rfind(prefix, 0) == 0 &&
        shown.find(text) != std::string::npos) {
      return true;
    }
  }
  return false;
}

// The case `text` holds, read as the case file `file`; each error fails the
// calling test, and an empty case is returned.
inline Case load_ok(const std::string& text, const std::string& file) {
  const LoadedCase loaded = load_case_text(text, file);
  EXPECT_TRUE(loaded.ok()) << all_errors(loaded);
  return loaded.value.value_or(Case{});
}

}  // namespace casebook
