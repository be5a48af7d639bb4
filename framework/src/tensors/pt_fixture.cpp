// A .pt fixture as LibTorch values: what casebook's own reader
// (tensors/pt_archive.h) found in the file, checked, made into tensors. No
// byte of the file reaches LibTorch's archive reader or unpickler.
#include <ATen/ATen.h>

#include <cstring>

#include "tensors/fixtures.h"
#include "tensors/mapped_file.h"
#include "tensors/pt_archive.h"

namespace casebook {
namespace {

at::ScalarType scalar_type(PtDtype dtype) {
  switch (dtype) {
    case PtDtype::kFloat32:
      return at::kFloat;
    case PtDtype::kFloat64:
      return at::kDouble;
    case PtDtype::kFloat16:
      return at::kHalf;
    case PtDtype::kBFloat16:
      return at::kBFloat16;
    case PtDtype::kInt64:
      return at::kLong;
    case PtDtype::kInt32:
      return at::kInt;
    case PtDtype::kInt16:
      return at::kShort;
    case PtDtype::kInt8:
      return at::kChar;
    case PtDtype::kUInt8:
      return at::kByte;
    case PtDtype::kBool:
      return at::kBool;
    case PtDtype::kComplex64:
      return at::kComplexFloat;
    case PtDtype::kComplex128:
      return at::kComplexDouble;
  }
  return at::kByte;
}

// Makes tensors from a checked PtContents: each storage copied once from
// the file's bytes, each tensor a view of its storage.
class TensorMaker {
 public:
  explicit TensorMaker(const PtContents& contents)
      : contents_(contents), storages_(contents.storages.size()) {}

  c10::IValue make(const PtValue& value) {
    switch (value.kind) {
      case PtValue::Kind::kNone:
        return {};
      case PtValue::Kind::kBool:
        return value.integer != 0;
      case PtValue::Kind::kInt:
        return value.integer;
      case PtValue::Kind::kFloat:
        return value.real;
      case PtValue::Kind::kString:
      case PtValue::Kind::kDtype:
        return value.text;
      case PtValue::Kind::kTensor:
        return tensor(contents_.tensors[static_cast<size_t>(value.integer)]);
      case PtValue::Kind::kList: {
        c10::impl::GenericList list(c10::AnyType::get());
        for (const PtValue& item : value.items) list.push_back(make(item));
        return list;
      }
      case PtValue::Kind::kTuple: {
        std::vector<c10::IValue> items;
        for (const PtValue& item : value.items) items.push_back(make(item));
        return c10::ivalue::Tuple::create(std::move(items));
      }
      case PtValue::Kind::kDict: {
        c10::impl::GenericDict dict(c10::AnyType::get(), c10::AnyType::get());
        for (size_t i = 0; i + 1 < value.items.size(); i += 2) {
          dict.insert(make(value.items[i]), make(value.items[i + 1]));
        }
        return dict;
      }
    }
    return {};
  }

 private:
  at::Tensor tensor(const PtTensor& view) {
    const PtStorage& storage = contents_.storages[view.storage];
    c10::optional<at::Tensor>& bytes = storages_[view.storage];
    if (!bytes) {
      bytes = at::empty({static_cast<int64_t>(storage.bytes.size())},
                        at::TensorOptions().dtype(at::kByte));
      if (!storage.bytes.empty()) {
        std::memcpy(bytes->data_ptr(), storage.bytes.data(),
                    storage.bytes.size());
      }
    }
    return at::empty({0}, at::TensorOptions().dtype(scalar_type(storage.dtype)))
        .set_(bytes->storage(), view.offset, view.sizes, view.strides);
  }

  const PtContents& contents_;
  std::vector<c10::optional<at::Tensor>> storages_;
};

}  // namespace

c10::IValue load_checked_pt(const std::filesystem::path& file) {
  std::string why;
  const std::optional<MappedFile> mapped = map_file(file, &why);
  if (!mapped) throw FixtureError(file.string() + ": " + why);
  try {
    const PtContents contents = read_pt_contents(mapped->view());
    return TensorMaker(contents).make(contents.root);
  } catch (const PtRefusal& refusal) {
    throw FixtureError(file.string() +
                       ": not a .pt file casebook reads: " + refusal.what());
  }
}

at::Tensor read_pt(const std::filesystem::path& file, const std::string& name) {
  const c10::IValue value = load_checked_pt(file);
  if (value.isTensor()) {
    if (!name.empty()) {
      throw FixtureError(file.string() +
                         ": holds a single tensor, not a dict with `" + name +
                         "`");
    }
    return value.toTensor().contiguous();
  }
  if (!value.isGenericDict()) {
    throw FixtureError(file.string() +
                       ": expected a tensor or a dict of tensors, found " +
                       value.tagKind());
  }
  std::vector<std::string> names;
  for (const auto& item : value.toGenericDict()) {
    if (item.key().isString() && item.value().isTensor()) {
      names.push_back(item.key().toStringRef());
    }
  }
  const std::string chosen = pick_tensor_name(names, name, file);
  return value.toGenericDict().at(chosen).toTensor().contiguous();
}

}  // namespace casebook
