// The sections of a report, each from an already scrubbed ReportInput
// (internal to report.cpp).
#pragma once

#include <string>
#include <string_view>

#include "casebook/diagnosis.h"

namespace casebook::report_sections {

// A table cell: one line, pipes escaped.
std::string cell(std::string_view text);
// A fenced block whose fence is longer than any backtick run inside.
std::string fenced(std::string_view text, std::string_view language);
// "| key | value |" rows, or `none` as a line of its own.
std::string pairs_table(const ReportPairs& pairs, std::string_view none);

// "Verdict: FAIL. One computation fails; ..." and the scrubbing note.
std::string verdict_sentence(const ReportInput& input);
// The case, its summary, which run was chosen and why, how many others
// failed.
std::string the_run(const ReportInput& input);
// The origin's facts beside this run's (PyTorch, backend, device, the
// failure) and whether it reproduced; nothing for a case without origin.
std::string seen_and_reproduced(const ReportInput& input);
std::string operation(const ReportInput& input);
std::string inputs(const ReportInput& input);
std::string backend(const ReportInput& input);
std::string first_message(const ReportInput& input);
std::string case_file(const ReportInput& input);
std::string fixtures(const ReportInput& input);
std::string reproduce(const ReportInput& input);
// The Python script, fenced, with the .npy files it loads; nothing when
// there is none.
std::string python_reproduction(const ReportInput& input);
// "PyTorch version: 1.13.1 ..." lines, as collect_env prints them.
std::string collect_env(const ReportInput& input);
std::string other_failures(const ReportInput& input);

}  // namespace casebook::report_sections
