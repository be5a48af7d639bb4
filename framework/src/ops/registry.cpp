#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "casebook/joined.h"
#include "casebook/loader.h"
#include "casebook/op_traits.h"
#include "casebook/ops.h"
#include "ops/names.h"

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

OpRegistry::OpRegistry(OpTraitsTable unregistered)
    : traits_(std::move(unregistered)) {}

void OpRegistry::add(OpDef def) {
  const auto existing = ops_.find(def.name);
  if (existing != ops_.end()) {
    throw std::logic_error(def.name + " registered twice: first at " +
                           site(existing->second) + ", again at " + site(def));
  }
  // A case may say `reference: torch` exactly when there is one to run: the
  // function is the fact, the trait what a LibTorch-free program reads.
  if (def.torch_reference) def.traits.torch_reference = true;
  if (def.traits.torch_reference && !def.torch_reference) {
    throw std::logic_error(def.name + " (registered at " + site(def) +
                           ") has traits.torch_reference but no "
                           "torch_reference function to run");
  }
  traits_.set(def.name, def.traits);
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
  all.reserve(ops_.size());
  for (const auto& [name, def] : ops_) all.push_back(name);
  return all;
}

}  // namespace casebook
