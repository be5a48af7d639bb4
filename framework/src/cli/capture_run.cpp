#include "cli/capture_run.h"

#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <system_error>

#include "casebook/diagnosis.h"
#include "process/run_to_end.h"
#include "process/scratch_folder.h"

namespace casebook {
namespace fs = std::filesystem;
namespace {

// How long the `casebook run` of a captured case may take. The run keeps its
// own deadlines (the backend probe's 120 s, the case's timeout per run, 60 s
// unless the case says), far below this: it only stops a run that is stuck
// past them, so that a capture in a script cannot hang it.
constexpr double kCaptureRunTimeoutSeconds = 600;
constexpr int kExitUsage = 2;

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

// The value of `attribute="..."` in `tag`, unescaped; empty when absent.
std::string attribute(const std::string& tag, const std::string& name) {
  const std::string key = " " + name + "=\"";
  const size_t start = tag.find(key);
  if (start == std::string::npos) return "";
  const size_t from = start + key.size();
  const size_t end = tag.find('"', from);
  return end == std::string::npos ? ""
                                  : xml_unescaped(tag.substr(from, end - from));
}

// One <testcase>...</testcase> element into its outcome. The JUnit writer
// (runner/junit.cpp) gives a failure or an error a `type` "VERDICT family"
// and a `message` "VERDICT family: first message"; a PASS has no child.
RunOutcome outcome_of(const std::string& element) {
  RunOutcome outcome;
  outcome.backend =
      parse_backend(attribute(element, "name")).value_or(Backend::kCpu);
  outcome.verdict = "PASS";
  for (const char* child : {"<failure", "<error", "<skipped", "<system-out"}) {
    const size_t at = element.find(child);
    if (at == std::string::npos) continue;
    const std::string tag = element.substr(at, element.find('>', at) - at);
    const std::string type = attribute(tag, "type");
    std::string message = attribute(tag, "message");
    if (std::strcmp(child, "<system-out") == 0) {
      const size_t open = element.find('>', at) + 1;
      message = xml_unescaped(
          element.substr(open, element.find("</system-out>", at) - open));
    }
    const std::string label =
        type.empty() ? message.substr(0, message.find(':')) : type;
    outcome.verdict = label.substr(0, label.find(' '));
    if (label.find(' ') != std::string::npos) {
      outcome.family = parse_family(label.substr(label.find(' ') + 1))
                           .value_or(Family::kNone);
    }
    if (message.rfind(label + ": ", 0) == 0) message.erase(0, label.size() + 2);
    outcome.message = message;
    break;
  }
  return outcome;
}

// The base case's id: the first classname without `~` (a neighbour's is
// `<id>~<rule>[...]`).
std::string base_case_id(const std::string& junit) {
  const std::string key = "classname=\"";
  for (size_t at = junit.find(key); at != std::string::npos;
       at = junit.find(key, at + 1)) {
    const size_t from = at + key.size();
    const std::string name =
        xml_unescaped(junit.substr(from, junit.find('"', from) - from));
    if (name.find('~') == std::string::npos) return name;
  }
  return "";
}

}  // namespace

std::vector<RunOutcome> junit_outcomes(const std::string& junit,
                                       const std::optional<std::string>& id) {
  std::vector<RunOutcome> outcomes;
  const std::string open = "<testcase ";
  for (size_t at = junit.find(open); at != std::string::npos;
       at = junit.find(open, at + 1)) {
    const size_t end = junit.find("</testcase>", at);
    if (end == std::string::npos) break;
    const std::string element = junit.substr(at, end - at);
    const std::string tag = element.substr(0, element.find('>'));
    if (id && attribute(tag, "classname") != *id) continue;
    outcomes.push_back(outcome_of(element));
  }
  return outcomes;
}

CaseRun run_case(const fs::path& case_file, const std::string& backends) {
  CaseRun run;
  // The JUnit file of the run; removed when this returns.
  std::unique_ptr<ScratchFolder> folder;
  try {
    folder = std::make_unique<ScratchFolder>("capture");
  } catch (const std::runtime_error& error) {
    std::cerr << "casebook: " << error.what() << "\n";
    return run;
  }
  const fs::path junit = fs::path(folder->path()) / "capture.xml";
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
      std::cerr << "casebook: casebook run gave no result in "
                << static_cast<int>(kCaptureRunTimeoutSeconds)
                << " s: killed it\n";
    }
    run.status =
        WIFEXITED(end.wait_status) ? WEXITSTATUS(end.wait_status) : kExitUsage;
    std::ifstream in(junit);
    std::ostringstream text;
    text << in.rdbuf();
    const std::string all = text.str();
    run.outcomes = junit_outcomes(all, base_case_id(all));
    // Any run's invalid_case (a neighbour's too): the case's own fault.
    for (const RunOutcome& outcome : junit_outcomes(all, {})) {
      if (outcome.family == Family::kInvalidCase &&
          std::find(run.invalid.begin(), run.invalid.end(), outcome.message) ==
              run.invalid.end()) {
        run.invalid.push_back(outcome.message);
      }
    }
  } catch (const std::system_error&) {
    std::cerr << "casebook: cannot start casebook run\n";
  }
  return run;
}

}  // namespace casebook
