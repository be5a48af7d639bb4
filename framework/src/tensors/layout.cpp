#include "tensors/layout.h"

#include <c10/util/accumulate.h>

#include <algorithm>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "casebook/internal_error.h"
#include "casebook/shape_text.h"

namespace casebook {
namespace {

// A dim as written (negative counts from the end) checked against the rank.
int64_t wrap_dim(int64_t dim, size_t rank, const char* what) {
  const auto r = static_cast<int64_t>(rank);
  if (dim < -r || dim >= r) {
    throw std::invalid_argument(
        std::string("layout.") + what + ": dim " + std::to_string(dim) +
        " is outside [" + std::to_string(-r) + ", " + std::to_string(r) +
        ") for a " + std::to_string(rank) + "-d tensor");
  }
  return dim < 0 ? dim + r : dim;
}

// Storage holds the tensor permuted by `perm`, contiguously; the view
// permutes it back, so the values are the logical ones.
Geometry permuted(const std::vector<int64_t>& perm,
                  const std::vector<int64_t>& shape) {
  std::vector<int64_t> physical(shape.size());
  for (size_t k = 0; k < perm.size(); ++k) physical[k] = shape[perm[k]];
  const std::vector<int64_t> physical_strides = contiguous_strides(physical);
  Geometry geometry;
  geometry.sizes = shape;
  geometry.strides.resize(shape.size());
  for (size_t k = 0; k < perm.size(); ++k) {
    geometry.strides[perm[k]] = physical_strides[k];
  }
  geometry.storage_numel = c10::multiply_integers(shape);
  return geometry;
}

Geometry permute_geometry(const std::vector<int64_t>& dims,
                          const std::vector<int64_t>& shape) {
  if (dims.size() != shape.size()) {
    throw std::invalid_argument("layout.permute: expected a permutation of " +
                                std::to_string(shape.size()) + " dims, got " +
                                shape_text(dims));
  }
  std::vector<int64_t> perm;
  std::vector<bool> seen(shape.size(), false);
  for (int64_t dim : dims) {
    const int64_t wrapped = wrap_dim(dim, shape.size(), "permute");
    if (seen[wrapped]) {
      throw std::invalid_argument("layout.permute: dim " + std::to_string(dim) +
                                  " appears twice in " + shape_text(dims));
    }
    seen[wrapped] = true;
    perm.push_back(wrapped);
  }
  return permuted(perm, shape);
}

Geometry transpose_geometry(const std::vector<int64_t>& dims,
                            const std::vector<int64_t>& shape) {
  if (dims.size() != 2) {
    throw std::invalid_argument("layout.transpose: expected two dims, got " +
                                shape_text(dims));
  }
  std::vector<int64_t> perm(shape.size());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[wrap_dim(dims[0], shape.size(), "transpose")],
            perm[wrap_dim(dims[1], shape.size(), "transpose")]);
  return permuted(perm, shape);
}

Geometry strided_geometry(const Layout& layout,
                          const std::vector<int64_t>& shape) {
  if (layout.stride.size() != shape.size()) {
    throw std::invalid_argument("layout.stride: expected " +
                                std::to_string(shape.size()) +
                                " strides for shape " + shape_text(shape) +
                                ", got " + shape_text(layout.stride));
  }
  for (int64_t stride : layout.stride) {
    if (stride < 0) {
      throw std::invalid_argument("layout.stride: strides must be >= 0, got " +
                                  shape_text(layout.stride));
    }
  }
  if (layout.storage_offset < 0) {
    throw std::invalid_argument("layout.storage_offset: must be >= 0, got " +
                                std::to_string(layout.storage_offset));
  }
  Geometry geometry;
  geometry.sizes = shape;
  geometry.strides = layout.stride;
  geometry.storage_offset = layout.storage_offset;
  int64_t furthest = layout.storage_offset;
  bool empty = false;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0)
      empty = true;
    else
      furthest += (shape[d] - 1) * layout.stride[d];
  }
  geometry.storage_numel = empty ? layout.storage_offset : furthest + 1;
  return geometry;
}

// Every other element along the last dim of a storage twice as long there.
Geometry non_contiguous_geometry(const std::vector<int64_t>& shape) {
  const int64_t numel = c10::multiply_integers(shape);
  if (shape.empty() || numel <= 1) {
    throw std::invalid_argument(
        "layout.contiguous: false needs a tensor of at least 2 elements; "
        "shape " +
        shape_text(shape) + " is contiguous under any strides");
  }
  std::vector<int64_t> doubled = shape;
  doubled.back() *= 2;
  Geometry geometry;
  geometry.sizes = shape;
  geometry.strides = contiguous_strides(doubled);
  geometry.strides.back() = 2;
  geometry.storage_numel = 2 * numel;
  return geometry;
}

}  // namespace

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) {
    strides[d - 1] = strides[d] * std::max<int64_t>(shape[d], 1);
  }
  return strides;
}

Geometry layout_geometry(const Layout& layout,
                         const std::vector<int64_t>& shape) {
  switch (layout.kind) {
    case Layout::Kind::kDefault: {
      Geometry geometry;
      geometry.sizes = shape;
      geometry.strides = contiguous_strides(shape);
      geometry.storage_numel = c10::multiply_integers(shape);
      return geometry;
    }
    case Layout::Kind::kTranspose:
      return transpose_geometry(layout.dims, shape);
    case Layout::Kind::kPermute:
      return permute_geometry(layout.dims, shape);
    case Layout::Kind::kStrided:
      return strided_geometry(layout, shape);
    case Layout::Kind::kNonContiguous:
      return non_contiguous_geometry(shape);
  }
  CASEBOOK_UNREACHABLE("unknown layout kind");
}

}  // namespace casebook
