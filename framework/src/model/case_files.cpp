// Paths and names around case files: error text, ids, discovery, fixtures,
// and the nearest-name suggestion for misspelt keys.
#include <sys/stat.h>

#include <algorithm>
#include <set>
#include <system_error>

#include "casebook/loader.h"
#include "casebook/printable.h"

namespace casebook {
namespace fs = std::filesystem;

std::string format_location(const SourceLocation& where) {
  std::string out = where.file.string();
  if (where.line > 0) {
    out +=
        ":" + std::to_string(where.line) + ":" + std::to_string(where.column);
  }
  return out;
}

std::string CaseError::to_string() const {
  std::string out = format_location(where) + ": ";
  if (!key_path.empty()) out += "`" + key_path + "`: ";
  // Printed on terminals and in reports: bounded and printable.
  return printable_line(bounded_text(out + message, kMessageBytes));
}

std::string derive_case_id(const fs::path& file, const fs::path& relative_to) {
  const fs::path normal = file.lexically_normal();
  // The part under the nearest (deepest) ancestor folder named `cases`.
  const fs::path folder = normal.parent_path();
  fs::path under;
  bool found = false;
  for (const fs::path& part : folder) {
    if (part == "cases") {
      under.clear();
      found = true;
    } else if (found) {
      under /= part;
    }
  }
  fs::path id;
  if (found) {
    id = under / normal.stem();
  } else {
    std::error_code error;
    // Never the current directory: a file on its own is its name.
    const fs::path base =
        relative_to.empty() ? fs::absolute(normal, error).parent_path()
                            : relative_to;
    const fs::path absolute_file = fs::absolute(normal, error);
    const fs::path absolute_base = fs::absolute(base, error);
    id = absolute_file.lexically_relative(absolute_base);
    if (id.empty() || *id.begin() == "..") id = normal.filename();
    id.replace_extension();
  }
  // A file name is hostile: the id is printed everywhere, so it is made
  // printable once, here (a newline in a name must not forge a line).
  return printable_line(id.lexically_normal().generic_string());
}

namespace {

bool is_case_file(const fs::path& path) {
  const fs::path extension = path.extension();
  return extension == ".yaml" || extension == ".yml";
}

// Whether `path` (canonical) lies in `folder` (canonical) or is it.
bool lies_in(const fs::path& path, const fs::path& folder) {
  auto part = path.begin();
  for (auto wanted = folder.begin(); wanted != folder.end(); ++wanted, ++part) {
    if (part == path.end() || *part != *wanted) return false;
  }
  return true;
}

// A folder's identity, whatever path reached it.
struct FolderId {
  dev_t device;
  ino_t inode;
  bool operator<(const FolderId& other) const {
    return device != other.device ? device < other.device : inode < other.inode;
  }
};

std::optional<FolderId> folder_id(const fs::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  return FolderId{info.st_dev, info.st_ino};
}

}  // namespace

// A folder is walked recursively, skipping folders named `fixtures` (they
// hold data, never cases); a file named directly is taken as it is.
std::vector<fs::path> find_case_files(const std::vector<fs::path>& paths,
                                      std::vector<fs::path>* missing,
                                      std::vector<CaseError>* refused,
                                      bool allow_links_outside) {
  std::set<fs::path> found;
  std::set<FolderId> walked;
  auto refuse = [&](const fs::path& link, const fs::path& target,
                    const fs::path& root) {
    if (refused == nullptr) return;
    CaseError error;
    error.where.file = link;
    error.message = "a link to " + target.string() + ", outside " +
                    root.string() +
                    ": not taken (a merge request's link must not bring in "
                    "files from elsewhere; --allow-links-outside takes it)";
    refused->push_back(std::move(error));
  };
  for (const fs::path& path : paths) {
    std::error_code error;
    if (fs::is_regular_file(path, error)) {
      found.insert(path.lexically_normal());
      continue;
    }
    if (!fs::is_directory(path, error)) {
      if (missing != nullptr) missing->push_back(path);
      continue;
    }
    const fs::path root = fs::canonical(path, error);
    if (error) continue;
    if (const auto id = folder_id(root); !id || !walked.insert(*id).second) {
      continue;  // named twice, or reached before through a link
    }
    fs::recursive_directory_iterator it(
        path, fs::directory_options::follow_directory_symlink, error);
    for (; !error && it != fs::recursive_directory_iterator();
         it.increment(error)) {
      const fs::path& entry = it->path();
      std::error_code entry_error;
      const bool link = it->is_symlink(entry_error);
      if (it->is_directory(entry_error)) {
        const fs::path target = fs::canonical(entry, entry_error);
        const auto id = folder_id(entry);
        if (entry.filename() == "fixtures" || entry_error || !id) {
          it.disable_recursion_pending();
        } else if (link && lies_in(target, root)) {
          // Its folder is walked under its own path: one id per case
          // whatever order the folder lists its entries in.
          it.disable_recursion_pending();
        } else if (link && !allow_links_outside) {
          it.disable_recursion_pending();
          refuse(entry, target, path);
        } else if (!walked.insert(*id).second) {
          it.disable_recursion_pending();
        }
      } else if (is_case_file(entry) && it->is_regular_file(entry_error)) {
        if (link && !allow_links_outside) {
          const fs::path target = fs::canonical(entry, entry_error);
          if (entry_error || !lies_in(target, root)) {
            refuse(entry, target, path);
            continue;
          }
        }
        found.insert(entry.lexically_normal());
      }
    }
  }
  return {found.begin(), found.end()};
}

std::optional<fs::path> find_fixtures_folder(const fs::path& case_file) {
  std::error_code error;
  const fs::path start = fs::absolute(case_file, error).lexically_normal();
  if (error) return std::nullopt;
  for (fs::path folder = start.parent_path();; folder = folder.parent_path()) {
    const fs::path candidate = folder / "fixtures";
    if (fs::is_directory(candidate, error)) {
      return case_file.is_relative() ? fs::proximate(candidate, error)
                                     : candidate;
    }
    if (folder == folder.root_path() || folder.empty()) return std::nullopt;
  }
}

std::optional<std::string> schema_modeline(const fs::path& case_file) {
  std::error_code error;
  const fs::path start = fs::absolute(case_file, error).lexically_normal();
  if (error) return std::nullopt;
  for (fs::path folder = start.parent_path();; folder = folder.parent_path()) {
    const fs::path schema = folder / "schema" / "case.schema.json";
    if (fs::is_regular_file(schema, error)) {
      return "# yaml-language-server: $schema=" +
             schema.lexically_relative(start.parent_path()).generic_string();
    }
    if (folder == folder.root_path() || folder.empty()) return std::nullopt;
  }
}

namespace {

// Levenshtein distance, with a swap of two adjacent letters counting as one
// edit (optimal string alignment): "cdua" is one edit from "cuda", as
// people mistype.
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1,
                                     std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] =
          std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::vector<std::string> nearest_names(
    const std::string& name, const std::vector<std::string>& candidates,
    size_t count) {
  const size_t limit = std::max<size_t>(2, name.size() / 3);
  std::vector<std::pair<size_t, size_t>> close;  // distance, position
  for (size_t i = 0; i < candidates.size(); ++i) {
    const size_t distance = edit_distance(name, candidates[i]);
    if (distance <= limit) close.emplace_back(distance, i);
  }
  std::stable_sort(
      close.begin(), close.end(),
      [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> best;
  for (size_t i = 0; i < close.size() && i < count; ++i) {
    best.push_back(candidates[close[i].second]);
  }
  return best;
}

std::string nearest_name(const std::string& name,
                         const std::vector<std::string>& candidates) {
  const std::vector<std::string> best = nearest_names(name, candidates, 1);
  return best.empty() ? std::string() : best.front();
}

}  // namespace casebook
