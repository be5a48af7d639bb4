// A file seen through a private read-only mapping: the readers of fixtures
// and captured tensors look at it in place, and a tensor made over it keeps
// the mapping alive (`keep`). Knows no LibTorch.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace casebook {

struct MappedFile {
  std::shared_ptr<const void> keep;  // unmaps when the last holder goes
  const unsigned char* bytes = nullptr;
  size_t size = 0;
  std::string_view view() const {
    return {reinterpret_cast<const char*>(bytes), size};
  }
};

// The mapping of `file` (an empty file maps to no bytes), or nullopt with
// `why` ("cannot open the file", "not a regular file", "cannot map the
// file").
std::optional<MappedFile> map_file(const std::filesystem::path& file,
                                   std::string* why);

// The bytes of `file`, a small regular file, when it holds at most `limit`
// bytes; else nullopt with `why` ("cannot open the file", "not a regular
// file", "N bytes, over the limit of L"). A FIFO is not waited on, a file
// over the limit is refused by its size and one that hides its size (/proc)
// at the first byte past the limit: never more than `limit` + 1 bytes read.
std::optional<std::string> read_bounded(const std::filesystem::path& file,
                                        size_t limit, std::string* why);

}  // namespace casebook
