// The CPU reference of embedding (see embedding.h).
#include <cstring>

#include "common/scalar_convert.h"
#include "embedding/embedding.h"
#include "embedding/embedding_args.h"

namespace casebook::kernels {
namespace {

template <typename Storage>
CasebookKernelStatus gather_rows(const CasebookEmbeddingArgs& args) {
  const auto* weight = static_cast<const Storage*>(args.weight);
  auto* output = static_cast<Storage*>(args.output);
  for (int64_t i = 0; i < args.num_indices; ++i) {
    const int64_t index =
        load_index(args.indices, args.index_type, i * args.index_stride);
    if (index < 0 || index >= args.num_embeddings) {
      return index_out_of_range("index", i, index, 0, args.num_embeddings);
    }
    for (int64_t d = 0; d < args.embedding_dim; ++d) {
      output[i * args.embedding_dim + d] =
          weight[index * args.weight_stride[0] + d * args.weight_stride[1]];
    }
  }
  return ok_status();
}

}  // namespace

CasebookKernelStatus embedding_cpu(const CasebookEmbeddingArgs& args) {
  const CasebookKernelStatus checked = check_embedding_args(args);
  if (checked.code != CASEBOOK_STATUS_OK) return checked;
  if (args.weight_type == CASEBOOK_FLOAT32) return gather_rows<float>(args);
  return gather_rows<uint16_t>(args);
}

}  // namespace casebook::kernels
