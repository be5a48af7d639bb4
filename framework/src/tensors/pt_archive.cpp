#include "tensors/pt_archive.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <string_view>
#include <unordered_map>
#include <vector>

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

// The pickle machine's stack, as nesting depths only: enough to bound what
// LibTorch's unpickler would build before it builds it. A value's depth is 0
// for a scalar or string, one more than its deepest element for a
// container. Nested beyond kMaxPickleDepth, LibTorch's recursive IValue code
// overflowed the stack (1 MB of nested tuples segfaulted the process); a memo
// index far beyond what the pickle stored made it reserve gigabytes (a
// 0x8c766301 index asked for 37.7 GB).
constexpr int kMaxPickleDepth = 200;
constexpr size_t kMaxMarks = 200;

class DepthStack {
 public:
  // Each returns false on a stack the opcode does not fit (malformed).
  bool push(int depth) {
    values_.push_back(depth);
    return depth <= kMaxPickleDepth;
  }
  bool pop(int count, int* deepest) {
    *deepest = -1;
    for (int i = 0; i < count; ++i) {
      if (values_.size() <= floor()) return false;
      *deepest = std::max(*deepest, values_.back());
      values_.pop_back();
    }
    return true;
  }
  bool mark() {
    marks_.push_back(values_.size());
    return marks_.size() <= kMaxMarks;
  }
  // Pops to the last mark; -1 when none was there.
  bool pop_mark(int* deepest) {
    if (marks_.empty()) return false;
    *deepest = -1;
    while (values_.size() > marks_.back()) {
      *deepest = std::max(*deepest, values_.back());
      values_.pop_back();
    }
    marks_.pop_back();
    return true;
  }
  // The top value becomes a container holding something of `depth`.
  bool grow_top(int depth) {
    if (values_.size() <= floor()) return false;
    values_.back() = std::max(values_.back(), depth + 1);
    return values_.back() <= kMaxPickleDepth;
  }
  std::optional<int> top() const {
    if (values_.size() <= floor()) return std::nullopt;
    return values_.back();
  }

 private:
  size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  std::vector<int> values_;
  std::vector<size_t> marks_;
};

// What the opcode `code` does to the depths; an error text, or nullopt.
std::optional<std::string> step(unsigned char code, uint64_t argument,
                                DepthStack& stack,
                                std::unordered_map<uint64_t, int>& memo,
                                uint64_t memo_limit) {
  int deepest = -1;
  auto malformed = [&]() -> std::optional<std::string> {
    return std::string("the pickle's stack does not hold what opcode ") +
           std::to_string(code) + " takes";
  };
  auto too_deep = [&]() -> std::optional<std::string> {
    return "nests containers deeper than " + std::to_string(kMaxPickleDepth) +
           " levels, or opens more than " + std::to_string(kMaxMarks) +
           " at once";
  };
  switch (code) {
    case 0x80:  // PROTO
    case 0x95:  // FRAME
      return std::nullopt;
    case '(':
      return stack.mark() ? std::nullopt : too_deep();
    case ']':
    case '}':
    case ')':
    case 0x8f:  // EMPTY_SET
      return stack.push(1) ? std::nullopt : too_deep();
    case 't':   // TUPLE
    case 'l':   // LIST
    case 'd':   // DICT
    case 0x91:  // FROZENSET
      if (!stack.pop_mark(&deepest)) return malformed();
      return stack.push(deepest + 1) ? std::nullopt : too_deep();
    case 0x85:  // TUPLE1..3
    case 0x86:
    case 0x87: {
      if (!stack.pop(code - 0x84, &deepest)) return malformed();
      return stack.push(deepest + 1) ? std::nullopt : too_deep();
    }
    case 'a':  // APPEND
      if (!stack.pop(1, &deepest)) return malformed();
      return stack.grow_top(deepest) ? std::nullopt : too_deep();
    case 's':  // SETITEM
      if (!stack.pop(2, &deepest)) return malformed();
      return stack.grow_top(deepest) ? std::nullopt : too_deep();
    case 'e':   // APPENDS
    case 'u':   // SETITEMS
    case 0x90:  // ADDITEMS
      if (!stack.pop_mark(&deepest)) return malformed();
      return stack.grow_top(deepest) ? std::nullopt : too_deep();
    case 'b':  // BUILD
      if (!stack.pop(1, &deepest)) return malformed();
      return stack.grow_top(deepest) ? std::nullopt : too_deep();
    case 'R':   // REDUCE: callable, args -> value
    case 0x81:  // NEWOBJ: class, args -> value
    case 0x93:  // STACK_GLOBAL: module, name -> callable
      if (!stack.pop(2, &deepest)) return malformed();
      return stack.push(deepest + 1) ? std::nullopt : too_deep();
    case 0x92:  // NEWOBJ_EX: class, args, kwargs -> value
      if (!stack.pop(3, &deepest)) return malformed();
      return stack.push(deepest + 1) ? std::nullopt : too_deep();
    case 'o':  // OBJ
    case 'i':  // INST
      if (!stack.pop_mark(&deepest)) return malformed();
      return stack.push(deepest + 1) ? std::nullopt : too_deep();
    case 'Q':  // BINPERSID: pid -> object
    case 'P':  // PERSID
      if (code == 'Q' && !stack.pop(1, &deepest)) return malformed();
      return stack.push(std::max(deepest, 0)) ? std::nullopt : too_deep();
    case '0':  // POP
      return stack.pop(1, &deepest) ? std::nullopt : malformed();
    case '1':  // POP_MARK
      return stack.pop_mark(&deepest) ? std::nullopt : malformed();
    case '2': {  // DUP
      const std::optional<int> top = stack.top();
      if (!top) return malformed();
      return stack.push(*top) ? std::nullopt : too_deep();
    }
    case 'p':   // PUT
    case 'q':   // BINPUT
    case 'r':   // LONG_BINPUT
    case 0x94:  // MEMOIZE
    {
      const std::optional<int> top = stack.top();
      if (!top) return malformed();
      const uint64_t index = code == 0x94 ? memo.size() : argument;
      if (index > memo_limit) {
        return "stores an item at memo index " + std::to_string(index) +
               ", beyond any the pickle's " + std::to_string(memo_limit) +
               " opcodes can fill";
      }
      memo[index] = *top;
      return std::nullopt;
    }
    case 'g':  // GET
    case 'h':  // BINGET
    case 'j':  // LONG_BINGET
    {
      const auto found = memo.find(argument);
      if (found == memo.end()) {
        return "reads memo index " + std::to_string(argument) +
               ", which nothing stored";
      }
      return stack.push(found->second) ? std::nullopt : too_deep();
    }
    default:  // every other opcode pushes one scalar, string or global
      return stack.push(0) ? std::nullopt : too_deep();
  }
}

std::optional<std::string> pickle_problem(std::string_view pickle) {
  size_t at = 0;
  DepthStack stack;
  std::unordered_map<uint64_t, int> memo;
  // Python's pickler numbers memo entries 0, 1, 2, ...: no index can exceed
  // the count of opcodes.
  const uint64_t memo_limit = pickle.size();
  while (at < pickle.size()) {
    const auto code = static_cast<unsigned char>(pickle[at]);
    const std::optional<Opcode> op = opcode(code);
    const std::string where = "data.pkl byte " + std::to_string(at);
    if (!op) {
      return where + ": " + std::to_string(code) + " is not a pickle opcode";
    }
    ++at;
    if (code == '.') return std::nullopt;
    uint64_t argument = 0;
    switch (op->argument) {
      case Argument::kNone:
        break;
      case Argument::kFixed:
        if (!fits(pickle, at, op->width)) return where + ": truncated";
        argument = little_endian(pickle, at, op->width);
        at += op->width;
        break;
      case Argument::kLine:
      case Argument::kTwoLines: {
        const size_t start = at;
        for (int line = op->argument == Argument::kLine ? 1 : 2; line > 0;
             --line) {
          const size_t end = pickle.find('\n', at);
          if (end == std::string_view::npos) return where + ": truncated";
          at = end + 1;
        }
        // PUT and GET (protocol 0) take their index as a decimal line.
        if (code == 'p' || code == 'g') {
          const std::string_view digits = pickle.substr(start, at - 1 - start);
          if (digits.empty() || digits.size() > 18 ||
              digits.find_first_not_of("0123456789") !=
                  std::string_view::npos) {
            return where + ": a memo index that is not a number";
          }
          argument = std::stoull(std::string(digits));
        }
        break;
      }
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
    if (auto problem = step(code, argument, stack, memo, memo_limit)) {
      return where + ": " + *problem;
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

std::optional<std::string> pt_archive_problem(
    std::string_view bytes, std::map<std::string, uint64_t>* record_sizes) {
  uint64_t offset = 0;
  uint64_t count = 0;
  if (auto problem = find_directory(bytes, offset, count)) return problem;
  if (count == 0) return "zip: the archive holds no record";
  std::string archive;  // the first record's folder, as LibTorch takes it
  std::optional<std::string_view> pickle;
  std::set<std::string> names;
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
    // LibTorch's zip reader takes one of two same-named records, and this
    // check would read the other (726 bytes made LibTorch take 3.9 GB).
    if (!names.insert(record.name).second) {
      return named + " appears twice in the archive";
    }
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
    if (record_sizes != nullptr &&
        record.name.compare(0, archive.size() + 1, archive + "/") == 0) {
      (*record_sizes)[record.name.substr(archive.size() + 1)] =
          record.uncompressed;
    }
    if (record.name == archive + "/data.pkl") {
      pickle = bytes.substr(data, record.compressed);
    }
  }
  if (!pickle) return "zip: no `" + archive + "/data.pkl` record";
  return pickle_problem(*pickle);
}

}  // namespace casebook
