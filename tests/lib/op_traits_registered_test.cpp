// The traits the case model is given (casebook/op_traits.h) agree with the
// ops registered: an op declared without its traits would load as an op the
// model knows nothing of (no `reference: torch`, no counts, no blocks).
#include <gtest/gtest.h>

#include <string>

#include "casebook/op_traits.h"
#include "casebook/ops.h"

namespace casebook {
namespace {

TEST(OpTraitsOfRegisteredOps,
     EveryRegisteredOpHasTheTraitsItsDefinitionImplies) {
  const OpTraitsTable& table = installed_op_traits();
  for (const std::string& name : default_registry().names()) {
    SCOPED_TRACE(name);
    const OpDef* def = default_registry().find(name);
    ASSERT_NE(def, nullptr);
    const OpTraits* traits = table.find(name);
    ASSERT_NE(traits, nullptr) << "a registered op the loader does not take";
    if (def->torch_reference) {
      EXPECT_TRUE(traits->torch_reference);
    }
    if (def->reports_processed || def->reports_positions) {
      EXPECT_TRUE(traits->reports_counts);
    }
    // A kernel's blocks are what the block_boundaries rule is for.
    if (def->needs_kernel_plugin) {
      ASSERT_TRUE(traits->neighbors.has_value());
      EXPECT_FALSE(traits->neighbors->blocks.empty());
      EXPECT_FALSE(traits->neighbors->block_dims.empty());
    }
  }
}

TEST(OpTraitsOfRegisteredOps, TheKernelsBlockSizesComeFromTheirHeaders) {
  const OpTraits* sum = installed_op_traits().find("kernels.sum");
  ASSERT_NE(sum, nullptr);
  ASSERT_TRUE(sum->neighbors.has_value());
  // kernels/sum/sum.h: blocks of 256 threads, at most 1024 of them.
  EXPECT_EQ(sum->neighbors->blocks, (std::vector<int64_t>{256, 256 * 1024}));
}

}  // namespace
}  // namespace casebook
