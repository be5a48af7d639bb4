// The restricted unpickler of casebook's .pt reader (tensors/pt_archive.h).
//
// The pickle machine runs over an arena of values (indices, never pointers),
// so that a pickle that makes a container hold itself builds no reference
// cycle and leaks nothing; the result is then expanded into a tree, which
// refuses such a cycle, nesting past kMaxDepth and sharing that would expand
// past kMaxResult. Nothing here recurses deeper than kMaxDepth.
#include <cstring>
#include <optional>
#include <set>
#include <utility>

#include "casebook/limits.h"
#include "casebook/shape_text.h"
#include "tensors/pt_archive.h"

namespace casebook {
namespace {

using Limits = PtLimits;

enum class Callable {
  kRebuildTensor,
  kRebuildParameter,
  kOrderedDict,
  kRestoreTypeTag,
  kBuildList
};

struct Node {
  enum class Kind {
    kNone,
    kBool,
    kInt,
    kFloat,
    kString,
    kDtype,
    kTensor,
    kList,
    kTuple,
    kDict,
    kCallable,
    kStorageClass,
    kStorage
  };
  Kind kind = Kind::kNone;
  int64_t integer = 0;  // kBool, kInt; kTensor, kStorage: their index;
                        // kCallable: a Callable; kStorageClass: a PtDtype
  double real = 0;
  std::string text;             // kString, kDtype
  std::vector<uint32_t> items;  // kList, kTuple; kDict: key, value, ...
  int depth = 0;                // kTuple: of its items, known when made
};

struct Allowed {
  const char* module;
  const char* name;
  Node::Kind kind;
  int64_t value;
};

// Every global a saved tensor, or a dict, list or tuple of them, needs.
const Allowed kAllowed[] = {
    {"torch._utils", "_rebuild_tensor_v2", Node::Kind::kCallable,
     static_cast<int64_t>(Callable::kRebuildTensor)},
    {"torch._utils", "_rebuild_parameter", Node::Kind::kCallable,
     static_cast<int64_t>(Callable::kRebuildParameter)},
    {"collections", "OrderedDict", Node::Kind::kCallable,
     static_cast<int64_t>(Callable::kOrderedDict)},
    {"torch.jit._pickle", "restore_type_tag", Node::Kind::kCallable,
     static_cast<int64_t>(Callable::kRestoreTypeTag)},
    {"torch.jit._pickle", "build_intlist", Node::Kind::kCallable,
     static_cast<int64_t>(Callable::kBuildList)},
    {"torch.jit._pickle", "build_doublelist", Node::Kind::kCallable,
     static_cast<int64_t>(Callable::kBuildList)},
    {"torch.jit._pickle", "build_boollist", Node::Kind::kCallable,
     static_cast<int64_t>(Callable::kBuildList)},
    {"torch.jit._pickle", "build_tensorlist", Node::Kind::kCallable,
     static_cast<int64_t>(Callable::kBuildList)},
#define CASEBOOK_STORAGE(name, dtype)        \
  {"torch", name, Node::Kind::kStorageClass, \
   static_cast<int64_t>(PtDtype::dtype)},
    CASEBOOK_STORAGE("FloatStorage", kFloat32) CASEBOOK_STORAGE(
        "DoubleStorage", kFloat64) CASEBOOK_STORAGE("HalfStorage", kFloat16)
        CASEBOOK_STORAGE("BFloat16Storage", kBFloat16) CASEBOOK_STORAGE(
            "LongStorage", kInt64) CASEBOOK_STORAGE("IntStorage", kInt32)
            CASEBOOK_STORAGE("ShortStorage", kInt16) CASEBOOK_STORAGE(
                "CharStorage", kInt8) CASEBOOK_STORAGE("ByteStorage", kUInt8)
                CASEBOOK_STORAGE("BoolStorage", kBool)
                    CASEBOOK_STORAGE("ComplexFloatStorage", kComplex64)
                        CASEBOOK_STORAGE("ComplexDoubleStorage", kComplex128)
#undef CASEBOOK_STORAGE
};

// torch dtypes, as values (a dict may hold one beside its tensors).
const char* const kDtypes[] = {
    "float32",  "float", "float64", "double", "float16",   "half",
    "bfloat16", "int64", "long",    "int32",  "int",       "int16",
    "short",    "int8",  "uint8",   "bool",   "complex64", "complex128"};

// The kind of value a node expands to; nullopt for a global or a storage,
// which are no value.
std::optional<PtValue::Kind> value_kind(Node::Kind kind) {
  using N = Node::Kind;
  using V = PtValue::Kind;
  static const std::map<N, V> kKinds{
      {N::kNone, V::kNone},     {N::kBool, V::kBool},
      {N::kInt, V::kInt},       {N::kFloat, V::kFloat},
      {N::kString, V::kString}, {N::kDtype, V::kDtype},
      {N::kTensor, V::kTensor}, {N::kList, V::kList},
      {N::kTuple, V::kTuple},   {N::kDict, V::kDict}};
  const auto found = kKinds.find(kind);
  if (found == kKinds.end()) return std::nullopt;
  return found->second;
}

class PickleMachine {
 public:
  PickleMachine(std::string_view pickle,
                const std::map<std::string, std::string_view>& records)
      : pickle_(pickle), records_(records) {}

  PtContents run();

 private:
  [[noreturn]] void refuse(const std::string& why) const {
    throw PtRefusal("data.pkl byte " + std::to_string(opcode_at_) + ": " + why);
  }
  uint64_t take(int width);  // a little-endian unsigned argument
  std::string_view take_bytes(uint64_t length);
  std::string_view take_line();
  uint32_t make(Node node);
  void push(uint32_t index);
  uint32_t pop();
  Node& top();
  std::vector<uint32_t> pop_to_mark();
  void add_items(uint32_t container, const std::vector<uint32_t>& items);
  void make_tuple(std::vector<uint32_t> items);
  void global(std::string_view module, std::string_view name);
  void memo_put(uint64_t index);
  void memo_get(uint64_t index);
  void persistent_id();
  void reduce();
  uint32_t rebuild_tensor(const std::vector<uint32_t>& args);
  int64_t integer_of(uint32_t index, const char* what);
  std::vector<int64_t> integers_of(uint32_t index, const char* what);
  bool step(unsigned char code);
  bool step_containers(unsigned char code);
  bool step_scalars(unsigned char code);
  PtValue expand(uint32_t index, int depth, std::vector<bool>& on_path);

  std::string_view pickle_;
  const std::map<std::string, std::string_view>& records_;
  uint64_t at_ = 0;
  uint64_t opcode_at_ = 0;
  std::vector<Node> nodes_;
  uint64_t edges_ = 0;
  std::vector<uint32_t> stack_;
  std::vector<size_t> marks_;
  std::vector<uint32_t> memo_;
  std::map<std::string, size_t> storage_by_key_;
  uint64_t expanded_ = 0;
  PtContents contents_;
};

uint64_t PickleMachine::take(int width) {
  if (pickle_.size() - at_ < static_cast<uint64_t>(width)) refuse("truncated");
  uint64_t value = 0;
  for (int i = width - 1; i >= 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(pickle_[at_ + i]);
  }
  at_ += width;
  return value;
}

std::string_view PickleMachine::take_bytes(uint64_t length) {
  if (length > Limits::kMaxString) {
    refuse("a string of " + std::to_string(length) + " bytes (the limit is " +
           std::to_string(Limits::kMaxString) + ")");
  }
  if (pickle_.size() - at_ < length) {
    refuse("a string of " + std::to_string(length) + " bytes; " +
           std::to_string(pickle_.size() - at_) + " are left");
  }
  const std::string_view bytes = pickle_.substr(at_, length);
  at_ += length;
  return bytes;
}

std::string_view PickleMachine::take_line() {
  const size_t end = pickle_.find('\n', at_);
  if (end == std::string_view::npos || end - at_ > 256) {
    refuse("a global's name that does not end within 256 bytes");
  }
  const std::string_view line = pickle_.substr(at_, end - at_);
  at_ = end + 1;
  return line;
}

uint32_t PickleMachine::make(Node node) {
  if (nodes_.size() >= Limits::kMaxValues) {
    refuse("makes more than " + std::to_string(Limits::kMaxValues) + " values");
  }
  nodes_.push_back(std::move(node));
  return static_cast<uint32_t>(nodes_.size() - 1);
}

void PickleMachine::push(uint32_t index) {
  if (stack_.size() >= Limits::kMaxValues) refuse("the stack grows too deep");
  stack_.push_back(index);
}

uint32_t PickleMachine::pop() {
  const size_t floor = marks_.empty() ? 0 : marks_.back();
  if (stack_.size() <= floor) {
    refuse("opcode " + std::to_string(pickle_[opcode_at_]) +
           " takes a value the stack does not hold");
  }
  const uint32_t index = stack_.back();
  stack_.pop_back();
  return index;
}

Node& PickleMachine::top() {
  const uint32_t index = pop();
  stack_.push_back(index);
  return nodes_[index];
}

std::vector<uint32_t> PickleMachine::pop_to_mark() {
  if (marks_.empty()) refuse("a MARK is missing");
  std::vector<uint32_t> items(stack_.begin() + marks_.back(), stack_.end());
  stack_.resize(marks_.back());
  marks_.pop_back();
  return items;
}

// Appends to a list, or sets a dict's pairs (`items` alternating).
void PickleMachine::add_items(uint32_t container,
                              const std::vector<uint32_t>& items) {
  Node& node = nodes_[container];
  const bool list = node.kind == Node::Kind::kList;
  if (!list && node.kind != Node::Kind::kDict) {
    refuse("adds items to something that is neither a list nor a dict");
  }
  if (!list && items.size() % 2 != 0) refuse("a dict item without a value");
  edges_ += items.size();
  if (edges_ > Limits::kMaxValues) {
    refuse("holds more than " + std::to_string(Limits::kMaxValues) +
           " items in its containers");
  }
  node.items.insert(node.items.end(), items.begin(), items.end());
}

void PickleMachine::make_tuple(std::vector<uint32_t> items) {
  Node tuple;
  tuple.kind = Node::Kind::kTuple;
  for (const uint32_t item : items) {
    tuple.depth = std::max(tuple.depth, nodes_[item].depth);
  }
  tuple.depth += 1;
  if (tuple.depth > Limits::kMaxDepth) {
    refuse("nests containers deeper than " + std::to_string(Limits::kMaxDepth) +
           " levels");
  }
  edges_ += items.size();
  tuple.items = std::move(items);
  push(make(std::move(tuple)));
}

void PickleMachine::global(std::string_view module, std::string_view name) {
  for (const Allowed& allowed : kAllowed) {
    if (module == allowed.module && name == allowed.name) {
      Node node;
      node.kind = allowed.kind;
      node.integer = allowed.value;
      push(make(std::move(node)));
      return;
    }
  }
  if (module == "torch") {
    for (const char* dtype : kDtypes) {
      if (name == dtype) {
        Node node;
        node.kind = Node::Kind::kDtype;
        node.text = "torch." + std::string(name);
        push(make(std::move(node)));
        return;
      }
    }
  }
  refuse("the global `" + std::string(module.substr(0, 64)) + "." +
         std::string(name.substr(0, 64)) +
         "` is not one a saved tensor needs (casebook reads tensors and "
         "dicts, lists and tuples of them, as torch.load(weights_only=True))");
}

// A pickler numbers its memo entries 0, 1, 2, ...: an index past the count
// so far is refused (LibTorch reserved 37.7 GB for one of 0x8c766301), so
// the memo is a vector.
void PickleMachine::memo_put(uint64_t index) {
  if (index > memo_.size()) {
    refuse("stores memo index " + std::to_string(index) + " after " +
           std::to_string(memo_.size()) +
           " entries (a pickler numbers them from 0)");
  }
  if (index == memo_.size() && memo_.size() >= Limits::kMaxMemo) {
    refuse("stores more than " + std::to_string(Limits::kMaxMemo) +
           " memo entries");
  }
  top();  // refuses an empty stack
  if (index == memo_.size()) {
    memo_.push_back(stack_.back());
  } else {
    memo_[index] = stack_.back();
  }
}

void PickleMachine::memo_get(uint64_t index) {
  if (index >= memo_.size()) {
    refuse("reads memo index " + std::to_string(index) +
           ", which nothing stored");
  }
  push(memo_[index]);
}

int64_t PickleMachine::integer_of(uint32_t index, const char* what) {
  const Node& node = nodes_[index];
  if (node.kind != Node::Kind::kInt && node.kind != Node::Kind::kBool) {
    refuse(std::string(what) + " is not an integer");
  }
  return node.integer;
}

std::vector<int64_t> PickleMachine::integers_of(uint32_t index,
                                                const char* what) {
  const Node& node = nodes_[index];
  if (node.kind != Node::Kind::kTuple && node.kind != Node::Kind::kList) {
    refuse(std::string(what) + " is not a tuple");
  }
  if (node.items.size() > static_cast<size_t>(Limits::kMaxDims)) {
    refuse(std::string(what) + " has " + std::to_string(node.items.size()) +
           " dimensions (the limit is " + std::to_string(Limits::kMaxDims) +
           ")");
  }
  std::vector<int64_t> values;
  for (const uint32_t item : node.items)
    values.push_back(integer_of(item, what));
  return values;
}

// ('storage', torch.<X>Storage, key, location, elements) -> the storage of
// the record `data/<key>`, which must hold exactly its elements.
void PickleMachine::persistent_id() {
  const Node& id = nodes_[pop()];
  const auto item = [&](size_t i) -> const Node& {
    return nodes_[id.items[i]];
  };
  if (id.kind != Node::Kind::kTuple || id.items.size() != 5 ||
      item(0).kind != Node::Kind::kString || item(0).text != "storage" ||
      item(1).kind != Node::Kind::kStorageClass ||
      item(2).kind != Node::Kind::kString ||
      item(3).kind != Node::Kind::kString || item(4).kind != Node::Kind::kInt) {
    refuse(
        "a persistent id that is not ('storage', torch.<X>Storage, key, "
        "location, size)");
  }
  const std::string key = item(2).text;
  const auto dtype = static_cast<PtDtype>(item(1).integer);
  const int64_t elements = item(4).integer;
  const auto record = records_.find(key);
  if (record == records_.end()) {
    refuse("storage `" + key.substr(0, 64) + "` has no record data/" +
           key.substr(0, 64));
  }
  uint64_t bytes = 0;
  if (elements < 0 ||
      __builtin_mul_overflow(static_cast<uint64_t>(elements),
                             pt_dtype_size(dtype), &bytes) ||
      bytes != record->second.size()) {
    refuse("storage `" + key + "` claims " + std::to_string(elements) +
           " elements of " + pt_dtype_name(dtype) + "; its record holds " +
           std::to_string(record->second.size()) + " bytes");
  }
  const auto known = storage_by_key_.find(key);
  size_t index = contents_.storages.size();
  if (known != storage_by_key_.end()) {
    index = known->second;
    if (contents_.storages[index].dtype != dtype) {
      refuse("storage `" + key + "` is named as two dtypes");
    }
  } else {
    storage_by_key_[key] = index;
    contents_.storages.push_back(
        PtStorage{key, dtype, static_cast<uint64_t>(elements), record->second});
  }
  Node node;
  node.kind = Node::Kind::kStorage;
  node.integer = static_cast<int64_t>(index);
  push(make(std::move(node)));
}

// _rebuild_tensor_v2(storage, offset, sizes, strides, requires_grad, hooks
// [, metadata]): the view, checked against its storage before anything is
// made of it.
uint32_t PickleMachine::rebuild_tensor(const std::vector<uint32_t>& args) {
  if ((args.size() != 6 && args.size() != 7) ||
      nodes_[args[0]].kind != Node::Kind::kStorage) {
    refuse(
        "_rebuild_tensor_v2 takes (storage, offset, sizes, strides, "
        "requires_grad, hooks)");
  }
  for (size_t i = 5; i < args.size(); ++i) {
    const Node& extra = nodes_[args[i]];
    if (extra.kind != Node::Kind::kDict || !extra.items.empty()) {
      refuse("a tensor with backward hooks or metadata");
    }
  }
  PtTensor tensor;
  tensor.storage = static_cast<size_t>(nodes_[args[0]].integer);
  tensor.offset = integer_of(args[1], "a tensor's storage offset");
  tensor.sizes = integers_of(args[2], "a tensor's sizes");
  tensor.strides = integers_of(args[3], "a tensor's strides");
  const PtStorage& storage = contents_.storages[tensor.storage];
  if (auto problem = pt_view_problem(tensor, storage)) refuse(*problem);
  Node node;
  node.kind = Node::Kind::kTensor;
  node.integer = static_cast<int64_t>(contents_.tensors.size());
  contents_.tensors.push_back(std::move(tensor));
  return make(std::move(node));
}

void PickleMachine::reduce() {
  const uint32_t args_index = pop();
  const Node& callable = nodes_[pop()];
  const Node& args_node = nodes_[args_index];
  if (callable.kind != Node::Kind::kCallable ||
      args_node.kind != Node::Kind::kTuple) {
    refuse("REDUCE calls something that is not an allowed function");
  }
  const std::vector<uint32_t> args = args_node.items;
  const auto arg_kind = [&](size_t i) { return nodes_[args[i]].kind; };
  switch (static_cast<Callable>(callable.integer)) {
    case Callable::kRebuildTensor:
      push(rebuild_tensor(args));
      return;
    case Callable::kRebuildParameter:
      if (args.size() != 3 || arg_kind(0) != Node::Kind::kTensor) {
        refuse("_rebuild_parameter takes (tensor, requires_grad, hooks)");
      }
      push(args[0]);
      return;
    case Callable::kOrderedDict: {
      if (!args.empty()) refuse("OrderedDict is called with arguments");
      Node dict;
      dict.kind = Node::Kind::kDict;
      push(make(std::move(dict)));
      return;
    }
    case Callable::kRestoreTypeTag:
      // The type's text is not parsed (LibTorch's recursive parser of it
      // overflowed the stack): the value is what it is.
      if (args.size() != 2 || arg_kind(1) != Node::Kind::kString) {
        refuse("restore_type_tag takes (value, type)");
      }
      push(args[0]);
      return;
    case Callable::kBuildList:
      if (args.size() != 1 || arg_kind(0) != Node::Kind::kList) {
        refuse("a TorchScript list builder takes (list,)");
      }
      push(args[0]);
      return;
  }
}

bool PickleMachine::step_containers(unsigned char code) {
  Node node;
  switch (code) {
    case '(':
      if (marks_.size() >= static_cast<size_t>(Limits::kMaxDepth)) {
        refuse("opens more than " + std::to_string(Limits::kMaxDepth) +
               " marks at once");
      }
      marks_.push_back(stack_.size());
      return true;
    case ')':
      make_tuple({});
      return true;
    case 't':
      make_tuple(pop_to_mark());
      return true;
    case 0x85:
    case 0x86:
    case 0x87: {
      std::vector<uint32_t> items(code - 0x84);
      for (size_t i = items.size(); i-- > 0;) items[i] = pop();
      make_tuple(std::move(items));
      return true;
    }
    case ']':
    case '}':
    case 'l':
    case 'd': {
      node.kind =
          code == ']' || code == 'l' ? Node::Kind::kList : Node::Kind::kDict;
      node.depth = 1;
      const uint32_t made = make(std::move(node));
      if (code == 'l' || code == 'd') add_items(made, pop_to_mark());
      push(made);
      return true;
    }
    case 'a':
    case 's': {
      std::vector<uint32_t> items(code == 'a' ? 1 : 2);
      for (size_t i = items.size(); i-- > 0;) items[i] = pop();
      top();  // refuses an empty stack
      add_items(stack_.back(), items);
      return true;
    }
    case 'e':
    case 'u': {
      const std::vector<uint32_t> items = pop_to_mark();
      top();
      add_items(stack_.back(), items);
      return true;
    }
    default:
      return false;
  }
}

bool PickleMachine::step_scalars(unsigned char code) {
  Node node;
  switch (code) {
    case 'N':
      break;
    case 0x88:
    case 0x89:
      node.kind = Node::Kind::kBool;
      node.integer = code == 0x88;
      break;
    case 'J':
      node.kind = Node::Kind::kInt;
      node.integer = static_cast<int32_t>(static_cast<uint32_t>(take(4)));
      break;
    case 'K':
    case 'M':
      node.kind = Node::Kind::kInt;
      node.integer = static_cast<int64_t>(take(code == 'K' ? 1 : 2));
      break;
    case 0x8a: {  // LONG1: a little-endian two's complement of n bytes
      const uint64_t width = take(1);
      if (width > 8) refuse("an integer wider than 64 bits");
      uint64_t value = width == 0 ? 0 : take(static_cast<int>(width));
      if (width > 0 && width < 8 && (value >> (8 * width - 1)) != 0) {
        value |= ~uint64_t{0} << (8 * width);
      }
      node.kind = Node::Kind::kInt;
      node.integer = static_cast<int64_t>(value);
      break;
    }
    case 'G': {  // BINFLOAT: a big-endian double
      uint64_t bits = 0;
      for (int i = 0; i < 8; ++i) bits = (bits << 8) | take(1);
      node.kind = Node::Kind::kFloat;
      std::memcpy(&node.real, &bits, sizeof(bits));
      break;
    }
    case 'X':
    case 0x8c:
    case 0x8d:
      node.kind = Node::Kind::kString;
      node.text = std::string(take_bytes(take(code == 'X'    ? 4
                                              : code == 0x8c ? 1
                                                             : 8)));
      break;
    default:
      return false;
  }
  push(make(std::move(node)));
  return true;
}

// One opcode; false at STOP.
bool PickleMachine::step(unsigned char code) {
  if (step_containers(code) || step_scalars(code)) return true;
  switch (code) {
    case 0x80: {
      const uint64_t protocol = take(1);
      if (protocol > 5) refuse("pickle protocol " + std::to_string(protocol));
      return true;
    }
    case 0x95:  // FRAME: a hint of the next frame's size
      take(8);
      return true;
    case 'q':
    case 'r':
      memo_put(take(code == 'q' ? 1 : 4));
      return true;
    case 0x94:
      memo_put(memo_.size());
      return true;
    case 'h':
    case 'j':
      memo_get(take(code == 'h' ? 1 : 4));
      return true;
    case 'c': {
      const std::string_view module = take_line();
      global(module, take_line());
      return true;
    }
    case 0x93: {
      const Node& name = nodes_[pop()];
      const Node& module = nodes_[pop()];
      if (name.kind != Node::Kind::kString ||
          module.kind != Node::Kind::kString) {
        refuse("STACK_GLOBAL takes two strings");
      }
      const std::string module_text = module.text;
      const std::string name_text = name.text;
      global(module_text, name_text);
      return true;
    }
    case 'R':
      reduce();
      return true;
    case '0':  // POP
      pop();
      return true;
    case '1':  // POP_MARK
      pop_to_mark();
      return true;
    case 'Q':
      persistent_id();
      return true;
    case '.':
      return false;
    default:
      refuse("opcode " + std::to_string(code) +
             " is not one that a saved tensor needs");
  }
}

PtValue PickleMachine::expand(uint32_t index, int depth,
                              std::vector<bool>& on_path) {
  if (depth > Limits::kMaxDepth) {
    refuse("nests containers deeper than " + std::to_string(Limits::kMaxDepth) +
           " levels");
  }
  if (++expanded_ > Limits::kMaxResult) {
    refuse("holds more than " + std::to_string(Limits::kMaxResult) +
           " values once its shared containers are counted each time");
  }
  if (on_path[index]) refuse("a container that holds itself");
  const Node& node = nodes_[index];
  const std::optional<PtValue::Kind> kind = value_kind(node.kind);
  if (!kind) refuse("a global or storage where a value was expected");
  PtValue value;
  value.kind = *kind;
  if (value.kind == PtValue::Kind::kNone) return value;
  value.integer = node.integer;
  value.real = node.real;
  value.text = node.text;
  on_path[index] = true;
  std::set<std::string> keys;
  for (size_t i = 0; i < node.items.size(); ++i) {
    value.items.push_back(expand(node.items[i], depth + 1, on_path));
    const PtValue& item = value.items.back();
    if (value.kind != PtValue::Kind::kDict || i % 2 != 0) continue;
    if (item.kind != PtValue::Kind::kString &&
        item.kind != PtValue::Kind::kInt) {
      refuse("a dict key that is neither a string nor an integer");
    }
    const std::string key =
        (item.kind == PtValue::Kind::kInt ? "int:" : "str:") +
        (item.kind == PtValue::Kind::kInt ? std::to_string(item.integer)
                                          : item.text);
    if (!keys.insert(key).second) refuse("a dict holds one key twice");
  }
  on_path[index] = false;
  return value;
}

PtContents PickleMachine::run() {
  while (true) {
    if (at_ >= pickle_.size()) refuse("the pickle ends without its STOP");
    opcode_at_ = at_;
    const auto code = static_cast<unsigned char>(pickle_[at_++]);
    if (!step(code)) break;
  }
  if (stack_.size() != 1 || !marks_.empty()) {
    refuse("STOP with " + std::to_string(stack_.size()) +
           " values on the stack, not one");
  }
  std::vector<bool> on_path(nodes_.size(), false);
  contents_.root = expand(stack_.back(), 0, on_path);
  return std::move(contents_);
}

}  // namespace

std::optional<std::string> pt_view_problem(const PtTensor& tensor,
                                           const PtStorage& storage) {
  const std::string dtype = pt_dtype_name(storage.dtype);
  if (tensor.sizes.size() != tensor.strides.size()) {
    return "a tensor with " + std::to_string(tensor.sizes.size()) +
           " sizes and " + std::to_string(tensor.strides.size()) + " strides";
  }
  if (tensor.offset < 0) {
    return "a tensor with a negative storage offset (" +
           std::to_string(tensor.offset) + ")";
  }
  for (size_t dim = 0; dim < tensor.sizes.size(); ++dim) {
    if (tensor.sizes[dim] < 0) {
      return "a tensor with a negative size (" +
             std::to_string(tensor.sizes[dim]) + " in dim " +
             std::to_string(dim) + ")";
    }
    if (tensor.strides[dim] < 0) {
      return "a tensor with a negative stride (" +
             std::to_string(tensor.strides[dim]) + " in dim " +
             std::to_string(dim) + ")";
    }
  }
  const uint64_t elements = element_count(tensor.sizes);
  if (auto problem =
          check_tensor_size(elements, pt_dtype_size(storage.dtype), dtype)) {
    return *problem;
  }
  // The furthest element a view reaches: offset + sum((size - 1) * stride),
  // which must be inside the storage; an empty view may sit at its end.
  uint64_t last = static_cast<uint64_t>(tensor.offset);
  if (elements == 0) {
    if (last <= storage.elements) return std::nullopt;
  } else {
    for (size_t dim = 0; dim < tensor.sizes.size(); ++dim) {
      uint64_t span = 0;
      if (__builtin_mul_overflow(static_cast<uint64_t>(tensor.sizes[dim] - 1),
                                 static_cast<uint64_t>(tensor.strides[dim]),
                                 &span) ||
          __builtin_add_overflow(last, span, &last)) {
        return std::string("a tensor whose strides overflow 64 bits");
      }
    }
    if (last < storage.elements) return std::nullopt;
  }
  return "a tensor of shape " + shape_text(tensor.sizes) + " at offset " +
         std::to_string(tensor.offset) + " reaches element " +
         std::to_string(last) + " of a storage of " +
         std::to_string(storage.elements) + " " + dtype + " elements";
}

PtContents unpickle_pt(
    std::string_view pickle,
    const std::map<std::string, std::string_view>& storage_records) {
  return PickleMachine(pickle, storage_records).run();
}

}  // namespace casebook
