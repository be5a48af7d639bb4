// The run's results as data: one versioned JSON document
// (schema/results.schema.json, docs/guide.md "Results as data"), written by
// `casebook run --json FILE` once the run has ended, and read back by
// `capture` and `accept`. What a program learns of a run it learns here, not
// from the table's text or the JUnit file.
//
//   {"casebook_results": 1, "exit_code": 1, "interrupted": false,
//    "environment": {"casebook.version": "0.1.0", "libtorch": "2.13.0", ...},
//    "counts": {"PASS": 3, "FAIL": 1},
//    "verdicts": [{"case": "cross_entropy/label_4", "backend": "cpu",
//                  "verdict": "FAIL", "family": "index_out_of_range",
//                  "message": "...", "seconds": 0.004, ...}]}
//
// A verdict's record holds the fields that verdict has (an empty text, a
// false flag and an unknown line are left out), in table order.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "casebook/runner.h"
#include "runner/output.h"
#include "runner/run_listener.h"

namespace casebook {

// The format's version: a reader refuses another.
constexpr int kResultsFormat = 1;

// The document for `summary` run in `environment`.
std::string results_json_text(const RunSummary& summary,
                              const Environment& environment);

// The verdicts of a results document, each field as written. Throws
// std::runtime_error saying what is wrong (not JSON, another format version,
// a record without its case, backend or verdict, or naming one unknown here).
RunSummary read_results_json(const std::string& text);

// A listener that writes `file` at the run's end (files/file_writer.h: a
// link planted there is refused, a full disk is its write_error()).
std::unique_ptr<RunListener> json_results_writer(std::filesystem::path file);

}  // namespace casebook
