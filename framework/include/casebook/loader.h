// Reading case files: YAML text to a checked Case, or errors that name the
// file, the line and column, the key path, what was expected and what was
// found (and for a misspelt key the nearest known one).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "casebook/case.h"

namespace casebook {

struct CaseError {
  SourceLocation where;  // line/column 0 when the file could not be parsed
  std::string key_path;  // "inputs.target.dtype"; empty for the whole file
  std::string message;   // "expected one of bool, ..., got `float`"
  // casebook broke while reading the file (casebook/internal_error.h): the
  // file is not at fault, and a run of the case is INTERNAL.
  bool internal = false;
  // "cases/x.yaml:7:3: `inputs.target.dtype`: expected one of ..., got `float`"
  // Printable and at most kMessageBytes (casebook/printable.h); a path over
  // 1 KiB shows its two ends and how many bytes of its middle are left out.
  std::string to_string() const;
};

struct LoadedCase {
  std::filesystem::path file;
  std::string id;             // the case's id, or the one derived from its path
  std::optional<Case> value;  // set when errors is empty
  std::vector<CaseError> errors;
  bool ok() const { return errors.empty(); }
  // The error of an `internal` failure to read, if there was one.
  const CaseError* internal_error() const;
};

// The id derived from a path: the part under the nearest ancestor folder named
// `cases`, without the extension ("cross_entropy/label_out_of_range"); a file
// outside any `cases` folder gets its path relative to `relative_to` (the
// folder a run names; empty: the file's own folder, so its name alone; never
// the current directory). Made
// printable (casebook/printable.h): a control character shows as `\x1b`.
std::string derive_case_id(const std::filesystem::path& file,
                           const std::filesystem::path& relative_to);

// Loads one file. Never throws for bad content: every problem is an error.
LoadedCase load_case_file(const std::filesystem::path& file,
                          const std::filesystem::path& relative_to = {});

// Loads from text (tests); `file` only names it in messages and resolves
// fixtures and the default id.
LoadedCase load_case_text(const std::string& text,
                          const std::filesystem::path& file,
                          const std::filesystem::path& relative_to = {});

// Every *.yaml and *.yml under the given files and folders (recursively),
// each once, sorted; a path that does not exist is reported in `missing`.
// A linked folder inside the named one is not followed (its folder is
// walked under its own path): a `loop -> .` link neither repeats cases nor
// walks without end, and every folder is taken once. A linked folder or case
// file that resolves outside the folder it was found under (the one named) is
// not taken: it is reported in `refused` (an error naming the link and where
// it points) unless `allow_links_outside`. A file named directly follows the
// same rule, its root being its repository (the nearest folder above it, as
// written, that holds `.git`), else its own folder. A named path, or a
// `.yaml` found, that is no regular file (a FIFO, a link to /dev/zero) is
// refused too, naming what it is: it is never read. Nothing is lost
// silently: a folder that cannot be listed and an entry that cannot be
// resolved (permissions, a path over PATH_MAX, a link loop, a link to
// nothing) are refused, each by name, and the walk goes on with the rest.
std::vector<std::filesystem::path> find_case_files(
    const std::vector<std::filesystem::path>& paths,
    std::vector<std::filesystem::path>* missing,
    std::vector<CaseError>* refused = nullptr,
    bool allow_links_outside = false);

// The fixture folder for a case file: `fixtures/` beside it or in the nearest
// folder above it; nullopt when there is none.
std::optional<std::filesystem::path> find_fixtures_folder(
    const std::filesystem::path& case_file);

// The first line a new case file gets so that editors check it against
// casebook's schema: "# yaml-language-server: $schema=../../schema/
// case.schema.json", relative to the file, for the nearest
// schema/case.schema.json in the case's folder or above it; nullopt when
// there is none (a project of its own, without casebook's tree).
std::optional<std::string> schema_modeline(
    const std::filesystem::path& case_file);

// Suggestions for a misspelt name, everywhere casebook makes them (keys,
// ops, arguments): the candidates within max(2, |name| / 3) edits (an
// adjacent swap counts as one), nearest first, at most `count`; ties keep
// the candidates' order. Empty when none is close: a far-fetched suggestion
// ("nearest known: max_norm" for `scale_grad_by_freq`) misleads more than
// none, and for a name of more than 64 bytes (no one mistypes one; the bound
// keeps a hostile name's cost to microseconds).
std::vector<std::string> nearest_names(
    const std::string& name, const std::vector<std::string>& candidates,
    size_t count);
// The nearest of nearest_names, or empty.
std::string nearest_name(const std::string& name,
                         const std::vector<std::string>& candidates);

}  // namespace casebook
