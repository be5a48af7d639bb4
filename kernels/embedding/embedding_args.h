// The argument checks of embedding that the CPU reference and the GPU launcher
// share, so that both reject the same arguments with the same message; the
// launcher adds its own (workspace, grid limits) after these.
#pragma once

#include "common/arg_checks.h"
#include "embedding/embedding.h"

namespace casebook::kernels {

inline CasebookKernelStatus check_embedding_args(
    const CasebookEmbeddingArgs& args) {
  const bool any = args.num_indices > 0 && args.embedding_dim > 0;
  return first_error({
      check_floating("embedding", "weight", args.weight_type),
      check_index("embedding", "indices", args.index_type),
      check_non_negative("embedding", "num_embeddings", args.num_embeddings),
      check_non_negative("embedding", "embedding_dim", args.embedding_dim),
      check_non_negative("embedding", "num_indices", args.num_indices),
      check_non_negative("embedding", "weight row stride",
                         args.weight_stride[0]),
      check_non_negative("embedding", "weight column stride",
                         args.weight_stride[1]),
      check_non_negative("embedding", "index stride", args.index_stride),
      check_pointer("embedding", "weight", args.weight,
                    args.num_embeddings > 0 && args.embedding_dim > 0),
      check_pointer("embedding", "indices", args.indices, args.num_indices > 0),
      check_pointer("embedding", "output", args.output, any),
  });
}

}  // namespace casebook::kernels
