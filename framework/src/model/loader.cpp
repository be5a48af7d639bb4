// Case files to Case values: the file's size, its YAML, then its top level
// (model/case_reader.cpp). Every problem becomes a CaseError; nothing throws
// out of load_case_*.
#include "casebook/loader.h"

#include <fstream>

#include "casebook/limits.h"
#include "model/placeholders.h"
#include "model/sections.h"
#include "model/yaml_prescan.h"

namespace casebook {
namespace {

using model::Reader;

// Checked before parsing: a case holds a computation, not its data. The
// error points at the first byte past the limit; `size` is the whole file's.
CaseError too_large(const std::string& text, uint64_t size,
                    const std::filesystem::path& file) {
  const uint64_t limit = load_limits().max_file_bytes;
  return CaseError{
      model::location_of_byte(text, limit, file), "",
      "the file is " + format_bytes(size) + ", over the limit of " +
          format_bytes(limit) +
          " for a case file; large data belongs in a fixture (a .npy, "
          ".safetensors or .pt file under fixtures/, named by `file:`)"};
}

}  // namespace

LoadedCase load_case_text(const std::string& text,
                          const std::filesystem::path& file,
                          const std::filesystem::path& relative_to) {
  LoadedCase loaded;
  loaded.file = file;
  Reader reader(file);
  std::vector<std::string> placeholders;
  std::string internal_failure;
  try {
    loaded.id = derive_case_id(file, relative_to);
    Case value;
    value.file = file;
    value.id = loaded.id;
    if (text.size() > load_limits().max_file_bytes) {
      const CaseError error = too_large(text, text.size(), file);
      reader.error(error.where, error.key_path, error.message);
      loaded.errors = reader.take_errors();
      return loaded;
    }
    if (!model::prescan_yaml(text, reader)) {
      loaded.errors = reader.take_errors();
      return loaded;
    }
    std::vector<YAML::Node> documents;
    try {
      documents = YAML::LoadAll(text);
    } catch (const YAML::ParserException& error) {
      reader.error(
          SourceLocation{file, error.mark.line + 1, error.mark.column + 1}, "",
          "invalid YAML: " + error.msg);
    }
    if (documents.empty() && reader.error_count() == 0) {
      reader.error(SourceLocation{file, 0, 0}, "",
                   "empty file: expected a case (casebook: 1, summary, op, "
                   "inputs)");
    } else if (documents.size() > 1) {
      reader.error(documents[1], "",
                   "expected one YAML document; got " +
                       std::to_string(documents.size()));
    } else if (documents.size() == 1) {
      model::read_case(reader, documents.front(), value, &placeholders);
    }
    loaded.id = value.id;
    if (reader.error_count() == 0) loaded.value = std::move(value);
  } catch (const std::exception& error) {
    // Reading never throws for bad content (every problem is an error at
    // its line), so this is casebook's own fault, never the file's: the
    // case is INTERNAL, not invalid_case.
    internal_failure = std::string("internal error while reading the case: ") +
                       error.what() + "; please report";
  }
  loaded.errors = reader.take_errors();
  model::drop_errors_about_placeholders(&loaded.errors, placeholders);
  if (!internal_failure.empty()) {
    CaseError internal{SourceLocation{file, 0, 0}, "", internal_failure};
    internal.internal = true;
    loaded.errors.push_back(std::move(internal));
  }
  return loaded;
}

LoadedCase load_case_file(const std::filesystem::path& file,
                          const std::filesystem::path& relative_to) {
  std::error_code error;
  const auto status = std::filesystem::status(file, error);
  std::ifstream stream;
  if (std::filesystem::is_regular_file(status)) {
    stream.open(file, std::ios::binary);
  }
  // Reads no more than one byte past the limit: a huge file costs nothing.
  const uint64_t limit = load_limits().max_file_bytes;
  std::string text;
  if (stream.is_open()) {
    text.resize(limit + 1);
    stream.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<size_t>(stream.gcount()));
  }
  if (!stream.is_open() || stream.bad()) {
    LoadedCase loaded;
    loaded.file = file;
    loaded.id = derive_case_id(file, relative_to);
    const char* why = !std::filesystem::exists(status) ? "no such file"
                      : std::filesystem::is_directory(status)
                          ? "cannot read the file: it is a folder"
                          : "cannot read the file";
    loaded.errors.push_back(CaseError{SourceLocation{file, 0, 0}, "", why});
    return loaded;
  }
  if (text.size() > limit) {
    LoadedCase loaded;
    loaded.file = file;
    loaded.id = derive_case_id(file, relative_to);
    const uint64_t size = std::filesystem::file_size(file, error);
    loaded.errors.push_back(too_large(text, error ? text.size() : size, file));
    return loaded;
  }
  return load_case_text(text, file, relative_to);
}

}  // namespace casebook
