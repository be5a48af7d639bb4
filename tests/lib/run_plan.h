// Running a folder of case files through the real runner in this process
// (real children), as `casebook run` would, for tests that set the backends,
// the required ones and the registry themselves.
#pragma once

#include <filesystem>
#include <utility>
#include <vector>

#include "casebook/runner.h"
#include "runner/session.h"

namespace casebook::testing_support {

// Every case under `folder` on `backends`, `jobs` CPU runs at a time.
inline RunSummary run_folder(const std::filesystem::path& folder,
                             std::vector<Backend> backends,
                             const OpRegistry* registry,
                             std::vector<Backend> required = {}, int jobs = 1) {
  RunOptions options;
  options.backends = std::move(backends);
  options.required = std::move(required);
  options.jobs = jobs;
  options.registry = registry;
  Plan plan = load_plan({folder}, options);
  return execute_plan(
             plan, options, [](const PlannedCase&, Backend) { return true; },
             nullptr)
      .summary;
}

}  // namespace casebook::testing_support
