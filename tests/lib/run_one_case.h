// Running one case file written by a test through the real runner (child
// processes, the CPU backend) and keeping its verdict.
#pragma once

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "casebook/runner.h"
#include "run_command.h"
#include "test_ops.h"

namespace casebook::testing_support {

// `text` as <temp>/<name>.yaml, run on the CPU alone; its one verdict.
inline CaseVerdict run_one_case(const std::string& name,
                                const std::string& text) {
  use_single_thread();
  TempFolder folder;
  std::ofstream(folder.path() / (name + ".yaml")) << text;
  RunOptions options;
  options.backends = {Backend::kCpu};
  options.jobs = 1;
  options.evidence_root = "";
  const RunSummary summary = run_cases({folder.path()}, options);
  if (summary.verdicts.size() != 1) {
    throw std::runtime_error("expected one verdict, got " +
                             std::to_string(summary.verdicts.size()));
  }
  return summary.verdicts.front();
}

// "PASS none: message\ndetails", for a failure's explanation.
inline std::string verdict_text(const CaseVerdict& verdict) {
  return std::string(verdict_name(verdict.verdict)) + " " +
         std::string(family_name(verdict.family)) + ": " + verdict.message +
         "\n" + verdict.details;
}

}  // namespace casebook::testing_support
