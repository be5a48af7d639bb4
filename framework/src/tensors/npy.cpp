// .npy reading and writing, by hand: Debian 12 packages no maintained C++
// reader of the format (cnpy is unpackaged and unmaintained, xtensor's is a
// large dependency for one function), and the format is small: a magic
// string, a version, a Python-literal dict header, then the raw data.
// https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "casebook/confined.h"
#include "casebook/limits.h"
#include "casebook/printable.h"
#include "tensors/fixtures.h"
#include "tensors/mapped_file.h"

namespace casebook {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

struct DescrEntry {
  const char* code;  // without the byte-order character
  at::ScalarType type;
};
constexpr DescrEntry kDescrs[] = {
    {"b1", at::kBool},
    {"u1", at::kByte},
    {"i1", at::kChar},
    {"i2", at::kShort},
    {"i4", at::kInt},
    {"i8", at::kLong},
    {"f2", at::kHalf},
    {"f4", at::kFloat},
    {"f8", at::kDouble},
    {"c8", at::kComplexFloat},
    {"c16", at::kComplexDouble},
};

// A one-byte code (b1, u1, i1) has no byte order: '|' (or '>').
bool one_byte(const std::string& code) {
  return code.size() == 2 && code[1] == '1';
}

struct Header {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

// A parser for the one Python literal the header holds:
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::filesystem::path& file)
      : text_(text), file_(file) {}

  Header parse() {
    Header header;
    bool seen_descr = false, seen_order = false, seen_shape = false;
    expect('{');
    while (peek() != '}') {
      const std::string key = parse_string();
      expect(':');
      if (key == "descr") {
        header.descr = parse_string();
        seen_descr = true;
      } else if (key == "fortran_order") {
        header.fortran_order = parse_bool();
        seen_order = true;
      } else if (key == "shape") {
        header.shape = parse_tuple();
        seen_shape = true;
      } else {
        fail("unexpected key '" + key + "'");
      }
      if (peek() == ',') ++pos_;
    }
    if (!seen_descr || !seen_order || !seen_shape) {
      fail("expected the keys descr, fortran_order and shape");
    }
    return header;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    // The header is the fixture's: quoted, but no more of it than a person
    // reads (a 50 MB header must not become a 50 MB message).
    constexpr size_t kQuoted = 200;
    throw FixtureError(file_.string() + ": .npy header: " + what +
                       " (header: " + bounded_text(text_, kQuoted) + ")");
  }
  char peek() {
    while (pos_ < text_.size() &&
           std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
    if (pos_ >= text_.size()) fail("unexpected end");
    return text_[pos_];
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string parse_string() {
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail("expected a quoted string");
    const size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string::npos) fail("unterminated string");
    std::string value = text_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return value;
  }
  bool parse_bool() {
    peek();
    for (const auto& [word, value] :
         {std::pair{"True", true}, std::pair{"False", false}}) {
      if (text_.compare(pos_, std::strlen(word), word) == 0) {
        pos_ += std::strlen(word);
        return value;
      }
    }
    fail("expected True or False");
  }
  std::vector<int64_t> parse_tuple() {
    std::vector<int64_t> values;
    expect('(');
    while (peek() != ')') {
      size_t used = 0;
      try {
        values.push_back(std::stoll(text_.substr(pos_), &used));
      } catch (const std::exception&) {
        fail("expected an integer in shape");
      }
      if (values.back() < 0) fail("negative size in shape");
      pos_ += used;
      if (peek() == ',') ++pos_;
    }
    ++pos_;
    return values;
  }

  const std::string& text_;
  const std::filesystem::path& file_;
  size_t pos_ = 0;
};

// A sidecar is a tiny JSON ({"dtype": "bfloat16", ...}: write_npy writes
// about 250 bytes); 4 KiB leaves room and bounds what a hostile one costs.
constexpr size_t kMostSidecarBytes = 4096;
// What of a sidecar a message quotes: a short printable excerpt.
constexpr size_t kQuotedSidecarBytes = 200;

std::string sidecar_excerpt(const std::string& text) {
  return printable_line(bounded_text(text, kQuotedSidecarBytes));
}

// The dtype a sidecar records, or empty when there is none. The sidecar
// follows the rule of links of fixtures (casebook/confined.h), inside the
// folder its .npy file is named in, and is read up to its limit only.
std::string sidecar_dtype(const std::filesystem::path& file) {
  const std::filesystem::path sidecar = npy_sidecar(file);
  std::error_code error;
  if (!std::filesystem::exists(
          std::filesystem::symlink_status(sidecar, error))) {
    return {};
  }
  const std::filesystem::path folder =
      file.has_parent_path() ? file.parent_path() : ".";
  std::string why;
  std::optional<std::string> text;
  if (const auto leaves = leaves_folder(
          sidecar, folder, "the folder of `" + file.string() + "`")) {
    why = *leaves;
  } else {
    text = read_bounded(sidecar, kMostSidecarBytes, &why);
  }
  if (!text) {
    throw FixtureError(sidecar.string() + ": sidecar not read: " + why);
  }
  try {
    return nlohmann::json::parse(*text).value("dtype", std::string());
  } catch (const nlohmann::json::exception& failure) {
    throw FixtureError(sidecar.string() + ": not JSON with a \"dtype\": " +
                       sidecar_excerpt(failure.what()));
  }
}

at::ScalarType descr_type(const std::string& descr,
                          const std::filesystem::path& file,
                          std::optional<at::ScalarType> declared) {
  if (descr == "bfloat16") return at::kBFloat16;
  if (descr == "<V2" || descr == "|V2") {
    if (declared == at::kBFloat16) return at::kBFloat16;
    const std::string recorded = sidecar_dtype(file);
    if (recorded == "bfloat16") return at::kBFloat16;
    throw FixtureError(
        file.string() + ": .npy descr '" + descr +
        "' is two raw bytes per element (how NumPy saves ml_dtypes' "
        "bfloat16); read as bfloat16 only where the case says `dtype: "
        "bfloat16` or a sidecar " +
        npy_sidecar(file).filename().string() +
        " says {\"dtype\": \"bfloat16\"}" +
        (recorded.empty()
             ? std::string()
             : "; the sidecar says `" + sidecar_excerpt(recorded) + "`"));
  }
  if (descr.size() == 3 || descr.size() == 4) {
    const char order = descr[0];
    const std::string code = descr.substr(1);
    for (const DescrEntry& entry : kDescrs) {
      if (code != entry.code) continue;
      if (order == '<' || order == '|' || order == '=' ||
          (order == '>' && one_byte(code))) {
        return entry.type;
      }
      throw FixtureError(file.string() + ": .npy descr '" + descr +
                         "' is big-endian; expected little-endian ('<')");
    }
  }
  throw FixtureError(file.string() + ": .npy descr '" + descr +
                     "' is not supported; expected one of |b1, |u1, |i1, "
                     "<i2, <i4, <i8, <f2, <f4, <f8, <c8, <c16, and for "
                     "bfloat16 <V2 or bfloat16");
}

std::string descr_of(at::ScalarType type) {
  if (type == at::kBFloat16) return "<V2";
  for (const DescrEntry& entry : kDescrs) {
    if (entry.type == type) {
      return std::string(one_byte(entry.code) ? "|" : "<") + entry.code;
    }
  }
  throw FixtureError(std::string(".npy: cannot write dtype ") +
                     c10::toString(type));
}

uint32_t little_endian(const unsigned char* bytes, size_t count) {
  uint32_t value = 0;
  for (size_t i = count; i-- > 0;) value = (value << 8) | bytes[i];
  return value;
}

// The header of the .npy bytes `data` (`size` of them) of `file`, after the
// magic, the version (1, 2 or 3) and the header's length are checked;
// `data_start` is set to the offset of the data after it.
std::string header_text(const std::filesystem::path& file,
                        const unsigned char* data, size_t size,
                        size_t* data_start) {
  if (size < 10 || std::memcmp(data, kMagic, kMagicSize) != 0) {
    throw FixtureError(file.string() + ": not a .npy file (no \\x93NUMPY)");
  }
  const int major = data[6];
  if (major < 1 || major > 3) {
    throw FixtureError(file.string() + ": .npy format version " +
                       std::to_string(major) + " is not 1, 2 or 3");
  }
  const size_t length_size = major == 1 ? 2 : 4;
  const size_t header_start = 8 + length_size;
  if (size < header_start) {
    throw FixtureError(file.string() + ": .npy file is truncated");
  }
  const size_t header_size = little_endian(data + 8, length_size);
  // numpy writes a few hundred bytes and, since 1.24, reads no header over
  // 10,000 without allow_pickle; 64 KiB leaves room and bounds the copy.
  constexpr size_t kMostHeaderBytes = 64 * 1024;
  if (header_size > kMostHeaderBytes) {
    throw FixtureError(file.string() + ": .npy header of " +
                       std::to_string(header_size) +
                       " bytes is over the limit of 65536 (numpy writes a "
                       "few hundred)");
  }
  if (size - header_start < header_size) {
    throw FixtureError(file.string() + ": .npy header is truncated");
  }
  *data_start = header_start + header_size;
  return std::string(reinterpret_cast<const char*>(data) + header_start,
                     header_size);
}

// The one reader of .npy files: every check, then the tensor over the
// file's mapping (`over_mapping`: read-only, alive as long as the tensor) or
// a copy of it. Fortran order is always a C-order copy.
at::Tensor load_npy(const std::filesystem::path& file,
                    std::optional<at::ScalarType> declared, bool over_mapping) {
  std::string why;
  const std::optional<MappedFile> mapped = map_file(file, &why);
  if (!mapped) throw FixtureError(file.string() + ": " + why);
  const unsigned char* data = mapped->bytes;
  const size_t size = mapped->size;
  size_t data_start = 0;
  const std::string text = header_text(file, data, size, &data_start);
  const Header header = HeaderParser(text, file).parse();
  const at::ScalarType type = descr_type(header.descr, file, declared);
  std::vector<int64_t> shape = header.shape;
  if (header.fortran_order) std::reverse(shape.begin(), shape.end());
  check_fixture_shape(file, shape, type);  // sizes >= 0, within the limit
  const size_t expected =
      static_cast<size_t>(element_count(shape)) * c10::elementSize(type);
  const size_t present = size - data_start;
  if (present != expected) {
    throw FixtureError(file.string() + ": .npy data holds " +
                       std::to_string(present) +
                       " bytes, the header's shape and dtype need " +
                       std::to_string(expected));
  }
  void* start = const_cast<unsigned char*>(data + data_start);
  at::Tensor tensor = at::from_blob(
      start, shape, [keep = mapped->keep](void*) {},
      at::TensorOptions().dtype(type));
  if (header.fortran_order && tensor.dim() > 1) {
    std::vector<int64_t> reverse(tensor.dim());
    for (int64_t d = 0; d < tensor.dim(); ++d) {
      reverse[d] = tensor.dim() - 1 - d;
    }
    return tensor.permute(reverse).contiguous();
  }
  return over_mapping ? tensor : tensor.clone();
}

}  // namespace

std::filesystem::path npy_sidecar(const std::filesystem::path& file) {
  std::filesystem::path sidecar = file;
  sidecar += ".json";
  return sidecar;
}

at::Tensor read_npy(const std::filesystem::path& file,
                    std::optional<at::ScalarType> declared) {
  return load_npy(file, declared, /*over_mapping=*/false);
}

void write_npy_in(const OpenFolder& folder, const std::string& name,
                  const at::Tensor& tensor, OnExisting existing) {
  const at::Tensor data = tensor.to(at::kCPU).contiguous();
  {
    FileBeingWritten file(folder, name);
    file.write(npy_header(data.scalar_type(), data.sizes().vec()));
    file.write(std::string_view(
        static_cast<const char*>(data.data_ptr()),
        static_cast<size_t>(data.numel() * data.element_size())));
    file.commit(existing);
  }
  // A bfloat16 file says how to read it (numpy has no bfloat16); any other
  // dtype leaves no older sidecar behind to mislead.
  const std::string sidecar = npy_sidecar(name).string();
  if (data.scalar_type() != at::kBFloat16) {
    remove_tree_in(folder, sidecar);
    return;
  }
  const nlohmann::json record = {
      {"dtype", "bfloat16"},
      {"npy_descr", "<V2"},
      {"how_to_load",
       "np.load(f).view(ml_dtypes.bfloat16); without ml_dtypes: "
       "(np.load(f).view('<u2').astype('<u4') << 16).view('<f4')"}};
  write_file_in(folder, sidecar, record.dump(2) + "\n", existing);
}

void write_npy(const std::filesystem::path& file, const at::Tensor& tensor,
               OnExisting existing) {
  const OpenFolder folder = OpenFolder::open(file.parent_path(), true);
  write_npy_in(folder, file.filename().string(), tensor, existing);
}

// Issue 14 (capture): a header alone, and a reader that maps the file
// instead of copying it, so that a 1 GiB capture holds one copy.
std::string npy_header(at::ScalarType type, const std::vector<int64_t>& shape) {
  std::ostringstream dict;
  dict << "{'descr': '" << descr_of(type)
       << "', 'fortran_order': False, 'shape': (";
  const size_t dims = shape.size();
  for (size_t d = 0; d < dims; ++d) {
    dict << shape[d] << (dims == 1 || d + 1 < dims ? "," : "")
         << (d + 1 < dims ? " " : "");
  }
  dict << "), }";
  std::string header = dict.str();
  const bool v2 = header.size() + 11 > 65535;
  const size_t prefix = v2 ? 12 : 10;
  header.append(63 - (prefix + header.size()) % 64, ' ');
  header.push_back('\n');
  std::string bytes(kMagic, kMagicSize);
  bytes.push_back(static_cast<char>(v2 ? 2 : 1));
  bytes.push_back(0);
  const auto size = static_cast<uint32_t>(header.size());
  for (size_t i = 0; i < (v2 ? 4u : 2u); ++i) {
    bytes.push_back(static_cast<char>((size >> (8 * i)) & 0xff));
  }
  return bytes + header;
}

at::Tensor map_npy(const std::filesystem::path& file,
                   std::optional<at::ScalarType> declared) {
  return load_npy(file, declared, /*over_mapping=*/true);
}

}  // namespace casebook
