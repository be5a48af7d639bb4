// Hostile inputs end to end: a run over the corpus of hostile case files
// gives one ERROR per file, naming the file and the line, and the good case
// beside them still passes; fixture files whose headers ask for more than
// the tensor limit are refused before anything is allocated.
#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "casebook/limits.h"
#include "process/child_limits.h"
#include "run_command.h"
#include "tensors/fixtures.h"

namespace casebook {
namespace {
namespace fs = std::filesystem;
using testing_support::has_line;
using testing_support::run_casebook;

TEST(HostileRun, EachHostileFileIsOneErrorAndTheGoodCaseStillPasses) {
  const fs::path corpus = fs::path(CASEBOOK_TEST_DATA) / "hostile" / "cases";
  const auto run = run_casebook(
      "run --verbose tests/data/hostile/cases tests/data/e2e/valid_labels.yaml "
      "--backend cpu -j 2");
  EXPECT_EQ(run.status, 1) << run.output;
  size_t hostile = 0;
  for (const auto& item : fs::directory_iterator(corpus)) {
    if (item.path().extension() != ".yaml") continue;
    const std::string name = item.path().stem().string();
    const std::string file = "tests/data/hostile/cases/" + name + "\\.yaml";
    const std::string line = name == "empty" ? ": " : ":[1-9][0-9]*:[0-9]+: ";
    // The id is the path under the nearest folder named `cases`.
    EXPECT_TRUE(has_line(
        run.output, "^ERROR +" + name + " +cpu +invalid_case: " + file + line))
        << name << "\n"
        << run.output;
    ++hostile;
  }
  // A file named itself: its id is its name.
  EXPECT_TRUE(has_line(run.output, "^PASS +valid_labels +cpu$")) << run.output;
  EXPECT_TRUE(has_line(run.output,
                       "^1 PASS, " + std::to_string(hostile) + " ERROR \\(" +
                           std::to_string(hostile + 1) + " runs\\)$"))
      << run.output;
}

class HugeHeaders : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() /
              ("casebook-huge-headers-" + std::to_string(getpid()));
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }
  fs::path write(const std::string& name, const std::string& bytes) {
    const fs::path path = folder_ / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  fs::path folder_;
};

std::string npy_with_header(const std::string& dict) {
  std::string header = dict;
  header.append(63 - (10 + header.size()) % 64, ' ');
  header.push_back('\n');
  std::string bytes("\x93NUMPY\x01\x00", 8);
  bytes.push_back(static_cast<char>(header.size() & 0xff));
  bytes.push_back(static_cast<char>(header.size() >> 8));
  return bytes + header + std::string(16, '\0');
}

TEST_F(HugeHeaders, NpyShapeOverTheLimitIsRefusedBeforeAllocating) {
  const fs::path file = write(
      "huge.npy", npy_with_header("{'descr': '<f8', 'fortran_order': False, "
                                  "'shape': (1000000, 1000000, 1000000), }"));
  try {
    read_npy(file);
    FAIL() << "read a tensor of 8e18 bytes";
  } catch (const FixtureError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("a tensor of 1000000000000000000 elements of Double "
                        "(6.9 EiB) is over the limit of 4 GiB per tensor"),
              std::string::npos)
        << error.what();
  }
}

TEST_F(HugeHeaders, NpyShapeThatOverflowsIsRefused) {
  const fs::path file =
      write("overflow.npy",
            npy_with_header("{'descr': '|u1', 'fortran_order': False, 'shape': "
                            "(4294967296, 4294967296, 4294967296), }"));
  EXPECT_THROW(read_npy(file), FixtureError);
}

TEST_F(HugeHeaders, SafetensorsShapeOverTheLimitOrNegativeIsRefused) {
  for (const std::string shape : {"[1000000,1000000,1000000]", "[-1, 4]"}) {
    const std::string header = "{\"x\":{\"dtype\":\"F32\",\"shape\":" + shape +
                               ",\"data_offsets\":[0,16]}}";
    std::string bytes(8, '\0');
    for (size_t i = 0; i < 8; ++i) {
      bytes[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
    }
    const fs::path file =
        write("huge.safetensors", bytes + header + std::string(16, '\0'));
    EXPECT_THROW(read_safetensors(file, ""), FixtureError) << shape;
  }
}

// Found by the fixture fuzzer (fuzz/): a 747-byte .pt whose pickle claims a
// 4 GB string. Read in a child limited to 1 GiB more address space, as a
// run's child is: refused with a FixtureError, not a crash or an abort.
TEST(FuzzRegressions, APtClaimingGigabytesIsRefused) {
  const fs::path file =
      fs::path(CASEBOOK_TEST_DATA) / "fuzz" / "pt_unpickler_claims_4gb.pt";
  ASSERT_TRUE(fs::exists(file));
  at::set_num_threads(1);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setenv("CASEBOOK_CHILD_MEMORY", "1G", 1);
    if (!limit_child_memory()) _exit(3);
    try {
      read_pt(file, "");
      _exit(1);
    } catch (const FixtureError&) {
      _exit(0);
    } catch (...) {
      _exit(2);
    }
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "1: read a tensor, 2: another exception, 3: no limit set";
}

}  // namespace
}  // namespace casebook
