#include "cli/capture_run.h"

#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string_view>
#include <system_error>

#include "casebook/diagnosis.h"
#include "casebook/printable.h"
#include "cli/commands.h"
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

// A JUnit label, "<verdict>[ <family>]" (runner/junit.cpp), into the run's
// verdict and family. The verdict is the longest verdict name the label
// starts with, a word boundary after it: NOT RUN holds a space. A label that
// names no verdict is casebook's own JUnit gone wrong: INTERNAL.
void read_label(const std::string& label, JudgedRun* outcome) {
  std::optional<Verdict> verdict;
  size_t end = 0;
  for (size_t from = 0; from != std::string::npos;) {
    const size_t space = label.find(' ', from);
    const size_t candidate = space == std::string::npos ? label.size() : space;
    const std::string_view words = std::string_view(label).substr(0, candidate);
    if (const std::optional<Verdict> parsed = parse_verdict(words)) {
      verdict = parsed;
      end = candidate;
    }
    from = space == std::string::npos ? space : space + 1;
  }
  outcome->verdict = verdict.value_or(Verdict::kInternal);
  if (verdict && end < label.size()) {
    outcome->family =
        parse_family(label.substr(end + 1)).value_or(Family::kNone);
  }
}

// One <testcase>...</testcase> element into its outcome. The JUnit writer
// (runner/junit.cpp) gives a failure or an error a `type` "VERDICT family"
// and a `message` "VERDICT family: first message"; a PASS has no child.
JudgedRun outcome_of(const std::string& element) {
  JudgedRun outcome;
  outcome.backend =
      parse_backend(attribute(element, "name")).value_or(Backend::kCpu);
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
    // INTERNAL's type is "internal"; its message starts with the label.
    const std::string label = type.empty() || type == "internal"
                                  ? message.substr(0, message.find(':'))
                                  : type;
    read_label(label, &outcome);
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

std::vector<JudgedRun> junit_outcomes(const std::string& junit,
                                      const std::optional<std::string>& id) {
  std::vector<JudgedRun> outcomes;
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
    std::cerr << "casebook: " << printable_text(error.what()) << "\n";
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
    for (const JudgedRun& outcome : junit_outcomes(all, {})) {
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
