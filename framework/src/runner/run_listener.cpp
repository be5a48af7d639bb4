#include "runner/run_listener.h"

#include <utility>

namespace casebook {

void RunListeners::append(std::unique_ptr<RunListener> listener) {
  listeners_.push_back(std::move(listener));
}

void RunListeners::on_start(const std::map<Backend, BackendStatus>& backends) {
  for (const auto& listener : listeners_) listener->on_start(backends);
}

void RunListeners::on_case_started(const PlannedCase& planned) {
  for (const auto& listener : listeners_) listener->on_case_started(planned);
}

void RunListeners::on_verdict(const CaseVerdict& verdict) {
  for (const auto& listener : listeners_) listener->on_verdict(verdict);
}

void RunListeners::on_end(const RunEnd& end) {
  for (const auto& listener : listeners_) listener->on_end(end);
}

std::vector<std::string> RunListeners::write_errors() const {
  std::vector<std::string> errors;
  for (const auto& listener : listeners_) {
    std::string error = listener->write_error();
    if (!error.empty()) errors.push_back(std::move(error));
  }
  return errors;
}

namespace {

class VerdictCallback : public RunListener {
 public:
  explicit VerdictCallback(std::function<void(const CaseVerdict&)> callback)
      : callback_(std::move(callback)) {}
  void on_verdict(const CaseVerdict& verdict) override {
    if (callback_) callback_(verdict);
  }

 private:
  std::function<void(const CaseVerdict&)> callback_;
};

}  // namespace

std::unique_ptr<RunListener> verdict_callback(
    std::function<void(const CaseVerdict&)> on_verdict) {
  return std::make_unique<VerdictCallback>(std::move(on_verdict));
}

}  // namespace casebook
