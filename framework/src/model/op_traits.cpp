// The op traits table and the process's installed one (casebook/op_traits.h).
#include "casebook/op_traits.h"

#include <mutex>
#include <stdexcept>
#include <tuple>

namespace casebook {
namespace {

struct Installed {
  std::mutex mutex;
  std::optional<OpTraitsTable> table;
  std::function<OpTraitsTable()> source;
};

Installed& installed() {
  static Installed state;
  return state;
}

}  // namespace

bool operator==(const NeighborOpTraits& a, const NeighborOpTraits& b) {
  return std::tie(a.index_input, a.class_inputs, a.class_dim, a.ignore_index,
                  a.reduction, a.batch, a.allows_empty, a.blocks,
                  a.block_dims) ==
         std::tie(b.index_input, b.class_inputs, b.class_dim, b.ignore_index,
                  b.reduction, b.batch, b.allows_empty, b.blocks, b.block_dims);
}

bool operator==(const OpTraits& a, const OpTraits& b) {
  return std::tie(a.reports_processed, a.reports_positions, a.gradients,
                  a.torch_reference, a.neighbors) ==
         std::tie(b.reports_processed, b.reports_positions, b.gradients,
                  b.torch_reference, b.neighbors);
}

void OpTraitsTable::add_family(const std::string& prefix,
                               const OpTraits& traits) {
  families_.emplace_back(prefix, traits);
}

void OpTraitsTable::add(const std::string& name, const OpTraits& traits) {
  if (!ops_.emplace(name, traits).second) {
    throw std::logic_error("op traits of " + name + " declared twice");
  }
}

void OpTraitsTable::set(const std::string& name, const OpTraits& traits) {
  ops_[name] = traits;
}

const OpTraits* OpTraitsTable::find(const std::string& op) const {
  const auto own = ops_.find(op);
  if (own != ops_.end()) return &own->second;
  for (const auto& [prefix, traits] : families_) {
    if (op.size() > prefix.size() && op.compare(0, prefix.size(), prefix) == 0)
      return &traits;
  }
  return nullptr;
}

std::vector<std::string> OpTraitsTable::names_where(
    bool OpTraits::* trait) const {
  std::vector<std::string> names;
  for (const auto& [name, traits] : ops_) {
    if (traits.*trait) names.push_back(name);
  }
  return names;
}

void install_op_traits(OpTraitsTable table) {
  Installed& state = installed();
  const std::lock_guard<std::mutex> lock(state.mutex);
  state.table = std::move(table);
  state.source = nullptr;
}

void install_op_traits_source(std::function<OpTraitsTable()> source) {
  Installed& state = installed();
  const std::lock_guard<std::mutex> lock(state.mutex);
  state.table.reset();
  state.source = std::move(source);
}

const OpTraitsTable& installed_op_traits() {
  Installed& state = installed();
  const std::lock_guard<std::mutex> lock(state.mutex);
  if (!state.table && state.source) state.table = state.source();
  if (!state.table) {
    throw std::logic_error(
        "no op traits installed: the program that loads cases must install "
        "its ops' traits first (casebook/op_traits.h)");
  }
  return *state.table;
}

}  // namespace casebook
