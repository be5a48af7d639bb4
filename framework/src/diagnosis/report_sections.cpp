#include "diagnosis/report_sections.h"

#include <algorithm>
#include <optional>
#include <string>

#include "casebook/run_advice.h"
#include "casebook/shape_text.h"

namespace casebook::report_sections {
namespace {

// A case file past this is not shown (cut, it would not load): --bundle
// writes it. A consequence list past kConsequenceCount is counted.
constexpr size_t kCaseFileShown = size_t{64} * 1024;
constexpr size_t kConsequenceCount = 10;

// The run's verdict, parsed from the name the report shows; nullopt for a
// name that is no verdict's (said as it is, as a failure).
std::optional<Verdict> verdict_of(const ReportInput& input) {
  return parse_verdict(input.verdict);
}

bool fails(const ReportInput& input) {
  const std::optional<Verdict> verdict = verdict_of(input);
  return verdict != Verdict::kPass && verdict != Verdict::kSkip;
}

// The run raised an error worth showing: a failure, an XFAIL, or the error
// its case expects.
bool has_message(const ReportInput& input) {
  return fails(input) || input.expected_error;
}

std::string family_text(Family family) {
  return "`" + std::string(family_name(family)) + "`";
}

}  // namespace

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

std::string pairs_table(const ReportPairs& pairs, std::string_view none) {
  if (pairs.empty()) return std::string(none) + "\n\n";
  std::string table = "| key | value |\n|---|---|\n";
  for (const auto& [key, value] : pairs) {
    table += "| " + cell(key) + " | " + cell(value) + " |\n";
  }
  return table + "\n";
}

std::string verdict_sentence(const ReportInput& input) {
  const std::optional<Verdict> verdict = verdict_of(input);
  std::string text;
  if (verdict == Verdict::kPass && input.expected_error) {
    text = "Verdict: PASS: the run raised the error its case expects (" +
           family_text(input.family) +
           "). The case file below reproduces it alone; the error it raised "
           "is below.";
  } else if (verdict == Verdict::kPass) {
    text =
        "Verdict: PASS. Nothing fails: every check of this run held. The "
        "report shows the case as it ran.";
  } else if (verdict == Verdict::kSkip) {
    text = "Verdict: SKIP (" + input.expectation_reason +
           "). Nothing ran to analyse.";
  } else if (verdict == Verdict::kXfail) {
    text = "Verdict: XFAIL, a known failure. The author's expectation: " +
           input.expectation_reason +
           ". The case file below reproduces it alone.";
  } else {
    text = "Verdict: " + input.verdict +
           ". One computation fails; the case file below reproduces it "
           "alone. Please look at this operation with these inputs, not at "
           "the whole program.";
  }
  text +=
      " Paths, names, addresses and secrets have been replaced by <home>, "
      "<user>, <host>, <email>, <ip>, <mac>, <internal-url> and <redacted>.";
  for (const auto& [key, value] : input.origin) {
    if (key == "source") text += "\n\nReported at: " + value;
  }
  return text;
}

std::string the_run(const ReportInput& input) {
  std::string text = "- case: `" + cell(input.case_id) + "`\n";
  if (!input.summary.empty())
    text += "- summary: " + cell(input.summary) + "\n";
  if (!input.chosen_because.empty()) {
    text += "- chosen: " + cell(input.chosen_because) + "\n";
  }
  const size_t others = input.other_failures.size();
  text += "- other runs that failed: " +
          (others == 0 ? std::string("none")
                       : std::to_string(others) + " (listed below)") +
          "\n\n";
  return text;
}

std::string seen_and_reproduced(const ReportInput& input) {
  if (input.seen.empty()) return "";
  std::string text =
      "## Seen and reproduced\n\n| | where the failure was seen (origin) "
      "| where it was reproduced (casebook) |\n|---|---|---|\n";
  for (size_t i = 0; i < input.seen.size() && i < input.here.size(); ++i) {
    text += "| " + cell(input.seen[i].first) + " | " +
            cell(input.seen[i].second) + " | " + cell(input.here[i].second) +
            " |\n";
  }
  return text + "\nReproduced: " + cell(input.reproduced) + "\n\n";
}

std::string operation(const ReportInput& input) {
  return "## Operation\n\nOperation: `" + cell(input.op) + "`\n\n";
}

std::string inputs(const ReportInput& input) {
  std::string text = "## Inputs\n\n";
  if (input.inputs.empty()) return text + "No tensor inputs.\n\n";
  text += "| input | dtype | shape | strides | storage offset |\n";
  text += "|---|---|---|---|---|\n";
  for (const ReportTensor& tensor : input.inputs) {
    text += "| " + cell(tensor.name) + " | " + cell(tensor.dtype) + " | " +
            shape_text(tensor.shape) + " | " + shape_text(tensor.strides) +
            " | " + std::to_string(tensor.storage_offset) + " |\n";
  }
  return text + "\n";
}

std::string backend(const ReportInput& input) {
  std::string text = "## Backend\n\n- backend: " + cell(input.backend) + "\n";
  text += "- verdict: " + cell(input.verdict) + "\n";
  if (input.family != Family::kNone && has_message(input)) {
    FailureFacts facts;
    facts.family = input.family;
    facts.backend = parse_backend(input.backend);
    const std::string first =
        input.first_message.substr(0, input.first_message.find('\n'));
    facts.message = first;
    text += "- family: " + family_text(input.family) + ": " +
            advice_on(input.family, facts.backend).meaning + "\n";
    text += "- check first: " + first_check_for(facts) + "\n";
  }
  return text + "\n";
}

std::string first_message(const ReportInput& input) {
  if (!has_message(input)) return "";
  std::string text = "## First relevant message\n\n";
  if (verdict_of(input) == Verdict::kXfail) {
    text += "The first error (the author expects this failure: " +
            input.expectation_reason + "):\n\n";
  } else if (input.expected_error) {
    text += "The error the case expects, as this run raised it:\n\n";
  } else {
    text += "The first error, taken as the cause:\n\n";
  }
  text +=
      fenced(input.first_message.empty() ? "(no message)" : input.first_message,
             "text");
  if (input.consequences.empty()) return text + "\n";
  text += "\nLater errors, possible consequences (not causes):\n\n";
  std::string listed;
  const size_t shown = std::min(input.consequences.size(), kConsequenceCount);
  for (size_t i = 0; i < shown; ++i) listed += input.consequences[i] + "\n";
  if (input.consequences.size() > shown) {
    listed += "(" + std::to_string(input.consequences.size() - shown) +
              " more not shown)\n";
  }
  return text + fenced(listed, "text") + "\n";
}

std::string case_file(const ReportInput& input) {
  std::string text =
      "## The case file\n\n`" + cell(input.case_file_name) + "`" +
      (input.case_file_note.empty() ? std::string()
                                    : ": " + input.case_file_note) +
      ".\n\n";
  if (input.case_file_text.size() > kCaseFileShown) {
    return text + "Not shown: " + std::to_string(input.case_file_text.size()) +
           " bytes. `casebook report CASE --bundle DIR` writes it.\n\n";
  }
  return text + fenced(input.case_file_text, "yaml") + "\n";
}

std::string fixtures(const ReportInput& input) {
  if (input.fixtures.empty()) return "";
  std::string text =
      "## Fixtures\n\nThe case file reads these files from the `fixtures/` "
      "folder beside it; they are not in this text. `casebook report CASE "
      "--bundle DIR` writes the case file and them, ready to attach.\n\n"
      "| input | file | sha256 | bytes |\n|---|---|---|---|\n";
  for (const ReportFixture& fixture : input.fixtures) {
    text += "| " + cell(fixture.input) + " | `fixtures/" + cell(fixture.file) +
            "` | " + cell(fixture.sha256) + " | " +
            std::to_string(fixture.bytes) + " |\n";
  }
  return text + "\n";
}

std::string reproduce(const ReportInput& input) {
  std::string text =
      "## How to reproduce\n\nWith the case file above saved as `" +
      cell(input.case_file_name) + "`" +
      (input.fixtures.empty()
           ? std::string()
           : " and its fixtures under `fixtures/` beside it") +
      ", in that folder:\n\n";
  text += fenced(input.reproduce_command, "sh");
  text += "\nIt gives " + input.verdict + " on " + input.backend;
  if (input.family != Family::kNone && has_message(input)) {
    text += " (" + family_text(input.family) + ")";
  }
  return text + ", as here.\n\n";
}

std::string python_reproduction(const ReportInput& input) {
  if (input.python_script.empty()) return "";
  std::string text =
      "## Reproduce with PyTorch alone\n\nThe same run as a Python script "
      "(`reproduce.py` in the bundle): the inputs rebuilt, the op's public "
      "PyTorch function called, its result checked as the case checks it, "
      "ending as this run did (exit 0 for a PASS, 1 for a failure, the "
      "error a case expects raised)";
  if (!input.python_files.empty()) {
    text += "; it loads ";
    for (size_t i = 0; i < input.python_files.size(); ++i) {
      text += (i ? ", `" : "`") + cell(input.python_files[i]) + "`";
    }
    text += ", which `casebook report CASE --bundle DIR` writes";
  }
  text += ".\n\n";
  if (input.python_script.size() > kCaseFileShown) {
    return text + "Not shown: " + std::to_string(input.python_script.size()) +
           " bytes. `casebook report CASE --bundle DIR` writes it.\n\n";
  }
  return text + fenced(input.python_script, "python") + "\n";
}

std::string collect_env(const ReportInput& input) {
  if (input.collect_env.empty()) return "";
  std::string lines;
  for (const auto& [key, value] : input.collect_env) {
    lines += cell(key) + ": " + cell(value) + "\n";
  }
  return "## Environment as collect_env gives it\n\nWhat PyTorch's issue "
         "template asks for (`python -m torch.utils.collect_env`), as "
         "casebook's run knows it:\n\n" +
         fenced(lines, "text") + "\n";
}

std::string other_failures(const ReportInput& input) {
  if (input.other_failures.empty()) return "";
  std::string text = "## Other runs that failed (" +
                     std::to_string(input.other_failures.size()) + ")\n\n";
  for (const std::string& line : input.other_failures) {
    text += "- " + cell(line) + "\n";
  }
  return text + "\n";
}

}  // namespace casebook::report_sections
