// What `casebook capture --tensor NAME=FILE[#KEY]` reads: a tensor as it was
// saved, strides and all.
#include <torch/version.h>

#include <cctype>
#include <cstring>
#include <fstream>

#include "capture/capture.h"
#include "casebook/joined.h"
#include "tensors/fixtures.h"
#include "tensors/materialise.h"

namespace casebook {
namespace fs = std::filesystem;
namespace {

// What a file's first bytes say it is, for "not what its extension says".
std::string describe_start(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  char head[8] = {};
  in.read(head, sizeof head);
  const auto count = static_cast<size_t>(in.gcount());
  if (count == 0) return "an empty file";
  if (count >= 4 && std::memcmp(head, "PK\x03\x04", 4) == 0) {
    return "a zip archive (a torch.save file)";
  }
  if (count >= 6 && std::memcmp(head, "\x93NUMPY", 6) == 0) {
    return "a .npy file";
  }
  if (count >= 1 && head[0] == '\x80') return "a pickle (legacy torch.save)";
  std::string shown;
  for (size_t i = 0; i < count; ++i) {
    const auto c = static_cast<unsigned char>(head[i]);
    if (std::isprint(c)) {
      shown.push_back(static_cast<char>(c));
    } else {
      static const char kHex[] = "0123456789abcdef";
      shown += std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
    }
  }
  return "a file starting with `" + shown + "`";
}

std::string kind_of(const c10::IValue& value) {
  if (value.isTensor()) return "a tensor";
  if (value.isGenericDict()) return "a dict";
  if (value.isList()) return "a list";
  if (value.isTuple()) return "a tuple";
  if (value.isString()) return "a string";
  if (value.isInt()) return "an int";
  if (value.isDouble()) return "a float";
  if (value.isBool()) return "a bool";
  if (value.isNone()) return "None";
  return std::string("a ") + value.tagKind();
}

at::Tensor from_sequence(const fs::path& file, const std::string& key,
                         const std::vector<c10::IValue>& items,
                         const std::string& what) {
  if (key.empty()) {
    if (items.size() == 1 && items[0].isTensor()) return items[0].toTensor();
    throw CaptureError(file.string() + ": holds " + what + " of " +
                       std::to_string(items.size()) +
                       " items; name one with `#INDEX`");
  }
  size_t index = 0;
  try {
    size_t used = 0;
    index = std::stoul(key, &used);
    if (used != key.size()) throw std::invalid_argument(key);
  } catch (const std::exception&) {
    throw CaptureError(file.string() + ": holds " + what + "; `#" + key +
                       "` is not an index");
  }
  if (index >= items.size()) {
    throw CaptureError(file.string() + ": no item " + key + " in " + what +
                       " of " + std::to_string(items.size()) + " items");
  }
  if (!items[index].isTensor()) {
    throw CaptureError(file.string() + ": item " + key + " is " +
                       kind_of(items[index]) + ", not a tensor");
  }
  return items[index].toTensor();
}

// A dict's entries by dotted name: a nested dict (`{"batch": {"x": t}}`,
// as a training loop saves its state) gives `batch.x`. Non-tensor leaves
// are kept, to say what a name holds.
void flatten_dict(const c10::impl::GenericDict& dict, const std::string& prefix,
                  std::vector<std::pair<std::string, c10::IValue>>* into) {
  for (const auto& item : dict) {
    const std::string name =
        prefix + (item.key().isString() ? item.key().toStringRef()
                                        : std::string(item.key().tagKind()));
    if (item.value().isGenericDict()) {
      flatten_dict(item.value().toGenericDict(), name + ".", into);
    } else {
      into->emplace_back(name, item.value());
    }
  }
}

at::Tensor from_dict(const fs::path& file, const std::string& key,
                     const c10::impl::GenericDict& dict) {
  std::vector<std::pair<std::string, c10::IValue>> entries;
  flatten_dict(dict, "", &entries);
  std::vector<std::string> tensors;
  const std::string names =
      joined(entries, ", ",
             [](const std::pair<std::string, c10::IValue>& entry)
                 -> const std::string& { return entry.first; });
  for (const auto& [name, value] : entries) {
    if (value.isTensor()) tensors.push_back(name);
    if (key == name) {
      if (!value.isTensor()) {
        throw CaptureError(file.string() + ": `" + key + "` is " +
                           kind_of(value) + ", not a tensor");
      }
      return value.toTensor();
    }
  }
  for (const auto& item : dict) {
    if (item.key().isString() && item.key().toStringRef() == key) {
      throw CaptureError(file.string() + ": `" + key +
                         "` is a dict; name one of its tensors (" + names +
                         ") with `#KEY`");
    }
  }
  if (key.empty() && tensors.size() == 1) {
    for (const auto& [name, value] : entries) {
      if (name == tensors.front()) return value.toTensor();
    }
  }
  if (key.empty()) {
    throw CaptureError(file.string() + ": holds a dict with " +
                       std::to_string(tensors.size()) + " tensors (" + names +
                       "); name one with `#KEY` (`#outer.inner` in a nested "
                       "dict)");
  }
  throw CaptureError(file.string() + ": no key `" + key + "`; the dict holds " +
                     (names.empty() ? "(none)" : names));
}

at::Tensor read_pt_as_saved(const fs::path& file, const std::string& key) {
  c10::IValue value;
  try {
    // The fixtures' reader: the archive checked before LibTorch reads it,
    // each storage against its record, each tensor against its storage.
    value = load_checked_pt(file);
  } catch (const FixtureError& error) {
    const std::string why = error.what();
    // LibTorch 1.13's unpickler lacks SETITEM and APPEND, which Python uses
    // for a dict or list of a single item.
    const std::string hint =
        why.find("Unknown opcode") == std::string::npos
            ? ""
            : "; LibTorch " TORCH_VERSION
              " cannot unpickle a dict or list of a single item: save the "
              "tensor itself, or several";
    throw CaptureError(why + " (found " + describe_start(file) + ")" + hint);
  }
  if (value.isTensor()) {
    if (!key.empty()) {
      throw CaptureError(file.string() + ": holds a single tensor; `#" + key +
                         "` names none");
    }
    return value.toTensor();
  }
  if (value.isGenericDict()) return from_dict(file, key, value.toGenericDict());
  if (value.isList()) {
    const auto list = value.toList();
    return from_sequence(file, key, {list.begin(), list.end()}, "a list");
  }
  if (value.isTuple()) {
    return from_sequence(file, key, value.toTupleRef().elements().vec(),
                         "a tuple");
  }
  throw CaptureError(file.string() +
                     ": expected a tensor, or a dict or list of tensors; "
                     "found " +
                     kind_of(value));
}

}  // namespace

TensorArgument parse_tensor_argument(const std::string& text) {
  const size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size()) {
    throw CaptureError("--tensor `" + text + "`: expected NAME=FILE[#KEY]");
  }
  TensorArgument argument;
  argument.name = text.substr(0, equals);
  std::string file = text.substr(equals + 1);
  const size_t hash = file.rfind('#');
  if (hash != std::string::npos) {
    argument.key = file.substr(hash + 1);
    file = file.substr(0, hash);
  }
  argument.file = file;
  return argument;
}

at::Tensor read_saved_tensor(const fs::path& file, const std::string& key) {
  std::error_code error;
  if (!fs::is_regular_file(file, error)) {
    throw CaptureError(file.string() + ": no such file");
  }
  const std::string extension = file.extension().string();
  at::Tensor tensor;
  try {
    if (extension == ".pt" || extension == ".pth") {
      tensor = read_pt_as_saved(file, key);
    } else if (extension == ".npy") {
      if (!key.empty()) {
        throw CaptureError(file.string() +
                           ": a .npy file holds one tensor; `#" + key +
                           "` names none");
      }
      try {
        tensor = map_npy(file);
      } catch (const FixtureError& fixture) {
        throw CaptureError(std::string(fixture.what()) + "; found " +
                           describe_start(file));
      }
    } else if (extension == ".safetensors") {
      try {
        tensor = map_safetensors(file, key);
      } catch (const FixtureError& fixture) {
        throw CaptureError(std::string(fixture.what()) + "; found " +
                           describe_start(file));
      }
    } else {
      throw CaptureError(file.string() + ": unknown kind `" + extension +
                         "`; expected .pt, .pth, .npy or .safetensors");
    }
  } catch (const FixtureError& fixture) {
    throw CaptureError(fixture.what());
  }
  if (!to_dtype(tensor.scalar_type())) {
    throw CaptureError(file.string() + (key.empty() ? "" : "#" + key) +
                       ": dtype " + c10::toString(tensor.scalar_type()) +
                       " is not one casebook supports (bool, uint8, int8, "
                       "int16, int32, int64, float16, bfloat16, float32, "
                       "float64)");
  }
  return tensor;
}

}  // namespace casebook
