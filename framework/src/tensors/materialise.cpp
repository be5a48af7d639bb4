#include "tensors/materialise.h"

#include <stdexcept>

#include "casebook/internal_error.h"
#include "casebook/invalid_case_error.h"
#include "casebook/shape_text.h"
#include "tensors/fixtures.h"
#include "tensors/layout.h"
#include "tensors/source.h"

namespace casebook {
namespace {

[[noreturn]] void fail(const TensorSpec& spec, const std::string& what) {
  throw InvalidCaseError(
      at_place(spec.where, "input `" + spec.name + "`: " + what));
}

// A fixture, checked against its sha256 and against the case's dtype and
// shape (when the case gives one; otherwise the file's shape is taken).
at::Tensor file_tensor(const TensorSpec& spec, bool over_mapping) {
  const std::string shown =
      spec.file.empty() ? spec.resolved_file.string() : spec.file;
  try {
    if (!spec.sha256.empty()) {
      const std::string found = sha256_file(spec.resolved_file);
      if (found != spec.sha256) {
        fail(spec, "fixture `" + shown + "`: sha256 expected " + spec.sha256 +
                       ", found " + found +
                       " (the file changed; check it, then update sha256)");
      }
    }
    at::Tensor tensor = read_fixture(spec.resolved_file, spec.file_tensor,
                                     to_scalar_type(spec.dtype), over_mapping);
    const at::ScalarType expected_type = to_scalar_type(spec.dtype);
    if (tensor.scalar_type() != expected_type) {
      const std::optional<DType> found = to_dtype(tensor.scalar_type());
      fail(spec,
           "fixture `" + shown + "`: dtype expected " +
               std::string(dtype_name(spec.dtype)) + ", found " +
               (found ? std::string(dtype_name(*found))
                      : std::string(c10::toString(tensor.scalar_type()))));
    }
    if (spec.shape_given && tensor.sizes() != c10::IntArrayRef(spec.shape)) {
      fail(spec, "fixture `" + shown + "`: shape expected " +
                     shape_text(spec.shape) + ", found " +
                     shape_text(tensor.sizes()));
    }
    return tensor;
  } catch (const FixtureError& error) {
    fail(spec, std::string("fixture `") + shown + "`: " + error.what());
  }
}

at::Tensor logical_tensor(const TensorSpec& spec, bool over_mapping) {
  switch (spec.source) {
    case TensorSpec::Source::kValues:
      return values_tensor(spec);
    case TensorSpec::Source::kFill:
      return fill_tensor(spec.fill, spec.seed, spec.shape,
                         to_scalar_type(spec.dtype));
    case TensorSpec::Source::kFile:
      return file_tensor(spec, over_mapping);
  }
  CASEBOOK_UNREACHABLE("unknown tensor source " +
                       std::to_string(static_cast<int>(spec.source)));
}

}  // namespace

at::ScalarType to_scalar_type(DType dtype) {
  switch (dtype) {
    case DType::kBool:
      return at::kBool;
    case DType::kUInt8:
      return at::kByte;
    case DType::kInt8:
      return at::kChar;
    case DType::kInt16:
      return at::kShort;
    case DType::kInt32:
      return at::kInt;
    case DType::kInt64:
      return at::kLong;
    case DType::kFloat16:
      return at::kHalf;
    case DType::kBFloat16:
      return at::kBFloat16;
    case DType::kFloat32:
      return at::kFloat;
    case DType::kFloat64:
      return at::kDouble;
    case DType::kComplex64:
      return at::kComplexFloat;
    case DType::kComplex128:
      return at::kComplexDouble;
  }
  CASEBOOK_UNREACHABLE("unknown DType " +
                       std::to_string(static_cast<int>(dtype)));
}

std::optional<DType> to_dtype(at::ScalarType type) {
  for (DType dtype : all_dtypes()) {
    if (to_scalar_type(dtype) == type) return dtype;
  }
  return std::nullopt;
}

at::Scalar skipped_storage_value(at::ScalarType type) {
  if (type == at::kBool) return at::Scalar(true);
  if (at::isFloatingType(type)) {
    return at::Scalar(std::numeric_limits<double>::quiet_NaN());
  }
  if (at::isComplexType(type)) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return at::Scalar(c10::complex<double>(nan, nan));
  }
  switch (type) {
    case at::kByte:
      return at::Scalar(int64_t{255});
    case at::kChar:
      return at::Scalar(int64_t{127});
    case at::kShort:
      return at::Scalar(int64_t{32767});
    case at::kInt:
      return at::Scalar(int64_t{std::numeric_limits<int32_t>::max()});
    default:
      return at::Scalar(std::numeric_limits<int64_t>::max());
  }
}

// The index (one per dim) of the element at row-major position `flat`.
std::vector<int64_t> element_index(int64_t flat,
                                   const std::vector<int64_t>& sizes) {
  std::vector<int64_t> index(sizes.size(), 0);
  for (size_t d = sizes.size(); d-- > 0;) {
    index[d] = flat % sizes[d];
    flat /= sizes[d];
  }
  return index;
}

// A strided layout whose strides may put several elements on one storage
// element (a stride 0, as expand() makes): each storage element holds the
// first of its elements in row-major order, as expanding the first slice
// would. Written values (inline or a fixture) must agree where elements
// share storage: a case cannot state two values in one place. Generated
// ones (`fill`) are what the view then shows, on every backend alike.
void fill_strided(MaterialisedTensor& result, const at::Tensor& logical,
                  const TensorSpec& spec) {
  const int64_t numel = logical.numel();
  const at::Tensor where =
      at::arange(result.storage.numel(), at::kLong)
          .as_strided(result.view.sizes(), result.view.strides(),
                      result.view.storage_offset())
          .contiguous();
  // (A loop, not scatter_reduce: LibTorch 1.13 warns that it is in beta.)
  at::Tensor first = at::full({result.storage.numel()}, numel, at::kLong);
  const int64_t* storage_of = where.data_ptr<int64_t>();
  int64_t* first_of = first.data_ptr<int64_t>();
  for (int64_t element = numel; element-- > 0;) {
    first_of[storage_of[element]] = element;
  }
  const at::Tensor used = first.lt(numel);
  result.storage.index_put_(
      {used}, logical.reshape({-1}).index_select(0, first.masked_select(used)));
  if (spec.source == TensorSpec::Source::kFill || numel == 0) return;
  const at::Tensor same = result.view.eq(logical).logical_or(
      result.view.isnan().logical_and(logical.isnan()));
  if (same.all().item<bool>()) return;
  const int64_t differs =
      same.logical_not().reshape({-1}).nonzero().flatten()[0].item<int64_t>();
  const int64_t shared = storage_of[differs];
  const std::vector<int64_t> sizes = logical.sizes().vec();
  fail(spec, "layout.stride " + shape_text(result.view.strides().vec()) +
                 " puts element " + shape_text(element_index(differs, sizes)) +
                 " on storage element " + std::to_string(shared) +
                 ", which holds element " +
                 shape_text(element_index(first_of[shared], sizes)) +
                 ", and their values differ: elements that share storage (a "
                 "stride 0, as expand() makes) hold one value");
}

MaterialisedTensor materialise(const TensorSpec& spec) {
  at::Tensor logical;
  Geometry geometry;
  try {
    logical = logical_tensor(spec, /*over_mapping=*/false);
    geometry = layout_geometry(spec.layout, logical.sizes().vec());
  } catch (const std::invalid_argument& error) {
    fail(spec, error.what());
  }
  MaterialisedTensor result;
  result.storage = at::empty({geometry.storage_numel}, logical.options());
  result.storage.fill_(skipped_storage_value(logical.scalar_type()));
  result.view = result.storage.as_strided(geometry.sizes, geometry.strides,
                                          geometry.storage_offset);
  if (spec.layout.kind == Layout::Kind::kStrided) {
    fill_strided(result, logical, spec);
  } else {
    result.view.copy_(logical);
  }
  return result;
}

void share_aliases(const std::vector<TensorSpec>& inputs,
                   std::vector<at::Tensor>* tensors) {
  for (size_t i = 0; i < inputs.size() && i < tensors->size(); ++i) {
    if (inputs[i].same_as.empty()) continue;
    const std::optional<size_t> target = alias_target(inputs, i);
    CASEBOOK_ASSERT(target, "input `" + inputs[i].name + "`'s `same_as: " +
                                inputs[i].same_as + "` names no input");
    (*tensors)[i] = tensors->at(*target);
  }
}

at::Tensor read_only_values(const TensorSpec& spec) {
  try {
    return logical_tensor(spec, /*over_mapping=*/true);
  } catch (const std::invalid_argument& error) {
    fail(spec, error.what());
  }
}

at::Tensor place_on(const MaterialisedTensor& tensor, c10::Device device) {
  const at::Tensor storage = tensor.storage.to(device);
  return storage.as_strided(tensor.view.sizes(), tensor.view.strides(),
                            tensor.view.storage_offset());
}

at::Tensor cast_floating(const at::Tensor& tensor, at::ScalarType floating) {
  if (!at::isFloatingType(tensor.scalar_type())) return tensor;
  return tensor.to(floating).contiguous();
}

}  // namespace casebook
