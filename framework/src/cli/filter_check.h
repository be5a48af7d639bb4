// `--filter` that selects nothing is a usage error (exit 2), so that a
// mistyped filter in CI cannot turn a lane green by running nothing.
#pragma once

#include "runner/session.h"

namespace casebook {

// True, after saying so on stderr (`command`: "casebook run"), with the
// filter shown, when `options.filter` is given and matches no case of
// `plan` on any backend it reports. The shard and --id are not asked: a
// filter that matches cases another shard runs is not a typo.
bool filter_selects_nothing(const Plan& plan, const RunOptions& options,
                            const char* command);

}  // namespace casebook
