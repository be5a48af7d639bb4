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
  *python = python_reproduction(
      kase, planned.op, expectation_in_run(plan, planned, chosen.backend),
      chosen.backend, seen);
  input->python_script = python->script;
  for (const PythonInputFile& each : python->files) {
    input->python_files.push_back(each.file);
  }
}

std::string origin_value(const Case& kase, const std::string& key) {
  for (const auto& [name, value] : kase.origin.entries) {
    if (name == key) return value;
  }
  return "";
}

std::string value_of(const ReportPairs& pairs, const std::string& key) {
  for (const auto& [name, value] : pairs) {
    if (name == key) return value;
  }
  return "";
}

// Whether `chosen` reproduces the origin's failure (match_origin), in words;
// `*differs` when it does not.
std::string reproduced(const Case& kase, const CaseVerdict& chosen,
                       const std::vector<CaseVerdict>& runs,
                       bool expected_error, bool* differs) {
  const std::string first_error = origin_value(kase, "first_error");
  const Backend origin_backend =
      parse_backend(origin_value(kase, "backend")).value_or(Backend::kCpu);
  if (first_error.empty() ||
      classify_python_error(first_error) == Family::kNone) {
    return "not known: the origin records no first_error of a family "
           "casebook reads";
  }
  if (chosen.verdict == Verdict::kSkip || chosen.verdict == Verdict::kNotRun) {
    return "not known: the run was skipped";
  }
  *differs = true;
  if (chosen.verdict == Verdict::kPass && !expected_error) {
    return "no: the run here passes";
  }
  bool origin_ran = false;
  for (const CaseVerdict& run : runs) {
    origin_ran |= run.backend == origin_backend && !run.backend_absent &&
                  run.verdict != Verdict::kSkip &&
                  run.verdict != Verdict::kNotRun;
  }
  std::string why;
  const OriginMatch match =
      match_origin(first_error, origin_backend, origin_ran, chosen.backend,
                   chosen.family, chosen.first_error, &why);
  *differs = match == OriginMatch::kDiffers;
  if (match == OriginMatch::kSame) return "yes, the same failure";
  if (match == OriginMatch::kCpuForm) {
    return "yes, in its CPU form: " + std::string(family_name(chosen.family)) +
           " is what " + std::string(backend_name(origin_backend)) +
           "'s device_assert is on the CPU (" +
           std::string(backend_name(origin_backend)) + " did not run here)";
  }
  return "no: " + why;
}

// What was seen where, the origin's facts beside this run's, and whether
// the run reproduces the origin's failure.
void describe_seen_where(const Case& kase, const CaseVerdict& chosen,
                         const std::vector<CaseVerdict>& runs,
                         AssembledReport* report) {
  ReportInput& input = report->input;
  if (kase.origin.empty()) return;
  const auto origin = [&kase](const std::string& key) {
    const std::string value = origin_value(kase, key);
    return value.empty() ? std::string("not recorded") : value;
  };
  std::string device;
  for (const std::string key : {"cuda", "hip", "driver"}) {
    const std::string value = origin_value(kase, "versions." + key);
    if (value.empty()) continue;
    device += (device.empty() ? "" : ", ") + key + " " + value;
  }
  std::string libtorch = value_of(input.versions, "libtorch.library");
  if (libtorch.empty()) libtorch = value_of(input.versions, "libtorch");
  const std::string here_device = value_of(
      input.versions, is_gpu(chosen.backend) ? input.backend : "device");
  std::string failure = "none: the run passes";
  if (chosen.family != Family::kNone || !chosen.first_error.empty()) {
    failure =
        std::string(family_name(chosen.family)) + ": " + chosen.first_error;
  }
  input.seen = {{"PyTorch", origin("versions.torch")},
                {"backend", origin("backend")},
                {"device", device.empty() ? "not recorded" : device},
                {"failure", origin("first_error")}};
  input.here = {{"PyTorch", "LibTorch " + libtorch},
                {"backend", input.backend},
                {"device", here_device},
                {"failure", failure}};
  input.reproduced = reproduced(kase, chosen, runs, input.expected_error,
                                &report->not_reproduced);
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
  describe_seen_where(planned_case_of(plan, chosen.case_id)->value(), chosen,
                      runs, &report);
  return report;
}

}  // namespace casebook
