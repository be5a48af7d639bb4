// The verdicts' facts, one row each, from casebook/verdict_list.h.
#include "casebook/verdict.h"

#include <cstddef>
#include <iterator>
#include <optional>
#include <string_view>
#include <vector>

namespace casebook {
namespace {

struct VerdictRow {
  std::string_view name;
  bool success;
  std::string_view colour;
  JunitElement junit;
};

// Indexed by the enumerator: Verdict is generated from the same list, in the
// same order.
constexpr VerdictRow kVerdictRows[] = {
#define CASEBOOK_VERDICT_ROW(enumerator, name, success, colour, junit) \
  {name, success, colour, JunitElement::junit},
    CASEBOOK_FOR_EACH_VERDICT(CASEBOOK_VERDICT_ROW)
#undef CASEBOOK_VERDICT_ROW
};

const VerdictRow& row_of(Verdict verdict) {
  return kVerdictRows[static_cast<size_t>(verdict)];
}

}  // namespace

std::string_view verdict_name(Verdict verdict) { return row_of(verdict).name; }

bool verdict_is_success(Verdict verdict) { return row_of(verdict).success; }

std::string_view verdict_colour(Verdict verdict) {
  return row_of(verdict).colour;
}

JunitElement verdict_junit_element(Verdict verdict) {
  return row_of(verdict).junit;
}

const std::vector<Verdict>& all_verdicts() {
  static const std::vector<Verdict> verdicts = [] {
    std::vector<Verdict> each;
    each.reserve(std::size(kVerdictRows));
    for (size_t i = 0; i < std::size(kVerdictRows); ++i) {
      each.push_back(static_cast<Verdict>(i));
    }
    return each;
  }();
  return verdicts;
}

std::optional<Verdict> parse_verdict(std::string_view name) {
  for (size_t i = 0; i < std::size(kVerdictRows); ++i) {
    if (kVerdictRows[i].name == name) return static_cast<Verdict>(i);
  }
  return std::nullopt;
}

}  // namespace casebook
