// The traits of LibTorch's ops and casebook's validate.* ops, and the order
// of the families (the loader's message lists them in it).
#include "ops/shipped_op_traits.h"

#include <utility>

namespace casebook {
namespace {

// Any ATen operator, by its Python name or its schema name: LibTorch's
// autograd differentiates it.
OpTraits through_autograd() {
  OpTraits traits;
  traits.gradients = true;
  return traits;
}

OpTraits through_autograd_with(NeighborOpTraits rules) {
  OpTraits traits = through_autograd();
  traits.neighbors = std::move(rules);
  return traits;
}

}  // namespace

NeighborOpTraits class_loss_neighbors() {
  NeighborOpTraits rules;
  rules.index_input = "target";
  rules.class_inputs = {"input", "self"};
  rules.class_dim = 1;
  rules.ignore_index = true;
  rules.reduction = true;
  rules.batch = {{"input", 0}, {"self", 0}, {"target", 0}};
  return rules;
}

NeighborOpTraits embedding_neighbors() {
  NeighborOpTraits rules;
  rules.index_input = "indices";
  rules.class_inputs = {"weight"};
  rules.class_dim = 0;
  rules.batch = {{"indices", 0}};
  return rules;
}

NeighborOpTraits sum_neighbors() {
  NeighborOpTraits rules;
  rules.batch = {{"input", 0}, {"self", 0}};
  rules.allows_empty = true;  // the sum of nothing is 0
  return rules;
}

OpTraitsTable shipped_op_traits() {
  OpTraitsTable table;
  // `aten::<name>[.<overload>]` names an ATen operator and its overload;
  // `torch.<name>` of an ATen operator is that operator (ops/aten_op.cpp).
  table.add_family("torch.", through_autograd());
  table.add_family("aten::", through_autograd());
  for (const char* op :
       {"torch.cross_entropy", "torch.nll_loss", "torch.cross_entropy_loss",
        "torch.nll_loss_nd", "torch.nll_loss2d", "aten::cross_entropy_loss",
        "aten::nll_loss", "aten::nll_loss_nd", "aten::nll_loss2d"}) {
    table.add(op, through_autograd_with(class_loss_neighbors()));
  }
  for (const char* op : {"torch.embedding", "aten::embedding"}) {
    table.add(op, through_autograd_with(embedding_neighbors()));
  }
  for (const char* op : {"torch.sum", "aten::sum"}) {
    table.add(op, through_autograd_with(sum_neighbors()));
  }
  declare_kernel_op_traits(table);
  // The input contracts count the entries they check and the positions
  // they reject (ops/validate_ops.cpp).
  OpTraits validate;
  validate.reports_counts = true;
  table.add_family("validate.", validate);
  // `testing.` ops exist only in the harness's own test programs (an op that
  // crashes, aborts or hangs on purpose); the casebook executable has none.
  table.add_family("testing.", OpTraits{});
  table.wording.op_names =
      "`torch.<name>`, `aten::<name>[.<overload>]`, `kernels.<name>` or "
      "`validate.<name>`";
  table.wording.with_torch_reference = "a kernels.* op";
  table.wording.with_gradients = "torch.* and aten:: ops";
  table.wording.with_counts = "a validate.* or kernels.* op";
  table.wording.with_blocks = "the kernels.* ops";
  return table;
}

}  // namespace casebook
