#include "tensors/pt_archive.h"

#include <cstdint>
#include <string_view>

#include "tensors/mapped_file.h"

namespace casebook {
namespace {

// Little-endian unsigned of `width` bytes at `at`; the caller checks bounds.
uint64_t little_endian(std::string_view bytes, size_t at, int width) {
  uint64_t value = 0;
  for (int i = width - 1; i >= 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(bytes[at + i]);
  }
  return value;
}

bool fits(std::string_view bytes, uint64_t at, uint64_t length) {
  return at <= bytes.size() && length <= bytes.size() - at;
}

// How a pickle opcode's argument is laid out (pickletools' table).
enum class Argument { kNone, kFixed, kLine, kTwoLines, kCounted };
struct Opcode {
  Argument argument;
  int width;  // kFixed: the argument's bytes; kCounted: the count's bytes
};

std::optional<Opcode> opcode(unsigned char code) {
  switch (code) {
    case '.':
    case '(':
    case '0':
    case '1':
    case '2':
    case 'N':
    case 'R':
    case ')':
    case 't':
    case ']':
    case 'l':
    case 'a':
    case 'e':
    case '}':
    case 'd':
    case 's':
    case 'u':
    case 'b':
    case 'o':
    case 'Q':
    case 0x81:
    case 0x85:
    case 0x86:
    case 0x87:
    case 0x88:
    case 0x89:
    case 0x8f:
    case 0x90:
    case 0x91:
    case 0x92:
    case 0x93:
    case 0x94:
    case 0x97:
    case 0x98:
      return Opcode{Argument::kNone, 0};
    case 0x80:
    case 'K':
    case 'h':
    case 'q':
    case 0x82:
      return Opcode{Argument::kFixed, 1};
    case 'M':
    case 0x83:
      return Opcode{Argument::kFixed, 2};
    case 'J':
    case 'j':
    case 'r':
    case 0x84:
      return Opcode{Argument::kFixed, 4};
    case 'G':
    case 0x95:
      return Opcode{Argument::kFixed, 8};
    case 'I':
    case 'L':
    case 'S':
    case 'V':
    case 'F':
    case 'g':
    case 'p':
    case 'P':
      return Opcode{Argument::kLine, 0};
    case 'c':
    case 'i':
      return Opcode{Argument::kTwoLines, 0};
    case 'U':
    case 'C':
    case 0x8c:
    case 0x8a:
      return Opcode{Argument::kCounted, 1};
    case 'T':
    case 'X':
    case 'B':
    case 0x8b:
      return Opcode{Argument::kCounted, 4};
    case 0x8d:
    case 0x8e:
    case 0x96:
      return Opcode{Argument::kCounted, 8};
    default:
      return std::nullopt;
  }
}

std::optional<std::string> pickle_problem(std::string_view pickle) {
  size_t at = 0;
  while (at < pickle.size()) {
    const auto code = static_cast<unsigned char>(pickle[at]);
    const std::optional<Opcode> op = opcode(code);
    const std::string where = "data.pkl byte " + std::to_string(at);
    if (!op) {
      return where + ": " + std::to_string(code) + " is not a pickle opcode";
    }
    ++at;
    if (code == '.') return std::nullopt;
    switch (op->argument) {
      case Argument::kNone:
        break;
      case Argument::kFixed:
        if (!fits(pickle, at, op->width)) return where + ": truncated";
        at += op->width;
        break;
      case Argument::kLine:
      case Argument::kTwoLines:
        for (int line = op->argument == Argument::kLine ? 1 : 2; line > 0;
             --line) {
          const size_t end = pickle.find('\n', at);
          if (end == std::string_view::npos) return where + ": truncated";
          at = end + 1;
        }
        break;
      case Argument::kCounted: {
        if (!fits(pickle, at, op->width)) return where + ": truncated";
        const uint64_t length = little_endian(pickle, at, op->width);
        at += op->width;
        if (!fits(pickle, at, length)) {
          return where + ": claims " + std::to_string(length) + " bytes, " +
                 std::to_string(pickle.size() - at) + " are left";
        }
        at += length;
        break;
      }
    }
  }
  return "data.pkl ends without the pickle's STOP";
}

// One record of the zip's central directory.
struct Record {
  std::string name;
  uint64_t method = 0;
  uint64_t compressed = 0;
  uint64_t uncompressed = 0;
  uint64_t local_header = 0;
};

constexpr uint64_t kZip32Max = 0xffffffff;

// Sizes and offset saturated in the 32-bit fields are in the ZIP64 extra
// field (id 1), in this order, each present only when saturated.
bool read_zip64_extra(std::string_view extra, Record& record) {
  size_t at = 0;
  while (fits(extra, at, 4)) {
    const uint64_t id = little_endian(extra, at, 2);
    const uint64_t size = little_endian(extra, at + 2, 2);
    at += 4;
    if (!fits(extra, at, size)) return false;
    if (id == 1) {
      size_t field = at;
      for (uint64_t* value :
           {&record.uncompressed, &record.compressed, &record.local_header}) {
        if (*value != kZip32Max) continue;
        if (field + 8 > at + size) return false;
        *value = little_endian(extra, field, 8);
        field += 8;
      }
    }
    at += size;
  }
  return true;
}

// The central directory's offset and record count, from the end records.
std::optional<std::string> find_directory(std::string_view bytes,
                                          uint64_t& offset, uint64_t& count) {
  constexpr size_t kEndSize = 22;
  if (bytes.size() < kEndSize) return "not a zip archive (too short)";
  size_t end = bytes.size() - kEndSize;
  const size_t lowest = end > 0xffff ? end - 0xffff : 0;
  while (little_endian(bytes, end, 4) != 0x06054b50) {
    if (end == lowest) {
      return "not a zip archive (torch.save's format since PyTorch 1.6): "
             "no end of central directory";
    }
    --end;
  }
  count = little_endian(bytes, end + 10, 2);
  offset = little_endian(bytes, end + 16, 4);
  if (count != 0xffff && offset != kZip32Max) return std::nullopt;
  // ZIP64: a locator just before the end record names the ZIP64 end record.
  if (end < 20 || little_endian(bytes, end - 20, 4) != 0x07064b50) {
    return "zip: saturated end record without a ZIP64 locator";
  }
  const uint64_t end64 = little_endian(bytes, end - 20 + 8, 8);
  if (!fits(bytes, end64, 56) || little_endian(bytes, end64, 4) != 0x06064b50) {
    return "zip: ZIP64 end record outside the file";
  }
  count = little_endian(bytes, end64 + 32, 8);
  offset = little_endian(bytes, end64 + 48, 8);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> pt_archive_problem(std::string_view bytes) {
  uint64_t offset = 0;
  uint64_t count = 0;
  if (auto problem = find_directory(bytes, offset, count)) return problem;
  if (count == 0) return "zip: the archive holds no record";
  std::string archive;  // the first record's folder, as LibTorch takes it
  std::optional<std::string_view> pickle;
  uint64_t at = offset;
  for (uint64_t index = 0; index < count; ++index) {
    constexpr size_t kHeader = 46;
    if (!fits(bytes, at, kHeader) ||
        little_endian(bytes, at, 4) != 0x02014b50) {
      return "zip: central directory record " + std::to_string(index) +
             " is outside the file or damaged";
    }
    Record record;
    record.method = little_endian(bytes, at + 10, 2);
    record.compressed = little_endian(bytes, at + 20, 4);
    record.uncompressed = little_endian(bytes, at + 24, 4);
    const uint64_t name_size = little_endian(bytes, at + 28, 2);
    const uint64_t extra_size = little_endian(bytes, at + 30, 2);
    const uint64_t comment_size = little_endian(bytes, at + 32, 2);
    record.local_header = little_endian(bytes, at + 42, 4);
    if (!fits(bytes, at + kHeader, name_size + extra_size + comment_size)) {
      return "zip: central directory record " + std::to_string(index) +
             " runs past the file";
    }
    record.name = std::string(bytes.substr(at + kHeader, name_size));
    if (!read_zip64_extra(bytes.substr(at + kHeader + name_size, extra_size),
                          record)) {
      return "zip: record `" + record.name + "`: damaged ZIP64 field";
    }
    at += kHeader + name_size + extra_size + comment_size;

    const std::string named = "zip: record `" + record.name + "`";
    if (record.method != 0) {
      return named + " is compressed (method " + std::to_string(record.method) +
             "); torch.save stores records uncompressed: save it again with "
             "torch.save";
    }
    constexpr size_t kLocalHeader = 30;
    if (record.compressed != record.uncompressed ||
        !fits(bytes, record.local_header, kLocalHeader) ||
        little_endian(bytes, record.local_header, 4) != 0x04034b50) {
      return named + ": its sizes or its local header do not fit the file";
    }
    const uint64_t data = record.local_header + kLocalHeader +
                          little_endian(bytes, record.local_header + 26, 2) +
                          little_endian(bytes, record.local_header + 28, 2);
    if (!fits(bytes, data, record.compressed)) {
      return named + " claims " + std::to_string(record.compressed) +
             " bytes, past the end of the file";
    }
    if (index == 0) archive = record.name.substr(0, record.name.find('/'));
    if (record.name == archive + "/data.pkl") {
      pickle = bytes.substr(data, record.compressed);
    }
  }
  if (!pickle) return "zip: no `" + archive + "/data.pkl` record";
  return pickle_problem(*pickle);
}

std::optional<std::string> pt_file_problem(const std::filesystem::path& file) {
  std::string why;
  const std::optional<MappedFile> mapped = map_file(file, &why);
  if (!mapped) return why;
  return pt_archive_problem(mapped->view());
}

}  // namespace casebook
