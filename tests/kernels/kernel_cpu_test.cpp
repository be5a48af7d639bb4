// The CPU references called directly: block-boundary sizes against LibTorch,
// strides, large logits, and bound errors with their positions.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <string>

#include "common/scalar_convert.h"
#include "embedding/embedding.h"
#include "kernel_test_support.h"
#include "nll_loss/nll_loss.h"
#include "softmax/softmax.h"
#include "sum/sum.h"

namespace casebook::kernels {
namespace {

float run_sum(const at::Tensor& input) {
  CasebookSumArgs args{};
  float output = -1.0f;
  args.input = input.data_ptr();
  args.input_type = input.scalar_type() == at::kHalf       ? CASEBOOK_FLOAT16
                    : input.scalar_type() == at::kBFloat16 ? CASEBOOK_BFLOAT16
                                                           : CASEBOOK_FLOAT32;
  args.length = input.size(0);
  args.stride = input.stride(0);
  args.output = &output;
  EXPECT_EQ(sum_cpu(args).code, CASEBOOK_STATUS_OK);
  return output;
}

TEST(SumCpu, MatchesLibTorchAtEveryBlockBoundary) {
  at::Generator generator = kernel_tests::cpu_generator(1);
  for (int64_t length : {0, 1, 255, 256, 257, 262143, 262144, 262145}) {
    const at::Tensor input = at::rand({length}, generator);
    EXPECT_NEAR(run_sum(input), at::sum(input).item<float>(),
                1e-6 * length + 1e-6)
        << "length " << length;
  }
}

TEST(SumCpu, FollowsTheStrideAndSkipsTheGaps) {
  const at::Tensor storage = at::arange(30, at::kFloat);
  const at::Tensor view = storage.as_strided({10}, {3}, 1);  // 1, 4, ..., 28
  EXPECT_FLOAT_EQ(run_sum(view), 145.0f);
}

TEST(SumCpu, AccumulatesHalfTypesInFloat) {
  // 4097 halves of 0.5: a float16 accumulator stalls at 1024 (0.5 is half an
  // ulp).
  EXPECT_FLOAT_EQ(run_sum(at::full({4097}, 0.5, at::kHalf)), 2048.5f);
  EXPECT_FLOAT_EQ(run_sum(at::full({4097}, 0.5, at::kBFloat16)), 2048.5f);
}

TEST(ScalarConvert, RoundsLikeLibTorch) {
  const at::Tensor values =
      at::cat({at::randn({20000}) * 1000, at::randn({20000}) * 1e-5,
               at::tensor({65504.f, 65520.f, 1e-8f, 3e-8f, -0.0f})});
  const float* data = values.data_ptr<float>();
  for (int64_t i = 0; i < values.numel(); ++i) {
    const c10::Half half(data[i]);
    const c10::BFloat16 bf16(data[i]);
    ASSERT_EQ(float_to_float16(data[i]), half.x) << data[i];
    ASSERT_EQ(float16_to_float(half.x), static_cast<float>(half)) << data[i];
    ASSERT_EQ(float_to_bfloat16(data[i]), bf16.x) << data[i];
  }
}

at::Tensor run_softmax(const at::Tensor& input) {
  at::Tensor output = at::empty(input.sizes(), input.options());
  CasebookSoftmaxArgs args{};
  args.input = input.data_ptr();
  args.type = CASEBOOK_FLOAT32;
  args.rows = input.size(0);
  args.cols = input.size(1);
  args.input_stride[0] = input.stride(0);
  args.input_stride[1] = input.stride(1);
  args.output = output.data_ptr();
  EXPECT_EQ(softmax_cpu(args).code, CASEBOOK_STATUS_OK);
  return output;
}

TEST(SoftmaxCpu, MatchesLibTorchAroundTheBlockAndForTransposedInputs) {
  for (int64_t cols : {1, 255, 256, 257}) {
    const at::Tensor input = at::randn({3, cols}) * 3;
    EXPECT_TRUE(
        at::allclose(run_softmax(input), at::softmax(input, -1), 1.3e-6, 1e-5));
  }
  const at::Tensor transposed = at::randn({300, 64}).t();
  EXPECT_TRUE(at::allclose(run_softmax(transposed), at::softmax(transposed, -1),
                           1.3e-6, 1e-5));
}

TEST(SoftmaxCpu, StaysFiniteForLogitsOfTenThousand) {
  const at::Tensor input =
      at::tensor({1e4f, -1e4f, 9999.f, 0.f}).reshape({1, 4});
  const at::Tensor output = run_softmax(input);
  EXPECT_TRUE(at::isfinite(output).all().item<bool>());
  EXPECT_TRUE(at::allclose(output, at::softmax(input, -1), 1.3e-6, 1e-5));
}

CasebookKernelStatus run_nll_loss(const at::Tensor& input,
                                  const at::Tensor& target,
                                  CasebookReduction reduction,
                                  at::Tensor* output) {
  *output = at::empty(reduction == CASEBOOK_REDUCTION_NONE
                          ? std::vector<int64_t>{input.size(0)}
                          : std::vector<int64_t>{},
                      input.options());
  CasebookNllLossArgs args{};
  args.input = input.data_ptr();
  args.input_type = CASEBOOK_FLOAT32;
  args.batch = input.size(0);
  args.classes = input.size(1);
  args.input_stride[0] = input.stride(0);
  args.input_stride[1] = input.stride(1);
  args.target = target.data_ptr();
  args.target_type = CASEBOOK_INT64;
  args.target_stride = target.stride(0);
  args.ignore_index = -100;
  args.reduction = reduction;
  args.output = output->data_ptr();
  return nll_loss_cpu(args);
}

TEST(NllLossCpu, MatchesLibTorchForEachReduction) {
  const at::Tensor input = at::log_softmax(at::randn({257, 5}), -1);
  at::Tensor target = at::randint(0, 5, {257}, at::kLong);
  target.index_put_({3}, -100);
  const std::pair<CasebookReduction, int64_t> reductions[] = {
      {CASEBOOK_REDUCTION_MEAN, at::Reduction::Mean},
      {CASEBOOK_REDUCTION_SUM, at::Reduction::Sum},
      {CASEBOOK_REDUCTION_NONE, at::Reduction::None}};
  for (const auto& [ours, aten] : reductions) {
    at::Tensor output;
    ASSERT_EQ(run_nll_loss(input, target, ours, &output).code,
              CASEBOOK_STATUS_OK);
    EXPECT_TRUE(at::allclose(output, at::nll_loss(input, target, {}, aten),
                             1.3e-6, 1e-5));
  }
}

TEST(NllLossCpu, ReportsTheFirstOutOfRangeTargetWithItsPosition) {
  const at::Tensor input = at::randn({5, 4});
  at::Tensor output;
  const CasebookKernelStatus status =
      run_nll_loss(input, at::tensor({1, 0, 4, -1, 7}, at::kLong),
                   CASEBOOK_REDUCTION_MEAN, &output);
  EXPECT_EQ(status.code, CASEBOOK_STATUS_INDEX_OUT_OF_RANGE);
  EXPECT_EQ(status.position, 2);
  EXPECT_EQ(status.value, 4);
  EXPECT_EQ(std::string(status.message),
            "target 4 at position 2 is outside [0, 4)");
}

TEST(NllLossCpu, MeanOfOnlyIgnoredTargetsIsNaN) {
  at::Tensor output;
  ASSERT_EQ(run_nll_loss(at::randn({2, 3}), at::tensor({-100, -100}, at::kLong),
                         CASEBOOK_REDUCTION_MEAN, &output)
                .code,
            CASEBOOK_STATUS_OK);
  EXPECT_TRUE(std::isnan(output.item<float>()));
}

TEST(EmbeddingCpu, GathersStridedRowsAndReportsBadIndices) {
  const at::Tensor weight = at::randn({9, 20}).t();  // [20, 9], column-major
  const at::Tensor indices = at::tensor({3, 19, 0, 7}, at::kLong);
  at::Tensor output = at::empty({4, 9});
  CasebookEmbeddingArgs args{};
  args.weight = weight.data_ptr();
  args.weight_type = CASEBOOK_FLOAT32;
  args.num_embeddings = 20;
  args.embedding_dim = 9;
  args.weight_stride[0] = weight.stride(0);
  args.weight_stride[1] = weight.stride(1);
  args.indices = indices.data_ptr();
  args.index_type = CASEBOOK_INT64;
  args.num_indices = 4;
  args.index_stride = 1;
  args.output = output.data_ptr();
  ASSERT_EQ(embedding_cpu(args).code, CASEBOOK_STATUS_OK);
  EXPECT_TRUE(at::equal(output, at::embedding(weight, indices)));

  const at::Tensor bad = at::tensor({1, 20, -1}, at::kLong);
  args.indices = bad.data_ptr();
  args.num_indices = 3;
  const CasebookKernelStatus status = embedding_cpu(args);
  EXPECT_EQ(status.code, CASEBOOK_STATUS_INDEX_OUT_OF_RANGE);
  EXPECT_EQ(status.position, 1);
  EXPECT_EQ(std::string(status.message),
            "index 20 at position 1 is outside [0, 20)");
}

TEST(KernelArguments, AreRejectedWithAMessageNotAnAssert) {
  CasebookSumArgs args{};
  args.input_type = CASEBOOK_INT64;
  args.length = 3;
  const CasebookKernelStatus status = sum_cpu(args);
  EXPECT_EQ(status.code, CASEBOOK_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(status.message),
            "sum: input must be float32, float16 or bfloat16, got int64");
}

}  // namespace
}  // namespace casebook::kernels
