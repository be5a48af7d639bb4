// `casebook report CASE`: runs one case file (its declared neighbours too)
// and writes a Markdown request for a targeted analysis of the run that
// matters (choose_report_subject: what failed first, else the first
// expected error), scrubbed by scrub_report; `--bundle DIR` writes the
// case file it carries and its fixtures beside the report.
#include <ATen/Parallel.h>

#include <fstream>
#include <iostream>

#include "casebook/diagnosis.h"
#include "cli/commands.h"
#include "cli/report_carry.h"
#include "cli/report_request.h"
#include "runner/output.h"
#include "runner/planner.h"
#include "runner/session.h"

extern char** environ;

namespace casebook {
namespace fs = std::filesystem;
namespace {

const PlannedCase* planned_case_of(const Plan& plan, const std::string& id) {
  for (const PlannedCase& each : plan.cases) {
    if (each.loaded.id == id) return &each;
  }
  return nullptr;
}

std::vector<ReportCandidate> candidates(const Plan& plan,
                                        const std::vector<CaseVerdict>& runs) {
  std::vector<ReportCandidate> out;
  for (const CaseVerdict& verdict : runs) {
    ReportCandidate candidate;
    candidate.verdict = verdict.verdict;
    candidate.backend_absent = verdict.backend_absent;
    const PlannedCase* planned = planned_case_of(plan, verdict.case_id);
    candidate.expected_error =
        verdict.verdict == Verdict::kPass && planned != nullptr &&
        planned->loaded.value &&
        expectation_in_run(plan, *planned, verdict.backend).kind ==
            Expectation::Kind::kError;
    out.push_back(candidate);
  }
  return out;
}

// "FAIL  x~dtypes[float64]  cpu  op_unavailable: ..." (the first line).
std::string failure_line(const CaseVerdict& verdict) {
  std::string line = std::string(verdict_name(verdict.verdict)) + "  " +
                     verdict.case_id + "  " +
                     std::string(backend_name(verdict.backend));
  if (verdict.family != Family::kNone) {
    line += "  " + std::string(family_name(verdict.family)) + ":";
  }
  return line + " " + verdict.message.substr(0, verdict.message.find('\n'));
}

// The message and expectation of the chosen run, as the report shows them.
void describe_outcome(const CaseVerdict& chosen, ReportInput* input) {
  input->verdict = std::string(verdict_name(chosen.verdict));
  input->family = chosen.family;
  input->first_message = chosen.message;
  input->consequences = chosen.consequences;
  if (chosen.verdict == Verdict::kSkip) {
    input->expectation_reason = chosen.message;
    input->first_message.clear();
  } else if (chosen.verdict == Verdict::kXfail) {
    // The author's expectation, and what the run said.
    input->expectation_reason = chosen.expectation_reason;
    input->first_message = chosen.first_error;
  }
}

bool write_text(const std::string& file, const std::string& text) {
  std::ofstream out(file);
  out << text;
  return static_cast<bool>(out);
}

}  // namespace

bool resolve_case_argument(const std::string& argument, fs::path* file) {
  if (fs::is_regular_file(argument)) {
    *file = argument;
    return true;
  }
  for (const char* extension : {".yaml", ".yml"}) {
    const fs::path candidate = fs::path("cases") / (argument + extension);
    if (fs::is_regular_file(candidate)) {
      *file = candidate;
      return true;
    }
  }
  if (fs::is_directory("cases")) {
    std::vector<fs::path> missing;
    for (const fs::path& candidate : find_case_files({"cases"}, &missing)) {
      if (load_case_file(candidate).id == argument) {
        *file = candidate;
        return true;
      }
    }
  }
  std::cerr << "casebook: `" << argument
            << "`: expected a case file or the id of a case under cases/; "
               "found neither\n";
  return false;
}

int report_command(const std::string& argument, const std::string& backend,
                   const std::string& output, const std::string& bundle) {
  RunOptions options;
  if (!backend.empty()) {
    auto parsed = parse_backend(backend);
    if (!parsed) {
      std::cerr
          << "casebook report: --backend: expected cpu, cuda or hip; got `"
          << backend << "`\n";
      return kExitUsage;
    }
    options.backends = {*parsed};
  }
  fs::path file;
  if (!resolve_case_argument(argument, &file)) return kExitUsage;
  at::set_num_threads(1);  // no OpenMP pool in the runner before forks
  Plan plan = load_plan({file}, options);
  Execution execution = execute_plan(
      plan, options, [](const PlannedCase&, Backend) { return true; }, nullptr);
  const std::vector<CaseVerdict>& runs = execution.summary.verdicts;
  for (const CaseVerdict& verdict : runs) {
    if (verdict.verdict != Verdict::kInternal) continue;
    // A report asks the op's authors to look at a run; casebook's own error
    // is no run of the op to look at, and is casebook's to fix.
    std::cerr << "casebook report: " << verdict.case_id << " on "
              << backend_name(verdict.backend) << ": INTERNAL: "
              << verdict.message << "\ncasebook report: " << kInternalErrorNote
              << "\ncasebook report:   rerun: " << verdict.rerun_command
              << "\n";
    return 1;
  }
  const ReportSubject subject = choose_report_subject(candidates(plan, runs));
  if (subject.reason == SubjectReason::kNothingRan) {
    std::cerr << "casebook report: " << file.string()
              << ": nothing ran to report";
    for (const CaseVerdict& verdict : runs) {
      if (verdict.backend_absent) {
        std::cerr << "; " << backend_name(verdict.backend)
                  << " absent: " << verdict.message;
        break;
      }
    }
    std::cerr << "\n";
    return 1;
  }
  const CaseVerdict& chosen = runs[subject.index];
  const PlannedCase* planned = planned_case_of(plan, chosen.case_id);
  ReportInput input;
  input.case_id = chosen.case_id;
  input.backend = std::string(backend_name(chosen.backend));
  input.chosen_because = std::string(subject_reason_text(subject.reason));
  for (size_t other : subject.other_failures) {
    input.other_failures.push_back(failure_line(runs[other]));
  }
  ReportPairs rest;
  input.versions = report_versions(run_environment(execution.backends),
                                   execution.backends, chosen.backend, &rest);
  input.environment = std::move(rest);
  for (auto& entry : allowed_environment(environ)) {
    input.environment.push_back(std::move(entry));
  }
  input.verdict = std::string(verdict_name(chosen.verdict));
  input.family = chosen.family;
  input.first_message = chosen.message;
  CarriedCase carried;
  if (planned != nullptr && planned->loaded.value) {
    const Case& kase = planned->value();
    input.op = kase.op;
    input.summary = kase.summary;
    input.inputs = report_inputs(kase);
    input.args = report_args(kase);
    input.origin = kase.origin.entries;
    describe_outcome(chosen, &input);
    input.expected_error = candidates(plan, {chosen}).front().expected_error;
    carried = carry_case(*planned, file);
    input.case_file_note = carried.note;
    for (const CarriedFixture& fixture : carried.fixtures) {
      input.fixtures.push_back(fixture.shown);
    }
  } else {
    // A file that does not load: the report carries it as written, and its
    // ERROR says why.
    carried = carry_unloaded_case(file);
    input.case_file_note = carried.note;
  }
  input.case_file_text = carried.text;
  input.case_file_name = carried.file_name;
  input.reproduce_command = reproduce_line(carried.file_name, chosen.backend);

  ScrubLog replaced;
  ScrubContext scrub_context = ScrubContext::from_process();
  scrub_context.log = &replaced;
  const ReportInput clean = scrub_report(input, scrub_context);
  const std::string markdown = render_scrubbed_report(clean);
  if (output.empty()) {
    std::cout << markdown;
  } else if (!write_text(output, markdown)) {
    std::cerr << "casebook report: cannot write " << output << "\n";
    return 1;
  }
  std::cerr << "casebook report: " << chosen.case_id << " on " << input.backend
            << " (" << verdict_name(chosen.verdict) << ")"
            << (output.empty() ? "" : "; written to " + output) << "\n"
            << "casebook report: chosen: " << input.chosen_because << "; "
            << subject.other_failures.size() << " other run"
            << (subject.other_failures.size() == 1 ? "" : "s") << " failed\n";
  if (!bundle.empty()) {
    std::string error;
    if (!write_bundle(bundle, carried, clean.case_file_text, clean.fixtures,
                      markdown, &error)) {
      std::cerr << "casebook report: --bundle: " << error << "\n";
      return 1;
    }
    std::cerr << "casebook report: bundle in " << bundle << ": "
              << clean.case_file_name
              << (clean.fixtures.empty() ? "" : ", fixtures/") << ", report.md"
              << " (reproduce there: " << clean.reproduce_command << ")\n";
  }
  std::cerr << (replaced.replaced.empty()
                    ? std::string("casebook report: nothing was replaced\n")
                    : "casebook report: replaced before sending (check the "
                      "report for anything else):\n" +
                          replaced.summary());
  return 0;
}

}  // namespace casebook
