// What the passes of `casebook reduce` share (runner/reduce.h): the runs of
// candidates, each judged against the case's own failure, the case kept so
// far, and what was removed and kept.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "casebook/diagnosis.h"
#include "runner/reduce.h"
#include "runner/reduce_state.h"
#include "runner/session.h"

namespace casebook::reducing {

// A bound of the search was reached (--max-runs, the time bound, an
// interrupt) before a run: the search stops; the case kept so far stands.
struct BoundReached {
  std::string why;
};

class Reduction {
 public:
  explicit Reduction(const ReduceRequest& request);

  // The case's own run (the first): its verdict on the backend. Throws
  // BoundReached.
  CaseVerdict run_original(const Case& kase);
  // The failure every candidate must show: the original run's, with its
  // verdict.
  void expect(const CaseVerdict& original);
  const SeenFailure& failure() const { return failure_; }

  // Runs `candidate`: when it fails the same way it becomes `best`. Throws
  // BoundReached.
  bool keep_if_same(ReduceState candidate);
  // Runs `candidate`, kept nowhere: whether it fails the same way.
  bool fails_same(const Case& candidate);
  // Runs the case of `file` (its one case, planned from the file): whether
  // it fails the same way; `why` when not.
  bool file_fails_same(const std::filesystem::path& file, std::string* why);
  // What the last run did, for a person: "passes", "fails otherwise (FAIL
  // contract: ...)".
  std::string last_outcome() const;

  int runs() const { return runs_; }
  double seconds() const;

  ReduceState best;
  std::vector<std::string> removed;
  std::vector<std::string> kept;

 private:
  CaseVerdict run(Plan plan);
  bool judge(const Case& candidate);
  void report_progress();
  bool same(const CaseVerdict& verdict, bool has_steps, std::string* why);

  const ReduceRequest& request_;
  RunOptions options_;
  std::chrono::steady_clock::time_point start_;
  std::optional<std::map<Backend, BackendStatus>> probed_;
  Verdict verdict_ = Verdict::kFail;
  SeenFailure failure_;
  CaseVerdict last_;
  int runs_ = 0;
};

// The failure a verdict shows: its family, its first error (else its
// explanation), the step that raised it.
SeenFailure seen_failure(const CaseVerdict& verdict);

}  // namespace casebook::reducing
