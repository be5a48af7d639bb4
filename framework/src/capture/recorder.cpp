#include "casebook/recorder.h"

#include <iostream>

#include "capture/capture.h"
#include "capture/capture_check.h"
#include "casebook/joined.h"

namespace casebook {
namespace {

std::string message_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const c10::Error& failure) {
    return failure.what_without_backtrace();
  } catch (const std::exception& failure) {
    return failure.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

}  // namespace

Recorder::Recorder(RecorderOptions options) : options_(std::move(options)) {}

void Recorder::completed(const std::string& step) {
  std::lock_guard<std::mutex> lock(mutex_);
  last_completed_ = step;
}

bool Recorder::recorded() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return !case_file_.empty();
}

std::filesystem::path Recorder::case_file() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return case_file_;
}

std::string Recorder::first_error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return first_error_;
}

int Recorder::consequences() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return consequences_;
}

std::string Recorder::write_error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return write_error_;
}

void Recorder::on_failure(int64_t iteration, const NamedTensors& tensors,
                          std::exception_ptr error) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (failed_) {
    ++consequences_;
    return;
  }
  failed_ = true;
  first_error_ = message_of(error);
  // The first line only: a LibTorch message goes on with its context.
  const std::string first_line =
      first_error_.substr(0, first_error_.find('\n'));
  CaptureRequest request;
  request.libtorch_of_failure = true;  // this program's LibTorch failed
  request.op = options_.op;
  request.name = options_.name;
  request.cases = options_.cases;
  request.fixtures = options_.fixtures;
  request.args = options_.args;
  for (const auto& [name, tensor] : tensors) {
    request.tensors.push_back(
        {name, tensor.defined() ? tensor.detach() : tensor});
  }
  request.origin = {{"first_error", first_line},
                    {"iteration", std::to_string(iteration)}};
  if (!last_completed_.empty()) {
    request.origin.emplace_back("last_completed_step", last_completed_);
  }
  for (const auto& entry : options_.origin) request.origin.push_back(entry);
  try {
    // The case checked first, as `casebook capture` checks it: a tensor
    // named for no input of the op is refused before anything is written.
    const std::vector<std::string> problems = capture_case_problems(request);
    if (!problems.empty()) {
      throw CaptureError("the case would be invalid, so nothing was written: " +
                         joined(problems, "; "));
    }
    case_file_ = write_capture(request).case_file;
    std::cerr << "casebook: recorded the first failure (iteration " << iteration
              << ") as " << case_file_.string() << "\n";
  } catch (const std::exception& failure) {
    write_error_ = failure.what();
    std::cerr << "casebook: could not record the failure: " << write_error_
              << "\n";
  }
}

}  // namespace casebook
