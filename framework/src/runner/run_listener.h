// What a run tells whoever records it, as GoogleTest's TestEventListeners:
// one list of listeners, each told the same events in the order appended.
// The progress line, the table, JUnit, the Markdown summary, the JSON
// results, the record for --last-failed and the gtest bridge are listeners;
// a new result writer is one more class appended to the list
// (docs/architecture.md, "Add a result writer").
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "casebook/runner.h"
#include "runner/output.h"
#include "runner/plan.h"

namespace casebook {

struct Plan;  // runner/session.h

// The run as it ended: its verdicts in table order (case order, then cpu,
// cuda, hip), the environment it ran in.
struct RunEnd {
  const Plan& plan;
  const RunSummary& summary;
  const Environment& environment;
};

class RunListener {
 public:
  virtual ~RunListener() = default;
  // After the GPU backends were probed, before anything runs. May throw
  // std::runtime_error (a file that cannot be made): the run does not start.
  virtual void on_start(const std::map<Backend, BackendStatus>& backends) {
    (void)backends;
  }
  // A case's first run starts.
  virtual void on_case_started(const PlannedCase& planned) { (void)planned; }
  // Each verdict as it lands (cases finish in any order).
  virtual void on_verdict(const CaseVerdict& verdict) { (void)verdict; }
  // Once, after the last verdict, when the run ran (on_start was called).
  virtual void on_end(const RunEnd& end) { (void)end; }
  // What this listener could not write ("--junit: cannot write ..."), said
  // under the table and exit status 2; empty when it wrote all it had to.
  virtual std::string write_error() const { return {}; }
};

class RunListeners {
 public:
  void append(std::unique_ptr<RunListener> listener);

  void on_start(const std::map<Backend, BackendStatus>& backends);
  void on_case_started(const PlannedCase& planned);
  void on_verdict(const CaseVerdict& verdict);
  void on_end(const RunEnd& end);
  // Each listener's write_error() that is not empty, in list order.
  std::vector<std::string> write_errors() const;

 private:
  std::vector<std::unique_ptr<RunListener>> listeners_;
};

// A listener that only hands each verdict to `on_verdict`.
std::unique_ptr<RunListener> verdict_callback(
    std::function<void(const CaseVerdict&)> on_verdict);

}  // namespace casebook
