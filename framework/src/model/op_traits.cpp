// The op traits table and the process's installed one (casebook/op_traits.h).
#include "casebook/op_traits.h"

#include <stdexcept>

namespace casebook {
namespace {

std::optional<OpTraitsTable>& installed() {
  static std::optional<OpTraitsTable> table;
  return table;
}

}  // namespace

void OpTraitsTable::add_family(const std::string& prefix,
                               const OpTraits& traits) {
  families_.emplace_back(prefix, traits);
}

void OpTraitsTable::add(const std::string& name, const OpTraits& traits) {
  if (!ops_.emplace(name, traits).second) {
    throw std::logic_error("op traits of " + name + " declared twice");
  }
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

void install_op_traits(OpTraitsTable table) { installed() = std::move(table); }

const OpTraitsTable& installed_op_traits() {
  const std::optional<OpTraitsTable>& table = installed();
  if (!table) {
    throw std::logic_error(
        "no op traits installed: the program that loads cases must install "
        "its ops' traits first (casebook/op_traits.h)");
  }
  return *table;
}

}  // namespace casebook
