#include "runner/output.h"

#include <torch/version.h>

#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>

#include "casebook/diagnosis.h"

namespace casebook {

std::string indent(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string line;
  std::string out;
  while (std::getline(in, line)) out += prefix + line + "\n";
  return out;
}

Environment run_environment(const std::map<Backend, BackendStatus>& backends) {
  Environment environment = host_environment();
  environment.emplace_back("libtorch", TORCH_VERSION);
  for (const auto& [backend, status] : backends) {
    environment.emplace_back(
        std::string(backend_name(backend)),
        status.ready()
            ? status.description
            : std::string(readiness_name(status.state)) + ": " + status.reason);
  }
  return environment;
}

void print_environment(std::ostream& out, const Environment& environment) {
  out << "casebook";
  for (const auto& [key, value] : environment) {
    out << "\n  " << std::left << std::setw(26) << key << value;
  }
  out << "\n\n";
}

std::string environment_line(const Environment& environment) {
  std::string line;
  for (const auto& [key, value] : environment) {
    // Absent backends are listed apart, with the runs they skipped.
    if (parse_backend(key) && value.rfind("absent", 0) == 0) continue;
    line += (line.empty() ? "" : " · ") + key + " " + value;
  }
  return line;
}

void print_verdict_line(std::ostream& out, const CaseVerdict& verdict,
                        bool with_details) {
  out << std::left << std::setw(8) << verdict_name(verdict.verdict)
      << verdict.case_id << "  " << backend_name(verdict.backend);
  if (verdict.backend_absent) {
    // The reason is the backend's: the environment header shows it once.
    out << "  (" << backend_name(verdict.backend) << " absent)\n";
    return;
  }
  if (verdict.verdict != Verdict::kPass) {
    out << "  ";
    if (verdict.family != Family::kNone)
      out << family_name(verdict.family) << ": ";
    out << verdict.message.substr(0, verdict.message.find('\n'));
  }
  out << "\n";
  if (with_details && !verdict_is_success(verdict.verdict)) {
    // The rerun line first: it is what a person copies.
    out << "        rerun: " << verdict.rerun_command << "\n";
    if (!verdict.details.empty()) out << indent(verdict.details, "        ");
    for (const std::string& later : verdict.consequences) {
      out << "        possible consequence (not a cause): " << later << "\n";
    }
  }
}

}  // namespace casebook
