// `casebook report CASE`: runs one case and writes a Markdown request for a
// targeted analysis of one of its runs, scrubbed by render_report_markdown.
#include <ATen/Parallel.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "casebook/case_writer.h"
#include "casebook/diagnosis.h"
#include "cli/commands.h"
#include "runner/output.h"
#include "runner/session.h"
#include "tensors/materialise.h"

extern char** environ;

namespace casebook {
namespace fs = std::filesystem;
namespace {

std::string file_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The inputs as the op sees them: dtype, shape, strides and storage offset of
// the materialised view; a spec that cannot be made keeps its written shape.
std::vector<ReportTensor> report_inputs(const Case& kase) {
  std::vector<ReportTensor> inputs;
  for (const TensorSpec& spec : kase.inputs) {
    ReportTensor tensor;
    tensor.name = spec.name;
    tensor.dtype = std::string(dtype_name(spec.dtype));
    tensor.shape = spec.shape;
    try {
      const at::Tensor view = materialise(spec).view;
      if (auto dtype = to_dtype(view.scalar_type())) {
        tensor.dtype = std::string(dtype_name(*dtype));
      }
      tensor.shape = view.sizes().vec();
      tensor.strides = view.strides().vec();
      tensor.storage_offset = view.storage_offset();
    } catch (const std::exception&) {
      // The run's own message says why; the table shows what was written.
    }
    inputs.push_back(std::move(tensor));
  }
  return inputs;
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
                   const std::string& output) {
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
  const std::vector<CaseVerdict>& verdicts = execution.summary.verdicts;
  if (plan.cases.empty() || verdicts.empty()) {
    std::cerr << "casebook report: " << file.string()
              << ": no run to report (the case runs on none of the backends "
                 "asked for)\n";
    return 1;
  }
  const CaseVerdict* chosen = &verdicts.front();
  for (const CaseVerdict& verdict : verdicts) {
    if (verdict.verdict != Verdict::kPass) {
      chosen = &verdict;
      break;
    }
  }
  // The case the chosen run belongs to: a file's declared neighbours run
  // with it, and a neighbour's report shows its own inputs and case.
  const PlannedCase* found = &plan.cases.front();
  for (const PlannedCase& each : plan.cases) {
    if (each.loaded.id == chosen->case_id) found = &each;
  }
  const PlannedCase& planned = *found;
  ReportInput input;
  input.case_id = chosen->case_id;
  input.backend = std::string(backend_name(chosen->backend));
  input.family = chosen->family;
  if (planned.loaded.value) {
    const Case& kase = *planned.loaded.value;
    input.op = kase.op;
    input.summary = kase.summary;
    input.inputs = report_inputs(kase);
    input.origin = kase.origin.entries;
  }
  input.environment = run_environment(execution.backends);
  for (auto& entry : allowed_environment(environ)) {
    input.environment.push_back(std::move(entry));
  }
  input.verdict = std::string(verdict_name(chosen->verdict));
  input.first_message = chosen->message;
  if (chosen->verdict == Verdict::kSkip) {
    input.expectation_reason = chosen->message;
    input.first_message.clear();
  } else if (chosen->verdict == Verdict::kXfail && planned.loaded.value) {
    // judge() writes "<reason> (<first error>)": the reason is the author's
    // expectation, the part in brackets what the run said.
    const std::string reason =
        planned.value().expectation(chosen->backend).reason;
    input.expectation_reason = reason;
    const std::string& message = chosen->message;
    if (message.rfind(reason + " (", 0) == 0 && message.back() == ')') {
      input.first_message =
          message.substr(reason.size() + 2, message.size() - reason.size() - 3);
    }
  }
  input.consequences = chosen->consequences;
  // A neighbour is not written in its file: the report carries it as a case
  // file of its own, so that the file below reproduces the failure alone.
  input.case_file_text = planned.neighbor && planned.loaded.value
                             ? case_to_yaml(planned.value())
                             : file_text(file);
  input.reproduce_command = chosen->rerun_command;
  ScrubLog replaced;
  ScrubContext scrub_context = ScrubContext::from_process();
  scrub_context.log = &replaced;
  const std::string markdown = render_report_markdown(input, scrub_context);
  if (output.empty()) {
    std::cout << markdown;
  } else {
    std::ofstream out(output);
    out << markdown;
    if (!out) {
      std::cerr << "casebook report: cannot write " << output << "\n";
      return 1;
    }
  }
  std::cerr << "casebook report: " << chosen->case_id << " on " << input.backend
            << " (" << verdict_name(chosen->verdict) << ")"
            << (chosen->verdict == Verdict::kPass ? ": every run passed" : "")
            << (output.empty() ? "" : "; written to " + output) << "\n";
  std::cerr << (replaced.replaced.empty()
                    ? std::string("casebook report: nothing was replaced\n")
                    : "casebook report: replaced before sending (check the "
                      "report for anything else):\n" +
                          replaced.summary());
  return 0;
}

}  // namespace casebook
