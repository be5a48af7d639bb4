#include "tensors/pt_zip.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>

namespace casebook {
namespace {

constexpr uint64_t kMax16 = 0xffff;
constexpr uint64_t kMax32 = 0xffffffff;
constexpr uint64_t kEndSize = 22;
constexpr uint64_t kLocatorSize = 20;
constexpr uint64_t kZip64EndSize = 56;
constexpr uint64_t kCentralSize = 46;
constexpr uint64_t kLocalSize = 30;
constexpr uint32_t kEndSignature = 0x06054b50;
constexpr uint32_t kLocatorSignature = 0x07064b50;
constexpr uint32_t kZip64EndSignature = 0x06064b50;
constexpr uint32_t kCentralSignature = 0x02014b50;
constexpr uint32_t kLocalSignature = 0x04034b50;
constexpr uint32_t kDescriptorSignature = 0x08074b50;
// General-purpose flags: 0 encrypted, 6 strong encryption, 13 masked header.
constexpr uint64_t kEncryptedFlags = 0x2041;
constexpr uint64_t kDescriptorFlag = 0x8;

[[noreturn]] void refuse(const std::string& why) {
  throw PtRefusal("zip: " + why);
}

bool fits(std::string_view bytes, uint64_t at, uint64_t length) {
  return at <= bytes.size() && length <= bytes.size() - at;
}

// Little-endian unsigned of `width` bytes at `at`, refused past the end.
uint64_t read_le(std::string_view bytes, uint64_t at, int width) {
  if (!fits(bytes, at, static_cast<uint64_t>(width))) {
    refuse("a header runs past the end of the file");
  }
  uint64_t value = 0;
  for (int i = width - 1; i >= 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(bytes[at + i]);
  }
  return value;
}

// A 32-bit (or 16-bit) field and its ZIP64 twin: equal, or the short one
// saturated and the long one at least as large.
void check_agrees(uint64_t short_value, uint64_t saturated, uint64_t long_value,
                  const char* field) {
  if (short_value == long_value) return;
  if (short_value == saturated && long_value >= saturated) return;
  refuse(std::string("the ZIP64 end record's ") + field + " (" +
         std::to_string(long_value) + ") disagrees with the end record's (" +
         std::to_string(short_value) + ")");
}

struct Directory {
  uint64_t count = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t end = 0;  // where the records after the directory begin
};

uint64_t find_end_record(std::string_view bytes) {
  if (bytes.size() < kEndSize) refuse("not a zip archive (too short)");
  const uint64_t end = bytes.size() - kEndSize;
  if (read_le(bytes, end, 4) == kEndSignature) return end;
  const uint64_t lowest = end > kMax16 ? end - kMax16 : 0;
  for (uint64_t at = end; at-- > lowest;) {
    if (read_le(bytes, at, 4) == kEndSignature) {
      refuse(std::to_string(bytes.size() - at - kEndSize) +
             " bytes follow the end record (a comment or trailing data)");
    }
  }
  refuse(
      "not a zip archive (torch.save's format since PyTorch 1.6): no end "
      "record");
}

// The ZIP64 end record that the locator before `end` names: it must stand
// just before the locator and agree with the 32-bit end record.
void read_zip64_end(std::string_view bytes, uint64_t end, Directory& found) {
  const uint64_t locator = end - kLocatorSize;
  const uint64_t named = read_le(bytes, locator + 8, 8);
  if (read_le(bytes, locator + 4, 4) != 0 ||
      read_le(bytes, locator + 16, 4) != 1) {
    refuse("the ZIP64 locator names another disk");
  }
  if (locator < kZip64EndSize || named != locator - kZip64EndSize) {
    refuse("the ZIP64 locator names an end record at byte " +
           std::to_string(named) + ", not the one before it");
  }
  if (read_le(bytes, named, 4) != kZip64EndSignature ||
      read_le(bytes, named + 4, 8) != kZip64EndSize - 12 ||
      read_le(bytes, named + 16, 4) != 0 ||
      read_le(bytes, named + 20, 4) != 0) {
    refuse("a damaged ZIP64 end record");
  }
  check_agrees(read_le(bytes, end + 8, 2), kMax16,
               read_le(bytes, named + 24, 8), "record count on this disk");
  check_agrees(found.count, kMax16, read_le(bytes, named + 32, 8),
               "record count");
  check_agrees(found.size, kMax32, read_le(bytes, named + 40, 8),
               "directory size");
  check_agrees(found.offset, kMax32, read_le(bytes, named + 48, 8),
               "directory offset");
  found.count = read_le(bytes, named + 32, 8);
  found.size = read_le(bytes, named + 40, 8);
  found.offset = read_le(bytes, named + 48, 8);
  found.end = named;
}

Directory find_directory(std::string_view bytes) {
  const uint64_t end = find_end_record(bytes);
  Directory found;
  found.count = read_le(bytes, end + 10, 2);
  found.size = read_le(bytes, end + 12, 4);
  found.offset = read_le(bytes, end + 16, 4);
  found.end = end;
  if (read_le(bytes, end + 4, 2) != 0 || read_le(bytes, end + 6, 2) != 0 ||
      read_le(bytes, end + 8, 2) != found.count) {
    refuse("a multi-disk archive");
  }
  if (end >= kLocatorSize &&
      read_le(bytes, end - kLocatorSize, 4) == kLocatorSignature) {
    read_zip64_end(bytes, end, found);
  } else if (found.count == kMax16 || found.size == kMax32 ||
             found.offset == kMax32) {
    refuse("a saturated end record without its ZIP64 end record");
  }
  if (found.offset > found.end || found.end - found.offset != found.size) {
    refuse("the central directory (" + std::to_string(found.size) +
           " bytes at byte " + std::to_string(found.offset) +
           ") does not end where the end record begins (byte " +
           std::to_string(found.end) + ")");
  }
  if (found.count == 0) refuse("the archive holds no record");
  if (found.count > found.size / kCentralSize) {
    refuse("the end record claims " + std::to_string(found.count) +
           " records, more than its directory holds");
  }
  return found;
}

// One record as its central directory entry and local header describe it.
struct Entry {
  ZipRecord record;
  uint64_t flags = 0;
  uint64_t local = 0;  // the local header
  uint64_t end = 0;    // past its data and data descriptor
  bool zip64 = false;  // sizes in ZIP64 fields
};

// The ZIP64 extra field (id 1) holds, in this order, the uncompressed size,
// the compressed size and the local header's offset that are saturated in
// the 32-bit fields, and nothing else.
void read_zip64_extra(std::string_view extra, const std::string& name,
                      std::array<uint64_t*, 3> saturated_order) {
  uint64_t at = 0;
  bool seen = false;
  while (at < extra.size()) {
    const uint64_t id = read_le(extra, at, 2);
    const uint64_t size = read_le(extra, at + 2, 2);
    if (!fits(extra, at + 4, size)) refuse("record `" + name + "`: bad extra");
    if (id == 1) {
      if (seen) refuse("record `" + name + "`: two ZIP64 fields");
      seen = true;
      uint64_t field = at + 4;
      for (uint64_t* value : saturated_order) {
        if (value == nullptr || *value != kMax32) continue;
        if (field + 8 > at + 4 + size) break;
        *value = read_le(extra, field, 8);
        field += 8;
      }
      if (field != at + 4 + size) {
        refuse("record `" + name +
               "`: its ZIP64 field disagrees with its 32-bit fields");
      }
    }
    at += 4 + size;
  }
}

void check_name(const std::string& name) {
  const bool plain = !name.empty() && name.front() != '/' &&
                     name.find('\0') == std::string::npos &&
                     name.find('\\') == std::string::npos &&
                     ("/" + name + "/").find("/../") == std::string::npos &&
                     std::none_of(name.begin(), name.end(), [](char c) {
                       return std::iscntrl(static_cast<unsigned char>(c)) != 0;
                     });
  if (!plain) refuse("a record name that is not a plain relative path");
}

// The central directory entry at `at`; `at` moves past it.
Entry read_central(std::string_view bytes, uint64_t& at) {
  if (read_le(bytes, at, 4) != kCentralSignature) {
    refuse("a damaged central directory entry at byte " + std::to_string(at));
  }
  Entry entry;
  entry.flags = read_le(bytes, at + 8, 2);
  const uint64_t method = read_le(bytes, at + 10, 2);
  entry.record.crc32 = static_cast<uint32_t>(read_le(bytes, at + 16, 4));
  uint64_t compressed = read_le(bytes, at + 20, 4);
  uint64_t uncompressed = read_le(bytes, at + 24, 4);
  const uint64_t name_size = read_le(bytes, at + 28, 2);
  const uint64_t extra_size = read_le(bytes, at + 30, 2);
  const uint64_t comment_size = read_le(bytes, at + 32, 2);
  const uint64_t disk = read_le(bytes, at + 34, 2);
  entry.local = read_le(bytes, at + 42, 4);
  if (!fits(bytes, at + kCentralSize, name_size + extra_size + comment_size)) {
    refuse("a central directory entry runs past the file");
  }
  entry.record.name = std::string(bytes.substr(at + kCentralSize, name_size));
  const std::string& name = entry.record.name;
  check_name(name);
  entry.zip64 = compressed == kMax32 || uncompressed == kMax32;
  read_zip64_extra(bytes.substr(at + kCentralSize + name_size, extra_size),
                   name, {&uncompressed, &compressed, &entry.local});
  at += kCentralSize + name_size + extra_size + comment_size;
  if (disk != 0) {
    refuse("record `" + name + "` is on another disk");
  }
  if ((entry.flags & kEncryptedFlags) != 0) {
    refuse("record `" + name + "` is encrypted");
  }
  if (method != 0) {
    refuse("record `" + name + "` is compressed (method " +
           std::to_string(method) +
           "); torch.save stores every record as it is: save it again with "
           "torch.save");
  }
  if (compressed != uncompressed) {
    refuse("record `" + name + "` is stored but its two sizes differ");
  }
  entry.record.size = uncompressed;
  return entry;
}

// A field of the local header: equal to the directory's, or 0 where a data
// descriptor follows the data (what torch.save writes).
void check_local_field(const Entry& entry, uint64_t local_value,
                       uint64_t central_value, const char* field) {
  if (local_value == central_value) return;
  if ((entry.flags & kDescriptorFlag) != 0 && local_value == 0) return;
  if (entry.zip64 && local_value == kMax32) return;
  refuse("record `" + entry.record.name + "`: its local header's " + field +
         " disagrees with the central directory");
}

// The local header and data descriptor of `entry`: where its bytes are.
void read_local(std::string_view bytes, Entry& entry) {
  const uint64_t at = entry.local;
  const std::string& name = entry.record.name;
  if (!fits(bytes, at, kLocalSize) ||
      read_le(bytes, at, 4) != kLocalSignature) {
    refuse("record `" + name + "`: no local header at byte " +
           std::to_string(at));
  }
  const uint64_t name_size = read_le(bytes, at + 26, 2);
  const uint64_t extra_size = read_le(bytes, at + 28, 2);
  if (read_le(bytes, at + 6, 2) != entry.flags ||
      read_le(bytes, at + 8, 2) != 0 ||
      !fits(bytes, at + kLocalSize, name_size) ||
      bytes.substr(at + kLocalSize, name_size) != name) {
    refuse("record `" + name +
           "`: its local header disagrees with the central directory");
  }
  check_local_field(entry, read_le(bytes, at + 14, 4), entry.record.crc32,
                    "CRC");
  check_local_field(entry, read_le(bytes, at + 18, 4),
                    std::min(entry.record.size, kMax32), "size");
  check_local_field(entry, read_le(bytes, at + 22, 4),
                    std::min(entry.record.size, kMax32), "size");
  entry.record.data_offset = at + kLocalSize + name_size + extra_size;
  if (!fits(bytes, entry.record.data_offset, entry.record.size)) {
    refuse("record `" + name + "` claims " + std::to_string(entry.record.size) +
           " bytes, past the end of the file");
  }
  entry.end = entry.record.data_offset + entry.record.size;
  if ((entry.flags & kDescriptorFlag) == 0) return;
  if (read_le(bytes, entry.end, 4) == kDescriptorSignature) entry.end += 4;
  const int width = entry.zip64 ? 8 : 4;
  if (read_le(bytes, entry.end, 4) != entry.record.crc32 ||
      read_le(bytes, entry.end + 4, width) != entry.record.size ||
      read_le(bytes, entry.end + 4 + width, width) != entry.record.size) {
    refuse("record `" + name +
           "`: its data descriptor disagrees with the central directory");
  }
  entry.end += 4 + 2 * static_cast<uint64_t>(width);
}

// Every name once, also when case is ignored (some readers ignore it).
void check_unique(const std::vector<Entry>& entries) {
  std::set<std::string> exact;
  std::set<std::string> folded;
  for (const Entry& entry : entries) {
    std::string lower = entry.record.name;
    for (char& c : lower) {
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (!exact.insert(entry.record.name).second) {
      refuse("record `" + entry.record.name + "` appears twice");
    }
    if (!folded.insert(lower).second) {
      refuse("record `" + entry.record.name +
             "` and another differ only by case");
    }
  }
}

// The records tile the bytes before the directory: the first at byte 0,
// each where the one before it ends, the last where the directory begins.
void check_tiling(std::vector<const Entry*> order, uint64_t directory) {
  std::sort(order.begin(), order.end(),
            [](const Entry* a, const Entry* b) { return a->local < b->local; });
  uint64_t expected = 0;
  std::string before = "the start of the file";
  for (const Entry* entry : order) {
    const std::string name = "record `" + entry->record.name + "`";
    if (entry->local < expected) refuse(name + " overlaps " + before);
    if (entry->local > expected) {
      refuse(std::to_string(entry->local - expected) + " bytes between " +
             before + " and " + name);
    }
    expected = entry->end;
    before = name;
  }
  if (expected > directory) refuse(before + " overlaps the central directory");
  if (expected < directory) {
    refuse(std::to_string(directory - expected) + " bytes between " + before +
           " and the central directory");
  }
}

}  // namespace

uint32_t crc32_of(std::string_view bytes) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> made{};
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320U ^ (c >> 1) : c >> 1;
      made[n] = c;
    }
    return made;
  }();
  uint32_t crc = 0xffffffffU;
  for (const char byte : bytes) {
    crc = table[(crc ^ static_cast<unsigned char>(byte)) & 0xff] ^ (crc >> 8);
  }
  return crc ^ 0xffffffffU;
}

std::vector<ZipRecord> read_zip_records(std::string_view bytes) {
  const Directory directory = find_directory(bytes);
  std::vector<Entry> entries;
  uint64_t at = directory.offset;
  for (uint64_t index = 0; index < directory.count; ++index) {
    entries.push_back(read_central(bytes, at));
  }
  if (at != directory.end) {
    refuse("the central directory holds more than its " +
           std::to_string(directory.count) + " records");
  }
  check_unique(entries);
  std::vector<const Entry*> order;
  for (Entry& entry : entries) {
    read_local(bytes, entry);
    order.push_back(&entry);
  }
  check_tiling(order, directory.offset);
  std::vector<ZipRecord> records;
  for (const Entry& entry : entries) {
    const uint32_t actual =
        crc32_of(bytes.substr(entry.record.data_offset, entry.record.size));
    if (actual != entry.record.crc32) {
      refuse("record `" + entry.record.name + "`: its CRC does not match its " +
             "bytes (a damaged or altered file)");
    }
    records.push_back(entry.record);
  }
  return records;
}

}  // namespace casebook
