#include "files/file_writer.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

namespace casebook {
namespace fs = std::filesystem;
namespace {

constexpr char kLockSuffix[] = ".lock";

[[noreturn]] void fail_at(const fs::path& path, const std::string& what,
                          int error_number) {
  throw WriteError(path.string() + ": " + what + ": " +
                   std::strerror(error_number));
}

// The folder component `name` of the folder open at `parent_fd`, opened
// without following a link; made first where `create`.
int open_component(int parent_fd, const std::string& name, bool create,
                   const fs::path& shown) {
  const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  int fd = ::openat(parent_fd, name.c_str(), flags);
  if (fd < 0 && errno == ENOENT && create) {
    if (::mkdirat(parent_fd, name.c_str(), 0755) != 0 && errno != EEXIST) {
      fail_at(shown, "cannot make the folder", errno);
    }
    fd = ::openat(parent_fd, name.c_str(), flags);
  }
  if (fd >= 0) return fd;
  const int error_number = errno;
  struct stat info{};
  if (::fstatat(parent_fd, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISLNK(info.st_mode)) {
    throw WriteError(shown.string() +
                     ": a link: casebook follows no link where it writes (a "
                     "link a merge request plants must not redirect a write); "
                     "name the folder it points to instead");
  }
  if (error_number == ENOTDIR) {
    throw WriteError(shown.string() + ": not a folder");
  }
  fail_at(shown, "cannot open the folder", error_number);
}

bool is_device_or_fifo(const fs::path& file) {
  struct stat info{};
  if (::stat(file.c_str(), &info) != 0) return false;
  return S_ISCHR(info.st_mode) || S_ISFIFO(info.st_mode) ||
         S_ISSOCK(info.st_mode);
}

void write_all(int fd, std::string_view bytes, const fs::path& shown) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail_at(shown, "cannot write", n == 0 ? ENOSPC : errno);
    done += static_cast<size_t>(n);
  }
}

// A device or FIFO is written in place (nothing can be planted in one).
void write_in_place(const fs::path& file, std::string_view bytes) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) fail_at(file, "cannot open", errno);
  try {
    write_all(fd, bytes, file);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) fail_at(file, "cannot close", errno);
}

}  // namespace

OpenFolder::OpenFolder(int fd, fs::path path)
    : fd_(fd), path_(std::move(path)) {}

OpenFolder::OpenFolder(OpenFolder&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

OpenFolder& OpenFolder::operator=(OpenFolder&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

OpenFolder::~OpenFolder() {
  if (fd_ >= 0) ::close(fd_);
}

OpenFolder OpenFolder::open(const fs::path& path, bool create) {
  const bool absolute = path.is_absolute();
  int fd = ::open(absolute ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail_at(absolute ? "/" : ".", "cannot open", errno);
  OpenFolder folder(fd, absolute ? fs::path("/") : fs::path());
  for (const fs::path& part : path.relative_path()) {
    const std::string name = part.string();
    if (name.empty() || name == ".") continue;
    const fs::path shown = folder.path_ / part;
    // `..` is the folder above, never a link: a path a person types may
    // go up (`--summary ../out.md`); a name a case or a user gives for a
    // file casebook makes is refused it by name_problem.
    folder = OpenFolder(open_component(folder.fd_, name, create, shown), shown);
  }
  if (folder.path_.empty()) folder.path_ = ".";
  return folder;
}

OpenFolder OpenFolder::folder(const std::string& name, bool create) const {
  const std::string problem = name_problem(name, false);
  if (!problem.empty()) throw WriteError(name + ": " + problem);
  const fs::path shown = path_ / name;
  return {open_component(fd_, name, create, shown), shown};
}

FileBeingWritten::FileBeingWritten(const OpenFolder& folder,
                                   const std::string& name,
                                   std::chrono::milliseconds wait_for_lock)
    : folder_(folder), name_(name) {
  const std::string problem = name_problem(name, false);
  if (!problem.empty()) throw WriteError(name + ": " + problem);
  const std::string lock = name_ + kLockSuffix;
  const auto deadline = std::chrono::steady_clock::now() + wait_for_lock;
  for (;;) {
    fd_ = ::openat(folder_.fd(), lock.c_str(),
                   O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd_ >= 0 || errno != EEXIST ||
        std::chrono::steady_clock::now() >= deadline) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (fd_ < 0 && errno == EEXIST) {
    throw WriteError((folder_.path() / lock).string() +
                     ": exists: another casebook is writing " + name_ +
                     ", or one was stopped while it wrote (remove the file if "
                     "no casebook is running)");
  }
  if (fd_ < 0) fail_at(folder_.path() / lock, "cannot create", errno);
}

FileBeingWritten::~FileBeingWritten() {
  if (committed_) return;
  if (fd_ >= 0) ::close(fd_);
  ::unlinkat(folder_.fd(), (name_ + kLockSuffix).c_str(), 0);
}

fs::path FileBeingWritten::path() const { return folder_.path() / name_; }

void FileBeingWritten::fail(const std::string& what, int error_number) {
  fail_at(path(), what, error_number);
}

void FileBeingWritten::write(std::string_view bytes) {
  write_all(fd_, bytes, path());
}

void FileBeingWritten::commit(OnExisting existing) {
  if (!try_commit_as(name_, existing)) {
    throw WriteError(path().string() +
                     ": exists (casebook never writes over it)");
  }
}

bool FileBeingWritten::try_commit_as(const std::string& name,
                                     OnExisting existing) {
  const std::string problem = name_problem(name, false);
  if (!problem.empty()) throw WriteError(name + ": " + problem);
  const std::string lock = name_ + kLockSuffix;
  if (::fsync(fd_) != 0 && errno != EINVAL) fail("cannot write", errno);
  const int closed = ::close(fd_);
  fd_ = -1;
  if (closed != 0) fail("cannot write", errno);
  // kRefuse never replaces: an existing name, a dangling link included, is
  // EEXIST, atomically with the check.
  const unsigned flags = existing == OnExisting::kRefuse ? RENAME_NOREPLACE : 0;
  if (::renameat2(folder_.fd(), lock.c_str(), folder_.fd(), name.c_str(),
                  flags) != 0) {
    if (errno == EEXIST && existing == OnExisting::kRefuse) return false;
    fail_at(folder_.path() / name, "cannot create", errno);
  }
  committed_ = true;
  return true;
}

void write_file_in(const OpenFolder& folder, const std::string& name,
                   std::string_view bytes, OnExisting existing) {
  FileBeingWritten file(folder, name);
  file.write(bytes);
  file.commit(existing);
}

void write_file(const fs::path& file, std::string_view bytes,
                OnExisting existing, bool create_folders) {
  if (existing == OnExisting::kReplace && is_device_or_fifo(file)) {
    write_in_place(file, bytes);
    return;
  }
  const OpenFolder folder =
      OpenFolder::open(file.parent_path(), create_folders);
  write_file_in(folder, file.filename().string(), bytes, existing);
}

void copy_file_to(const fs::path& from, const fs::path& to,
                  OnExisting existing) {
  const int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (in < 0) fail_at(from, "cannot read", errno);
  try {
    const OpenFolder folder = OpenFolder::open(to.parent_path(), true);
    FileBeingWritten out(folder, to.filename().string());
    std::vector<char> piece(size_t{1} << 20);
    for (;;) {
      const ssize_t n = ::read(in, piece.data(), piece.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) fail_at(from, "cannot read", errno);
      if (n == 0) break;
      out.write(std::string_view(piece.data(), static_cast<size_t>(n)));
    }
    out.commit(existing);
  } catch (...) {
    ::close(in);
    throw;
  }
  ::close(in);
}

bool exists_in(const OpenFolder& folder, const std::string& name) {
  struct stat info{};
  return ::fstatat(folder.fd(), name.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0;
}

namespace {

// Evidence and bundles are a folder or two deep; a deeper tree under one is
// not casebook's and is not walked without end.
constexpr int kDeepestRemoval = 16;

void remove_tree_at(const OpenFolder& folder, const std::string& name,
                    int depth) {
  struct stat info{};
  if (::fstatat(folder.fd(), name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return;
    fail_at(folder.path() / name, "cannot remove", errno);
  }
  if (S_ISDIR(info.st_mode)) {
    const OpenFolder inside = folder.folder(name, false);
    const int listing_fd = ::dup(inside.fd());
    DIR* listing = listing_fd < 0 ? nullptr : ::fdopendir(listing_fd);
    if (listing == nullptr) fail_at(inside.path(), "cannot list", errno);
    std::vector<std::string> names;
    while (const dirent* entry = ::readdir(listing)) {
      const std::string child = entry->d_name;
      if (child != "." && child != "..") names.push_back(child);
    }
    ::closedir(listing);
    if (depth >= kDeepestRemoval && !names.empty()) {
      throw WriteError(inside.path().string() +
                       ": too deep to remove (not a folder casebook wrote)");
    }
    for (const std::string& child : names) {
      remove_tree_at(inside, child, depth + 1);
    }
  }
  const int flags = S_ISDIR(info.st_mode) ? AT_REMOVEDIR : 0;
  if (::unlinkat(folder.fd(), name.c_str(), flags) != 0 && errno != ENOENT) {
    fail_at(folder.path() / name, "cannot remove", errno);
  }
}

}  // namespace

void remove_tree_in(const OpenFolder& folder, const std::string& name) {
  remove_tree_at(folder, name, 0);
}

std::string name_problem(std::string_view name, bool allow_subfolders) {
  if (name.empty()) return "an empty name";
  if (name.front() == '/') return "an absolute path: expected a name";
  size_t start = 0;
  for (size_t i = 0; i <= name.size(); ++i) {
    if (i < name.size()) {
      const auto byte = static_cast<unsigned char>(name[i]);
      if (byte < 0x20 || byte == 0x7f) return "a control character";
      if (name[i] == '\\') return "a backslash";
      // U+2028 and U+2029 end a line for some readers (Python's).
      if (name.compare(i, 3, "\xE2\x80\xA8") == 0 ||
          name.compare(i, 3, "\xE2\x80\xA9") == 0) {
        return "a line or paragraph separator (U+2028/U+2029)";
      }
      if (name[i] != '/') continue;
      if (!allow_subfolders) return "a `/`: expected one name, no folder";
    }
    const std::string_view part = name.substr(start, i - start);
    if (part.empty()) return "an empty part (`//` or a trailing `/`)";
    if (part == "." || part == "..") {
      return "a `" + std::string(part) +
             "` part: the file must stay inside its folder";
    }
    start = i + 1;
  }
  return "";
}

std::string escaped_file_name(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const bool keep = (std::isalnum(byte) != 0 && byte < 0x80) || byte == '_' ||
                      byte == '-' || (byte == '.' && i > 0);
    if (keep) {
      out += static_cast<char>(byte);
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    }
  }
  return out.empty() ? "%" : out;
}

}  // namespace casebook
