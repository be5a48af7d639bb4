#include "cli/run_listeners.h"

#include <algorithm>
#include <iostream>
#include <memory>
#include <utility>

#include "casebook/printable.h"
#include "cli/last_failed.h"
#include "runner/json_results.h"
#include "runner/junit.h"
#include "runner/output.h"
#include "runner/progress.h"
#include "runner/session.h"
#include "runner/verdict_table.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;

// The status line (a terminal) or failures as they land (a log); with
// --verbose a line per verdict instead; with --quiet nothing.
class ProgressListener : public RunListener {
 public:
  explicit ProgressListener(const RunListenerContext& context)
      : output_(context.output),
        progress_(std::cout, context.terminal, context.colour,
                  context.selected_runs) {}
  void on_case_started(const PlannedCase& planned) override {
    if (!output_.quiet) progress_.case_started(planned.loaded.id);
  }
  void on_verdict(const CaseVerdict& verdict) override {
    if (output_.verbose) {
      print_verdict_line(std::cout, verdict, false);
    } else if (!output_.quiet) {
      progress_.verdict_landed(verdict);
    }
  }
  void on_end(const RunEnd&) override { progress_.finish(); }

 private:
  const RunOutput& output_;
  Progress progress_;
};

// How many case files the paths held (those refused with them: a walk that
// lost files would show it here), the environment, the table and, where
// asked, the slowest runs.
class TableListener : public RunListener {
 public:
  TableListener(const RunOutput& output, bool colour)
      : output_(output), colour_(colour) {}
  void on_end(const RunEnd& end) override {
    const auto files = std::count_if(
        end.plan.cases.begin(), end.plan.cases.end(),
        [](const PlannedCase& planned) { return !planned.neighbor; });
    std::cout << files
              << (files == 1 ? " case file found\n" : " case files found\n");
    if (!output_.quiet) print_environment(std::cout, end.environment);
    TableStyle style;
    style.colour = colour_;
    style.details = output_.details;
    style.every_run = output_.verbose;
    style.quiet = output_.quiet;
    style.every_case = output_.table;
    print_verdict_table(std::cout, end.summary, style);
    if (output_.durations > 0) {
      print_durations(std::cout, end.summary, output_.durations);
    }
    if (!std::cout.flush()) error_ = "standard output: cannot write the table";
  }
  std::string write_error() const override { return error_; }

 private:
  const RunOutput& output_;
  bool colour_;
  std::string error_;
};

// JUnit as results arrive: a crash loses no finished result.
class JunitListener : public RunListener {
 public:
  explicit JunitListener(fs::path file) : file_(std::move(file)) {}
  void on_start(const std::map<Backend, BackendStatus>& backends) override {
    writer_ = std::make_unique<JunitWriter>(file_, run_environment(backends));
  }
  void on_verdict(const CaseVerdict& verdict) override {
    if (writer_) writer_->add(verdict);
  }
  void on_end(const RunEnd&) override {
    if (writer_) writer_->finish();
  }
  std::string write_error() const override {
    return writer_ && !writer_->write_error().empty()
               ? "--junit: " + writer_->write_error()
               : std::string();
  }

 private:
  fs::path file_;
  std::unique_ptr<JunitWriter> writer_;
};

class MarkdownListener : public RunListener {
 public:
  explicit MarkdownListener(fs::path file) : file_(std::move(file)) {}
  void on_end(const RunEnd& end) override {
    try {
      write_markdown_summary(file_, end.summary,
                             environment_line(end.environment));
    } catch (const std::runtime_error& error) {
      error_ = std::string("--summary: ") + error.what();
    }
  }
  std::string write_error() const override { return error_; }

 private:
  fs::path file_;
  std::string error_;
};

// The record for --last-failed: a failure to keep it only warns.
class LastFailedListener : public RunListener {
 public:
  explicit LastFailedListener(fs::path record) : record_(std::move(record)) {}
  void on_end(const RunEnd& end) override {
    const std::string error = record_verdicts(record_, end.summary);
    if (!error.empty()) {
      std::cerr << "casebook: warning: the record of failed runs for "
                   "--last-failed: "
                << printable_text(error) << "\n";
    }
  }

 private:
  fs::path record_;
};

}  // namespace

RunListeners run_listeners(const RunListenerContext& context) {
  const RunOutput& output = context.output;
  RunListeners listeners;
  listeners.append(std::make_unique<ProgressListener>(context));
  listeners.append(std::make_unique<TableListener>(output, context.colour));
  if (!output.junit.empty()) {
    listeners.append(std::make_unique<JunitListener>(output.junit));
  }
  if (!output.summary.empty()) {
    listeners.append(std::make_unique<MarkdownListener>(output.summary));
  }
  if (!output.json.empty()) {
    listeners.append(json_results_writer(output.json));
  }
  listeners.append(
      std::make_unique<LastFailedListener>(context.last_failed_record));
  return listeners;
}

}  // namespace casebook
