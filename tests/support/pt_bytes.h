// A writer of .pt bytes for tests: a pickle built opcode by opcode and a zip
// laid out as torch.save lays it out (records stored from byte 0, each with
// a data descriptor, the central directory, a ZIP64 end record, its locator,
// the end record), with the positions of each part so that a test can break
// exactly one rule. Header-only; knows no LibTorch.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tensors/pt_zip.h"

namespace casebook::testing_support {

inline std::string le_bytes(uint64_t value, int width) {
  std::string out;
  for (int i = 0; i < width; ++i) {
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }
  return out;
}

// Overwrites `width` bytes of `bytes` at `at` with `value`.
inline void patch(std::string& bytes, uint64_t at, uint64_t value, int width) {
  bytes.replace(at, width, le_bytes(value, width));
}

// A pickle, opcode by opcode (protocol 2, what torch.save writes).
class PickleWriter {
 public:
  PickleWriter() { bytes_ = "\x80\x02"; }
  PickleWriter& raw(const std::string& bytes) {
    bytes_ += bytes;
    return *this;
  }
  PickleWriter& op(char code) {
    bytes_.push_back(code);
    return *this;
  }
  PickleWriter& global(const std::string& module, const std::string& name) {
    return raw("c" + module + "\n" + name + "\n");
  }
  PickleWriter& text(const std::string& value) {
    return raw("X" + le_bytes(value.size(), 4) + value);
  }
  PickleWriter& integer(int64_t value) {
    return raw("\x8a\x08" + le_bytes(static_cast<uint64_t>(value), 8));
  }
  PickleWriter& ints(const std::vector<int64_t>& values) {
    op('(');
    for (const int64_t value : values) integer(value);
    return op('t');
  }
  // _rebuild_tensor_v2(('storage', torch.<storage_class>, key, 'cpu',
  // elements), offset, sizes, strides, False, OrderedDict())
  PickleWriter& tensor(const std::string& key, int64_t elements, int64_t offset,
                       const std::vector<int64_t>& sizes,
                       const std::vector<int64_t>& strides,
                       const std::string& storage_class = "FloatStorage") {
    global("torch._utils", "_rebuild_tensor_v2").op('(');
    op('(').text("storage").global("torch", storage_class).text(key);
    text("cpu").integer(elements).op('t').op('Q');
    integer(offset).ints(sizes).ints(strides).op('\x89');
    global("collections", "OrderedDict").op(')').op('R');
    return op('t').op('R');
  }
  std::string done() const { return bytes_ + "."; }

 private:
  std::string bytes_;
};

struct ZipPart {
  std::string name;
  std::string data;
};

// Where each part of a written zip begins.
struct ZipLayout {
  std::string bytes;
  std::vector<uint64_t> local;    // each record's local header
  std::vector<uint64_t> central;  // each record's directory entry
  uint64_t directory = 0;
  uint64_t zip64_end = 0;
  uint64_t locator = 0;
  uint64_t end = 0;
};

// A zip of `parts` in torch.save's layout; `method` is written as each
// record's compression method (0: stored).
inline ZipLayout zip_bytes(const std::vector<ZipPart>& parts, int method = 0) {
  ZipLayout layout;
  std::string& out = layout.bytes;
  for (const ZipPart& part : parts) {
    layout.local.push_back(out.size());
    out += le_bytes(0x04034b50, 4) + le_bytes(20, 2) + le_bytes(0x808, 2) +
           le_bytes(method, 2) + le_bytes(0, 4) + le_bytes(0, 4) +
           le_bytes(0, 4) + le_bytes(0, 4) + le_bytes(part.name.size(), 2) +
           le_bytes(0, 2) + part.name + part.data;
    out += le_bytes(0x08074b50, 4) + le_bytes(crc32_of(part.data), 4) +
           le_bytes(part.data.size(), 4) + le_bytes(part.data.size(), 4);
  }
  layout.directory = out.size();
  for (size_t i = 0; i < parts.size(); ++i) {
    const ZipPart& part = parts[i];
    layout.central.push_back(out.size());
    out += le_bytes(0x02014b50, 4) + le_bytes(20, 2) + le_bytes(20, 2) +
           le_bytes(0x808, 2) + le_bytes(method, 2) + le_bytes(0, 4) +
           le_bytes(crc32_of(part.data), 4) + le_bytes(part.data.size(), 4) +
           le_bytes(part.data.size(), 4) + le_bytes(part.name.size(), 2) +
           le_bytes(0, 2) + le_bytes(0, 2) + le_bytes(0, 2) + le_bytes(0, 2) +
           le_bytes(0, 4) + le_bytes(layout.local[i], 4) + part.name;
  }
  const uint64_t directory_size = out.size() - layout.directory;
  layout.zip64_end = out.size();
  out += le_bytes(0x06064b50, 4) + le_bytes(44, 8) + le_bytes(45, 2) +
         le_bytes(45, 2) + le_bytes(0, 4) + le_bytes(0, 4) +
         le_bytes(parts.size(), 8) + le_bytes(parts.size(), 8) +
         le_bytes(directory_size, 8) + le_bytes(layout.directory, 8);
  layout.locator = out.size();
  out += le_bytes(0x07064b50, 4) + le_bytes(0, 4) +
         le_bytes(layout.zip64_end, 8) + le_bytes(1, 4);
  layout.end = out.size();
  out += le_bytes(0x06054b50, 4) + le_bytes(0, 2) + le_bytes(0, 2) +
         le_bytes(parts.size(), 2) + le_bytes(parts.size(), 2) +
         le_bytes(directory_size, 4) + le_bytes(layout.directory, 4) +
         le_bytes(0, 2);
  return layout;
}

// Two float32s, 1 and 2, as a storage record's bytes.
inline std::string two_floats() {
  return std::string("\x00\x00\x80\x3f\x00\x00\x00\x40", 8);
}

// A .pt of `pickle` with the storages `data/<key>` (archive/...).
inline ZipLayout pt_bytes(
    const std::string& pickle,
    const std::vector<std::pair<std::string, std::string>>& storages) {
  std::vector<ZipPart> parts = {{"archive/data.pkl", pickle}};
  for (const auto& [key, data] : storages) {
    parts.push_back({"archive/data/" + key, data});
  }
  parts.push_back({"archive/version", "3\n"});
  return zip_bytes(parts);
}

// The sound control: one float32 tensor [1, 2].
inline ZipLayout sound_pt() {
  return pt_bytes(PickleWriter().tensor("0", 2, 0, {2}, {1}).done(),
                  {{"0", two_floats()}});
}

}  // namespace casebook::testing_support
