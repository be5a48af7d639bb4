#include "runner/junit.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace casebook {
namespace {

// The start tag is padded with spaces to this width, so that its counts can
// be rewritten in place; 160 characters hold five 9-digit counts and a time.
constexpr size_t kStartTagWidth = 160;
constexpr const char* kClosing = "</testsuite>\n</testsuites>\n";

int count_of(const std::map<Verdict, int>& counts, Verdict verdict) {
  auto found = counts.find(verdict);
  return found == counts.end() ? 0 : found->second;
}

// xs:decimal: fixed notation, never 1e-05.
std::string seconds_text(double seconds) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(6) << seconds;
  return text.str();
}

std::string testcase_xml(const CaseVerdict& v) {
  std::ostringstream out;
  out << "<testcase classname=\"" << xml_escape(v.case_id) << "\" name=\""
      << backend_name(v.backend) << "\" file=\"" << xml_escape(v.file.string())
      << "\" time=\"" << seconds_text(v.seconds) << "\">\n";
  std::string label(verdict_name(v.verdict));
  if (v.family != Family::kNone) {
    label += " " + std::string(family_name(v.family));
  }
  const std::string message = xml_escape(label + ": " + v.message);
  // The rerun line first: it is what a person copies.
  std::string body = "rerun: " + v.rerun_command;
  if (!v.details.empty()) body += "\n" + v.details;
  for (const std::string& later : v.consequences) {
    body += "\npossible consequence (not a cause): " + later;
  }
  switch (v.verdict) {
    case Verdict::kFail:
    case Verdict::kXpass:
    case Verdict::kTimeout:
      out << "  <failure type=\"" << label << "\" message=\"" << message
          << "\">" << xml_escape(body) << "</failure>\n";
      break;
    case Verdict::kError:
    case Verdict::kNotRun:
      out << "  <error type=\"" << label << "\" message=\"" << message << "\">"
          << xml_escape(body) << "</error>\n";
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
  return out.str();
}

}  // namespace

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

JunitWriter::JunitWriter(const std::filesystem::path& file,
                         const Environment& environment)
    : file_(file) {
  fd_ = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    throw std::runtime_error("cannot write " + file.string() + ": " +
                             std::strerror(errno));
  }
  std::string head =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n";
  start_tag_offset_ = static_cast<long>(head.size());
  head += start_tag() + "\n<properties>\n";
  for (const auto& [key, value] : environment) {
    head += "  <property name=\"" + xml_escape(key) + "\" value=\"" +
            xml_escape(value) + "\"/>\n";
  }
  head += "</properties>\n";
  body_end_ = static_cast<long>(head.size());
  write_at(0, head + kClosing);
}

JunitWriter::~JunitWriter() {
  if (fd_ >= 0) ::close(fd_);
}

std::string JunitWriter::start_tag() const {
  std::ostringstream tag;
  tag << "<testsuite name=\"casebook\" tests=\"" << tests_ << "\" failures=\""
      << count_of(counts_, Verdict::kFail) +
             count_of(counts_, Verdict::kXpass) +
             count_of(counts_, Verdict::kTimeout)
      << "\" errors=\""
      << count_of(counts_, Verdict::kError) +
             count_of(counts_, Verdict::kNotRun)
      << "\" skipped=\"" << count_of(counts_, Verdict::kSkip) << "\" time=\""
      << seconds_text(seconds_) << "\"";
  std::string text = tag.str();
  text.resize(kStartTagWidth - 1, ' ');
  return text + ">";
}

void JunitWriter::write_at(long offset, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::pwrite(fd_, text.data() + done, text.size() - done,
                               static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      throw std::runtime_error("cannot write " + file_.string() + ": " +
                               std::strerror(errno));
    }
    done += static_cast<size_t>(n);
  }
}

void JunitWriter::add(const CaseVerdict& verdict) {
  ++tests_;
  ++counts_[verdict.verdict];
  seconds_ += verdict.seconds;
  // The new test case over the old closing tags, then the new counts: a
  // reader between the two sees every test case, with the counts one behind.
  const std::string testcase = testcase_xml(verdict);
  write_at(body_end_, testcase + kClosing);
  body_end_ += static_cast<long>(testcase.size());
  write_at(start_tag_offset_, start_tag());
}

void write_junit(const std::filesystem::path& file, const RunSummary& summary,
                 const Environment& environment) {
  JunitWriter writer(file, environment);
  for (const CaseVerdict& verdict : summary.verdicts) writer.add(verdict);
}

}  // namespace casebook
