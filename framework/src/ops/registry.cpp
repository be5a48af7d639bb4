#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "casebook/loader.h"
#include "casebook/op_traits.h"
#include "casebook/ops.h"
#include "ops/names.h"
#include "ops/shipped_op_traits.h"

namespace casebook {
namespace {

// Registration sites are shown by file name: the build's absolute path
// says nothing the name does not.
std::string site(const OpDef& def) {
  const std::string file = def.file ? def.file : "";
  const size_t slash = file.find_last_of('/');
  return (slash == std::string::npos ? file : file.substr(slash + 1)) + ":" +
         std::to_string(def.line);
}

}  // namespace

std::string join_names(const std::vector<std::string>& names) {
  std::string joined;
  for (const std::string& name : names) {
    joined += (joined.empty() ? "" : ", ") + name;
  }
  return joined;
}

void OpRegistry::add(OpDef def) {
  const auto existing = ops_.find(def.name);
  if (existing != ops_.end()) {
    throw std::logic_error(def.name + " registered twice: first at " +
                           site(existing->second) + ", again at " + site(def));
  }
  std::string name = def.name;
  ops_.emplace(std::move(name), std::move(def));
}

const OpDef* OpRegistry::find(const std::string& name) const {
  const auto found = ops_.find(name);
  return found == ops_.end() ? nullptr : &found->second;
}

std::vector<std::string> OpRegistry::nearest(const std::string& name) const {
  return nearest_names(name, names(), 3);
}

std::vector<std::string> OpRegistry::names() const {
  std::vector<std::string> all;
  for (const auto& [name, def] : ops_) all.push_back(name);
  return all;
}

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

// The case model asks the ops' traits of the table installed here, before
// main() (casebook/op_traits.h): any program that runs ops links this file.
[[maybe_unused]] const bool kShippedTraitsInstalled = [] {
  install_op_traits(shipped_op_traits());
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
    OpRegistry built;
    register_all(built);
    for (auto registration : extension_registrations()) registration(built);
    return built;
  }();
  return registry;
}

}  // namespace casebook
