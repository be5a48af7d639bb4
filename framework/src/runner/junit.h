// JUnit XML, written as results arrive. After each add() returns, the file on
// disk is a complete, valid document that holds every verdict so far, so a
// crash of anything (the runner included) loses no finished result: the
// counts in the <testsuite> start tag are rewritten in place (padded to a
// fixed width) and the closing tags are overwritten by the next test case.
//
// The layout is the one Jenkins' and GitLab's JUnit readers take, checked by
// tests/data/junit/junit.xsd: one <testsuite name="casebook"> with the run's
// environment as <properties>, then a <testcase classname="<case id>"
// name="<backend>" file="..." time="..."> per verdict. FAIL, XPASS and
// TIMEOUT are <failure>; ERROR and NOT RUN are <error> (a run that did not
// happen is not a skip); SKIP is <skipped>; XFAIL and PASS pass, an XFAIL
// with its reason in <system-out>.
#pragma once

#include <filesystem>
#include <map>

#include "casebook/runner.h"
#include "runner/output.h"

namespace casebook {

class JunitWriter {
 public:
  // Creates (truncates) `file` holding the environment and no test case yet.
  // Throws std::runtime_error naming the file when it cannot be written.
  JunitWriter(const std::filesystem::path& file,
              const Environment& environment);
  ~JunitWriter();
  JunitWriter(const JunitWriter&) = delete;
  JunitWriter& operator=(const JunitWriter&) = delete;

  // Appends one test case and updates the counts; throws std::runtime_error
  // when the file cannot be written.
  void add(const CaseVerdict& verdict);

 private:
  void write_at(long offset, const std::string& text);
  std::string start_tag() const;

  std::filesystem::path file_;
  int fd_ = -1;
  long start_tag_offset_ = 0;  // where <testsuite ...> begins
  long body_end_ = 0;          // where the closing tags begin
  std::map<Verdict, int> counts_;
  int tests_ = 0;
  double seconds_ = 0.0;
};

// The whole summary at once (a JunitWriter fed every verdict in order).
void write_junit(const std::filesystem::path& file, const RunSummary& summary,
                 const Environment& environment);

// The five XML entities escaped; control characters XML 1.0 cannot hold
// become '?'.
std::string xml_escape(const std::string& text);

}  // namespace casebook
