// An op's traits are part of its one definition (casebook/op_traits.h): the
// case model is given the traits of the ops registered, a program's own
// included, never those of their name's prefix; a LibTorch-free program
// reads the same traits from the declarations the ops are built from.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "casebook/loader.h"
#include "casebook/op_catalog.h"
#include "casebook/op_traits.h"
#include "casebook/ops.h"
#include "catalog/shipped_op_declarations.h"

namespace casebook {
namespace {

std::vector<at::Tensor> no_outputs(const OpCall& /*call*/) { return {}; }

OpDef op_named(const std::string& name) {
  OpDef def;
  def.name = name;
  def.inputs = {"input"};
  def.run = no_outputs;
  return def;
}

// Installs `table` for one test, then the default registry's again.
class WithTraits {
 public:
  explicit WithTraits(const OpTraitsTable& table) { install_op_traits(table); }
  ~WithTraits() { install_op_traits(default_registry().traits()); }
  WithTraits(const WithTraits&) = delete;
  WithTraits& operator=(const WithTraits&) = delete;
};

TEST(OpTraitsOfRegisteredOps, TheModelReadsEachRegisteredOpsOwnTraits) {
  const OpTraitsTable& installed = installed_op_traits();
  const OpTraitsTable shipped = shipped_op_traits();
  for (const std::string& name : default_registry().names()) {
    SCOPED_TRACE(name);
    const OpDef* def = default_registry().find(name);
    const OpTraits* given = installed.find(name);
    const OpTraits* declared = shipped.find(name);
    ASSERT_NE(given, nullptr) << "a registered op the loader does not take";
    ASSERT_NE(declared, nullptr) << "registered, not declared LibTorch-free";
    EXPECT_TRUE(*given == def->traits);
    EXPECT_TRUE(*declared == def->traits);
    EXPECT_EQ(def->traits.torch_reference,
              static_cast<bool>(def->torch_reference));
    // A kernel's blocks are what the block_boundaries rule is for.
    if (def->needs_kernel_plugin) {
      ASSERT_TRUE(def->traits.neighbors.has_value());
      EXPECT_FALSE(def->traits.neighbors->blocks.empty());
      EXPECT_FALSE(def->traits.neighbors->block_dims.empty());
    }
  }
}

TEST(OpTraitsOfRegisteredOps, AnOpGetsItsOwnTraitsNotItsPrefixs) {
  OpRegistry registry(unregistered_op_traits());
  // In the kernels.* family, without a LibTorch twin: no `reference: torch`.
  registry.add(op_named("kernels.plain"));
  // Outside every family: known once registered, with what it reports.
  OpDef counting = op_named("made.counting");
  counting.traits.reports_processed = true;
  registry.add(counting);

  const OpTraits* plain = registry.traits().find("kernels.plain");
  ASSERT_NE(plain, nullptr);
  EXPECT_FALSE(plain->torch_reference);
  EXPECT_FALSE(plain->reports_counts());
  const OpTraits* made = registry.traits().find("made.counting");
  ASSERT_NE(made, nullptr);
  EXPECT_TRUE(made->reports_processed);
  EXPECT_FALSE(made->reports_positions);
  EXPECT_EQ(registry.traits().find("made.other"), nullptr);
}

TEST(OpTraitsOfRegisteredOps, TheLoaderAsksTheRegisteredTraits) {
  OpRegistry registry(unregistered_op_traits());
  OpDef counting = op_named("made.counting");
  counting.traits.reports_processed = true;
  registry.add(counting);
  registry.add(op_named("kernels.plain"));
  const WithTraits installed(registry.traits());
  const std::string counts =
      "casebook: 1\nsummary: s\nop: made.counting\n"
      "inputs:\n  input: {shape: [3], dtype: float32, fill: {full: 1}}\n"
      "expect:\n  cpu: {processed: 3}\n";
  const LoadedCase loaded = load_case_text(counts, "cases/c.yaml");
  EXPECT_TRUE(loaded.errors.empty())
      << (loaded.errors.empty() ? "" : loaded.errors.front().message);
  const std::string plain =
      "casebook: 1\nsummary: s\nop: kernels.plain\nreference: torch\n"
      "inputs:\n  input: {shape: [3], dtype: float32, fill: {full: 1}}\n";
  const LoadedCase refused = load_case_text(plain, "cases/p.yaml");
  ASSERT_EQ(refused.errors.size(), 1u);
  EXPECT_NE(refused.errors.front().message.find("expected `torch` only"),
            std::string::npos)
      << refused.errors.front().message;
}

TEST(OpTraitsOfRegisteredOps, ATorchReferenceIsTheFunctionNotTheWord) {
  OpRegistry registry;
  OpDef claims = op_named("made.claims");
  claims.traits.torch_reference = true;  // and no function to run
  EXPECT_THROW(registry.add(claims), std::logic_error);
  OpDef has = op_named("made.has");
  has.torch_reference = no_outputs;
  registry.add(has);
  EXPECT_TRUE(registry.traits().find("made.has")->torch_reference);
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
