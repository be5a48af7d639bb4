// casebook_core_tests loads cases without the op registry (no LibTorch): it
// installs, before main(), the traits of the declarations the registry's ops
// are built from (catalog/shipped_op_declarations.h).
#include "casebook/op_traits.h"
#include "catalog/shipped_op_declarations.h"

namespace {

[[maybe_unused]] const bool kShippedTraitsInstalled = [] {
  casebook::install_op_traits(casebook::shipped_op_traits());
  return true;
}();

}  // namespace
