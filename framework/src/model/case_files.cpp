// Paths and names around case files: error text, ids, discovery, fixtures,
// and the nearest-name suggestion for misspelt keys.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
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

std::string at_place(const SourceLocation& where, const std::string& what) {
  return where.file.empty() ? what : format_location(where) + ": " + what;
}

namespace {

// `place` (a file's location) within a quarter of a message: a path near
// PATH_MAX would fill the bound alone and leave out what is wrong, so its
// middle gives way to a count of what is left out; both ends, which say
// where it is, stay.
std::string shown_place(const std::string& place) {
  constexpr size_t kEnd = kMessageBytes / 8;
  if (place.size() <= 2 * kEnd) return place;
  const auto inside = [&](size_t at) {  // a UTF-8 continuation byte
    return (static_cast<uint8_t>(place[at]) & 0xC0) == 0x80;
  };
  size_t head = kEnd;
  size_t tail = place.size() - kEnd;
  while (head > 0 && inside(head)) --head;
  while (tail < place.size() && inside(tail)) ++tail;
  return place.substr(0, head) + " ... (" + std::to_string(tail - head) +
         " bytes left out) ... " + place.substr(tail);
}

}  // namespace

std::string CaseError::to_string() const {
  std::string out = shown_place(format_location(where)) + ": ";
  if (!key_path.empty()) out += "`" + key_path + "`: ";
  // Printed on terminals and in reports: bounded and printable.
  return printable_line(bounded_text(out + message, kMessageBytes));
}

const CaseError* LoadedCase::internal_error() const {
  for (const CaseError& error : errors) {
    if (error.internal) return &error;
  }
  return nullptr;
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
    const fs::path base = relative_to.empty()
                              ? fs::absolute(normal, error).parent_path()
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

std::optional<FolderId> folder_id(const fs::path& path,
                                  std::error_code* error) {
  struct stat info{};
  if (::stat(path.c_str(), &info) != 0) {
    *error = std::error_code(errno, std::generic_category());
    return std::nullopt;
  }
  return FolderId{info.st_dev, info.st_ino};
}

// Why a path could not be listed or resolved: the system's word, and a
// path's length where it is the reason (PATH_MAX).
std::string why(const std::error_code& error, const fs::path& path) {
  std::string text = error.message();
  if (error == std::errc::filename_too_long) {
    text += ": its path is " + std::to_string(path.native().size()) + " bytes";
  }
  return text;
}

// "a FIFO", "a character device": what a path that is no file is.
std::string kind_of(fs::file_type type) {
  switch (type) {
    case fs::file_type::fifo:
      return "a FIFO";
    case fs::file_type::character:
      return "a character device";
    case fs::file_type::block:
      return "a block device";
    case fs::file_type::socket:
      return "a socket";
    default:
      return "not a regular file";
  }
}

// The folder a case file named on the command line must stay in once links
// are resolved: its repository (the nearest folder above it, as written,
// that holds `.git`), else its own folder.
fs::path named_file_root(const fs::path& file) {
  std::error_code error;
  const fs::path start = fs::absolute(file, error).lexically_normal();
  for (fs::path folder = start.parent_path();; folder = folder.parent_path()) {
    if (fs::exists(folder / ".git", error)) return folder;
    if (folder == folder.root_path() || folder.empty()) break;
  }
  return start.parent_path();
}

// find_case_files' walk: the files found, the folders walked, the refusals.
// The walk loses nothing silently: a folder it cannot list and an entry it
// cannot resolve (permissions, a path over PATH_MAX, a link loop, a link to
// nothing) are each refused by name, and the walk goes on with the rest.
class CaseFinder {
 public:
  CaseFinder(std::vector<fs::path>* missing, std::vector<CaseError>* refused,
             bool allow_links_outside)
      : missing_(missing),
        refused_(refused),
        allow_links_outside_(allow_links_outside) {}

  std::vector<fs::path> found() const { return {found_.begin(), found_.end()}; }

  // A path named on the command line: a file is taken as discovery takes
  // one (a link that leaves its root refused, a FIFO or device refused); a
  // folder is walked.
  void take(const fs::path& path) {
    std::error_code error;
    const fs::file_status status = fs::status(path, error);
    if (fs::is_directory(status)) {
      walk(path);
    } else if (status.type() == fs::file_type::not_found) {
      if (missing_ != nullptr) missing_->push_back(path);
    } else if (error) {
      refuse_unresolved(path, error);
    } else {
      take_file(path, status, named_file_root(path), true);
    }
  }

 private:
  void refuse(const fs::path& file, const std::string& message) {
    if (refused_ == nullptr) return;
    CaseError error;
    error.where.file = file;
    error.message = message;
    refused_->push_back(std::move(error));
  }
  void refuse_unresolved(const fs::path& path, const std::error_code& error) {
    refuse(path, error == std::errc::no_such_file_or_directory
                     ? "a link to nothing: not taken"
                     : "cannot tell what this is (" + why(error, path) +
                           "): not taken");
  }
  void refuse_link(const fs::path& link, const fs::path& target,
                   const fs::path& root) {
    refuse(link, "a link to " + target.string() + ", outside " + root.string() +
                     ": not taken (a merge request's link must not bring in "
                     "files from elsewhere; --allow-links-outside takes it)");
  }

  // A case file named or found under `root`: taken when it is a regular
  // file that stays in `root` once links are resolved; else refused, with
  // why. `named`: a FIFO or device is refused whatever its name.
  void take_file(const fs::path& file, const fs::file_status& status,
                 const fs::path& root, bool named) {
    if (!fs::is_regular_file(status)) {
      if (named || is_case_file(file)) {
        refuse(file, kind_of(status.type()) +
                         ": not read (a case file is a regular file)");
      }
      return;
    }
    if (!named && !is_case_file(file)) return;
    std::error_code error;
    const fs::path target = fs::canonical(file, error);
    const fs::path inside = fs::canonical(root, error);
    if (!allow_links_outside_ && (error || !lies_in(target, inside))) {
      refuse_link(file, target, root);
      return;
    }
    found_.insert(file.lexically_normal());
  }

  // A folder is walked depth first, each folder's entries in name order,
  // skipping what is named `fixtures` (data, never cases).
  void walk(const fs::path& named) {
    std::error_code error;
    const fs::path root = fs::canonical(named, error);
    const auto id = error ? std::nullopt : folder_id(named, &error);
    if (!id) {
      refuse_unresolved(named, error);
      return;
    }
    if (!walked_.insert(*id).second) return;  // named twice, or reached before
    std::vector<fs::path> pending{named};
    while (!pending.empty()) {
      const fs::path folder = std::move(pending.back());
      pending.pop_back();
      std::vector<fs::path> inner;
      for (const fs::directory_entry& entry : list(folder)) {
        visit(entry, root, named, &inner);
      }
      pending.insert(pending.end(), inner.rbegin(), inner.rend());
    }
  }

  // The entries of `folder`, sorted; a folder that cannot be listed (or
  // whose listing breaks off) is refused, naming it.
  std::vector<fs::directory_entry> list(const fs::path& folder) {
    std::vector<fs::directory_entry> entries;
    std::error_code error;
    for (fs::directory_iterator it(folder, error);
         !error && it != fs::directory_iterator(); it.increment(error)) {
      entries.push_back(*it);
    }
    if (error) {
      refuse(folder, "cannot list this folder (" + why(error, folder) +
                         "): the case files in it are not taken");
    }
    std::sort(entries.begin(), entries.end());
    return entries;
  }

  // One entry of a folder walked under `named` (`root` once resolved): a
  // folder to enter goes into `inner`; a file is taken or refused.
  void visit(const fs::directory_entry& entry, const fs::path& root,
             const fs::path& named, std::vector<fs::path>* inner) {
    if (entry.path().filename() == "fixtures") return;
    std::error_code error;
    const fs::file_status status = entry.status(error);
    if (fs::is_directory(status)) {
      if (enter(entry, root, named)) inner->push_back(entry.path());
    } else if (error) {
      refuse_unresolved(entry.path(), error);
    } else {
      take_file(entry.path(), status, named, false);
    }
  }

  // Whether the walk goes into `entry`, a folder under `named` (`root`
  // once resolved).
  bool enter(const fs::directory_entry& entry, const fs::path& root,
             const fs::path& named) {
    std::error_code error;
    const bool link = entry.is_symlink(error);
    const fs::path target =
        error ? fs::path() : fs::canonical(entry.path(), error);
    const auto id = error ? std::nullopt : folder_id(entry.path(), &error);
    if (!id) {
      refuse_unresolved(entry.path(), error);
      return false;
    }
    // A linked folder inside is walked under its own path: one id per case
    // whatever order the folder lists its entries in.
    if (link && lies_in(target, root)) return false;
    if (link && !allow_links_outside_) {
      refuse_link(entry.path(), target, named);
      return false;
    }
    return walked_.insert(*id).second;
  }

  std::vector<fs::path>* missing_;
  std::vector<CaseError>* refused_;
  bool allow_links_outside_;
  std::set<fs::path> found_;
  std::set<FolderId> walked_;
};

}  // namespace

std::vector<fs::path> find_case_files(const std::vector<fs::path>& paths,
                                      std::vector<fs::path>* missing,
                                      std::vector<CaseError>* refused,
                                      bool allow_links_outside) {
  CaseFinder finder(missing, refused, allow_links_outside);
  for (const fs::path& path : paths) finder.take(path);
  return finder.found();
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

// The longest name casebook suggests for: nobody mistypes a name of more
// than 64 bytes, and the bound keeps a hostile name (900 KB of op name)
// from costing time (docs/case-format.md, "Limits").
constexpr size_t kLongestSuggestedName = 64;

// Levenshtein distance, with a swap of two adjacent letters counting as one
// edit (optimal string alignment): "cdua" is one edit from "cuda", as
// people mistype. Past `limit` the exact distance does not matter: returns
// limit + 1 as soon as it is certain (the lengths alone, or a row whose
// every cell is past it). Three rows: O(|b|) memory, O(|a| |b|) time.
size_t edit_distance(const std::string& a, const std::string& b, size_t limit) {
  const size_t longer = std::max(a.size(), b.size());
  if (longer - std::min(a.size(), b.size()) > limit) return limit + 1;
  std::vector<size_t> before(b.size() + 1), last(b.size() + 1),
      row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) last[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    size_t smallest = row[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({last[j] + 1, row[j - 1] + 1, last[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        row[j] = std::min(row[j], before[j - 2] + 1);
      }
      smallest = std::min(smallest, row[j]);
    }
    if (smallest > limit) return limit + 1;
    std::swap(before, last);
    std::swap(last, row);
  }
  return last[b.size()];
}

}  // namespace

std::vector<std::string> nearest_names(
    const std::string& name, const std::vector<std::string>& candidates,
    size_t count) {
  if (name.size() > kLongestSuggestedName) return {};
  const size_t limit = std::max<size_t>(2, name.size() / 3);
  std::vector<std::pair<size_t, size_t>> close;  // distance, position
  for (size_t i = 0; i < candidates.size(); ++i) {
    const size_t distance = edit_distance(name, candidates[i], limit);
    if (distance <= limit) close.emplace_back(distance, i);
  }
  std::stable_sort(
      close.begin(), close.end(),
      [](const auto& a, const auto& b) { return a.first < b.first; });
  // A name two sources give (casebook's torch.nll_loss and ATen's) once.
  std::vector<std::string> best;
  for (size_t i = 0; i < close.size() && best.size() < count; ++i) {
    const std::string& candidate = candidates[close[i].second];
    if (std::find(best.begin(), best.end(), candidate) == best.end()) {
      best.push_back(candidate);
    }
  }
  return best;
}

std::string nearest_name(const std::string& name,
                         const std::vector<std::string>& candidates) {
  const std::vector<std::string> best = nearest_names(name, candidates, 1);
  return best.empty() ? std::string() : best.front();
}

}  // namespace casebook
