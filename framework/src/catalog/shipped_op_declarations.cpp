// The traits of the ops casebook ships (catalog/shipped_op_declarations.h).
#include "catalog/shipped_op_declarations.h"

#include "kernel_ops/kernel_op_declarations.h"
#include "ops/op_declarations.h"

namespace casebook {

OpTraitsTable unregistered_op_traits() {
  OpTraitsTable table;
  add_dispatcher_op_traits(table);
  // Registered families: an op of these has the traits of its own
  // declaration; a name of them that is not registered has none, and the
  // registry names the nearest registered ones.
  table.add_family("validate.", OpTraits{});
  table.add_family("kernels.", OpTraits{});
  // `testing.` ops exist only in the harness's own test programs (an op that
  // crashes, aborts or hangs on purpose); the casebook executable has none.
  table.add_family("testing.", OpTraits{});
  table.wording.op_names =
      "`torch.<name>`, `aten::<name>[.<overload>]`, `kernels.<name>` or "
      "`validate.<name>`";
  table.wording.with_torch_reference = "a kernels.* op";
  table.wording.with_gradients = "torch.* and aten:: ops";
  table.wording.with_blocks = "the kernels.* ops";
  return table;
}

OpTraitsTable shipped_op_traits() {
  OpTraitsTable table = unregistered_op_traits();
  for (const OpDeclaration& op : torch_and_validate_op_declarations()) {
    table.add(op);
  }
  for (const OpDeclaration& op : kernel_glue::kernel_op_declarations()) {
    table.add(op);
  }
  return table;
}

}  // namespace casebook
