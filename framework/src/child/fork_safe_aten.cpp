#include "child/fork_safe_aten.h"

#include <ATen/Parallel.h>

namespace casebook {

void keep_aten_single_threaded() { at::set_num_threads(1); }

}  // namespace casebook
