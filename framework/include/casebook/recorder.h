// A flight recorder for LibTorch training loops: around each step, on the
// first exception it writes a case (the tensors the step was handed, the
// error, the iteration, the last completed step) and re-throws; later
// exceptions are counted as possible consequences of the first and not
// written.
//
//   casebook::Recorder recorder({"torch.cross_entropy", "label_4"});
//   for (int64_t i = 0;; ++i) {
//     recorder.run(i, {{"input", logits}, {"target", labels}}, [&] {
//       loss = torch::cross_entropy_loss(logits, labels);
//     });
//     recorder.completed("forward");
//   }
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <exception>
#include <filesystem>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace casebook {

struct RecorderOptions {
  std::string op;    // what the case runs: `torch.cross_entropy`
  std::string name;  // the case: <cases>/<op>/<name>.yaml
  std::filesystem::path cases = "cases";
  std::filesystem::path fixtures;  // empty: as `casebook capture` chooses
  std::vector<std::pair<std::string, std::string>> args;    // KEY, YAML text
  std::vector<std::pair<std::string, std::string>> origin;  // more dossier
};

using NamedTensors = std::vector<std::pair<std::string, at::Tensor>>;

class Recorder {
 public:
  explicit Recorder(RecorderOptions options);

  // Runs `step`; an exception escaping it is recorded (the first) or counted
  // (any later one), then re-thrown unchanged.
  template <class Step>
  void run(int64_t iteration, const NamedTensors& tensors, Step&& step) {
    try {
      step();
    } catch (...) {
      on_failure(iteration, tensors, std::current_exception());
      throw;
    }
  }

  // The step that just completed (`forward`, `backward`, `optimizer`).
  void completed(const std::string& step);

  bool recorded() const;
  std::filesystem::path case_file() const;  // empty until recorded
  std::string first_error() const;
  // Exceptions after the first: possible consequences, not written.
  int consequences() const;
  // Why the case could not be written (the original exception still
  // propagates); empty when it was, or when nothing failed.
  std::string write_error() const;

 private:
  void on_failure(int64_t iteration, const NamedTensors& tensors,
                  std::exception_ptr error);

  RecorderOptions options_;
  mutable std::mutex mutex_;
  std::string last_completed_;
  bool failed_ = false;
  std::filesystem::path case_file_;
  std::string first_error_;
  std::string write_error_;
  int consequences_ = 0;
};

}  // namespace casebook
