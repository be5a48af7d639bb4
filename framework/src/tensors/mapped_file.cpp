#include "tensors/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace casebook {

std::optional<MappedFile> map_file(const std::filesystem::path& file,
                                   std::string* why) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat info{};
  if (fd < 0 || ::fstat(fd, &info) != 0) {
    if (fd >= 0) ::close(fd);
    *why = "cannot open the file";
    return std::nullopt;
  }
  if (!S_ISREG(info.st_mode)) {  // a pipe or a device has no size to trust
    ::close(fd);
    *why = "not a regular file";
    return std::nullopt;
  }
  MappedFile mapped;
  mapped.size = static_cast<size_t>(info.st_size);
  if (mapped.size == 0) {
    ::close(fd);
    return mapped;
  }
  void* address = ::mmap(nullptr, mapped.size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (address == MAP_FAILED) {
    *why = "cannot map the file";
    return std::nullopt;
  }
  const size_t size = mapped.size;
  mapped.keep = std::shared_ptr<const void>(
      address, [size](const void* p) { ::munmap(const_cast<void*>(p), size); });
  mapped.bytes = static_cast<const unsigned char*>(address);
  return mapped;
}

std::optional<std::string> read_bounded(const std::filesystem::path& file,
                                        size_t limit, std::string* why) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  struct stat info{};
  if (fd < 0 || ::fstat(fd, &info) != 0) {
    if (fd >= 0) ::close(fd);
    *why = "cannot open the file";
    return std::nullopt;
  }
  std::string problem;
  std::string bytes;
  if (!S_ISREG(info.st_mode)) {
    problem = "not a regular file";
  } else if (static_cast<uint64_t>(info.st_size) > limit) {
    problem = std::to_string(info.st_size) + " bytes, over the limit of " +
              std::to_string(limit);
  } else {
    bytes.resize(limit + 1);
    size_t got = 0;
    ssize_t count = 1;
    while (got < bytes.size() && count > 0) {
      count = ::read(fd, &bytes[got], bytes.size() - got);
      if (count > 0) got += static_cast<size_t>(count);
    }
    if (count < 0) problem = "cannot read the file";
    if (got > limit) problem = "over the limit of " + std::to_string(limit);
    bytes.resize(got);
  }
  ::close(fd);
  if (problem.empty()) return bytes;
  *why = problem;
  return std::nullopt;
}

}  // namespace casebook
