// The safetensors reader (https://github.com/huggingface/safetensors): an
// 8-byte little-endian header length, a JSON header naming each tensor's
// dtype, shape and [begin, end) byte offsets into the data that follows.
// nlohmann::json parses the header; what it would let through silently (a
// duplicate key keeps the last, 2.5 converts to 2) is checked here.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "casebook/limits.h"
#include "casebook/printable.h"
#include "tensors/fixtures.h"
#include "tensors/mapped_file.h"

namespace casebook {
namespace {

at::ScalarType safetensors_type(const std::string& name,
                                const std::filesystem::path& file) {
  static const std::pair<const char*, at::ScalarType> kTypes[] = {
      {"BOOL", at::kBool},
      {"U8", at::kByte},
      {"I8", at::kChar},
      {"I16", at::kShort},
      {"I32", at::kInt},
      {"I64", at::kLong},
      {"F16", at::kHalf},
      {"BF16", at::kBFloat16},
      {"F32", at::kFloat},
      {"F64", at::kDouble},
      // safetensors >= 0.7 writes complex64 as C64; it has no complex128.
      {"C64", at::kComplexFloat}};
  for (const auto& [spelling, type] : kTypes) {
    if (name == spelling) return type;
  }
  throw FixtureError(file.string() + ": safetensors dtype '" + name +
                     "' is not supported; expected one of BOOL, U8, I8, I16, "
                     "I32, I64, F16, BF16, F32, F64, C64");
}

// One header entry, read and checked.
struct TensorEntry {
  std::string name;
  at::ScalarType type = at::kFloat;
  std::vector<int64_t> shape;
  uint64_t begin = 0;
  uint64_t end = 0;
};

struct SafetensorsFile {
  MappedFile mapped;
  std::vector<TensorEntry> entries;  // by name (nlohmann sorts a map)
  size_t data_start = 0;
};

[[noreturn]] void refuse(const std::filesystem::path& file,
                         const std::string& what) {
  throw FixtureError(file.string() + ": " + what);
}

// The format's own limit on the header (safetensors refuses a longer one).
constexpr uint64_t kMaxHeaderBytes = 100'000'000;
// A header nests 3 levels ({name: {shape: [...]}}); nlohmann::json builds
// and destroys its tree recursively, so 100,000 nested lists overflowed the
// stack. The nesting is counted before the tree is built.
constexpr int kMaxHeaderDepth = 16;

// A name or a parser's complaint in a message: a short printable excerpt (a
// key may be 100 MB, and hold escape sequences).
std::string excerpt(const std::string& text) {
  constexpr size_t kShown = 200;
  return printable_line(bounded_text(text, kShown));
}

// The pass over the header before its tree is built, linear in its bytes:
// the nesting counted, and a key given twice in one map refused (JSON leaves
// duplicates undefined and nlohmann keeps the last: a reader that kept
// another one than casebook checked could read other bytes). A SAX pass,
// not parse()'s callback: with a callback, nlohmann scans the enclosing map
// at each closing brace, which made a header of 200,000 tensors quadratic.
class HeaderCheck : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit HeaderCheck(const std::filesystem::path& file) : file_(file) {}
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    keys_.emplace_back();
    return open();
  }
  bool key(string_t& name) override {
    if (keys_.size() == 1) entry_ = name;
    if (keys_.back().insert(name).second) return true;
    refuse(file_, keys_.size() == 1
                      ? "safetensors header names `" + excerpt(name) + "` twice"
                      : "safetensors header: `" + excerpt(entry_) +
                            "` names `" + excerpt(name) + "` twice");
  }
  bool end_object() override {
    keys_.pop_back();
    return close();
  }
  bool start_array(std::size_t) override { return open(); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&,
                   const nlohmann::detail::exception& error) override {
    refuse(file_, "safetensors header is not JSON: " + excerpt(error.what()));
  }

 private:
  bool open() {
    if (++depth_ <= kMaxHeaderDepth) return true;
    refuse(file_, "safetensors header nests deeper than " +
                      std::to_string(kMaxHeaderDepth) + " levels");
  }
  bool close() {
    --depth_;
    return true;
  }

  const std::filesystem::path& file_;
  int depth_ = 0;
  std::vector<std::set<std::string>> keys_;  // of each map open
  std::string entry_;                        // the top-level key read last
};

nlohmann::json parse_header(const std::filesystem::path& file,
                            const unsigned char* bytes, size_t length) {
  HeaderCheck check(file);
  nlohmann::json::sax_parse(bytes, bytes + length, &check);
  const nlohmann::json header = nlohmann::json::parse(bytes, bytes + length);
  if (!header.is_object()) refuse(file, "safetensors header is not an object");
  return header;
}

std::string entry_text(const nlohmann::json& value) {
  constexpr size_t kShown = 200;
  const std::string text = value.dump();
  return text.size() <= kShown ? text : text.substr(0, kShown) + "...";
}

TensorEntry read_entry(const std::filesystem::path& file,
                       const std::string& name, const nlohmann::json& value) {
  const std::string where = "tensor `" + name + "`: ";
  if (!value.is_object() || !value.contains("dtype") ||
      !value.contains("shape") || !value.contains("data_offsets")) {
    refuse(file, where + "expected {dtype, shape, data_offsets}; got " +
                     entry_text(value));
  }
  TensorEntry entry;
  entry.name = name;
  const nlohmann::json& dtype = value.at("dtype");
  if (!dtype.is_string()) refuse(file, where + "dtype is not a string");
  entry.type = safetensors_type(dtype.get<std::string>(), file);
  const nlohmann::json& shape = value.at("shape");
  if (!shape.is_array()) refuse(file, where + "shape is not a list");
  for (const nlohmann::json& size : shape) {
    // is_number_integer: 2.5 and "2" are refused, not converted.
    if (!size.is_number_integer() || size.get<int64_t>() < 0) {
      refuse(file, where + "shape " + entry_text(shape) +
                       " is not a list of integers >= 0");
    }
    entry.shape.push_back(size.get<int64_t>());
  }
  check_fixture_shape(file, entry.shape, entry.type);  // within the limit
  const nlohmann::json& offsets = value.at("data_offsets");
  if (!offsets.is_array() || offsets.size() != 2 ||
      !offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned()) {
    refuse(file, where + "data_offsets " + entry_text(offsets) +
                     " is not [begin, end] of integers >= 0");
  }
  entry.begin = offsets[0].get<uint64_t>();
  entry.end = offsets[1].get<uint64_t>();
  const uint64_t bytes = static_cast<uint64_t>(element_count(entry.shape)) *
                         c10::elementSize(entry.type);
  if (entry.end < entry.begin || entry.end - entry.begin != bytes) {
    refuse(file, where + "data_offsets " + entry_text(offsets) +
                     " do not hold its " + std::to_string(bytes) + " bytes");
  }
  return entry;
}

// The entries, sorted by offset, must tile the data exactly: an overlap
// would let two names read the same bytes, a hole hides bytes no name
// reads (the format's own reader refuses both).
void check_tiling(const std::filesystem::path& file,
                  std::vector<TensorEntry> entries, uint64_t data_size) {
  std::sort(entries.begin(), entries.end(),
            [](const TensorEntry& a, const TensorEntry& b) {
              return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
            });
  uint64_t expected = 0;
  for (const TensorEntry& entry : entries) {
    if (entry.begin != expected) {
      refuse(file, "tensor `" + entry.name + "` begins at byte " +
                       std::to_string(entry.begin) + " of the data, not " +
                       std::to_string(expected) + " where the one before it " +
                       (entry.begin < expected ? "ends (they overlap)"
                                               : "ends (a hole)"));
    }
    expected = entry.end;
  }
  if (expected != data_size) {
    refuse(file, "the tensors end at byte " + std::to_string(expected) +
                     " of the data, which has " + std::to_string(data_size) +
                     (expected < data_size ? " (bytes no tensor reads)"
                                           : " (past the end of the file)"));
  }
}

SafetensorsFile open_safetensors(const std::filesystem::path& file) {
  SafetensorsFile opened;
  std::string why;
  std::optional<MappedFile> mapped = map_file(file, &why);
  if (!mapped) refuse(file, why);
  opened.mapped = std::move(*mapped);
  const unsigned char* bytes = opened.mapped.bytes;
  const size_t size = opened.mapped.size;
  if (size < 8) {
    refuse(file,
           "not a safetensors file (shorter than its 8-byte header "
           "length)");
  }
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | bytes[i];
  if (length > kMaxHeaderBytes) {
    refuse(file, "safetensors header length " + std::to_string(length) +
                     " is over the format's limit of 100,000,000 bytes");
  }
  if (length > size - 8) {
    refuse(file, "safetensors header length " + std::to_string(length) +
                     " exceeds the file");
  }
  const nlohmann::json header = parse_header(file, bytes + 8, length);
  for (const auto& item : header.items()) {
    if (item.key() == "__metadata__") continue;
    opened.entries.push_back(read_entry(file, item.key(), item.value()));
  }
  opened.data_start = 8 + length;
  check_tiling(file, opened.entries, size - opened.data_start);
  return opened;
}

std::vector<std::string> tensor_names(const SafetensorsFile& opened) {
  std::vector<std::string> names;
  for (const TensorEntry& entry : opened.entries) names.push_back(entry.name);
  return names;
}

// The tensor over the file's mapping (`over_mapping`: read-only, alive as
// long as the tensor) or a copy of it.
at::Tensor load_safetensors(const std::filesystem::path& file,
                            const std::string& name, bool over_mapping) {
  const SafetensorsFile opened = open_safetensors(file);
  const std::string chosen = pick_tensor_name(tensor_names(opened), name, file);
  const TensorEntry& entry = *std::find_if(
      opened.entries.begin(), opened.entries.end(),
      [&chosen](const TensorEntry& each) { return each.name == chosen; });
  void* data = const_cast<unsigned char*>(opened.mapped.bytes +
                                          opened.data_start + entry.begin);
  const at::Tensor tensor = at::from_blob(
      data, entry.shape, [keep = opened.mapped.keep](void*) {},
      at::TensorOptions().dtype(entry.type));
  return over_mapping ? tensor : tensor.clone();
}

}  // namespace

std::vector<std::string> safetensors_names(const std::filesystem::path& file) {
  return tensor_names(open_safetensors(file));
}

at::Tensor read_safetensors(const std::filesystem::path& file,
                            const std::string& name) {
  return load_safetensors(file, name, /*over_mapping=*/false);
}

at::Tensor map_safetensors(const std::filesystem::path& file,
                           const std::string& name) {
  return load_safetensors(file, name, /*over_mapping=*/true);
}

}  // namespace casebook
