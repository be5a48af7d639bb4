// Selecting nothing is a usage error (exit 2), so that a mistyped filter or
// id in CI cannot turn a lane green by running nothing.
#pragma once

#include "runner/session.h"

namespace casebook {

// True, after saying why on stderr (`command`: "casebook run"), when the
// options select nothing of `plan`: no case file was found; a `--filter`
// matches no case on any backend it reports (each filter is asked alone:
// one typo among several is still a typo); `--id` names no case (with the
// nearest ids); or the filters, the exclusions and `--id` together leave no
// run on the backends asked for (without any of them, a plan with no run on
// those backends is for the caller to report as nothing ran). The shard is
// not asked: a selection that another shard runs is not
// a typo. An `--exclude` that matches nothing is only warned about.
bool selection_is_empty(const Plan& plan, const RunOptions& options,
                        const char* command);

}  // namespace casebook
