// The bug report: a Markdown request for a targeted analysis, scrubbed piece
// by piece before anything is cut short.
#include <algorithm>
#include <string>
#include <vector>

#include "casebook/diagnosis.h"

namespace casebook {
namespace {

// Lengths after scrubbing. A first message keeps room for a CUDA error with
// its device-side assertion lines; a consequence is usually one sticky line.
constexpr size_t kMessageLimit = 4000;
constexpr size_t kConsequenceLimit = 600;
constexpr size_t kConsequenceCount = 10;
constexpr size_t kCellLimit = 400;
constexpr size_t kCaseFileLimit = 16000;
constexpr size_t kCommandLimit = 2000;

// A table cell: one line, pipes escaped.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

// A fenced block whose fence is longer than any backtick run inside.
std::string fenced(std::string_view text, std::string_view language) {
  size_t longest = 0;
  size_t run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(std::max<size_t>(3, longest + 1), '`');
  std::string block = fence + std::string(language) + "\n" + std::string(text);
  if (block.back() != '\n') block += '\n';
  return block + fence + "\n";
}

std::string join_ints(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(values[i]);
  }
  return out + "]";
}

std::string pairs_table(
    const std::vector<std::pair<std::string, std::string>>& entries,
    const ScrubContext& ctx) {
  std::string table = "| key | value |\n|---|---|\n";
  for (const auto& [key, value] : entries) {
    const std::string clean_value =
        is_secret_key(key) ? scrub_entry(key, value, ctx).second
                           : scrub_then_truncate(value, kCellLimit, ctx);
    table += "| " + cell(scrub(key, ctx)) + " | " + cell(clean_value) + " |\n";
  }
  return table;
}

std::string what_fails(const ReportInput& input, const ScrubContext& ctx) {
  const bool fails = input.verdict != "PASS" && input.verdict != "SKIP";
  std::string text = fails ? "## What fails\n\n" : "## The run\n\n";
  text += "- case: `" + cell(scrub(input.case_id, ctx)) + "`\n";
  text += "- summary: " +
          cell(scrub_then_truncate(input.summary, kCellLimit, ctx)) + "\n";
  text += "- backend: " + cell(scrub(input.backend, ctx)) + "\n";
  text += "- verdict: " + cell(input.verdict) + "\n";
  if (input.family != Family::kNone && fails) {
    const FamilyAdvice& advice = advice_for(input.family);
    text += "- family: `" + std::string(family_name(input.family)) +
            "`: " + advice.meaning + "\n";
    text += "- check first: " + advice.first_check + "\n";
  }
  return text + "\n";
}

std::string operation(const ReportInput& input, const ScrubContext& ctx) {
  std::string text = "## The operation and its inputs\n\n";
  text += "Operation: `" + cell(scrub(input.op, ctx)) + "`\n\n";
  if (input.inputs.empty()) return text + "No tensor inputs.\n\n";
  text += "| input | dtype | shape | strides | storage offset |\n";
  text += "|---|---|---|---|---|\n";
  for (const ReportTensor& tensor : input.inputs) {
    text += "| " + cell(scrub(tensor.name, ctx)) + " | " +
            cell(scrub(tensor.dtype, ctx)) + " | " + join_ints(tensor.shape) +
            " | " + join_ints(tensor.strides) + " | " +
            std::to_string(tensor.storage_offset) + " |\n";
  }
  return text + "\n";
}

std::string errors(const ReportInput& input, const ScrubContext& ctx) {
  std::string text = "## First error and possible consequences\n\n";
  text += input.verdict == "XFAIL"
              ? "The first error (the author expects this failure: " +
                    scrub(input.expectation_reason, ctx) + "):\n\n"
              : "The first error, taken as the cause:\n\n";
  text += fenced(
      scrub_then_truncate(
          input.first_message.empty() ? "(no message)" : input.first_message,
          kMessageLimit, ctx),
      "text");
  if (input.consequences.empty()) return text + "\n";
  text += "\nLater errors, possible consequences (not causes):\n\n";
  std::string listed;
  const size_t shown = std::min(input.consequences.size(), kConsequenceCount);
  for (size_t i = 0; i < shown; ++i) {
    listed +=
        scrub_then_truncate(input.consequences[i], kConsequenceLimit, ctx) +
        "\n";
  }
  if (input.consequences.size() > shown) {
    listed += "(" + std::to_string(input.consequences.size() - shown) +
              " more not shown)\n";
  }
  return text + fenced(listed, "text") + "\n";
}

}  // namespace

std::string render_report_markdown(const ReportInput& input,
                                   const ScrubContext& ctx) {
  std::string report = "# Request for a targeted analysis: `" +
                       cell(scrub(input.case_id, ctx)) + "`\n\n";
  const std::string scrubbed_note =
      "Paths, names, addresses and secrets have been replaced by "
      "<home>, <user>, <host>, <email>, <ip>, <internal-url> and "
      "<redacted>.\n\n";
  if (input.verdict == "PASS") {
    report +=
        "Verdict: PASS. Nothing fails: every check of this run held. "
        "The report shows the case as it ran. " +
        scrubbed_note;
  } else if (input.verdict == "SKIP") {
    report += "Verdict: SKIP (" + scrub(input.expectation_reason, ctx) +
              "). Nothing ran to analyse. " + scrubbed_note;
  } else if (input.verdict == "XFAIL") {
    report += "Verdict: XFAIL, a known failure. The author's expectation: " +
              scrub(input.expectation_reason, ctx) +
              ". The case file below reproduces it alone. " + scrubbed_note;
  } else {
    report +=
        "One computation fails; the case file below reproduces it alone. "
        "Please look at this operation with these inputs, not at the whole "
        "program. " +
        scrubbed_note;
  }
  for (const auto& [key, value] : input.origin) {
    if (key == "source") {
      report += "Reported at: " + scrub(value, ctx) + "\n\n";
    }
  }
  report += what_fails(input, ctx);
  report += operation(input, ctx);
  report += "## Environment\n\n";
  report += input.environment.empty() ? std::string("Not recorded.\n")
                                      : pairs_table(input.environment, ctx);
  if (input.verdict != "PASS" && input.verdict != "SKIP") {
    report += "\n" + errors(input, ctx);
  } else {
    report += "\n";
  }
  if (!input.origin.empty()) {
    report += "## Where the failure was first seen\n\n" +
              pairs_table(input.origin, ctx) + "\n";
  }
  report += "## The case file\n\n";
  report += fenced(
      scrub_then_truncate(input.case_file_text, kCaseFileLimit, ctx), "yaml");
  report += "\n## How to reproduce\n\n";
  report += fenced(
      scrub_then_truncate(input.reproduce_command, kCommandLimit, ctx), "sh");
  return report;
}

}  // namespace casebook
