// Every test program that forks (run_in_child, the runner's children, the
// fork server) makes ATen single-threaded before its first test, so that no
// OpenMP pool is running at fork(): the library refuses to fork otherwise
// (process/fork_rules.h); child/fork_safe_aten.h says how. A test that calls an
// op in the parent before asking for this itself would start the pool (seen
// with LibTorch 2.13: slow_conv2d opens a parallel region for a 1x2x5x5 input).
// Seeds come from local CPU generators, never at::manual_seed, which seeds, and
// so initialises, CUDA in a CUDA LibTorch.
#include <gtest/gtest.h>

#include "child/fork_safe_aten.h"

namespace {

class SingleThreadedAten : public testing::Environment {
 public:
  void SetUp() override { casebook::keep_aten_single_threaded(); }
};

[[maybe_unused]] testing::Environment* const kSingleThreadedAten =
    testing::AddGlobalTestEnvironment(new SingleThreadedAten);

}  // namespace
