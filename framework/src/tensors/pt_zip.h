// The zip layer of casebook's .pt reader: a strict reader of the archives
// torch.save writes (PyTorch 1.6 and later), over bytes already in memory.
// Knows no LibTorch.
//
// torch.save writes a narrow kind of zip: every record stored (method 0),
// one after the other from byte 0, each followed by a data descriptor, then
// the central directory, a ZIP64 end record, its locator and the end record,
// nothing after. Anything else is refused, so that no two readers of the same
// bytes can see different records: a second directory named by the ZIP64 end
// record, two names equal but for case, a record outside the file or over
// another, bytes before, between or after the records, a compressed or
// encrypted record, a CRC that does not match.
//
// Hand-written rather than libzip: a strict check needs the raw 32-bit and
// ZIP64 fields side by side and the position of every local header and data
// descriptor, which libzip resolves and hides (it takes the ZIP64 values and
// tolerates prepended bytes), so its answer would need this layer anyway.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace casebook {

// A refusal of the .pt reader (zip or pickle), saying what is wrong.
class PtRefusal : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ZipRecord {
  std::string name;
  uint64_t data_offset = 0;  // the record's bytes in the archive
  uint64_t size = 0;
  uint32_t crc32 = 0;
};

// The records of `bytes`, in the directory's order, their CRCs checked.
// Throws PtRefusal ("zip: ...") otherwise.
std::vector<ZipRecord> read_zip_records(std::string_view bytes);

// CRC-32 (ISO-HDLC, zip's): crc32("123456789") == 0xCBF43926.
uint32_t crc32_of(std::string_view bytes);

}  // namespace casebook
