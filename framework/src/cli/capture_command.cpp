// `casebook capture`: saved tensors into a case, then the case run at once.
#include <sys/wait.h>

#include <cerrno>
#include <iostream>

#include "capture/capture.h"
#include "cli/capture_check.h"
#include "cli/commands.h"
#include "process/subprocess.h"

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

// `casebook run` on the new case, in a fresh process of this executable
// (the capture process may hold threads; the runner must not fork from it,
// so it is exec'd).
int run_case(const std::filesystem::path& case_file,
             const std::string& backends) {
  std::vector<std::string> arguments = {
      "casebook",   "run", "--backend",       backends,
      "--evidence", "",    case_file.string()};
  std::cout.flush();
  // Killed with this process, however it dies (its own children follow it).
  const pid_t child = spawn_program("/proc/self/exe", arguments);
  if (child < 0) {
    std::cerr << "casebook capture: cannot start casebook run\n";
    return kExitUsage;
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : kExitUsage;
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
  const int run = run_case(result.case_file, arguments.backends);
  if (run == kExitUsage) {
    std::cerr << "casebook capture: the new case does not run; see above\n";
    return 1;
  }
  if (run == 0) {
    std::cout << "the capture does not reproduce a failure: every verdict "
                 "is PASS\n";
    return arguments.expect_failure ? 1 : 0;
  }
  std::cout << "the capture reproduces a failure\n";
  return 0;
}

}  // namespace casebook
