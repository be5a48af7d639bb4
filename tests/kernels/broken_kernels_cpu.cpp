// Deliberately broken CPU twins (see broken_kernels_cpu.h).
#include "broken_kernels_cpu.h"

#include <algorithm>

#include "common/kernel_status.h"
#include "common/scalar_convert.h"

namespace casebook::broken {
namespace {

using namespace casebook::kernels;

template <typename Element>
float sum_in_half(const CasebookSumArgs& args) {
  const auto* input = static_cast<const typename Element::Storage*>(args.input);
  float total = 0.0f;
  for (int64_t i = 0; i < args.length; ++i) {
    total = float16_to_float(
        float_to_float16(total + Element::load(input[i * args.stride])));
  }
  return total;
}

template <typename Element>
CasebookKernelStatus nll_loss_unchecked(const CasebookNllLossArgs& args) {
  const auto* input = static_cast<const typename Element::Storage*>(args.input);
  auto* output = static_cast<typename Element::Storage*>(args.output);
  double total = 0.0;
  int64_t counted = 0;
  for (int64_t row = 0; row < args.batch; ++row) {
    const int64_t label =
        load_index(args.target, args.target_type, row * args.target_stride);
    double loss = 0.0;
    if (label != args.ignore_index) {
      loss = -Element::load(
          input[row * args.input_stride[0] + label * args.input_stride[1]]);
      total += loss;
      ++counted;
    }
    if (args.reduction == CASEBOOK_REDUCTION_NONE)
      output[row] = Element::store(loss);
  }
  if (args.reduction == CASEBOOK_REDUCTION_SUM)
    output[0] = Element::store(total);
  if (args.reduction == CASEBOOK_REDUCTION_MEAN)
    output[0] = Element::store(total / counted);
  return ok_status();
}

// A "fix" of the label-4-of-4 crash that skips instead of failing, with an
// off-by-one bound: every target >= classes - 1 (or < 0) is left out as if
// ignored. It counts honestly what it took in, as the real kernel does.
template <typename Element>
CasebookKernelStatus nll_loss_skipping(const CasebookNllLossArgs& args) {
  const auto* input = static_cast<const typename Element::Storage*>(args.input);
  auto* output = static_cast<typename Element::Storage*>(args.output);
  double total = 0.0;
  int64_t counted = 0;
  for (int64_t row = 0; row < args.batch; ++row) {
    const int64_t label =
        load_index(args.target, args.target_type, row * args.target_stride);
    double loss = 0.0;
    if (label != args.ignore_index && label >= 0 && label < args.classes - 1) {
      loss = -Element::load(
          input[row * args.input_stride[0] + label * args.input_stride[1]]);
      total += loss;
      ++counted;
    }
    if (args.reduction == CASEBOOK_REDUCTION_NONE)
      output[row] = Element::store(loss);
  }
  if (args.processed != nullptr) *args.processed = counted;
  if (args.reduction == CASEBOOK_REDUCTION_SUM)
    output[0] = Element::store(total);
  if (args.reduction == CASEBOOK_REDUCTION_MEAN)
    output[0] = Element::store(total / counted);
  return ok_status();
}

template <typename Storage>
CasebookKernelStatus embedding_unchecked(const CasebookEmbeddingArgs& args) {
  const auto* weight = static_cast<const Storage*>(args.weight);
  auto* output = static_cast<Storage*>(args.output);
  for (int64_t i = 0; i < args.num_indices; ++i) {
    const int64_t index =
        load_index(args.indices, args.index_type, i * args.index_stride);
    for (int64_t d = 0; d < args.embedding_dim; ++d) {
      output[i * args.embedding_dim + d] =
          weight[index * args.weight_stride[0] + d * args.weight_stride[1]];
    }
  }
  return ok_status();
}

}  // namespace

CasebookKernelStatus sum_tail_dropped_cpu(const CasebookSumArgs& args) {
  CasebookSumArgs truncated = args;
  truncated.length -= args.length % CASEBOOK_SUM_BLOCK_THREADS;
  return sum_cpu(truncated);
}

CasebookKernelStatus sum_first_block_only_cpu(const CasebookSumArgs& args) {
  CasebookSumArgs truncated = args;
  truncated.length = std::min<int64_t>(args.length, CASEBOOK_SUM_BLOCK_THREADS);
  return sum_cpu(truncated);
}

CasebookKernelStatus sum_half_accumulation_cpu(const CasebookSumArgs& args) {
  switch (args.input_type) {
    case CASEBOOK_FLOAT16:
      *args.output = sum_in_half<Float16Element>(args);
      break;
    case CASEBOOK_BFLOAT16:
      *args.output = sum_in_half<BFloat16Element>(args);
      break;
    default:
      *args.output = sum_in_half<Float32Element>(args);
      break;
  }
  return ok_status();
}

CasebookKernelStatus softmax_stride_ignored_cpu(
    const CasebookSoftmaxArgs& args) {
  CasebookSoftmaxArgs contiguous = args;
  contiguous.input_stride[0] = args.cols;
  contiguous.input_stride[1] = 1;
  return softmax_cpu(contiguous);
}

CasebookKernelStatus nll_loss_bound_check_removed_cpu(
    const CasebookNllLossArgs& args) {
  switch (args.input_type) {
    case CASEBOOK_FLOAT16:
      return nll_loss_unchecked<Float16Element>(args);
    case CASEBOOK_BFLOAT16:
      return nll_loss_unchecked<BFloat16Element>(args);
    default:
      return nll_loss_unchecked<Float32Element>(args);
  }
}

CasebookKernelStatus nll_loss_last_class_skipped_cpu(
    const CasebookNllLossArgs& args) {
  switch (args.input_type) {
    case CASEBOOK_FLOAT16:
      return nll_loss_skipping<Float16Element>(args);
    case CASEBOOK_BFLOAT16:
      return nll_loss_skipping<BFloat16Element>(args);
    default:
      return nll_loss_skipping<Float32Element>(args);
  }
}

CasebookKernelStatus embedding_bound_check_removed_cpu(
    const CasebookEmbeddingArgs& args) {
  if (args.weight_type == CASEBOOK_FLOAT32)
    return embedding_unchecked<float>(args);
  return embedding_unchecked<uint16_t>(args);
}

}  // namespace casebook::broken
