#include "runner/output.h"

#include <torch/version.h>

#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>

#include "casebook/diagnosis.h"

namespace casebook {
namespace {

std::string xml_escape(const std::string& text) {
  // Hand-written: five entities and control characters are all JUnit needs;
  // a whole XML library for this would cost more than it gives.
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') {
          out += "?";  // not representable in XML 1.0
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

std::string indent(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string line;
  std::string out;
  while (std::getline(in, line)) out += prefix + line + "\n";
  return out;
}

}  // namespace

Environment run_environment(const std::map<Backend, BackendStatus>& backends) {
  Environment environment = host_environment();
  environment.emplace_back("libtorch", TORCH_VERSION);
  for (const auto& [backend, status] : backends) {
    environment.emplace_back(
        std::string(backend_name(backend)),
        status.ready() ? status.description
                       : std::string(readiness_name(status.state)) + ": " +
                             status.reason);
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

void print_verdict_line(std::ostream& out, const CaseVerdict& verdict,
                        bool with_details) {
  out << std::left << std::setw(8) << verdict_name(verdict.verdict)
      << verdict.case_id << "  " << backend_name(verdict.backend);
  if (verdict.backend_absent) {
    // The reason is the backend's: print_summary shows it once.
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
    // The rerun first: what to paste, before what to read.
    out << "        rerun: " << verdict.rerun_command << "\n";
    if (!verdict.details.empty()) out << indent(verdict.details, "        ");
    for (const std::string& later : verdict.consequences) {
      out << "        possible consequence (not a cause): " << later << "\n";
    }
  }
}

void print_summary(std::ostream& out, const RunSummary& summary) {
  const auto counts = summary.counts();
  out << "\n";
  bool first = true;
  for (const auto& [verdict, count] : counts) {
    out << (first ? "" : ", ") << count << " " << verdict_name(verdict);
    first = false;
  }
  if (first) out << "no case selected";
  out << " (" << summary.verdicts.size() << " runs"
      << (summary.interrupted ? ", interrupted" : "") << ")\n";
  // Each absent backend once: how many runs it skipped, and why.
  std::map<Backend, std::pair<int, std::string>> absent;
  for (const CaseVerdict& verdict : summary.verdicts) {
    if (!verdict.backend_absent) continue;
    auto& entry = absent[verdict.backend];
    if (entry.first++ == 0) entry.second = verdict.message;
  }
  for (const auto& [backend, entry] : absent) {
    out << "SKIP " << entry.first << " run(s) on " << backend_name(backend)
        << ", absent: " << entry.second << "\n";
  }
}

void write_junit(const std::filesystem::path& file, const RunSummary& summary,
                 const Environment& environment) {
  const auto counts = summary.counts();
  auto count = [&counts](Verdict v) {
    auto it = counts.find(v);
    return it == counts.end() ? 0 : it->second;
  };
  std::ofstream out(file);
  if (!out) throw std::runtime_error("cannot write " + file.string());
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites>\n<testsuite name=\"casebook\" tests=\""
      << summary.verdicts.size() << "\" failures=\""
      << count(Verdict::kFail) + count(Verdict::kXpass) +
             count(Verdict::kTimeout)
      << "\" errors=\"" << count(Verdict::kError) + count(Verdict::kNotRun)
      << "\" skipped=\"" << count(Verdict::kSkip)
      << "\">\n<properties>\n";
  for (const auto& [key, value] : environment) {
    out << "  <property name=\"" << xml_escape(key) << "\" value=\""
        << xml_escape(value) << "\"/>\n";
  }
  out << "</properties>\n";
  for (const CaseVerdict& v : summary.verdicts) {
    out << "<testcase classname=\"" << xml_escape(v.case_id) << "\" name=\""
        << backend_name(v.backend) << "\" file=\""
        << xml_escape(v.file.string()) << "\" time=\"" << v.seconds << "\">\n";
    out << "  <properties><property name=\"verdict\" value=\""
        << verdict_name(v.verdict) << "\"/><property name=\"family\" value=\""
        << family_name(v.family) << "\"/></properties>\n";
    std::string label(verdict_name(v.verdict));
    if (v.family != Family::kNone)
      label += " " + std::string(family_name(v.family));
    const std::string message = xml_escape(label + ": " + v.message);
    std::string body = "rerun: " + v.rerun_command;
    if (!v.details.empty()) body += "\n" + v.details;
    for (const std::string& later : v.consequences) {
      body += "\npossible consequence (not a cause): " + later;
    }
    switch (v.verdict) {
      case Verdict::kFail:
      case Verdict::kXpass:
      case Verdict::kTimeout:
        out << "  <failure type=\"" << verdict_name(v.verdict)
            << "\" message=\"" << message << "\">" << xml_escape(body)
            << "</failure>\n";
        break;
      case Verdict::kError:
      case Verdict::kNotRun:
        // NOT RUN is an error: a run that was asked for and never happened
        // must not read as a skip.
        out << "  <error type=\""
            << (v.verdict == Verdict::kNotRun
                    ? std::string("not_run")
                    : std::string(family_name(v.family)))
            << "\" message=\"" << message << "\">" << xml_escape(body)
            << "</error>\n";
        break;
      case Verdict::kSkip:
        out << "  <skipped message=\"" << message << "\"/>\n";
        break;
      case Verdict::kXfail:
        out << "  <system-out>" << message << "</system-out>\n";
        break;
      case Verdict::kPass:
        break;
    }
    out << "</testcase>\n";
  }
  out << "</testsuite>\n</testsuites>\n";
}

}  // namespace casebook
