// JUnit XML, written as results arrive. After each add() returns, the file on
// disk is a complete, valid document that holds every verdict so far, so a
// crash of anything (the runner included) loses no finished result: the
// counts in the <testsuite> start tag are rewritten in place (padded to a
// fixed width) and the closing tags are overwritten by the next test case.
//
// The document is made in a temporary file beside `file` and renamed onto it
// once it is valid, then updated in place; two runs given the same path each
// write their own file, so neither corrupts the other, and finish() puts the
// finishing run's whole document back if another run replaced it meanwhile
// (the last to finish wins, whole). A failed write (a full disk) never stops
// the run: the writer keeps the first failure for the end and writes no more.
// A path that is not a regular file (/dev/stdout, a pipe) gets the whole
// document at finish().
//
// Times are wall times: a <testcase>'s is its run's (CaseVerdict::seconds),
// the <testsuite>'s is the run's own, from the writer's making (the run's
// start) to its last result, which holds what no single run does (the fork
// server's start, LibTorch's warm-up, runs waiting for a slot) and not the
// sum of runs that went in parallel.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>

#include "casebook/runner.h"
#include "runner/output.h"

namespace casebook {

class JunitWriter {
 public:
  // Makes `file` a document holding the environment and no test case yet.
  // Throws std::runtime_error naming the file when it cannot be made (no
  // such folder, no permission): a configuration error, before any run.
  JunitWriter(const std::filesystem::path& file,
              const Environment& environment);
  ~JunitWriter();
  JunitWriter(const JunitWriter&) = delete;
  JunitWriter& operator=(const JunitWriter&) = delete;

  // Appends one test case and updates the counts. Never throws: after a
  // failed write it writes nothing more (see write_error()).
  void add(const CaseVerdict& verdict);

  // Ends the document: `file` then holds every test case added, unless a
  // write failed. Idempotent; the destructor calls it.
  void finish();

  // The first write that failed ("cannot write out.xml: No space left on
  // device, after 12 of 40 results"); empty when none did.
  const std::string& write_error() const { return write_error_; }

 private:
  friend void write_junit(const std::filesystem::path& file,
                          const RunSummary& summary,
                          const Environment& environment);
  bool write_at(long offset, const std::string& text);
  void failed(const std::string& what, int error_number);
  std::string start_tag() const;
  std::string document() const;

  std::filesystem::path file_;
  bool regular_ = true;  // false: a device or pipe, written at finish()
  bool finished_ = false;
  int fd_ = -1;
  long start_tag_offset_ = 0;  // where <testsuite ...> begins
  long body_end_ = 0;          // where the closing tags begin
  std::string head_;           // the prologue and properties (non-regular)
  std::string body_;           // every test case so far (non-regular)
  std::map<Verdict, int> counts_;
  int tests_ = 0;
  int written_ = 0;  // test cases on disk
  std::chrono::steady_clock::time_point started_ =
      std::chrono::steady_clock::now();
  double seconds_ = 0.0;  // the <testsuite>'s time
  // Made after the run (write_junit): the runs' times are summed instead.
  bool after_the_run_ = false;
  std::string write_error_;
};

// The whole summary at once (a JunitWriter fed every verdict in order),
// after the run: its <testsuite> time is the sum of the runs' times, the
// run's own being unknown here. Throws std::runtime_error when it cannot be
// written.
void write_junit(const std::filesystem::path& file, const RunSummary& summary,
                 const Environment& environment);

// Printable (casebook/printable.h: control characters and bytes that are not
// UTF-8 as visible \xHH escapes, which XML 1.0 could not hold), then the five
// XML entities escaped.
std::string xml_escape(const std::string& text);

}  // namespace casebook
