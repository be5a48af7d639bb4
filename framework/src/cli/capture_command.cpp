// `casebook capture`: saved tensors into a case, then the case run at once.
#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <system_error>

#include "capture/capture.h"
#include "cli/capture_check.h"
#include "cli/commands.h"
#include "process/run_to_end.h"

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

// What the run of the new case said: its exit status, and the first
// message of each run the child found invalid (family invalid_case: an
// argument of the wrong kind that only the op rejects, found only when it
// is called).
struct CaptureRun {
  int status = kExitUsage;
  std::vector<std::string> invalid;
};

std::string xml_unescaped(const std::string& text) {
  static const std::pair<const char*, char> kEntities[] = {{"&lt;", '<'},
                                                           {"&gt;", '>'},
                                                           {"&quot;", '"'},
                                                           {"&apos;", '\''},
                                                           {"&amp;", '&'}};
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    bool replaced = false;
    for (const auto& [entity, character] : kEntities) {
      if (text.compare(i, std::strlen(entity), entity) == 0) {
        out += character;
        i += std::strlen(entity) - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += text[i];
  }
  return out;
}

// The messages of `<error type="ERROR invalid_case" message="...">` in the
// JUnit document runner/junit.cpp writes (the message attribute is
// "<label>: <first message>"), each once.
std::vector<std::string> invalid_case_messages(const std::string& junit) {
  const std::string tag = "<error type=\"ERROR invalid_case\" message=\"";
  const std::string label = "ERROR invalid_case: ";
  std::vector<std::string> messages;
  for (size_t at = junit.find(tag); at != std::string::npos;
       at = junit.find(tag, at + 1)) {
    const size_t start = at + tag.size();
    const size_t end = junit.find('"', start);
    if (end == std::string::npos) break;
    std::string message = xml_unescaped(junit.substr(start, end - start));
    if (message.rfind(label, 0) == 0) message.erase(0, label.size());
    if (std::find(messages.begin(), messages.end(), message) ==
        messages.end()) {
      messages.push_back(message);
    }
  }
  return messages;
}

// How long the `casebook run` of a captured case may take. The run keeps its
// own deadlines (the backend probe's 120 s, the case's timeout per run, 60 s
// unless the case says), far below this: it only stops a run that is stuck
// past them, so that a capture in a script cannot hang it.
constexpr double kCaptureRunTimeoutSeconds = 600;

// `casebook run` on the new case, in a fresh process of this executable
// (the capture process may hold threads; the runner must not fork from it,
// so it is exec'd). Its JUnit file, in a folder of its own, says which runs
// were invalid.
CaptureRun run_case(const std::filesystem::path& case_file,
                    const std::string& backends) {
  CaptureRun run;
  std::string folder =
      (std::filesystem::temp_directory_path() / "casebook-capture-XXXXXX")
          .string();
  if (::mkdtemp(folder.data()) == nullptr) {
    std::cerr << "casebook capture: cannot make a temporary folder in "
              << std::filesystem::temp_directory_path().string() << ": "
              << std::strerror(errno) << "\n";
    return run;
  }
  const std::filesystem::path junit =
      std::filesystem::path(folder) / "capture.xml";
  std::vector<std::string> arguments = {
      "casebook", "run",     "--backend",    backends,          "--evidence",
      "",         "--junit", junit.string(), case_file.string()};
  std::cout.flush();
  // Killed with this process, however it dies (its own children follow it).
  try {
    const ChildEnd end = run_program_to_end("/proc/self/exe", arguments,
                                            ProgramOutput::kInherited,
                                            kCaptureRunTimeoutSeconds);
    if (end.timed_out) {
      std::cerr << "casebook capture: casebook run gave no result in "
                << static_cast<int>(kCaptureRunTimeoutSeconds)
                << " s: killed it\n";
    }
    run.status =
        WIFEXITED(end.wait_status) ? WEXITSTATUS(end.wait_status) : kExitUsage;
    std::ifstream in(junit);
    std::ostringstream text;
    text << in.rdbuf();
    run.invalid = invalid_case_messages(text.str());
  } catch (const std::system_error&) {
    std::cerr << "casebook capture: cannot start casebook run\n";
  }
  std::error_code ignored;
  std::filesystem::remove_all(folder, ignored);
  return run;
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
  const CaptureRun run = run_case(result.case_file, arguments.backends);
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
  if (run.status == 0) {
    std::cout << "the capture does not reproduce a failure: every verdict "
                 "is PASS\n";
    return arguments.expect_failure ? 1 : 0;
  }
  std::cout << "the capture reproduces a failure\n";
  return 0;
}

}  // namespace casebook
