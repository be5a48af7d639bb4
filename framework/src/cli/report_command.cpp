// `casebook report CASE`: runs one case file (its declared neighbours too)
// and writes a Markdown request for a targeted analysis of the run that
// matters (choose_report_subject: what failed first, else the first
// expected error; `--id` chooses the case or neighbour), scrubbed by
// scrub_report; `--bundle DIR` writes the case file it carries, its
// fixtures and the Python reproduction beside the report. A case file that
// does not load is refused (exit 2): there is no run to report.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "casebook/diagnosis.h"
#include "casebook/printable.h"
#include "child/fork_safe_aten.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "files/file_writer.h"
#include "report/assemble.h"
#include "runner/session.h"

extern char** environ;

namespace casebook {
namespace fs = std::filesystem;
namespace {

// The report as `-o FILE` says: replaced where it exists, never through a
// link (files/file_writer.h); false with why on stderr.
bool write_report(const std::string& file, const std::string& text) {
  try {
    write_file(file, text, OnExisting::kReplace, false);
    return true;
  } catch (const WriteError& error) {
    std::cerr << "casebook report: " << printable_line(error.what()) << "\n";
    return false;
  }
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
  std::cerr << "casebook: `" << printable_line(argument)
            << "`: expected a case file or the id of a case under cases/; "
               "found neither\n";
  return false;
}

namespace {

// A case file that does not load (or names what its op does not take) has
// no run to report: its errors, each at its line, and exit 2.
bool refuse_invalid(const Plan& plan, const fs::path& file) {
  std::vector<std::string> problems;
  for (const PlannedCase& planned : plan.cases) {
    for (const CaseError& error : planned.loaded.errors) {
      problems.push_back(error.to_string());
    }
    for (const std::string& error : planned.plan_errors) {
      problems.push_back(error);
    }
  }
  if (problems.empty()) return false;
  std::cerr << "casebook report: " << printable_line(file.string())
            << ": the case file is invalid, so there is no run to report; "
               "fix it first (`casebook check "
            << printable_line(file.string()) << "` says the same):\n";
  for (const std::string& problem : problems) {
    std::cerr << "  " << problem << "\n";
  }
  return true;
}

// `--id` names no case of the file: the ids it has.
void refuse_unknown_id(const Plan& plan, const fs::path& file,
                       const std::string& id) {
  std::cerr << "casebook report: --id `" << printable_line(id)
            << "`: no case of " << printable_line(file.string())
            << " has this id; its ids:";
  for (const PlannedCase& planned : plan.cases) {
    std::cerr << " " << planned.loaded.id;
  }
  std::cerr << "\n";
}

// casebook's own error is no run of the op to look at: said, exit 1.
bool refuse_internal(const std::vector<CaseVerdict>& runs) {
  for (const CaseVerdict& verdict : runs) {
    if (verdict.verdict != Verdict::kInternal) continue;
    // A report asks the op's authors to look at a run; casebook's own error
    // is no run of the op to look at, and is casebook's to fix.
    std::cerr << "casebook report: " << verdict.case_id << " on "
              << backend_name(verdict.backend)
              << ": INTERNAL: " << verdict.message
              << "\ncasebook report: " << kInternalErrorNote
              << "\ncasebook report:   rerun: " << verdict.rerun_command
              << "\n";
    return true;
  }
  return false;
}

void nothing_ran(const fs::path& file, const std::vector<CaseVerdict>& runs) {
  std::cerr << "casebook report: " << printable_line(file.string())
            << ": nothing ran to report";
  for (const CaseVerdict& verdict : runs) {
    if (verdict.backend_absent) {
      std::cerr << "; " << backend_name(verdict.backend)
                << " absent: " << verdict.message;
      break;
    }
  }
  std::cerr << "\n";
}

// A run that is not the failure its origin records is no request for an
// analysis of that failure: what was seen, what ran here, and nothing
// written.
void refuse_unreproduced(const ReportInput& input) {
  std::cerr << "casebook report: " << input.case_id << " on " << input.backend
            << " does not reproduce the failure its origin records, so it is "
               "not written up as a request ("
            << input.reproduced << "):\n";
  for (size_t i = 0; i < input.seen.size() && i < input.here.size(); ++i) {
    std::cerr << "  " << input.seen[i].first << ": seen "
              << printable_line(input.seen[i].second) << "; here "
              << printable_line(input.here[i].second) << "\n";
  }
}

void say_written(const CaseVerdict& chosen, const ReportInput& input,
                 const ReportSubject& subject, const std::string& output) {
  std::cerr << "casebook report: " << chosen.case_id << " on " << input.backend
            << " (" << verdict_name(chosen.verdict) << ")"
            << (output.empty() ? "" : "; written to " + output) << "\n"
            << "casebook report: chosen: " << input.chosen_because << "; "
            << subject.other_failures.size() << " other run"
            << (subject.other_failures.size() == 1 ? "" : "s") << " failed\n";
}

// Scrubs the report, writes it (stdout or `output`) and the bundle, and
// says what it wrote and what it replaced.
int write_report(const ReportInput& input, const CarriedCase& carried,
                 const PythonReproduction& python, const CaseVerdict& chosen,
                 const ReportSubject& subject, const std::string& output,
                 const std::string& bundle) {
  ScrubLog replaced;
  ScrubContext scrub_context = ScrubContext::from_process();
  scrub_context.log = &replaced;
  const ReportInput clean = scrub_report(input, scrub_context);
  const std::string markdown = render_scrubbed_report(clean);
  if (output.empty()) {
    std::cout << markdown;
  } else if (!write_report(output, markdown)) {
    return kExitNotWritten;
  }
  say_written(chosen, input, subject, output);
  if (!bundle.empty()) {
    std::string error;
    if (!write_bundle(bundle, carried, clean, python.files, markdown, &error)) {
      std::cerr << "casebook report: --bundle: " << printable_line(error)
                << "\n";
      return kExitNotWritten;
    }
    std::cerr << "casebook report: bundle in " << bundle << ": "
              << clean.case_file_name
              << (clean.fixtures.empty() ? "" : ", fixtures/")
              << (python.files.empty() ? "" : ", inputs/")
              << ", reproduce.py, report.md"
              << " (reproduce there: " << clean.reproduce_command
              << ", or python3 reproduce.py)\n";
  }
  std::cerr << (replaced.replaced.empty()
                    ? std::string("casebook report: nothing was replaced\n")
                    : "casebook report: replaced before sending (check the "
                      "report for anything else):\n" +
                          replaced.summary());
  return 0;
}

}  // namespace

int report_command(const std::string& argument, const std::string& id,
                   const std::string& backend, const std::string& output,
                   const std::string& bundle) {
  RunOptions options;
  if (!backend.empty()) {
    const auto parsed = parse_backend_option("report", backend);
    if (!parsed) return kExitUsage;
    options.backends = {*parsed};
  }
  if (argument.empty() && id.empty()) {
    std::cerr << "casebook report: name a case file, or a case with --id\n";
    return kExitUsage;
  }
  fs::path file;
  // `--id` alone: the file of its case under cases/ (a neighbour's, too).
  if (!resolve_case_argument(
          argument.empty() ? id.substr(0, id.find('~')) : argument, &file)) {
    return kExitUsage;
  }
  keep_aten_single_threaded();  // before the runner forks
  Plan plan = load_plan({file}, options);
  if (refuse_invalid(plan, file)) return kExitUsage;
  if (!id.empty() && planned_case_of(plan, id) == nullptr) {
    refuse_unknown_id(plan, file, id);
    return kExitUsage;
  }
  options.case_id = id;
  Execution execution = execute_plan(
      plan, options, [](const PlannedCase&, Backend) { return true; }, nullptr);
  std::vector<CaseVerdict> runs;
  for (const CaseVerdict& verdict : execution.summary.verdicts) {
    if (id.empty() || verdict.case_id == id) runs.push_back(verdict);
  }
  if (refuse_internal(runs)) return 1;
  const ReportSubject subject = choose_reported_run(plan, runs);
  if (subject.reason == SubjectReason::kNothingRan) {
    nothing_ran(file, runs);
    return 1;
  }
  const CaseVerdict& chosen = runs[subject.index];
  const AssembledReport report =
      assemble_report(plan, runs, subject, execution.backends, file,
                      allowed_environment(environ));
  if (report.not_reproduced) {
    refuse_unreproduced(report.input);
    return 1;
  }

  return write_report(report.input, report.carried, report.python, chosen,
                      subject, output, bundle);
}

namespace {
struct ReportArguments {
  std::string kase, id, backend, output, bundle;
};
}  // namespace

Command add_report(CLI::App& app) {
  auto arguments = std::make_shared<ReportArguments>();
  CLI::App* report = app.add_subcommand(
      "report",
      "run one case and write a Markdown request for a targeted analysis, "
      "with nothing personal in it (home paths, user and host names, "
      "e-mails, secrets are scrubbed)");
  report->add_option("case", arguments->kase,
                     "a case file, or a case id under cases/");
  report->add_option("--id", arguments->id,
                     "report this case or neighbour of the file "
                     "(`case~rule[param]`); alone, a case under cases/");
  report->add_option("--backend,-b", arguments->backend,
                     "the backend whose runs to report (default: every "
                     "backend; the report is about the first run that "
                     "failed, else the first expected error)");
  report->add_option("-o,--output", arguments->output,
                     "write the report to this file (default: stdout)");
  report->add_option("--bundle", arguments->bundle,
                     "also write the case file the report carries, its "
                     "fixtures and the report to this folder, ready to "
                     "attach (never overwrites a file)");
  return {report, [arguments] {
            const ReportArguments& a = *arguments;
            return report_command(a.kase, a.id, a.backend, a.output, a.bundle);
          }};
}

}  // namespace casebook
