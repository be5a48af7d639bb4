#include "runner/run_state.h"

namespace casebook {

RunState::RunState(const std::vector<PlannedCase>& cases, size_t job_count)
    : results(job_count) {
  jobs_left.reserve(cases.size());
  for (const PlannedCase& planned : cases) {
    jobs_left.push_back(planned.jobs.size());
  }
}

}  // namespace casebook
