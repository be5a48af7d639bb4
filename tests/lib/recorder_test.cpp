// The C++ recorder (issue 14): the first failure of a training loop becomes
// a case; later ones are counted, not written.
#include "casebook/recorder.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "casebook/loader.h"
#include "run_command.h"
#include "tensors/materialise.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;

TEST(Recorder, KeepsTheFirstErrorNotALaterOne) {
  const fs::path root = fs::path(::testing::TempDir()) /
                        ("casebook_recorder_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "fixtures");
  RecorderOptions options;
  options.op = "torch.cross_entropy";
  options.name = "label_4";
  options.cases = root / "cases";
  options.args = {{"reduction", "mean"}};
  Recorder recorder(options);

  const at::Tensor logits = at::randn({3, 4});
  int thrown = 0;
  for (int64_t iteration = 0; iteration < 5; ++iteration) {
    // Iterations 0 and 1 are fine; 2 has a label of 4 (4 classes); 3 and 4
    // fail otherwise, as a poisoned run does after its first error.
    const at::Tensor labels = iteration < 2 ? at::tensor({0, 1, 3}, at::kLong)
                                            : at::tensor({0, 2, 4}, at::kLong);
    try {
      recorder.run(iteration, {{"input", logits}, {"target", labels}}, [&] {
        if (iteration > 2) throw std::runtime_error("later: NaN loss");
        at::cross_entropy_loss(logits, labels);
      });
      recorder.completed("forward");
    } catch (const std::exception& error) {
      ++thrown;
      if (iteration == 2) {
        EXPECT_NE(std::string(error.what()).find("out of bounds"),
                  std::string::npos);
      } else {
        EXPECT_EQ(std::string(error.what()), "later: NaN loss");
      }
    }
  }
  EXPECT_EQ(thrown, 3);  // every exception re-thrown
  EXPECT_EQ(recorder.consequences(), 2);
  ASSERT_TRUE(recorder.recorded()) << recorder.write_error();
  EXPECT_EQ(recorder.case_file(), root / "cases/cross_entropy/label_4.yaml");
  EXPECT_NE(recorder.first_error().find("Target 4 is out of bounds"),
            std::string::npos);

  const std::string text = testing_support::read_text(recorder.case_file());
  EXPECT_NE(text.find("  first_error: \"Target 4 is out of bounds.\"\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("NaN loss"), std::string::npos);
  EXPECT_NE(text.find("  iteration: 2\n"), std::string::npos);
  EXPECT_NE(text.find("  last_completed_step: \"forward\"\n"),
            std::string::npos);
  const LoadedCase loaded = load_case_file(recorder.case_file());
  ASSERT_TRUE(loaded.ok()) << loaded.errors.front().to_string();
  EXPECT_TRUE(at::equal(materialise(loaded.value->inputs[0]).view, logits));
  EXPECT_TRUE(at::equal(materialise(loaded.value->inputs[1]).view,
                        at::tensor({0, 2, 4}, at::kLong)));
  // One case: the later failures wrote nothing.
  int yaml_files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root / "cases")) {
    yaml_files += entry.path().extension() == ".yaml";
  }
  EXPECT_EQ(yaml_files, 1);
  fs::remove_all(root);
}

// Issue 48, item 4: a tensor named for no input of the op (nor by the table
// of names training code uses) is refused before anything is written; the
// loop's own exception still propagates.
TEST(Recorder, RefusesANameTheOpDoesNotTakeBeforeWriting) {
  const fs::path root =
      fs::path(::testing::TempDir()) /
      ("casebook_recorder_names_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "fixtures");
  RecorderOptions options;
  options.op = "torch.cross_entropy";
  options.name = "lbl";
  options.cases = root / "cases";
  Recorder recorder(options);
  const at::Tensor labels = at::tensor({0, 2, 4}, at::kLong);
  EXPECT_THROW(recorder.run(0, {{"lbl", labels}, {"out", at::randn({3, 4})}},
                            [] { throw std::runtime_error("out of bounds"); }),
               std::runtime_error);
  EXPECT_FALSE(recorder.recorded());
  EXPECT_NE(recorder.write_error().find(
                "`lbl` is no input of `torch.cross_entropy` (a capture binds "
                "each tensor by its name, never by its place): name it as one "
                "of input, target, weight; for `input` also logits"),
            std::string::npos)
      << recorder.write_error();
  EXPECT_FALSE(fs::exists(root / "cases"));
  fs::remove_all(root);
}

}  // namespace
}  // namespace casebook
