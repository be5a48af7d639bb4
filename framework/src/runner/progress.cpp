#include "runner/progress.h"

#include <iomanip>
#include <sstream>

namespace casebook {
namespace {

constexpr std::chrono::seconds kPlainInterval{30};

std::string elapsed_text(double seconds) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(seconds < 10 ? 1 : 0) << seconds
       << " s";
  return text.str();
}

}  // namespace

Progress::Progress(std::ostream& out, bool terminal, bool colour,
                   size_t total_runs)
    : out_(out), terminal_(terminal), colour_(colour), total_(total_runs) {}

void Progress::case_started(const std::string& case_id) {
  running_.emplace(case_id, Clock::now());
}

std::string Progress::status_text() const {
  const double elapsed =
      std::chrono::duration<double>(Clock::now() - start_).count();
  std::ostringstream text;
  text << "[" << done_ << "/" << total_ << "] " << failed_ << " failed, "
       << elapsed_text(elapsed);
  // The case in flight for longest: where a slow run shows itself.
  const std::string* slowest = nullptr;
  Clock::time_point oldest = Clock::now();
  for (const auto& [id, since] : running_) {
    if (since <= oldest) {
      oldest = since;
      slowest = &id;
    }
  }
  if (slowest != nullptr) {
    text << ", running " << *slowest << " ("
         << elapsed_text(
                std::chrono::duration<double>(Clock::now() - oldest).count())
         << ")";
  }
  return text.str();
}

void Progress::draw() {
  std::string text = status_text();
  constexpr size_t kWidth = 100;
  if (text.size() > kWidth) text = text.substr(0, kWidth - 1) + "~";
  out_ << "\r\033[K" << text << std::flush;
  drawn_ = true;
}

void Progress::verdict_landed(const CaseVerdict& verdict) {
  ++done_;
  running_.erase(verdict.case_id);
  const bool failed = !verdict_is_success(verdict.verdict);
  if (failed) ++failed_;
  if (terminal_) {
    if (failed) {
      // A failure gets a line of its own above the status line.
      out_ << "\r\033[K"
           << (colour_ ? verdict_colour(verdict.verdict) : std::string_view())
           << verdict_name(verdict.verdict) << (colour_ ? "\033[0m" : "")
           << "  " << verdict.case_id << "  " << backend_name(verdict.backend)
           << "\n";
    }
    draw();
    return;
  }
  if (failed) {
    out_ << verdict_name(verdict.verdict) << "  " << verdict.case_id << "  "
         << backend_name(verdict.backend) << "  "
         << verdict.message.substr(0, verdict.message.find('\n')) << "\n";
  }
  if (Clock::now() - last_line_ >= kPlainInterval) {
    last_line_ = Clock::now();
    out_ << "progress: " << status_text() << "\n";
  }
  out_.flush();
}

void Progress::finish() {
  if (terminal_ && drawn_) out_ << "\r\033[K" << std::flush;
  drawn_ = false;
}

}  // namespace casebook
