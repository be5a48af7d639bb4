// Capture (issue 14): saved tensors into a case and fixtures that the loader
// reads back to the very same tensors; refused input; concurrent captures;
// the capture CLI's verdicts.
#include "capture/capture.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <limits>
#include <sstream>
#include <thread>

#include "casebook/loader.h"
#include "run_command.h"
#include "tensors/fixtures.h"
#include "tensors/materialise.h"

namespace casebook {
namespace {

namespace fs = std::filesystem;
using testing_support::read_text;
using testing_support::run_shell;
using testing_support::write_file;

const fs::path kData = fs::path(CASEBOOK_TEST_DATA) / "capture";

class CaptureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) /
            ("casebook_capture_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "fixtures");
  }
  void TearDown() override { fs::remove_all(root_); }

  CaptureRequest request(const std::string& name) const {
    CaptureRequest request;
    request.op = "torch.abs";
    request.name = name;
    request.cases = root_ / "cases";
    return request;
  }
  // Every file under the root (fixtures folder aside: it was made by SetUp).
  std::vector<std::string> files() const {
    std::vector<std::string> found;
    for (const auto& entry : fs::recursive_directory_iterator(root_)) {
      if (entry.is_regular_file()) {
        found.push_back(fs::relative(entry.path(), root_).string());
      }
    }
    return found;
  }
  fs::path root_;
};

// The case's first input, as a run would make it.
at::Tensor loaded_input(const fs::path& case_file, size_t index = 0) {
  const LoadedCase loaded = load_case_file(case_file);
  if (!loaded.ok()) {
    ADD_FAILURE() << loaded.errors.front().to_string();
    return {};
  }
  return materialise(loaded.value->inputs.at(index)).view;
}

void expect_identical(const at::Tensor& found, const at::Tensor& expected) {
  ASSERT_TRUE(found.defined());
  EXPECT_EQ(found.scalar_type(), expected.scalar_type());
  EXPECT_EQ(found.sizes(), expected.sizes());
  EXPECT_EQ(found.strides(), expected.strides());
  EXPECT_EQ(found.storage_offset(), expected.storage_offset());
  EXPECT_TRUE(at::equal(found, expected));
}

std::string safetensors_bytes(const at::Tensor& tensor) {
  const std::string header = R"({"w":{"dtype":"BF16","shape":[2,3],)"
                             R"("data_offsets":[0,12]}})";
  std::string bytes;
  for (int i = 0; i < 8; ++i) {
    bytes.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xff));
  }
  return bytes + header +
         std::string(static_cast<const char*>(tensor.data_ptr()), 12);
}

TEST_F(CaptureTest, NpyRoundTripsThroughAFixture) {
  // More than kInlineLimit elements: a fixture.
  const at::Tensor tensor = at::randn({9, 9}, at::kFloat);
  write_npy(root_ / "x.npy", tensor);
  CaptureRequest made = request("npy");
  made.tensors = {{"self", read_saved_tensor(root_ / "x.npy", "")}};
  const CaptureResult result = write_capture(made);
  EXPECT_EQ(result.case_file, root_ / "cases/abs/npy.yaml");
  ASSERT_EQ(result.fixtures.size(), 1u);
  EXPECT_EQ(result.fixtures[0].parent_path(), root_ / "fixtures/abs");
  EXPECT_EQ(result.fixtures[0].stem().string(),
            sha256_file(result.fixtures[0]));
  expect_identical(loaded_input(result.case_file), tensor);
  EXPECT_NE(read_text(result.case_file).find("sha256: "), std::string::npos);
}

TEST_F(CaptureTest, SafetensorsRoundTripsBfloat16) {
  const at::Tensor tensor = at::randn({2, 3}).to(at::kBFloat16);
  write_file(root_ / "w.safetensors", safetensors_bytes(tensor));
  CaptureRequest made = request("st");
  made.tensors = {{"self", read_saved_tensor(root_ / "w.safetensors", "w")}};
  expect_identical(loaded_input(write_capture(made).case_file), tensor);
}

TEST_F(CaptureTest, PtDictRoundTripsWithSmallLabelsInline) {
  CaptureRequest made = request("dict");
  made.op = "torch.cross_entropy";
  made.tensors = {{"input", read_saved_tensor(kData / "batch.pt", "input")},
                  {"target", read_saved_tensor(kData / "batch.pt", "target")}};
  const CaptureResult result = write_capture(made);
  EXPECT_EQ(result.fixtures.size(), 0u);  // 12 logits and 3 labels: inline
  const std::string text = read_text(result.case_file);
  EXPECT_NE(text.find("values: [0, 2, 4]"), std::string::npos) << text;
  EXPECT_EQ(text.find("file: "), std::string::npos) << text;
  expect_identical(loaded_input(result.case_file, 0), made.tensors[0].tensor);
  expect_identical(loaded_input(result.case_file, 1), made.tensors[1].tensor);
}

// An `--arg` is read as a case file's `args` entry is (JSON, as the Python
// module sends it, or YAML) and written by the one writer of arguments; one
// that is no argument value is refused, naming it, and nothing is written.
TEST_F(CaptureTest, ArgumentsAreReadAsACaseReadsThemAndWrittenOnce) {
  CaptureRequest made = request("args");
  made.op = "torch.cross_entropy";
  made.tensors = {{"input", read_saved_tensor(kData / "batch.pt", "input")},
                  {"target", read_saved_tensor(kData / "batch.pt", "target")}};
  made.args = {{"reduction", "\"sum\""},
               {"ignore_index", "-100"},
               {"label_smoothing", "0.0"},
               {"weight_order", "[1, \"a b\"]"}};
  const std::string text = read_text(write_capture(made).case_file);
  EXPECT_NE(text.find("args: {ignore_index: -100, label_smoothing: 0.0, "
                      "reduction: sum, weight_order: [1, \"a b\"]}\n"),
            std::string::npos)
      << text;
  CaptureRequest refused = request("refused_arg");
  refused.tensors = made.tensors;
  refused.args = {{"reduction", "{mean: 1}"}};
  try {
    write_capture(refused);
    ADD_FAILURE() << "a map argument was taken";
  } catch (const CaptureError& error) {
    EXPECT_NE(std::string(error.what()).find("--arg `reduction={mean: 1}`"),
              std::string::npos)
        << error.what();
  }
  // Nothing created, not even the op's folder.
  EXPECT_FALSE(fs::exists(root_ / "cases" / "abs"));
}

TEST_F(CaptureTest, PtListKeepsANonContiguousViewsLayout) {
  const at::Tensor view = read_saved_tensor(kData / "list.pt", "1");
  // What PyTorch saw (make_fixtures.py): strides [1, 8], offset 10.
  std::ifstream facts(kData / "list_view.txt");
  std::vector<double> values(24);
  for (double& value : values) facts >> value;
  int64_t stride0 = 0, stride1 = 0, offset = 0;
  facts >> stride0 >> stride1 >> offset;
  EXPECT_EQ(view.strides(), (std::vector<int64_t>{stride0, stride1}));
  EXPECT_EQ(view.storage_offset(), offset);
  EXPECT_TRUE(
      at::equal(view.contiguous().view({-1}), at::tensor(values, at::kDouble)));
  CaptureRequest made = request("view");
  made.tensors = {{"self", view}};
  const CaptureResult result = write_capture(made);
  EXPECT_NE(read_text(result.case_file)
                .find("layout: {stride: [1, 8], "
                      "storage_offset: 10}"),
            std::string::npos);
  expect_identical(loaded_input(result.case_file), view);
}

TEST_F(CaptureTest, ScalarsAndExpandedViewsKeepTheirValues) {
  CaptureRequest made = request("scalar");
  made.tensors = {{"self", at::scalar_tensor(5, at::kLong)}};
  expect_identical(loaded_input(write_capture(made).case_file),
                   made.tensors[0].tensor);
  // An expanded view (a stride 0) is written as such (issue 51).
  made.name = "expanded";
  made.tensors = {{"self", at::arange(3, at::kFloat).expand({4, 3})}};
  const CaptureResult result = write_capture(made);
  EXPECT_TRUE(result.notes.empty());
  EXPECT_NE(read_text(result.case_file).find("layout: {stride: [0, 1]"),
            std::string::npos);
  expect_identical(loaded_input(result.case_file), made.tensors[0].tensor);
}

// Issue 51: one tensor handed twice (`out=x`) is written `{same_as: NAME}`;
// another tensor of the same values, or another view of the same storage,
// is a tensor of its own.
TEST_F(CaptureTest, OneTensorHandedTwiceIsWrittenSameAs) {
  CaptureRequest made = request("out_is_self");
  made.op = "aten::add.out";
  const at::Tensor x = at::arange(200, at::kFloat);
  made.tensors = {{"self", x}, {"other", x.clone()}, {"out", x}};
  const std::string text = read_text(write_capture(made).case_file);
  EXPECT_NE(text.find("\n  out: {same_as: self}\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("other: {same_as"), std::string::npos) << text;
  made.name = "shifted";
  made.tensors = {{"self", x.narrow(0, 0, 100)},
                  {"other", x.narrow(0, 100, 100)},
                  {"out", x.narrow(0, 1, 100)}};
  const std::string views = read_text(write_capture(made).case_file);
  EXPECT_EQ(views.find("same_as"), std::string::npos) << views;
}

TEST_F(CaptureTest, FixturesGoBesideTheCasesFolderWhenNoneIsAbove) {
  fs::remove_all(root_ / "fixtures");
  CaptureRequest made = request("beside");
  made.cases = root_ / "sub" / "cases/";
  made.tensors = {{"self", at::ones({100})}};
  const CaptureResult result = write_capture(made);
  EXPECT_EQ(result.fixtures.at(0).parent_path(), root_ / "sub/fixtures/abs");
  expect_identical(loaded_input(result.case_file), made.tensors[0].tensor);
}

TEST_F(CaptureTest, AnAlteredOrTruncatedFixtureIsRefusedByItsHash) {
  CaptureRequest made = request("altered");
  made.tensors = {{"self", at::arange(100, at::kFloat)}};
  const CaptureResult result = write_capture(made);
  const fs::path fixture = result.fixtures.at(0);
  std::string bytes = read_text(fixture);
  for (const std::string& changed : {bytes.substr(0, bytes.size() - 4),
                                     bytes.substr(0, bytes.size() - 1) + "X"}) {
    fs::permissions(fixture, fs::perms::owner_write, fs::perm_options::add);
    write_file(fixture, changed);
    try {
      loaded_input(result.case_file);
      ADD_FAILURE() << "an altered fixture was accepted";
    } catch (const std::exception& error) {
      EXPECT_NE(std::string(error.what())
                    .find("sha256 expected " + fixture.stem().string()),
                std::string::npos)
          << error.what();
    }
  }
}

TEST_F(CaptureTest, NothingIsOverwritten) {
  CaptureRequest made = request("once");
  made.tensors = {{"self", at::ones({100})}};
  const CaptureResult first = write_capture(made);
  const std::string before = read_text(first.case_file);
  made.origin = {{"cause", "another"}};
  try {
    write_capture(made);
    ADD_FAILURE() << "a case was overwritten";
  } catch (const CaptureError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("once.yaml: a case of that name "
                        "already exists"),
              std::string::npos);
  }
  EXPECT_EQ(read_text(first.case_file), before);
  // A fixture of the same name with other bytes is an error, not replaced.
  const fs::path fixture = first.fixtures.at(0);
  fs::permissions(fixture, fs::perms::owner_write, fs::perm_options::add);
  write_file(fixture, "other bytes");
  made.name = "twice";
  try {
    write_capture(made);
    ADD_FAILURE() << "a fixture was overwritten";
  } catch (const CaptureError& error) {
    EXPECT_NE(std::string(error.what()).find("already exists with other bytes"),
              std::string::npos)
        << error.what();
  }
  EXPECT_EQ(read_text(fixture), "other bytes");
  EXPECT_FALSE(fs::exists(root_ / "cases/abs/twice.yaml"));
}

// An origin text is what the failing program said: an ANSI-coloured
// message, a byte that is not UTF-8, a traceback of 10,000 bytes. The case
// written must load (the loader refuses control characters, invalid UTF-8 and
// scalars over 4096 bytes), so capture keeps such text printable and bounded.
TEST_F(CaptureTest, HostileOriginTextStillGivesACaseThatLoads) {
  CaptureRequest made = request("noisy_origin");
  made.tensors = {{"self", at::ones({3})}};
  made.origin = {{"first_error", "\x1b[31mIndexError\x1b[0m: Target 4 \xff" +
                                     std::string(10000, 'x')},
                 {"cause", "bell\a and a\nsecond line"}};
  const CaptureResult written = write_capture(made);
  const LoadedCase loaded = load_case_file(written.case_file);
  ASSERT_TRUE(loaded.ok()) << loaded.errors.front().to_string();
  const std::string text = read_text(written.case_file);
  EXPECT_NE(text.find("IndexError"), std::string::npos) << text;
  EXPECT_NE(text.find("more bytes"), std::string::npos) << text;
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
}

std::string backend_in(const Origin& origin) {
  for (const auto& [key, value] : origin.entries) {
    if (key == "backend") return value;
  }
  return "";
}

// Issue 48, item 6: ROCm keeps PyTorch's `cuda` names for AMD GPUs. A
// capture whose origin says `backend: cuda` with a ROCm PyTorch's
// `versions.hip` (a Recorder before the fix, a hand-written --origin) is a
// hip case; without `versions.hip` cuda stays cuda.
TEST_F(CaptureTest, ACudaBackendOfARocmPyTorchIsHip) {
  CaptureRequest rocm = request("rocm_gpu");
  rocm.tensors = {{"self", at::ones({3})}};
  rocm.origin = {{"backend", "cuda"}, {"versions.hip", "6.2.41133"}};
  const LoadedCase hip = load_case_file(write_capture(rocm).case_file);
  ASSERT_TRUE(hip.ok()) << hip.errors.front().to_string();
  EXPECT_EQ(backend_in(hip.value->origin), "hip");

  CaptureRequest nvidia = request("nvidia_gpu");
  nvidia.tensors = {{"self", at::ones({3})}};
  nvidia.origin = {{"backend", "cuda"}, {"versions.cuda", "12.4"}};
  const LoadedCase cuda = load_case_file(write_capture(nvidia).case_file);
  ASSERT_TRUE(cuda.ok()) << cuda.errors.front().to_string();
  EXPECT_EQ(backend_in(cuda.value->origin), "cuda");
}

TEST_F(CaptureTest, ConcurrentCapturesLoseNothing) {
  const at::Tensor shared = at::randn({100});  // a fixture, shared
  constexpr int kCaptures = 8;
  std::vector<std::thread> threads;
  std::vector<std::string> errors(kCaptures);
  for (int i = 0; i < kCaptures; ++i) {
    threads.emplace_back([&, i] {
      CaptureRequest made = request("c" + std::to_string(i % 4));
      made.tensors = {{"self", shared}};
      try {
        write_capture(made);
      } catch (const CaptureError& error) {
        errors[i] = error.what();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  int refused = 0;
  for (const std::string& error : errors) {
    if (error.empty()) continue;
    ++refused;
    EXPECT_NE(error.find("already exists"), std::string::npos) << error;
  }
  EXPECT_EQ(refused, 4);  // each name written once, by one of its two
  for (int i = 0; i < 4; ++i) {
    expect_identical(
        loaded_input(root_ / ("cases/abs/c" + std::to_string(i) + ".yaml")),
        shared);
  }
  std::vector<std::string> all = files();
  EXPECT_EQ(all.size(), 5u) << ::testing::PrintToString(all);  // 4 + 1
}

TEST_F(CaptureTest, BadInputNamesTheFileAndWhatWasFoundAndWritesNothing) {
  fs::copy_file(kData / "batch.pt", root_ / "zip.npy");
  write_npy(root_ / "n.npy", at::ones({2}));
  fs::copy_file(root_ / "n.npy", root_ / "npy.pt");
  write_file(root_ / "text.safetensors", "hello, world");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {(root_ / "zip.npy").string(), "found a zip archive"},
      {(root_ / "npy.pt").string(), "found a .npy file"},
      {(root_ / "text.safetensors").string(), "found a file starting with"},
      {(kData / "batch.pt").string() + "#label",
       "no key `label`; the dict "
       "holds input, target"},
      {(kData / "list.pt").string() + "#2", "no item 2 in a list of 2"},
      {(kData / "number.pt").string(), "found an int"},
      {(kData / "mixed.pt").string() + "#lr", "`lr` is a float, not a tensor"},
  };
  const std::vector<std::string> before = files();
  for (const auto& [argument, found] : cases) {
    try {
      const TensorArgument parsed = parse_tensor_argument("self=" + argument);
      read_saved_tensor(parsed.file, parsed.key);
      ADD_FAILURE() << argument << " was accepted";
    } catch (const CaptureError& error) {
      const std::string message = error.what();
      EXPECT_NE(
          message.find(
              parse_tensor_argument("x=" + argument).file.filename().string()),
          std::string::npos)
          << message;
      EXPECT_NE(message.find(found), std::string::npos) << message;
    }
  }
  CaptureRequest bad = request("bad");
  bad.tensors = {{"self", at::ones({100})}, {"self", at::ones({2})}};
  EXPECT_THROW(write_capture(bad), CaptureError);  // a name twice
  bad.tensors = {{"self", at::ones({100})}};
  bad.origin = {{"iteraton", "3"}};
  EXPECT_THROW(write_capture(bad), CaptureError);  // an unknown origin key
  EXPECT_EQ(files(), before);
}

// A dict of one item: read where LibTorch can, else an error that says why.
TEST_F(CaptureTest, ADictOfOneItemIsReadOrExplained) {
  try {
    EXPECT_TRUE(at::equal(read_saved_tensor(kData / "single.pt", "x"),
                          at::arange(3.0, at::kFloat)));
  } catch (const CaptureError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("single.pt: not a torch.save "
                        "file LibTorch can read"),
              std::string::npos);
    EXPECT_NE(std::string(error.what()).find("a dict or list of a single item"),
              std::string::npos)
        << error.what();
  }
}

// The CLI end to end: a capture that reproduces (a label of 4 in a 4-class
// problem) and one that does not, with --expect-failure.
TEST_F(CaptureTest, CommandRunsTheCaseAndJudgesReproduction) {
  const std::string casebook = std::string("cd '") + root_.string() + "' && '" +
                               CASEBOOK_EXECUTABLE + "' capture ";
  const std::string batch = (kData / "batch.pt").string();
  const auto reproduced =
      run_shell(casebook + "--op torch.cross_entropy --tensor input=" + batch +
                "#input --tensor target=" + batch +
                "#target --name label4 --origin iteration=18231 --backend cpu "
                "--expect-failure");
  EXPECT_EQ(reproduced.status, 0) << reproduced.output;
  EXPECT_TRUE(testing_support::has_line(
      reproduced.output, R"(cross_entropy/label4 +FAIL index_out_of_range)"))
      << reproduced.output;
  const std::string text = read_text(root_ / "cases/cross_entropy/label4.yaml");
  EXPECT_NE(text.find("  iteration: 18231\n"), std::string::npos) << text;
  // A saved file does not say which PyTorch wrote it; casebook's own
  // LibTorch is not that one.
  EXPECT_EQ(text.find("    torch: "), std::string::npos) << text;
  // Without origin.first_error there is nothing to compare with: said.
  EXPECT_NE(reproduced.output.find("has no origin.first_error"),
            std::string::npos)
      << reproduced.output;

  const auto passing =
      run_shell(casebook + "--op torch.abs --tensor self=" + batch +
                "#input --name fine --backend cpu --expect-failure");
  EXPECT_EQ(passing.status, 1) << passing.output;
  EXPECT_NE(passing.output.find("does not reproduce"), std::string::npos);
}

// Issue 51: one saved tensor named twice is one tensor passed twice, as the
// Python module passes a tensor handed twice.
TEST_F(CaptureTest, OneSavedTensorNamedTwiceIsWrittenSameAs) {
  const std::string batch = (kData / "batch.pt").string();
  const auto captured = run_shell(
      std::string("cd '") + root_.string() + "' && '" + CASEBOOK_EXECUTABLE +
      "' capture --op aten::add.out --tensor self=" + batch +
      "#input --tensor other=" + batch + "#input --tensor out=" + batch +
      "#input --name twice --backend cpu --keep-unreproduced");
  const std::string text = read_text(root_ / "cases/add.out/twice.yaml");
  EXPECT_NE(text.find("\n  other: {same_as: self}\n  out: {same_as: self}\n"),
            std::string::npos)
      << captured.output << text;
}

// Issue 48, item 4: Hugging Face's names, labels first, bind by the table
// of names training code uses, and reproduce; a name the op does not have
// and the table does not give it is refused before anything is written.
TEST_F(CaptureTest, TrainingNamesBindByTheTableOtherNamesAreRefused) {
  const std::string casebook = std::string("cd '") + root_.string() + "' && '" +
                               CASEBOOK_EXECUTABLE +
                               "' capture --op torch.cross_entropy ";
  const std::string batch = (kData / "batch.pt").string();
  const auto named = run_shell(casebook + "--tensor labels=" + batch +
                               "#target --tensor logits=" + batch +
                               "#input --name hf --backend cpu "
                               "--expect-failure");
  EXPECT_EQ(named.status, 0) << named.output;
  EXPECT_TRUE(testing_support::has_line(
      named.output, R"(cross_entropy/hf +FAIL index_out_of_range)"))
      << named.output;

  const auto refused = run_shell(casebook + "--tensor out=" + batch +
                                 "#input --tensor lbl=" + batch +
                                 "#target --name other --backend cpu "
                                 "--expect-failure");
  EXPECT_EQ(refused.status, 1) << refused.output;
  EXPECT_TRUE(testing_support::has_line(
      refused.output,
      R"(  `lbl` is no input of `torch\.cross_entropy` \(a capture binds each )"
      R"(tensor by its name, never by its place\): name it as one of input, )"
      R"(target, weight; for `input` also logits, .*; for `target` also )"
      R"(labels, label, targets, y, classes; .*)"))
      << refused.output;
  EXPECT_FALSE(fs::exists(root_ / "cases/cross_entropy/other.yaml"));
}

// A tensor's bytes, C order (a complex one's as its real pairs).
at::Tensor bytes_of(const at::Tensor& tensor) {
  at::Tensor flat = tensor.contiguous();
  if (flat.is_complex()) flat = at::view_as_real(flat);
  return flat.reshape({-1}).view(at::kByte);
}

// Issue 34, part 4: a small tensor of any dtype is inline, and reads back
// with the very bits captured (floats included: -0, subnormals, extremes).
TEST_F(CaptureTest, SmallTensorsOfEveryDtypeAreInlineBitForBit) {
  const at::Tensor specials =
      at::tensor({-0.0F, 1e-40F, 3.4028235e38F, -1.1754944e-38F, 0.1F,
                  std::numeric_limits<float>::infinity(), 16777217.0F, -2.5F},
                 at::kFloat);
  const std::vector<at::Tensor> tensors = {
      specials, at::randn({5, 8}, at::kDouble), at::randn({3, 4}).to(at::kHalf),
      at::randn({2, 3}).to(at::kBFloat16), at::randn({4}, at::kComplexFloat),
      at::tensor({1, 0, 1}).to(at::kBool),
      at::arange(-3, 61, at::kShort),  // 64 elements: still inline
      // Issue 36, part 2: the doubles that need all 17 digits, the
      // subnormals and extremes, int64's extremes and 2^53 + 1, float16's
      // and bfloat16's largest and smallest.
      at::tensor(
          {0.1, 1.0 / 3.0, -0.0, std::numeric_limits<double>::denorm_min(),
           std::numeric_limits<double>::min(),
           std::numeric_limits<double>::max(),
           -std::numeric_limits<double>::max(), 0.30000000000000004,
           2.2250738585072009e-308, 1e23},
          at::kDouble),
      at::tensor(
          {std::numeric_limits<int64_t>::min(),
           std::numeric_limits<int64_t>::max(), int64_t{9007199254740993}},
          at::kLong),
      at::tensor({65504.0F, -65504.0F, 6.103515625e-05F,
                  5.9604644775390625e-08F, -0.0F})
          .to(at::kHalf),
      at::tensor({3.3895313892515355e38F, 9.183549615799121e-41F, -0.0F})
          .to(at::kBFloat16)};
  for (size_t i = 0; i < tensors.size(); ++i) {
    CaptureRequest made = request("dtype" + std::to_string(i));
    made.tensors = {{"self", tensors[i]}};
    const CaptureResult result = write_capture(made);
    EXPECT_TRUE(result.fixtures.empty()) << tensors[i].scalar_type();
    const at::Tensor found = loaded_input(result.case_file);
    ASSERT_TRUE(found.defined());
    ASSERT_EQ(found.scalar_type(), tensors[i].scalar_type());
    ASSERT_EQ(found.sizes(), tensors[i].sizes());
    // The bits, not the values: -0.0 == 0.0 would hide a lost sign.
    EXPECT_TRUE(at::equal(bytes_of(found), bytes_of(tensors[i])))
        << tensors[i].scalar_type() << "\n"
        << read_text(result.case_file);
  }
  CaptureRequest large = request("large");
  large.tensors = {{"self", at::arange(65, at::kFloat)}};
  EXPECT_EQ(write_capture(large).fixtures.size(), 1u);
}

// Issue 34, parts 1 and 2 through the command: `target` first is the
// target; the failure is compared with origin.first_error; --accept writes
// it as the case's expect, after which the case passes.
TEST_F(CaptureTest, CommandComparesWithTheOriginAndAccepts) {
  const std::string casebook = std::string("cd '") + root_.string() + "' && '" +
                               CASEBOOK_EXECUTABLE + "' ";
  const std::string batch = (kData / "batch.pt").string();
  const std::string tensors = "--tensor target=" + batch +
                              "#target --tensor input=" + batch + "#input ";
  const auto same = run_shell(
      casebook + "capture --op torch.cross_entropy " + tensors +
      "--name label4 --backend cpu --expect-failure --accept "
      "--origin 'first_error=IndexError: Target 4 is out of bounds.'");
  EXPECT_EQ(same.status, 0) << same.output;
  EXPECT_TRUE(testing_support::has_line(
      same.output,
      R"(the capture reproduces the failure: cpu: FAIL index_out_of_range: Target 4 is out of bounds\.)"))
      << same.output;
  const fs::path case_file = root_ / "cases/cross_entropy/label4.yaml";
  const std::string text = read_text(case_file);
  EXPECT_NE(text.find("  cpu: {error: index_out_of_range}\n"),
            std::string::npos)
      << text;
  // Issue 48, item 5: the GPUs, which did not run here, keep their runs,
  // expecting what the CPU's index_out_of_range is there.
  EXPECT_NE(text.find("# cuda, hip: not run here; expected as the cpu "
                      "failure implies\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  cuda: {error: device_assert}\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  hip: {error: device_assert}\n"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("backends:"), std::string::npos) << text;
  const auto rerun = run_shell(casebook + "run '" + case_file.string() +
                               "' --backend cpu --evidence ''");
  EXPECT_EQ(rerun.status, 0) << rerun.output;
  // A second acceptance is refused: the file says `expect` already.
  const auto again =
      run_shell(casebook + "accept '" + case_file.string() + "' --backend cpu");
  EXPECT_EQ(again.status, 1) << again.output;
  EXPECT_NE(again.output.find("already says `expect`"), std::string::npos)
      << again.output;

  const auto other = run_shell(
      casebook + "capture --op torch.cross_entropy " + tensors +
      "--name oom --backend cpu --expect-failure --keep-unreproduced "
      "--origin 'first_error=torch.OutOfMemoryError: CUDA out of memory.'");
  EXPECT_EQ(other.status, 1) << other.output;
  EXPECT_NE(other.output.find("the capture fails differently"),
            std::string::npos)
      << other.output;
  EXPECT_NE(other.output.find("origin (cpu): torch.OutOfMemoryError: CUDA out "
                              "of memory. (out_of_memory)"),
            std::string::npos)
      << other.output;
  // `casebook accept` refuses what is not reproduced.
  const auto refused =
      run_shell(casebook + "accept cases/cross_entropy/oom.yaml --backend cpu");
  EXPECT_EQ(refused.status, 1) << refused.output;
  EXPECT_EQ(read_text(root_ / "cases/cross_entropy/oom.yaml").find("expect:"),
            std::string::npos);
}

}  // namespace
}  // namespace casebook
