// `fill: {torch: ...}` equals PyTorch's own draws after torch.manual_seed:
// every entry of tests/data/torch_rng/manifest.json, made by
// tests/data/torch_rng/make_fixtures.py with Debian's python3-torch, is drawn
// again here through LibTorch and compared exactly.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "tensors/fixtures.h"
#include "tensors/materialise.h"
#include "tensors/source.h"

namespace casebook {
namespace {

const std::string kTorchFillFolder =
    std::string(CASEBOOK_TEST_DATA) + "/torch_rng/";

TEST(TorchFill, EqualsPyTorchAfterManualSeedForEveryCall) {
  std::ifstream stream(kTorchFillFolder + "manifest.json");
  ASSERT_TRUE(stream.is_open());
  const nlohmann::json manifest = nlohmann::json::parse(stream);
  std::set<std::string> calls;
  for (const nlohmann::json& entry : manifest.at("entries")) {
    const std::string file = entry.at("file");
    Fill fill;
    fill.kind = Fill::Kind::kTorch;
    fill.torch_call = entry.at("call");
    const nlohmann::json& params = entry.at("params");
    for (const char* first : {"low", "mean", "p"}) {
      if (params.contains(first)) fill.first = params.at(first);
    }
    for (const char* second : {"high", "std"}) {
      if (params.contains(second)) fill.second = params.at(second);
    }
    const auto dtype = parse_dtype(entry.at("dtype").get<std::string>());
    ASSERT_TRUE(dtype) << file;
    const at::Tensor drawn = torch_fill_tensor(
        fill, entry.at("seed").get<uint64_t>(),
        entry.at("shape").get<std::vector<int64_t>>(), to_scalar_type(*dtype));
    const at::Tensor expected = read_npy(kTorchFillFolder + file);
    EXPECT_EQ(drawn.scalar_type(), expected.scalar_type()) << file;
    EXPECT_TRUE(at::equal(drawn, expected))
        << file << "\ncasebook: " << drawn << "\nPyTorch: " << expected;
    calls.insert(fill.torch_call);
  }
  EXPECT_EQ(calls, (std::set<std::string>{"randn", "rand", "randint", "normal",
                                          "uniform", "bernoulli", "randperm"}));
}

TEST(TorchFill, SeedMattersAndTheSameSeedRepeats) {
  Fill fill;
  fill.kind = Fill::Kind::kTorch;
  fill.torch_call = "randn";
  const at::Tensor a = fill_tensor(fill, 3, {8}, at::kFloat);
  EXPECT_TRUE(at::equal(a, fill_tensor(fill, 3, {8}, at::kFloat)));
  EXPECT_FALSE(at::equal(a, fill_tensor(fill, 4, {8}, at::kFloat)));
  fill.torch_call = "randperm";
  EXPECT_THROW(fill_tensor(fill, 0, {2, 3}, at::kLong), std::invalid_argument);
}

}  // namespace
}  // namespace casebook
