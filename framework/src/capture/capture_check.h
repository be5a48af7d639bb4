// What `casebook capture` checks before it writes anything: the case it
// would write loads and names an op that takes its inputs and arguments
// (by name and type, as a run resolves it). An invalid case is bad input,
// never "a reproduced failure".
#pragma once

#include <string>
#include <vector>

#include "capture/capture.h"

namespace casebook {

// The problems of the case `request` would become, each one line ("`args.
// reduction`: ...", "`torch.softmax`: the schema does not accept ..."),
// without a file position (the file is not written yet). Empty when the
// case would load and its op would resolve.
std::vector<std::string> capture_case_problems(const CaptureRequest& request);

}  // namespace casebook
