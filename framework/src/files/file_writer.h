// One way to write a file (docs/architecture.md, "Writing files"): every
// command that writes (run outputs, evidence, accept, show, neighbors, new,
// capture, report) goes through here, so that a link a merge request plants
// (a committed `casebook-evidence` link, `<case>.yaml.lock`, a dangling link
// where a new file goes) can neither receive data nor redirect a removal.
//
// The rules (git's lockfile.c and tempfile.c, openat(2) with O_NOFOLLOW):
//  - a folder is opened once, component by component from the current folder
//    (a relative path) or from `/`, following no link (`..` goes up); missing
//    folders are made where asked;
//  - a file is written as `<name>.lock` in its folder (created exclusively,
//    so a second writer of the same file is refused, not interleaved), then
//    renamed into place: a reader sees the old file or the new one, never
//    half of one;
//  - an existing file is replaced only where the caller says it replaces it;
//    "exists" is asked of the name itself, so a dangling link exists;
//  - a failed write, sync or close is a WriteError naming the file: the
//    command says it and exits 2, nothing is lost silently.
// A target that is already a device or a FIFO (`/dev/stdout`, a pipe) is
// written in place: nothing can be planted in it.
#pragma once

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace casebook {

// A file or folder that could not be written, made or opened as the rules
// say; what() names it and why.
class WriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class OnExisting {
  kRefuse,   // a file already there (a link included) is an error
  kReplace,  // it is replaced, atomically
};

// A folder opened once, without following a link at any component. Moves,
// does not copy; closes its descriptor when destroyed.
class OpenFolder {
 public:
  // `path` ("" or "." is the current folder). `create`: missing folders are
  // made (0755). Throws WriteError naming the component that is a link, is
  // no folder, or cannot be opened or made.
  static OpenFolder open(const std::filesystem::path& path, bool create);

  // One folder inside this one (a single name, checked as name_problem).
  OpenFolder folder(const std::string& name, bool create) const;

  OpenFolder(OpenFolder&& other) noexcept;
  OpenFolder& operator=(OpenFolder&& other) noexcept;
  OpenFolder(const OpenFolder&) = delete;
  OpenFolder& operator=(const OpenFolder&) = delete;
  ~OpenFolder();

  int fd() const { return fd_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  OpenFolder(int fd, std::filesystem::path path);
  int fd_ = -1;
  std::filesystem::path path_;
};

// A file being written: `<name>.lock` in its folder until commit() renames it
// into place; dropped (the lock removed) when destroyed before.
class FileBeingWritten {
 public:
  // Throws WriteError when `<name>.lock` exists (another writer, or a
  // planted file or link) or cannot be made. `wait_for_lock`: how long to
  // wait for another writer to finish first (a record every run updates).
  FileBeingWritten(const OpenFolder& folder, const std::string& name,
                   std::chrono::milliseconds wait_for_lock = {});
  FileBeingWritten(const FileBeingWritten&) = delete;
  FileBeingWritten& operator=(const FileBeingWritten&) = delete;
  ~FileBeingWritten();

  // Appends bytes; throws WriteError on a short or failed write.
  void write(std::string_view bytes);
  // Syncs, closes and renames into place. kRefuse: an existing `name` (a
  // dangling link included) is an error and is left as it was.
  void commit(OnExisting existing);
  // The same, as `name` (a content-addressed name known once written, in
  // the same folder); kRefuse: false, nothing changed, when `name` exists.
  bool try_commit_as(const std::string& name, OnExisting existing);

  std::filesystem::path path() const;

 private:
  void fail(const std::string& what, int error_number);
  const OpenFolder& folder_;
  std::string name_;
  int fd_ = -1;
  bool committed_ = false;
};

// Writes `bytes` as `name` in `folder` (FileBeingWritten, then commit).
void write_file_in(const OpenFolder& folder, const std::string& name,
                   std::string_view bytes, OnExisting existing);

// Writes `bytes` as `file`: its folder opened (made where `create_folders`),
// then write_file_in; a device or FIFO already at `file` is written in place.
void write_file(const std::filesystem::path& file, std::string_view bytes,
                OnExisting existing, bool create_folders = true);

// Copies the regular file `from` to `to` by the same rules (its folders
// made; read in pieces, never whole). Throws WriteError.
void copy_file_to(const std::filesystem::path& from,
                  const std::filesystem::path& to, OnExisting existing);

// Whether `name` exists in `folder` as any kind of entry (a dangling link
// included), without following it.
bool exists_in(const OpenFolder& folder, const std::string& name);

// Removes `name` in `folder` and, when it is a folder, everything under it,
// following no link (a link is removed, never what it points to). Nothing
// there: nothing done. Throws WriteError when something cannot be removed.
void remove_tree_in(const OpenFolder& folder, const std::string& name);

// Why `name` cannot name a file casebook makes, or "" when it can: a name a
// user gives (`new OP NAME`, `capture --name`, the Recorder's) stays inside
// the folder it belongs to. Refused: empty, absolute, a `.` or `..` part, an
// empty part, a backslash, a control character (a newline would forge a
// line of the table) or U+2028/U+2029; `/` only where `allow_subfolders`.
std::string name_problem(std::string_view name, bool allow_subfolders);

// Which way a verdict's output goes: a text escaped reversibly into one file
// name ([A-Za-z0-9_.-] kept, every other byte and a leading `.` as %XX), so
// that two ids never share a name ("a/b" is "a%2Fb", "a_b" stays "a_b").
std::string escaped_file_name(std::string_view text);

}  // namespace casebook
