// What a run shows: the environment header, a line per verdict, the counts,
// and the JUnit file.
#pragma once

#include <filesystem>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "casebook/runner.h"
#include "runner/plan.h"

namespace casebook {

using Environment = std::vector<std::pair<std::string, std::string>>;

// The host's facts, LibTorch's version, and each probed GPU backend's.
Environment run_environment(const std::map<Backend, BackendStatus>& backends);

void print_environment(std::ostream& out, const Environment& environment);

// Every line of `text` with `prefix` before it.
std::string indent(const std::string& text, const std::string& prefix);

// The environment on one line ("casebook 0.1.0 (abc123) · libtorch 1.13.0
// · ..."), for summaries.
std::string environment_line(const Environment& environment);

// "FAIL    cross_entropy/label_out_of_range  cuda  device_assert: ..."
void print_verdict_line(std::ostream& out, const CaseVerdict& verdict,
                        bool with_details);

}  // namespace casebook
