// casebook's ops, a program's own, and the registry of both
// (casebook/op_catalog.h).
#include <stdexcept>
#include <vector>

#include "casebook/op_catalog.h"
#include "casebook/op_traits.h"
#include "catalog/shipped_op_declarations.h"
#include "kernel_ops/kernel_ops.h"

namespace casebook {

void register_all(OpRegistry& registry) {
  register_torch_ops(registry);
  register_validate_ops(registry);
  register_kernel_ops(registry);
}

namespace {

// Registrations of programs built on casebook, in the order they were added.
std::vector<void (*)(OpRegistry&)>& extension_registrations() {
  static std::vector<void (*)(OpRegistry&)> registrations;
  return registrations;
}

bool& default_registry_built() {
  static bool built = false;
  return built;
}

// The case model reads the registry's traits, asked for the first time a
// case is loaded (casebook/op_traits.h): any program that runs ops links
// this file, and its registrations are in by then.
[[maybe_unused]] const bool kRegistryTraitsInstalled = [] {
  install_op_traits_source([] { return default_registry().traits(); });
  return true;
}();

}  // namespace

void add_op_registration(void (*registration)(OpRegistry&)) {
  if (default_registry_built()) {
    throw std::logic_error(
        "add_op_registration: the op registry is already built; register "
        "ops before the first run");
  }
  if (registration != nullptr)
    extension_registrations().push_back(registration);
}

const OpRegistry& default_registry() {
  static const OpRegistry registry = [] {
    default_registry_built() = true;
    OpRegistry built(unregistered_op_traits());
    register_all(built);
    for (auto registration : extension_registrations()) registration(built);
    return built;
  }();
  return registry;
}

}  // namespace casebook
