// bfloat16 .npy both ways with plain NumPy (Debian's python3-numpy, no
// ml_dtypes): casebook's evidence loads in NumPy as '<V2' with the dtype in
// its sidecar, and '<V2' / '|V2' files NumPy writes are read as bfloat16 when
// the case (or a sidecar) says so, refused with what to add otherwise.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "run_command.h"
#include "tensors/fixtures.h"

namespace casebook {
namespace {
namespace fs = std::filesystem;
using testing_support::run_shell;

class NpyBfloat16 : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() /
              ("casebook-bf16-" + std::to_string(getpid()));
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }
  // Runs a Python program with Debian's interpreter and NumPy
  // (python3-numpy, installed by ci/install-deps.sh), or CASEBOOK_PYTHON.
  testing_support::CommandResult python(const std::string& program) {
    const fs::path script = folder_ / "script.py";
    std::ofstream(script) << "import json, numpy as np\n" << program;
    return run_shell(interpreter() + " '" + script.string() + "'");
  }
  static std::string interpreter() {
    const char* chosen = std::getenv("CASEBOOK_PYTHON");
    return chosen != nullptr ? chosen : "/usr/bin/python3";
  }
  // Whether the interpreter is a Python with NumPy.
  bool have_numpy() {
    return run_shell(interpreter() + " -c 'import numpy; print(\"numpy-ok\")'")
               .output == "numpy-ok\n";
  }
  fs::path folder_;
};

// 1.5, -2, 3.140625 and 65280 are exact in bfloat16.
const char kValues[] = "[1.5, -2.0, 3.140625, 65280.0]";

TEST_F(NpyBfloat16, EvidenceLoadsInPlainNumpyWithTheDtypeBesideIt) {
  if (!have_numpy()) GTEST_SKIP() << interpreter() << " has no NumPy";
  const fs::path file = folder_ / "actual_0.npy";
  write_npy(file, at::tensor({1.5, -2.0, 3.140625, 65280.0}, at::kDouble)
                      .to(at::kBFloat16)
                      .reshape({2, 2}));
  const auto run = python(
      "a = np.load('" + file.string() +
      "')\n"
      "side = json.load(open('" +
      npy_sidecar(file).string() +
      "'))\n"
      "f = (a.view('<u2').astype('<u4') << 16).view('<f4')\n"
      "print(a.dtype.str, a.shape, side['dtype'], f.ravel().tolist())\n");
  ASSERT_EQ(run.status, 0) << run.output;
  // NumPy loads the descr as void (and spells it '|V2').
  EXPECT_EQ(run.output, std::string("|V2 (2, 2) bfloat16 ") + kValues + "\n");
  // And back: the sidecar says bfloat16.
  const at::Tensor back = read_npy(file);
  EXPECT_EQ(back.scalar_type(), at::kBFloat16);
  EXPECT_EQ(back.sizes(), at::IntArrayRef({2, 2}));
}

TEST_F(NpyBfloat16, NumpyV2IsReadAsBfloat16WhenTheCaseSaysSo) {
  if (!have_numpy()) GTEST_SKIP() << interpreter() << " has no NumPy";
  const fs::path file = folder_ / "weights.npy";
  const auto run = python("x = np.array(" + std::string(kValues) +
                          ", '<f4')\n"
                          "bits = (x.view('<u4') >> 16).astype('<u2')\n"
                          "np.save('" +
                          file.string() +
                          "', bits.view('V2'))\n"
                          "print(np.load('" +
                          file.string() + "').dtype.str)\n");
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_EQ(run.output, "|V2\n");
  const at::Tensor tensor = read_fixture(file, "", at::kBFloat16);
  EXPECT_EQ(tensor.scalar_type(), at::kBFloat16);
  EXPECT_TRUE(
      at::equal(tensor.to(at::kDouble),
                at::tensor({1.5, -2.0, 3.140625, 65280.0}, at::kDouble)));
  try {
    read_fixture(file, "", at::kFloat);
    FAIL() << "read raw bytes as a dtype nobody declared";
  } catch (const FixtureError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("'|V2' is two raw bytes per element (how NumPy saves "
                        "ml_dtypes' bfloat16); read as bfloat16 only where "
                        "the case says `dtype: bfloat16` or a sidecar "
                        "weights.npy.json says {\"dtype\": \"bfloat16\"}"),
              std::string::npos)
        << error.what();
  }
  std::ofstream(npy_sidecar(file)) << R"({"dtype": "bfloat16"})";
  EXPECT_EQ(read_npy(file).scalar_type(), at::kBFloat16);
}

TEST_F(NpyBfloat16, MlDtypesDescrIsStillRead) {
  // casebook wrote descr 'bfloat16' before; ml_dtypes registers that name.
  std::string header =
      "{'descr': 'bfloat16', 'fortran_order': False, 'shape': (2,), }";
  header.append(63 - (10 + header.size()) % 64, ' ');
  header.push_back('\n');
  std::string bytes("\x93NUMPY\x01\x00", 8);
  bytes.push_back(static_cast<char>(header.size()));
  bytes.push_back('\0');
  bytes += header;
  bytes += std::string("\xc0\x3f\x00\xc0", 4);  // 1.5, -2 in bfloat16
  const fs::path file = folder_ / "old.npy";
  std::ofstream(file, std::ios::binary) << bytes;
  const at::Tensor tensor = read_npy(file);
  EXPECT_TRUE(
      at::equal(tensor.to(at::kDouble), at::tensor({1.5, -2.0}, at::kDouble)));
}

TEST_F(NpyBfloat16, AStaleSidecarIsRemovedWhenAnotherDtypeIsWritten) {
  const fs::path file = folder_ / "x.npy";
  write_npy(file, at::ones({2}, at::kBFloat16));
  ASSERT_TRUE(fs::exists(npy_sidecar(file)));
  write_npy(file, at::ones({2}, at::kFloat));
  EXPECT_FALSE(fs::exists(npy_sidecar(file)));
}

// Issue 49: a sidecar is read as its fixture is, never quoted. A '<V2' file
// with no dtype declared, so that its sidecar is read.
fs::path raw_bfloat16(const fs::path& folder) {
  fs::create_directories(folder);
  const fs::path file = folder / "x.npy";
  std::ofstream(file, std::ios::binary)
      << npy_header(at::kBFloat16, {2}) << std::string(4, '\0');
  return file;
}

std::string refusal(const fs::path& file) {
  try {
    read_npy(file);
  } catch (const FixtureError& error) {
    return error.what();
  }
  return "read";
}

TEST_F(NpyBfloat16, ASidecarThatLinksOutOfItsFolderIsNotRead) {
  const fs::path file = raw_bfloat16(folder_ / "fixtures");
  const fs::path secret = folder_ / "secret.json";
  std::ofstream(secret) << R"({"dtype": "secret-token-4321"})";
  for (const fs::path& target : {secret, fs::path("/proc/self/environ")}) {
    SCOPED_TRACE(target.string());
    fs::remove(npy_sidecar(file));
    fs::create_symlink(target, npy_sidecar(file));
    const std::string message = refusal(file);
    EXPECT_NE(message.find("x.npy.json: sidecar not read: resolves (through "
                           "a symbolic link) to `"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("`, outside the folder of `"), std::string::npos)
        << message;
    EXPECT_EQ(message.find("secret-token"), std::string::npos) << message;
  }
  // A link that stays in the folder is followed.
  std::ofstream(folder_ / "fixtures" / "dtype.json")
      << R"({"dtype": "bfloat16"})";
  fs::remove(npy_sidecar(file));
  fs::create_symlink("dtype.json", npy_sidecar(file));
  EXPECT_EQ(read_npy(file).scalar_type(), at::kBFloat16);
}

TEST_F(NpyBfloat16, ASidecarOverItsLimitIsRefusedByItsSize) {
  const fs::path file = raw_bfloat16(folder_);
  // Valid, and saying bfloat16, but 4097 bytes.
  const std::string padded = R"({"dtype": "bfloat16", "pad": ")";
  std::ofstream(npy_sidecar(file))
      << padded << std::string(4097 - padded.size() - 2, 'x') << "\"}";
  ASSERT_EQ(fs::file_size(npy_sidecar(file)), 4097u);
  EXPECT_NE(refusal(file).find("x.npy.json: sidecar not read: 4097 bytes, "
                               "over the limit of 4096"),
            std::string::npos)
      << refusal(file);
}

TEST_F(NpyBfloat16, ARefusedSidecarIsQuotedInAShortPrintableExcerpt) {
  const fs::path file = raw_bfloat16(folder_);
  // Not JSON: nlohmann quotes the whole token it read (here 4,000 bytes
  // ending in an escape character); and JSON whose dtype is such a text.
  const std::string token = std::string(4000, 'y') + "\x1b[2J";
  for (const std::string& sidecar :
       {"\"" + token, R"({"dtype": ")" + token.substr(0, 4000) + "\"}"}) {
    std::ofstream(npy_sidecar(file), std::ios::trunc) << sidecar;
    const std::string message = refusal(file);
    EXPECT_LT(message.size(), 1000u) << message;
    EXPECT_EQ(message.find('\x1b'), std::string::npos) << message;
    EXPECT_NE(message.find("x.npy.json"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace casebook
