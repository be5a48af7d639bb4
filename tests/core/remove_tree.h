// Removes `name` under the folder `parent` (a descriptor) and all below it,
// by descriptors, giving folders back their permissions first:
// fs::remove_all goes by paths and stops at PATH_MAX and at mode 000.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

namespace casebook::testing_support {

inline void remove_tree_at(int parent, const char* name) {
  if (unlinkat(parent, name, 0) == 0) return;
  fchmodat(parent, name, 0700, 0);
  const int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  if (fd < 0) return;
  DIR* folder = fdopendir(fd);
  if (folder == nullptr) {
    close(fd);
    return;
  }
  while (const dirent* entry = readdir(folder)) {
    const std::string child = entry->d_name;
    if (child != "." && child != "..") remove_tree_at(fd, child.c_str());
  }
  closedir(folder);
  unlinkat(parent, name, AT_REMOVEDIR);
}

}  // namespace casebook::testing_support
