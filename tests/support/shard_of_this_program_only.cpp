// ctest runs unit.lib in shards (GTEST_TOTAL_SHARDS and GTEST_SHARD_INDEX,
// tests/CMakeLists.txt). GoogleTest has chosen this program's share of the
// tests before it sets up the environments; there the two variables are
// removed, so that a `casebook test` process a test starts (a GoogleTest
// program too) runs every one of its own tests, not that shard of them.
#include <gtest/gtest.h>

#include <cstdlib>

namespace {

class ShardOfThisProgramOnly : public testing::Environment {
 public:
  void SetUp() override {
    unsetenv("GTEST_TOTAL_SHARDS");
    unsetenv("GTEST_SHARD_INDEX");
  }
};

[[maybe_unused]] testing::Environment* const kShardOfThisProgramOnly =
    testing::AddGlobalTestEnvironment(new ShardOfThisProgramOnly);

}  // namespace
