// The families' names, one row each, from casebook/family_list.h.
#include "casebook/family.h"

#include <cstddef>
#include <string_view>

namespace casebook {
namespace {

// Indexed by the enumerator: Family is generated from the same list, in the
// same order, after kNone.
constexpr std::string_view kFamilyNames[] = {
    "none",
#define CASEBOOK_FAMILY_NAME(enumerator, name) name,
    CASEBOOK_FOR_EACH_FAMILY(CASEBOOK_FAMILY_NAME)
#undef CASEBOOK_FAMILY_NAME
};
static_assert(std::size(kFamilyNames) == kFamilyCount);

}  // namespace

std::string_view family_name(Family family) {
  return kFamilyNames[static_cast<size_t>(family)];
}

std::optional<Family> parse_family(std::string_view name) {
  for (Family family : all_families()) {
    if (family_name(family) == name) return family;
  }
  return std::nullopt;
}

const std::vector<Family>& all_families() {
  static const std::vector<Family> families = {
#define CASEBOOK_FAMILY_VALUE(enumerator, name) Family::enumerator,
      CASEBOOK_FOR_EACH_FAMILY(CASEBOOK_FAMILY_VALUE)
#undef CASEBOOK_FAMILY_VALUE
  };
  return families;
}

}  // namespace casebook
