// A run's verdict: the closed set every part of casebook speaks (the runner
// gives them, the report and the diagnosis read them), one row each in
// casebook/verdict_list.h. LibTorch-free: the core's programs use it too
// (model/verdict.cpp).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "casebook/verdict_list.h"

namespace casebook {

// The verdicts, in the list's order (casebook/verdict_list.h has what each
// one means).
enum class Verdict {
#define CASEBOOK_VERDICT_ENUMERATOR(enumerator, name, success, colour, junit) \
  enumerator,
  CASEBOOK_FOR_EACH_VERDICT(CASEBOOK_VERDICT_ENUMERATOR)
#undef CASEBOOK_VERDICT_ENUMERATOR
};
// The facts of a verdict's row in casebook/verdict_list.h, which every edge
// asks. Its name: "PASS", ..., "NOT RUN", "INTERNAL".
std::string_view verdict_name(Verdict verdict);
// Whether it keeps the exit status 0: PASS, XFAIL and SKIP do; NOT RUN
// (interrupted) and INTERNAL do not.
bool verdict_is_success(Verdict verdict);
// The ANSI escape a terminal paints it in ("\033[32m", green, for PASS).
std::string_view verdict_colour(Verdict verdict);
// What its JUnit <testcase> holds (runner/junit.h).
JunitElement verdict_junit_element(Verdict verdict);
// Every verdict, in the list's order (counts and summaries follow it).
const std::vector<Verdict>& all_verdicts();
// The verdict whose name (verdict_name) is `name`, as a report or a JUnit
// type spells it ("NOT RUN"); nullopt for anything else.
std::optional<Verdict> parse_verdict(std::string_view name);
// Whose fault an INTERNAL verdict is, said with every one (its details).
inline constexpr std::string_view kInternalErrorNote =
    "casebook broke one of its own invariants: this is casebook's fault, not "
    "the case's (nor the op's or the backend's); please report it to "
    "casebook's maintainers with the rerun line and the case file";

}  // namespace casebook
