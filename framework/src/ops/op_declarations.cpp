// The declarations of the ops this room registers (ops/op_declarations.h).
#include "ops/op_declarations.h"

#include <string>
#include <utility>

namespace casebook {
namespace {

OpTraits through_autograd_with(NeighborOpTraits rules) {
  OpTraits traits = dispatcher_op_traits();
  traits.neighbors = std::move(rules);
  return traits;
}

OpDeclaration declared(std::string name, OpTraits traits) {
  return OpDeclaration{std::move(name), std::move(traits)};
}

// An input contract: it reports what it counted and what it rejected.
OpDeclaration input_contract(std::string name) {
  OpTraits traits;
  traits.reports_processed = true;
  traits.reports_positions = true;
  return declared(std::move(name), traits);
}

}  // namespace

OpTraits dispatcher_op_traits() {
  OpTraits traits;
  traits.gradients = true;
  return traits;
}

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

void add_dispatcher_op_traits(OpTraitsTable& table) {
  // `aten::<name>[.<overload>]` names an ATen operator and its overload;
  // `torch.<name>` of an ATen operator is that operator (ops/aten_op.cpp).
  table.add_family("torch.", dispatcher_op_traits());
  table.add_family("aten::", dispatcher_op_traits());
  for (const char* op :
       {"torch.cross_entropy_loss", "torch.nll_loss_nd", "torch.nll_loss2d",
        "aten::cross_entropy_loss", "aten::nll_loss", "aten::nll_loss_nd",
        "aten::nll_loss2d"}) {
    table.add(op, through_autograd_with(class_loss_neighbors()));
  }
  table.add("aten::embedding", through_autograd_with(embedding_neighbors()));
  table.add("aten::sum", through_autograd_with(sum_neighbors()));
}

OpDeclaration torch_cross_entropy_declaration() {
  return declared("torch.cross_entropy",
                  through_autograd_with(class_loss_neighbors()));
}

OpDeclaration torch_nll_loss_declaration() {
  return declared("torch.nll_loss",
                  through_autograd_with(class_loss_neighbors()));
}

OpDeclaration torch_embedding_declaration() {
  return declared("torch.embedding",
                  through_autograd_with(embedding_neighbors()));
}

OpDeclaration torch_sum_declaration() {
  return declared("torch.sum", through_autograd_with(sum_neighbors()));
}

OpDeclaration validate_class_targets_declaration() {
  return input_contract(kClassTargetsOp);
}

OpDeclaration validate_class_mapping_declaration() {
  return input_contract(kClassMappingOp);
}

std::vector<OpDeclaration> torch_and_validate_op_declarations() {
  return {torch_cross_entropy_declaration(),
          torch_nll_loss_declaration(),
          torch_embedding_declaration(),
          torch_sum_declaration(),
          validate_class_targets_declaration(),
          validate_class_mapping_declaration()};
}

}  // namespace casebook
