// What `casebook report` carries besides its Markdown: the case file of the
// chosen run (as written, or written out), the fixtures it still names, and
// the bundle (`--bundle DIR`) that holds both, ready to attach.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "casebook/diagnosis.h"
#include "report/python_repro.h"
#include "runner/plan.h"

namespace casebook {

// Fixtures of at most this many elements are inlined as `values`, so that
// the case file alone reproduces the run: capture's rule for labels
// (docs/case-format.md, "Captured cases").
constexpr uint64_t kInlineFixtureElements = 64;

struct CarriedFixture {
  ReportFixture shown;           // input, file (inside fixtures/), sha256, size
  std::filesystem::path source;  // the file on this machine
};

struct CarriedCase {
  std::string file_name;  // what the recipient saves it as and runs
  std::string text;       // not scrubbed yet
  std::string note;       // "as written" or why and how it was written out
  std::vector<CarriedFixture> fixtures;
};

// The case file that reproduces `planned`'s run alone: the file's own text
// when it holds exactly that case and nothing needs changing; written out
// (case_to_yaml) for a declared neighbour, for a case that declares
// neighbours (they are runs of their own), or when a small fixture is
// inlined as `values`. `file` is the case file the run came from.
CarriedCase carry_case(const PlannedCase& planned,
                       const std::filesystem::path& file);

// Writes, from the scrubbed report `clean`, `folder`/<case file name>, each
// fixture under `folder`/fixtures/<file> (its bytes, as the scrubbed case
// names it: the i-th of clean.fixtures for the i-th carried one),
// `folder`/reproduce.py (the Python reproduction) with the .npy files it
// loads (the i-th of clean.python_files holding the i-th of
// `python_inputs`) and `folder`/report.md; never overwrites a file. Then
// loads the case file back, as its recipient's casebook will. False, with
// the reason in `error`, when anything fails.
bool write_bundle(const std::filesystem::path& folder,
                  const CarriedCase& carried, const ReportInput& clean,
                  const std::vector<PythonInputFile>& python_inputs,
                  const std::string& markdown, std::string* error);

}  // namespace casebook
