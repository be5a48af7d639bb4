// The one list of verdicts and what each one means to every edge that shows
// it: the run's lines and table, the exit status, JUnit XML. An X-macro, as
// the kernel list is (kernels/common/kernel_list.h): verdict.h's
// `enum class Verdict` is generated from it, and so is the one table that
// verdict_name, verdict_is_success, verdict_colour and verdict_junit_element
// (casebook/verdict.h) read.
//
// Each row is X(enumerator, name, success, colour, junit):
//   enumerator  the Verdict's enumerator (Verdict::kPass);
//   name        how every line, table, JUnit type and report spells it;
//   success     whether it keeps the run's exit status 0;
//   colour      the ANSI escape the table and the progress lines paint it in
//               on a terminal: \033[32m green, \033[36m cyan, \033[33m
//               yellow, \033[1;31m bold red;
//   junit       its element in a JUnit <testcase> (JunitElement below), and
//               so which <testsuite> count it adds to.
//
// Order is the enumerators' order, which counts and summaries iterate
// ("3 PASS, 1 FAIL"): a new verdict is one row, placed where its summary
// count should be said.
#pragma once

namespace casebook {

// What a verdict's JUnit <testcase> holds besides its attributes; the
// <testsuite> counts follow (failures, errors, skipped).
enum class JunitElement {
  kNone,           // nothing: a passed test case
  kFailure,        // <failure type="<name>[ <family>]">, a failure
  kError,          // <error type="<name>[ <family>]">, an error
  kInternalError,  // <error type="internal">: an error that is casebook's
                   // own, which CI tells apart by its type
  kSkipped,        // <skipped message=...>, skipped
  kSystemOut,      // <system-out> holding the message: counted as passed
};

// clang-format off
#define CASEBOOK_FOR_EACH_VERDICT(X)                                          \
  X(kPass,     "PASS",     true,  "\033[32m",    kNone)                       \
  X(kFail,     "FAIL",     false, "\033[1;31m",  kFailure)                    \
  X(kXfail,    "XFAIL",    true,  "\033[36m",    kSystemOut)                  \
  X(kXpass,    "XPASS",    false, "\033[1;31m",  kFailure)                    \
  X(kSkip,     "SKIP",     true,  "\033[33m",    kSkipped)                    \
  X(kError,    "ERROR",    false, "\033[1;31m",  kError)                      \
  X(kTimeout,  "TIMEOUT",  false, "\033[1;31m",  kFailure)                    \
  /* interrupted before the run ended */                                      \
  X(kNotRun,   "NOT RUN",  false, "\033[1;31m",  kError)                      \
  /* casebook broke one of its own invariants (casebook/internal_error.h)     \
     while running or judging the case: casebook's fault, to be               \
     reported, never the case's; not judged against the expectation. */       \
  X(kInternal, "INTERNAL", false, "\033[1;31m",  kInternalError)
// clang-format on

}  // namespace casebook
