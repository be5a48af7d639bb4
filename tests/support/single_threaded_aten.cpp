// The kernel test program forks (run_in_child, the runner's children): before
// the first test, ATen is made single-threaded, so that no OpenMP pool is
// running at fork(). The library refuses to fork otherwise
// (process/fork_rules.h). Seeds come from local CPU generators
// (kernel_test_support.h), never at::manual_seed, which seeds, and so
// initialises, CUDA in a CUDA LibTorch.
#include <ATen/Parallel.h>
#include <gtest/gtest.h>

namespace {

class SingleThreadedAten : public testing::Environment {
 public:
  void SetUp() override { at::set_num_threads(1); }
};

[[maybe_unused]] testing::Environment* const kSingleThreadedAten =
    testing::AddGlobalTestEnvironment(new SingleThreadedAten);

}  // namespace
