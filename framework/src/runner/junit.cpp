#include "runner/junit.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "casebook/joined.h"
#include "casebook/printable.h"
#include "files/file_writer.h"

namespace casebook {
namespace {

// `text` written whole at the descriptor's position; false (errno set) when
// it could not be.
bool write_in_order(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ENOSPC;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

// The start tag is padded with spaces to this width, so that its counts can
// be rewritten in place; 160 characters hold five 9-digit counts and a time.
constexpr size_t kStartTagWidth = 160;
constexpr const char* kClosing = "</testsuite>\n</testsuites>\n";

// How many of the verdicts counted so far have that JUnit element.
int count_of(const std::map<Verdict, int>& counts, JunitElement element) {
  int total = 0;
  for (const auto& [verdict, count] : counts) {
    if (verdict_junit_element(verdict) == element) total += count;
  }
  return total;
}

// xs:decimal: fixed notation, never 1e-05.
std::string xs_decimal_seconds(double seconds) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(6) << seconds;
  return text.str();
}

// `.<name>.XXXXXX` in the same folder, for mkstemp: a rename within one
// file system is atomic.
std::string temporary_beside(const std::filesystem::path& file) {
  const std::filesystem::path folder = file.parent_path();
  const std::string name = "." + file.filename().string() + ".XXXXXX";
  return (folder.empty() ? std::filesystem::path(name) : folder / name)
      .string();
}

std::string testcase_xml(const CaseVerdict& v) {
  std::ostringstream out;
  out << "<testcase classname=\"" << xml_escape(v.case_id) << "\" name=\""
      << backend_name(v.backend) << "\" file=\"" << xml_escape(v.file.string())
      << "\" time=\"" << xs_decimal_seconds(v.seconds) << "\">\n";
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
  switch (verdict_junit_element(v.verdict)) {
    case JunitElement::kFailure:
      out << "  <failure type=\"" << label << "\" message=\"" << message
          << "\">" << xml_escape(body) << "</failure>\n";
      break;
    case JunitElement::kError:
      out << "  <error type=\"" << label << "\" message=\"" << message << "\">"
          << xml_escape(body) << "</error>\n";
      break;
    case JunitElement::kInternalError:
      out << "  <error type=\"internal\" message=\"" << message << "\">"
          << xml_escape(body) << "</error>\n";
      break;
    case JunitElement::kSkipped:
      out << "  <skipped message=\"" << message << "\"/>\n";
      break;
    case JunitElement::kSystemOut:
      out << "  <system-out>" << message << "</system-out>\n";
      break;
    case JunitElement::kNone:
      break;
  }
  out << "</testcase>\n";
  return out.str();
}

}  // namespace

std::string xml_escape(const std::string& text) {
  // Hand-written: five entities are all JUnit needs once the text is
  // printable; a whole XML library for this would cost more than it gives.
  const std::string shown = printable_text(text);
  std::string out;
  out.reserve(shown.size());
  for (char c : shown) {
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
        out += c;
    }
  }
  return out;
}

JunitWriter::JunitWriter(const std::filesystem::path& file,
                         const Environment& environment)
    : file_(file) {
  std::error_code error;
  const auto status = std::filesystem::status(file, error);
  regular_ = !std::filesystem::exists(status) ||
             std::filesystem::is_regular_file(status);
  head_ = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n";
  start_tag_offset_ = static_cast<long>(head_.size());
  head_ += start_tag() + "\n<properties>\n";
  std::vector<std::string> absent;
  for (const auto& [key, value] : environment) {
    head_ += "  <property name=\"" + xml_escape(key) + "\" value=\"" +
             xml_escape(value) + "\"/>\n";
    if (parse_backend(key) && value.rfind("absent", 0) == 0) {
      absent.push_back(key);
    }
  }
  // An absent backend's runs are no test cases (a CPU lane had two skipped
  // ones per case): one line says which backends were absent.
  if (!absent.empty()) {
    head_ += "  <property name=\"casebook.absent_backends\" value=\"" +
             xml_escape(joined(absent)) + "\"/>\n";
  }
  head_ += "</properties>\n";
  body_end_ = static_cast<long>(head_.size());
  if (!regular_) {
    fd_ = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) {
      throw std::runtime_error("cannot write " + file.string() + ": " +
                               std::strerror(errno));
    }
    return;
  }
  // Its folders are made, as every output file's (files/file_writer.h),
  // following no link.
  try {
    OpenFolder::open(file.parent_path(), /*create=*/true);
  } catch (const WriteError& error) {
    throw std::runtime_error(std::string("cannot write ") + error.what());
  }
  std::string temporary = temporary_beside(file);
  fd_ = ::mkstemp(temporary.data());
  if (fd_ < 0) {
    // No such folder, no permission: the run has not started, so it stops.
    throw std::runtime_error("cannot write " + file.string() + ": " +
                             std::strerror(errno));
  }
  ::fcntl(fd_, F_SETFD, FD_CLOEXEC);
  if (!write_at(0, head_ + kClosing) || ::fchmod(fd_, 0644) != 0 ||
      ::rename(temporary.c_str(), file.c_str()) != 0) {
    // A full disk: the run goes on, and says so at the end.
    failed("cannot write", errno);
    ::unlink(temporary.c_str());
    ::close(fd_);
    fd_ = -1;
  }
}

JunitWriter::~JunitWriter() {
  finish();
  if (fd_ >= 0) ::close(fd_);
}

std::string JunitWriter::start_tag() const {
  std::ostringstream tag;
  tag << "<testsuite name=\"casebook\" tests=\"" << tests_ << "\" failures=\""
      << count_of(counts_, JunitElement::kFailure) << "\" errors=\""
      << count_of(counts_, JunitElement::kError) +
             count_of(counts_, JunitElement::kInternalError)
      << "\" skipped=\"" << count_of(counts_, JunitElement::kSkipped)
      << "\" time=\"" << xs_decimal_seconds(seconds_) << "\"";
  std::string text = tag.str();
  text.resize(kStartTagWidth - 1, ' ');
  return text + ">";
}

void JunitWriter::failed(const std::string& what, int error_number) {
  if (!write_error_.empty()) return;
  write_error_ = what + " " + file_.string() + ": " +
                 std::strerror(error_number) + ", after " +
                 std::to_string(written_) + " of " + std::to_string(tests_) +
                 " results";
}

bool JunitWriter::write_at(long offset, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::pwrite(fd_, text.data() + done, text.size() - done,
                               static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ENOSPC;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

void JunitWriter::add(const CaseVerdict& verdict) {
  if (verdict.backend_absent) return;  // said once, in the properties
  ++tests_;
  ++counts_[verdict.verdict];
  seconds_ = after_the_run_ ? seconds_ + verdict.seconds
                            : std::chrono::duration<double>(
                                  std::chrono::steady_clock::now() - started_)
                                  .count();
  const std::string testcase = testcase_xml(verdict);
  if (!regular_) {
    body_ += testcase;
    return;
  }
  if (fd_ < 0 || !write_error_.empty()) return;
  // The new test case over the old closing tags, then the new counts: a
  // reader between the two sees every test case, with the counts one behind.
  if (!write_at(body_end_, testcase + kClosing)) {
    // What did land is cut back to the last whole document.
    failed("cannot write", errno);
    if (::ftruncate(fd_, body_end_) == 0) write_at(body_end_, kClosing);
    return;
  }
  body_end_ += static_cast<long>(testcase.size());
  ++written_;
  if (!write_at(start_tag_offset_, start_tag())) failed("cannot write", errno);
}

std::string JunitWriter::document() const {
  std::string text = head_;
  text.replace(static_cast<size_t>(start_tag_offset_), kStartTagWidth,
               start_tag());
  return text + body_ + kClosing;
}

void JunitWriter::finish() {
  if (finished_ || fd_ < 0) return;
  finished_ = true;
  if (!regular_) {
    // A pipe (ESPIPE) is written in order, from the start; any other
    // failure (a full device) is said, as for a file.
    const std::string text = document();
    if (!write_at(0, text) && (errno != ESPIPE || !write_in_order(fd_, text))) {
      failed("cannot write", errno);
      return;
    }
    written_ = tests_;
    return;
  }
  if (!write_error_.empty()) return;
  // Another run may have renamed its own document onto the path since: this
  // run's whole document goes back (copied out of its own file).
  struct stat ours{};
  struct stat named{};
  const bool still_ours =
      ::fstat(fd_, &ours) == 0 && ::stat(file_.c_str(), &named) == 0 &&
      ours.st_dev == named.st_dev && ours.st_ino == named.st_ino;
  if (still_ours) return;
  std::string text(static_cast<size_t>(body_end_) + std::strlen(kClosing),
                   '\0');
  if (::pread(fd_, text.data(), text.size(), 0) !=
      static_cast<ssize_t>(text.size())) {
    failed("cannot read back", errno);
    return;
  }
  std::string pattern = temporary_beside(file_);
  const int copy = ::mkstemp(pattern.data());
  bool done = copy >= 0;
  if (done) {
    const int kept = fd_;
    fd_ = copy;
    done = write_at(0, text) && ::fchmod(copy, 0644) == 0 &&
           ::rename(pattern.c_str(), file_.c_str()) == 0;
    const int why = errno;
    fd_ = kept;
    ::close(copy);
    errno = why;
  }
  if (!done) {
    failed("cannot write", errno);
    if (copy >= 0) ::unlink(pattern.c_str());
  }
}

void write_junit(const std::filesystem::path& file, const RunSummary& summary,
                 const Environment& environment) {
  JunitWriter writer(file, environment);
  writer.after_the_run_ = true;
  for (const CaseVerdict& verdict : summary.verdicts) writer.add(verdict);
  writer.finish();
  if (!writer.write_error().empty()) {
    throw std::runtime_error(writer.write_error());
  }
}

}  // namespace casebook
