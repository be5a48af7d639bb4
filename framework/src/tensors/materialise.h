// Turning a case's TensorSpec into a real at::Tensor on the CPU, laid out in
// memory as the case asks, and placing it on a backend's device.
//
// Every number is made on the CPU from the case alone (values, a seeded
// generator, or a fixture file), so every backend and machine sees the same
// inputs. Errors are the case's fault: they throw InvalidCaseError starting
// with the tensor's "file:line:col: input `name`: ".
#pragma once

#include <ATen/ATen.h>

#include <optional>
#include <vector>

#include "casebook/case.h"

namespace casebook {

at::ScalarType to_scalar_type(DType dtype);
// nullopt for ScalarTypes a case cannot name (complex, uint16, ...).
std::optional<DType> to_dtype(at::ScalarType type);

struct MaterialisedTensor {
  // 1-D and contiguous: every element the view may touch, including the ones
  // a strided or non-contiguous layout skips (NaN, or the dtype's maximum for
  // integers, true for bool), so a kernel that reads them shows it.
  at::Tensor storage;
  // The logical tensor: the case's shape and values, with the case's layout
  // (sizes, strides and storage offset) over `storage`.
  at::Tensor view;
};

MaterialisedTensor materialise(const TensorSpec& spec);

// Makes each alias among `inputs` (`same_as`) the very at::Tensor of its
// target in `tensors` (one per input, in their order): what makes a case's
// tensors makes each target once, as the run needs it, then calls this.
void share_aliases(const std::vector<TensorSpec>& inputs,
                   std::vector<at::Tensor>* tensors);

// The logical values of `spec` (no layout, no storage of its own where they
// come from a .npy or .safetensors file: a read-only view over the file's
// mapping), for a reader that only looks, such as the expected-values check:
// a large expected output is never copied into the runner.
at::Tensor read_only_values(const TensorSpec& spec);

// The same sizes, strides and storage offset on `device`: the whole storage is
// moved, then viewed again, so skipped elements travel too.
at::Tensor place_on(const MaterialisedTensor& tensor, c10::Device device);

// The cpu64 reference's inputs: floating tensors become float64 (contiguous),
// others are returned unchanged.
at::Tensor cast_floating(const at::Tensor& tensor, at::ScalarType floating);

// What a skipped storage element holds for `type`: NaN for floating types,
// the type's maximum for integers (out of range as an index), true for bool.
at::Scalar skipped_storage_value(at::ScalarType type);

}  // namespace casebook
