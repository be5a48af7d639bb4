// `casebook capture`: saved tensors into a case, then the case run at once.

#include <iostream>
#include <system_error>

#include "capture/capture.h"
#include "casebook/loader.h"
#include "cli/capture_check.h"
#include "cli/capture_run.h"
#include "cli/commands.h"

namespace casebook {
namespace {

bool split_pair(const std::string& text, const std::string& flag,
                std::vector<std::pair<std::string, std::string>>* into) {
  const size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0) {
    std::cerr << "casebook capture: " << flag << " `" << text
              << "`: expected KEY=VALUE\n";
    return false;
  }
  into->emplace_back(text.substr(0, equals), text.substr(equals + 1));
  return true;
}

// The verdict's last line (`the capture ...`: what the Python Recorder
// reads), then the acceptance where asked. Under --expect-failure, 1 unless
// the failure is the origin's (or, without origin.first_error, any).
int report_reproduction(const std::filesystem::path& case_file,
                        const CaseRun& run, const CaptureArguments& arguments) {
  const LoadedCase loaded = load_case_file(case_file);
  if (!loaded.ok()) {
    std::cerr << "casebook capture: " << case_file.string()
              << " does not load again\n";
    return 1;
  }
  const Reproduction reproduction =
      judge_reproduction(loaded.value->origin, run);
  std::cout << reproduction.sentence << "\n";
  const bool failed_as_expected =
      reproduction.kind == Reproduction::Kind::kReproduced ||
      reproduction.kind == Reproduction::Kind::kUnknown;
  if (arguments.accept) {
    std::string why;
    if (!write_acceptance(case_file, *loaded.value, reproduction, &why)) {
      std::cerr << "casebook capture: not accepted: " << why << "\n";
      return 1;
    }
  }
  return arguments.expect_failure && !failed_as_expected ? 1 : 0;
}

}  // namespace

int capture_command(const CaptureArguments& arguments) {
  CaptureRequest request;
  request.op = arguments.op;
  request.name = arguments.name;
  request.cases = arguments.cases;
  request.fixtures = arguments.fixtures;
  request.summary = arguments.summary;
  for (const std::string& arg : arguments.args) {
    if (!split_pair(arg, "--arg", &request.args)) return kExitUsage;
  }
  for (const std::string& origin : arguments.origin) {
    if (!split_pair(origin, "--origin", &request.origin)) return kExitUsage;
  }
  CaptureResult result;
  try {
    for (const std::string& text : arguments.tensors) {
      const TensorArgument argument = parse_tensor_argument(text);
      request.tensors.push_back(
          {argument.name, read_saved_tensor(argument.file, argument.key)});
    }
    // Checked before anything is written: an op that does not exist or
    // does not take these inputs and args is the capture's own fault, not a
    // failure it reproduced.
    const std::vector<std::string> problems = capture_case_problems(request);
    if (!problems.empty()) {
      std::cerr << "casebook capture: the case would be invalid, so nothing "
                   "was written:\n";
      for (const std::string& problem : problems) {
        std::cerr << "  " << problem << "\n";
      }
      return arguments.expect_failure ? 1 : kExitUsage;
    }
    result = write_capture(request);
  } catch (const CaptureError& error) {
    std::cerr << "casebook capture: " << error.what() << "\n";
    return kExitUsage;
  }
  for (const std::string& note : result.notes) {
    std::cerr << "casebook capture: " << note << "\n";
  }
  std::cout << "wrote " << result.case_file.string() << "\n";
  for (const auto& fixture : result.fixtures) {
    std::cout << "fixture " << fixture.string() << "\n";
  }
  if (arguments.no_run) return 0;
  const CaseRun run = run_case(result.case_file, arguments.backends);
  if (!run.invalid.empty()) {
    // The case's own fault, never a reproduced failure. Its file goes (this
    // capture made it, replacing nothing), so that the corrected capture can
    // take the same name; the fixtures stay, named by their content and
    // perhaps shared by other cases.
    std::cerr << "casebook capture: the case is invalid, so it reproduces "
                 "nothing (removed "
              << result.case_file.string() << "):\n";
    for (const std::string& message : run.invalid) {
      std::cerr << "  " << message << "\n";
    }
    std::error_code ignored;
    std::filesystem::remove(result.case_file, ignored);
    return arguments.expect_failure ? 1 : kExitUsage;
  }
  if (run.status == kExitUsage) {
    std::cerr << "casebook capture: the new case does not run; see above\n";
    return 1;
  }
  return report_reproduction(result.case_file, run, arguments);
}

}  // namespace casebook
