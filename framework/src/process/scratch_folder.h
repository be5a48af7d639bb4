// The one place a scratch folder is made: the files a process's children
// write (a run's output tensors, `show`'s, the JUnit file of `capture`'s
// `casebook run`).
#pragma once

#include <string>

namespace casebook {

// A private folder (mkdtemp: a fresh name, mode 0700) named
// casebook-<purpose>-XXXXXX: on a memory file system where there is one
// (/dev/shm, when writable), so that outputs never touch a disk, else under
// $TMPDIR, else /tmp. Removed, with everything in it, when the object ends.
class ScratchFolder {
 public:
  // Throws std::runtime_error ("cannot create a <purpose> folder under
  // <base>: <reason>") when the folder cannot be made.
  explicit ScratchFolder(const std::string& purpose);
  ~ScratchFolder();
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace casebook
