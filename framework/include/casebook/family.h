// Error families: the vocabulary every verdict uses to say what went wrong,
// one row each in casebook/family_list.h.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "casebook/family_list.h"

namespace casebook {

// kNone, then the families of case-format.md in the list's order (the order
// they are documented in).
enum class Family {
  kNone,  // no error: the run returned outputs
#define CASEBOOK_FAMILY_ENUMERATOR(enumerator, name) enumerator,
  CASEBOOK_FOR_EACH_FAMILY(CASEBOOK_FAMILY_ENUMERATOR)
#undef CASEBOOK_FAMILY_ENUMERATOR
};

// How many families there are, kNone included: one past the last
// enumerator, for tables indexed by Family (diagnosis/advice.cpp).
inline constexpr size_t kFamilyCount = [] {
  size_t count = 1;  // kNone
#define CASEBOOK_FAMILY_COUNT(enumerator, name) ++count;
  CASEBOOK_FOR_EACH_FAMILY(CASEBOOK_FAMILY_COUNT)
#undef CASEBOOK_FAMILY_COUNT
  return count;
}();

// The spelling used in case files and reports ("device_assert"); "none" for
// kNone.
std::string_view family_name(Family family);

// Parses a case-file spelling; nullopt for anything else (kNone is not
// parseable).
std::optional<Family> parse_family(std::string_view name);

// Every family a case may name, in documentation order (kNone is not one).
const std::vector<Family>& all_families();

}  // namespace casebook
