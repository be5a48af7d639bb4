// casebook_core_tests loads cases without the op registry (no LibTorch): it
// installs the traits casebook's ops declare, as the registry does
// (framework/src/ops/registry.cpp), before main().
#include "casebook/op_traits.h"
#include "ops/shipped_op_traits.h"

namespace {

[[maybe_unused]] const bool kShippedTraitsInstalled = [] {
  casebook::install_op_traits(casebook::shipped_op_traits());
  return true;
}();

}  // namespace
