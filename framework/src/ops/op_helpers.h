// Small helpers shared by the torch.* and validate.* op definitions.
#pragma once

#include <string>
#include <vector>

#include "casebook/ops.h"

namespace casebook {

// An OpDef with its registration site, for the duplicate-name error.
OpDef make_op(const char* file, int line, OpDeclaration declaration,
              std::vector<std::string> inputs,
              std::vector<std::string> optional_inputs,
              std::vector<std::string> args, OpFunction run);

// An argument the op cannot run without: InvalidCaseError when missing.
int64_t required_int(const OpCall& call, const std::string& op,
                     const std::string& name);
std::vector<int64_t> required_int_list(const OpCall& call,
                                       const std::string& op,
                                       const std::string& name);

// `dtype: float32` as a ScalarType; nullopt when absent or null.
c10::optional<at::ScalarType> arg_scalar_type(const OpCall& call,
                                              const std::string& name);

// `reduction: mean|sum|none` as at::Reduction; default mean.
int64_t arg_reduction(const OpCall& call);
// The words `reduction` takes (PyTorch's): mean, sum, none. make_op gives
// them to every op with a `reduction` argument (OpDef::arg_words).
const std::vector<std::string>& reduction_words();

// Throws InvalidCaseError ("output 1: an output of 1600000000 elements of
// float32 (6.0 GiB) is over the limit of ...") when output `index` is over
// the output limits (casebook/limits.h, check_output_size). Asked of the
// outputs an ATen op would make, computed on the meta device before it
// runs (aten_op.cpp), and of every output a run made, in the child before
// it is written (child/execute.cpp): the runner never receives one.
void refuse_oversized_output(const at::Tensor& output, size_t index);

// validate.class_mapping (class_mapping.cpp), registered with the other
// validate.* ops by register_validate_ops.
void register_class_mapping_op(OpRegistry& registry);

}  // namespace casebook
