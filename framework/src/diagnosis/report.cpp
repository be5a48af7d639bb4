// The bug report: every piece scrubbed (names learned from all of them
// first), then rendered as the request a maintainer can act on.
#include <algorithm>
#include <string>
#include <vector>

#include "casebook/diagnosis.h"
#include "diagnosis/report_sections.h"

namespace casebook {
namespace {

// Lengths after scrubbing. A first message keeps room for a CUDA error with
// its device-side assertion lines; a consequence is usually one sticky line.
// The case file is never cut (cut, it would not load): report_sections
// leaves out one too long to show, and `--bundle` writes it.
constexpr size_t kMessageLimit = 4000;
constexpr size_t kConsequenceLimit = 600;
constexpr size_t kCellLimit = 400;
constexpr size_t kCommandLimit = 2000;
constexpr size_t kLineLimit = 600;

ReportPairs scrub_pairs(const ReportPairs& pairs, const ScrubContext& ctx) {
  ReportPairs clean;
  for (const auto& [key, value] : pairs) {
    auto [clean_key, clean_value] = scrub_entry(key, value, ctx);
    if (clean_value.size() > kCellLimit) {
      clean_value = scrub_then_truncate(clean_value, kCellLimit, ctx);
    }
    clean.emplace_back(std::move(clean_key), std::move(clean_value));
  }
  return clean;
}

// The names every piece gives away, so that a name in the origin is
// replaced in the messages too, and the other way round.
ScrubContext learned_from(const ReportInput& input, const ScrubContext& ctx) {
  ScrubContext learned = ctx;
  learned.log = nullptr;  // learning replaces nothing
  for (const std::string* text :
       {&input.case_id, &input.summary, &input.first_message,
        &input.reproduce_command, &input.expectation_reason,
        &input.case_file_name, &input.python_script}) {
    learn_names(*text, learned);
  }
  for (const auto* lines : {&input.consequences, &input.other_failures}) {
    for (const std::string& line : *lines) learn_names(line, learned);
  }
  for (const ReportPairs* pairs :
       {&input.versions, &input.environment, &input.args, &input.origin,
        &input.collect_env, &input.seen, &input.here}) {
    for (const auto& [key, value] : *pairs) {
      learn_names_from_entry(key, value, learned);
    }
  }
  for (const ReportFixture& fixture : input.fixtures) {
    learn_names(fixture.file, learned);
  }
  learn_names_from_case_file(input.case_file_text, learned);
  learned.log = ctx.log;
  return learned;
}

}  // namespace

ReportInput scrub_report(const ReportInput& input, const ScrubContext& given) {
  const ScrubContext ctx = learned_from(input, given);
  ReportInput clean = input;
  clean.case_id = scrub(input.case_id, ctx);
  clean.op = scrub(input.op, ctx);
  clean.summary = scrub_then_truncate(input.summary, kCellLimit, ctx);
  clean.backend = scrub(input.backend, ctx);
  for (ReportTensor& tensor : clean.inputs) {
    tensor.name = scrub(tensor.name, ctx);
    tensor.dtype = scrub(tensor.dtype, ctx);
  }
  clean.versions = scrub_pairs(input.versions, ctx);
  clean.environment = scrub_pairs(input.environment, ctx);
  clean.first_message =
      scrub_then_truncate(input.first_message, kMessageLimit, ctx);
  for (std::string& later : clean.consequences) {
    later = scrub_then_truncate(later, kConsequenceLimit, ctx);
  }
  clean.args = scrub_pairs(input.args, ctx);
  clean.origin = scrub_pairs(input.origin, ctx);
  clean.case_file_text = scrub_case_file(input.case_file_text, ctx);
  clean.case_file_name = scrub(input.case_file_name, ctx);
  clean.case_file_note = scrub(input.case_file_note, ctx);
  for (ReportFixture& fixture : clean.fixtures) {
    fixture.input = scrub(fixture.input, ctx);
    fixture.file = scrub(fixture.file, ctx);
  }
  clean.reproduce_command =
      scrub_then_truncate(input.reproduce_command, kCommandLimit, ctx);
  // Never cut: cut, it would not run (report_sections leaves out one too
  // long to show; `--bundle` writes it).
  clean.python_script = scrub(input.python_script, ctx);
  for (std::string& file : clean.python_files) file = scrub(file, ctx);
  clean.collect_env = scrub_pairs(input.collect_env, ctx);
  clean.seen = scrub_pairs(input.seen, ctx);
  clean.here = scrub_pairs(input.here, ctx);
  clean.reproduced = scrub_then_truncate(input.reproduced, kLineLimit, ctx);
  clean.expectation_reason =
      scrub_then_truncate(input.expectation_reason, kCellLimit, ctx);
  clean.chosen_because = scrub(input.chosen_because, ctx);
  for (std::string& line : clean.other_failures) {
    line = scrub_then_truncate(line, kLineLimit, ctx);
  }
  return clean;
}

std::string render_scrubbed_report(const ReportInput& input) {
  using namespace report_sections;
  std::string report =
      "# Request for a targeted analysis: `" + cell(input.case_id) + "`\n\n";
  report += verdict_sentence(input) + "\n\n";
  report += the_run(input);
  report += seen_and_reproduced(input);
  report += operation(input);
  report += inputs(input);
  report += backend(input);
  report += "## Versions\n\n" + pairs_table(input.versions, "Not recorded.");
  report += first_message(input);
  report += "## Arguments\n\n" + pairs_table(input.args, "None.");
  report += "## Origin\n\nWhere the failure was first seen.\n\n" +
            pairs_table(input.origin, "Not recorded.");
  report += case_file(input);
  report += fixtures(input);
  report += reproduce(input);
  report += python_reproduction(input);
  report += collect_env(input);
  report += other_failures(input);
  report +=
      "## Environment\n\n" + pairs_table(input.environment, "Not recorded.");
  return report;
}

std::string render_report_markdown(const ReportInput& input,
                                   const ScrubContext& ctx) {
  return render_scrubbed_report(scrub_report(input, ctx));
}

}  // namespace casebook
