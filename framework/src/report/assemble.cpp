// `casebook report`'s product before scrubbing (report/assemble.h).
#include "report/assemble.h"

#include <utility>

#include "report/request.h"
#include "runner/output.h"
#include "runner/session.h"

namespace casebook {
namespace fs = std::filesystem;

const PlannedCase* planned_case_of(const Plan& plan, const std::string& id) {
  for (const PlannedCase& each : plan.cases) {
    if (each.loaded.id == id) return &each;
  }
  return nullptr;
}

namespace {

std::vector<ReportCandidate> candidates(const Plan& plan,
                                        const std::vector<CaseVerdict>& runs) {
  std::vector<ReportCandidate> out;
  for (const CaseVerdict& verdict : runs) {
    ReportCandidate candidate;
    candidate.verdict = verdict.verdict;
    candidate.backend_absent = verdict.backend_absent;
    const PlannedCase* planned = planned_case_of(plan, verdict.case_id);
    if (planned != nullptr && planned->loaded.value) {
      const Expectation expected =
          expectation_in_run(plan, *planned, verdict.backend);
      candidate.expected_error = verdict.verdict == Verdict::kPass &&
                                 expected.kind == Expectation::Kind::kError;
      // casebook's own "cannot be derived" ERROR: no run of the op.
      candidate.unjudged = !expected.missing.empty();
    }
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

// What the report says of the chosen run of `planned`: the case, the
// carried file, the Python reproduction.
void describe_case(const Plan& plan, const PlannedCase& planned,
                   const CaseVerdict& chosen, const fs::path& file,
                   AssembledReport* report) {
  ReportInput* input = &report->input;
  CarriedCase* carried = &report->carried;
  PythonReproduction* python = &report->python;
  const Case& kase = planned.value();
  input->op = kase.op;
  input->summary = kase.summary;
  input->inputs = report_inputs(kase);
  input->args = report_args(kase);
  input->origin = kase.origin.entries;
  describe_outcome(chosen, input);
  input->expected_error = candidates(plan, {chosen}).front().expected_error;
  *carried = carry_case(planned, file);
  input->case_file_note = carried->note;
  for (const CarriedFixture& fixture : carried->fixtures) {
    input->fixtures.push_back(fixture.shown);
  }
  std::string seen = std::string(verdict_name(chosen.verdict));
  if (chosen.family != Family::kNone) {
    seen += " " + std::string(family_name(chosen.family));
  }
  const std::string first_line =
      chosen.message.substr(0, chosen.message.find('\n'));
  seen += (first_line.empty() ? "" : ": " + first_line.substr(0, 300));
  *python = python_reproduction(kase, planned.op, chosen.backend, seen);
  input->python_script = python->script;
  for (const PythonInputFile& each : python->files) {
    input->python_files.push_back(each.file);
  }
}

}  // namespace

ReportSubject choose_reported_run(const Plan& plan,
                                  const std::vector<CaseVerdict>& runs) {
  return choose_report_subject(candidates(plan, runs));
}

AssembledReport assemble_report(
    const Plan& plan, const std::vector<CaseVerdict>& runs,
    const ReportSubject& subject,
    const std::map<Backend, BackendStatus>& probed, const fs::path& file,
    std::vector<std::pair<std::string, std::string>> environment) {
  const CaseVerdict& chosen = runs[subject.index];
  AssembledReport report;
  ReportInput& input = report.input;
  input.case_id = chosen.case_id;
  input.backend = std::string(backend_name(chosen.backend));
  input.chosen_because = std::string(subject_reason_text(subject.reason));
  for (size_t other : subject.other_failures) {
    input.other_failures.push_back(failure_line(runs[other]));
  }
  ReportPairs rest;
  const ReportPairs run_facts = run_environment(probed);
  input.versions = report_versions(run_facts, probed, chosen.backend, &rest);
  input.collect_env = collect_env_facts(run_facts, probed);
  input.environment = std::move(rest);
  for (auto& entry : environment) {
    input.environment.push_back(std::move(entry));
  }
  describe_case(plan, *planned_case_of(plan, chosen.case_id), chosen, file,
                &report);
  input.case_file_text = report.carried.text;
  input.case_file_name = report.carried.file_name;
  input.reproduce_command =
      reproduce_line(report.carried.file_name, chosen.backend);
  return report;
}

}  // namespace casebook
