// Agreement with PyTorch: cases run through casebook's dispatcher path and
// backward run, compared output by output (by casebook's output names) with
// what python3-torch 1.13 computed from the same inputs
// (tests/data/torch_agreement/make_fixtures.py; the inputs are drawn with
// `fill: {torch: ...}`, PyTorch's own numbers).
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "casebook/loader.h"
#include "casebook/op_catalog.h"
#include "child/execute.h"
#include "tensors/fixtures.h"

namespace casebook {
namespace {

const std::string kTorchAgreementFolder =
    std::string(CASEBOOK_TEST_DATA) + "/torch_agreement/";

struct Agreement {
  const char* name;  // the fixtures' prefix
  const char* body;  // the case after `casebook: 1` and `summary`
};

const Agreement kAgreements[] = {
    {"conv2d", R"(op: torch.conv2d
args: {stride: [2, 1], padding: [1, 1]}
inputs:
  input: {shape: [1, 2, 4, 4], dtype: float32, fill: {torch: randn}, seed: 21}
  weight: {shape: [2, 2, 3, 3], dtype: float32, fill: {torch: randn}, seed: 22}
  bias: {shape: [2], dtype: float32, fill: {torch: randn}, seed: 23}
grad: {wrt: [input, weight, bias]}
)"},
    {"binary_cross_entropy", R"(op: torch.binary_cross_entropy
args: {reduction: mean}
inputs:
  input: {shape: [5], dtype: float64, fill: {torch: rand}, seed: 24}
  target: {shape: [5], dtype: float64, fill: {torch: {bernoulli: {p: 0.5}}}, seed: 25}
grad: {wrt: [input]}
)"},
    {"embedding_bag", R"(op: torch.embedding_bag
args: {mode: 1}
inputs:
  weight: {shape: [6, 3], dtype: float64, fill: {torch: randn}, seed: 26}
  indices: {dtype: int64, values: [0, 2, 2, 5, 1]}
  offsets: {dtype: int64, values: [0, 2]}
grad: {wrt: [weight]}
)"},
    {"batch_norm", R"(op: torch.batch_norm
args: {training: true, momentum: 0.1, eps: 1.0e-5, cudnn_enabled: true}
inputs:
  input: {shape: [4, 2, 3], dtype: float32, fill: {torch: randn}, seed: 27}
  weight: {shape: [2], dtype: float32, fill: {torch: randn}, seed: 28}
  bias: {shape: [2], dtype: float32, fill: {torch: randn}, seed: 29}
  running_mean: {shape: [2], dtype: float32, fill: {full: 0}}
  running_var: {shape: [2], dtype: float32, fill: {full: 1}}
grad: {wrt: [input, weight, bias]}
)"},
    {"topk", R"(op: torch.topk
args: {k: 2, dim: 1}
inputs:
  input: {shape: [3, 5], dtype: float64, fill: {torch: randn}, seed: 30}
grad: {wrt: [input]}
)"},
    {"cumsum", R"(op: torch.cumsum
args: {dim: 1}
inputs:
  input: {shape: [2, 5], dtype: float32, fill: {torch: randn}, seed: 31}
grad:
  wrt: [input]
  grad_outputs:
    0: {shape: [2, 5], dtype: float32, fill: {torch: randn}, seed: 32}
)"},
    {"scatter_add", R"(op: torch.scatter_add
args: {dim: 0}
inputs:
  input: {shape: [3, 4], dtype: float32, fill: {full: 0}}
  index: {dtype: int64, values: [[0, 1, 2, 0], [2, 2, 0, 1]]}
  src: {shape: [2, 4], dtype: float32, fill: {torch: randn}, seed: 33}
grad: {wrt: [src]}
)"},
};

class TorchAgreement : public testing::TestWithParam<Agreement> {};

TEST_P(TorchAgreement, EveryOutputAndGradientAsPyTorchComputesIt) {
  const Agreement& agreement = GetParam();
  const LoadedCase loaded = load_case_text(
      std::string("casebook: 1\nsummary: agreement\n") + agreement.body,
      std::string("cases/") + agreement.name + ".yaml");
  ASSERT_TRUE(loaded.ok()) << loaded.errors.front().to_string();
  const ResolvedOp resolved = resolve_op(*loaded.value, default_registry());
  ASSERT_NE(resolved.def, nullptr) << resolved.problems.front();
  CaseTable table;
  table.cases.push_back(&*loaded.value);
  table.ops.push_back(resolved.def);
  char folder[] = "/tmp/casebook-agreement-XXXXXX";
  ASSERT_NE(mkdtemp(folder), nullptr);
  RunRequest request;
  request.output_dir = folder;
  const ChildReport report =
      execute_request(table, request, open_backend_runtime(Backend::kCpu));
  ASSERT_EQ(report.status, ChildReport::Status::kOutputs) << report.message;
  size_t compared = 0;
  for (size_t i = 0; i < report.outputs.size(); ++i) {
    const TensorFile& file = report.outputs[i];
    const std::string key = file.name.empty() ? std::to_string(i) : file.name;
    const std::filesystem::path expected_file =
        kTorchAgreementFolder + agreement.name + "." + key + ".npy";
    if (!std::filesystem::exists(expected_file)) continue;
    const at::Tensor actual = map_tensor_file(file);
    const at::Tensor expected = read_npy(expected_file);
    EXPECT_EQ(actual.scalar_type(), expected.scalar_type()) << key;
    EXPECT_EQ(actual.sizes(), expected.sizes()) << key;
    const bool wide = expected.scalar_type() == at::kDouble;
    if (at::isFloatingType(expected.scalar_type())) {
      EXPECT_TRUE(at::allclose(actual, expected, wide ? 1e-10 : 1e-5,
                               wide ? 1e-12 : 1e-6))
          << key << "\ncasebook: " << actual << "\nPyTorch: " << expected;
    } else {
      EXPECT_TRUE(at::equal(actual, expected)) << key;
    }
    ++compared;
  }
  size_t fixtures = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(kTorchAgreementFolder)) {
    const std::string file = entry.path().filename().string();
    fixtures += file.rfind(std::string(agreement.name) + ".", 0) == 0 &&
                entry.path().extension() == ".npy";
  }
  EXPECT_EQ(compared, fixtures) << "an output PyTorch gives was not produced";
  std::filesystem::remove_all(folder);
}

INSTANTIATE_TEST_SUITE_P(Ops, TorchAgreement, testing::ValuesIn(kAgreements),
                         [](const testing::TestParamInfo<Agreement>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace casebook
