// `casebook report`'s product, before scrubbing: which run of a plan to
// report, and everything the request says of it (the case, the versions,
// the case file it carries, the Python reproduction). The command
// (cli/report_command.cpp) runs the plan, asks these, scrubs and prints.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "casebook/diagnosis.h"
#include "casebook/runner.h"
#include "report/carry.h"
#include "report/python_repro.h"
#include "runner/planner.h"

namespace casebook {

// The case of `plan` whose id is `id` (a neighbour's too); null when none.
const PlannedCase* planned_case_of(const Plan& plan, const std::string& id);

// The run that matters among `runs` (choose_report_subject: what failed
// first, else the first expected error), judged against `plan`'s
// expectations.
ReportSubject choose_reported_run(const Plan& plan,
                                  const std::vector<CaseVerdict>& runs);

struct AssembledReport {
  ReportInput input;  // not scrubbed yet (scrub_report)
  CarriedCase carried;
  PythonReproduction python;
  // The chosen run is not the failure its case's origin.first_error
  // records (input.reproduced says why): no request to write.
  bool not_reproduced = false;
};

// The request for `runs[subject.index]`, a run of the case file `file`:
// `probed` are the backends the run probed, `environment` the variables
// the request may show (allowed_environment).
AssembledReport assemble_report(const Plan& plan,
                                const std::vector<CaseVerdict>& runs,
                                const ReportSubject& subject,
                                const std::map<Backend, BackendStatus>& probed,
                                const std::filesystem::path& file,
                                ReportPairs environment);

}  // namespace casebook
