// Error families: the vocabulary every verdict uses to say what went wrong.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace casebook {

// The families of case-format.md, in the order they are documented.
enum class Family {
  kNone,  // no error: the run returned outputs
  kIndexOutOfRange,
  kDeviceAssert,
  kIllegalAddress,
  kOutOfMemory,
  kOpUnavailable,
  kDeviceMismatch,
  kContract,
  kLabelMapping,  // validate.class_mapping: not a bijection onto `classes`
  kMismatch,
  kNanOrInf,
  kSkippedEntries,  // fewer entries processed than the case says (`processed`)
  kTimeout,
  kCrash,
  kInvalidCase,
};

// The spelling used in case files and reports ("device_assert"); "none" for
// kNone.
std::string_view family_name(Family family);

// Parses a case-file spelling; nullopt for anything else (kNone is not
// parseable).
std::optional<Family> parse_family(std::string_view name);

// Every family a case may name, in documentation order.
const std::vector<Family>& all_families();

}  // namespace casebook
