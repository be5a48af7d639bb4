// Version-1 case files keep loading with their meaning (issue 23): the
// corpus in tests/data/v1 was written to the first contract, tensors named
// for what they are and read "in the op's argument order". Each file's
// inputs must bind to the same arguments as then, and the whole folder must
// PASS through the real runner; `casebook show` takes the same files.
#include <gtest/gtest.h>

#include <map>

#include "casebook/loader.h"
#include "casebook/op_catalog.h"
#include "casebook/ops.h"
#include "run_command.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;
using testing_support::has_line;
using testing_support::run_casebook;

const fs::path kCorpus = fs::path(CASEBOOK_TEST_DATA) / "v1";

// The argument each input stands for: a dispatcher op's schema argument, or
// a registered op's input at the same position.
std::vector<std::string> bound_arguments(const Case& kase,
                                         const ResolvedOp& resolved) {
  if (!resolved.def->input_arguments.empty()) {
    return resolved.def->input_arguments;
  }
  std::vector<std::string> signature = resolved.def->inputs;
  signature.insert(signature.end(), resolved.def->optional_inputs.begin(),
                   resolved.def->optional_inputs.end());
  signature.resize(kase.inputs.size());
  return signature;
}

TEST(Version1Corpus, EveryInputBindsToTheArgumentItsPositionNamed) {
  const std::map<std::string, std::vector<std::string>> expected{
      {"softmax_x", {"self"}},
      {"log_softmax_logits_dtype", {"self"}},
      {"index_select_input_idx", {"self", "index"}},
      {"gather_src_positions", {"self", "index"}},
      {"matmul_a_b_transposed", {"self", "other"}},
      {"layer_norm_features_gamma_beta", {"input", "weight", "bias"}},
      {"cross_entropy_logits_target", {"input", "target"}},
      {"cross_entropy_label_out_of_range", {"input", "target"}},
      {"nll_loss_scores_labels_weight", {"input", "target", "weight"}},
      {"embedding_table_ids", {"weight", "indices"}},
      {"sum_v_dims", {"input"}},
      {"kernels_softmax_scores", {"input"}},
      {"kernels_nll_loss_counted", {"input", "target"}},
      {"validate_class_targets_rejected", {"target"}},
      {"validate_class_mapping_bijection", {"labels"}},
  };
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(kCorpus)) {
    if (entry.path().extension() != ".yaml") continue;
    ++files;
    const std::string stem = entry.path().stem().string();
    const LoadedCase loaded = load_case_file(entry.path());
    ASSERT_TRUE(loaded.ok()) << loaded.errors.front().to_string();
    const ResolvedOp resolved = resolve_op(*loaded.value, default_registry());
    ASSERT_NE(resolved.def, nullptr) << stem << ": " << resolved.problems[0];
    const auto wanted = expected.find(stem);
    ASSERT_NE(wanted, expected.end()) << stem << " has no expected binding";
    EXPECT_EQ(bound_arguments(*loaded.value, resolved), wanted->second) << stem;
  }
  EXPECT_EQ(files, expected.size());
}

TEST(Version1Corpus, EveryFilePassesThroughTheRunner) {
  const auto run = run_casebook("run --verbose --backend cpu tests/data/v1");
  EXPECT_EQ(run.status, 0) << run.output;
  for (const auto& entry : fs::directory_iterator(kCorpus)) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string id = entry.path().stem().string();
    EXPECT_TRUE(has_line(run.output, "^PASS +" + id + " +cpu")) << id << "\n"
                                                                << run.output;
  }
}

TEST(Version1Corpus, ShowTakesTheSameFiles) {
  const auto shown =
      run_casebook("show tests/data/v1/index_select_input_idx.yaml");
  EXPECT_EQ(shown.status, 0) << shown.output;
  EXPECT_NE(shown.output.find("[3, 3]"), std::string::npos) << shown.output;
}

}  // namespace
}  // namespace casebook
