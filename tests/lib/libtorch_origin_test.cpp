// Which LibTorch this process loaded, and from where (diagnosis/host.cpp):
// the environment block's `libtorch.library` and the `torch` condition fact.
// One side runs in each lane: Debian's package in the debian lane, a pip
// wheel in the torch-2.13 and cuda-2.14 lanes.
#include <gtest/gtest.h>
#include <torch/version.h>

#include <regex>
#include <string>

#include "casebook/diagnosis.h"

namespace casebook {
namespace {

TEST(LibTorchOrigin, TheLoadedLibraryNamesItsVersionAndWhereItCameFrom) {
  std::string source;
  const std::string version = libtorch_library_version(&source);
  ASSERT_FALSE(version.empty()) << "no libtorch_cpu.so mapped";
  // The header's major.minor: the library is the one compiled against.
  const std::string header = TORCH_VERSION;
  EXPECT_EQ(version.substr(0, version.rfind('.')),
            header.substr(0, header.rfind('.')))
      << version << " vs header " << header;
  if (source.rfind("Debian package ", 0) == 0) {
    EXPECT_TRUE(std::regex_match(version, std::regex(R"(1\.13\.\d+)")))
        << version;
    EXPECT_TRUE(
        std::regex_match(source, std::regex(R"(Debian package libtorch1\.13)")))
        << source;
  } else {
    // A wheel: "2.13.0", with "pip: torch 2.13.0+cpu" as its source (the
    // installer's name, "wheel" where the dist-info names none).
    EXPECT_TRUE(std::regex_match(version, std::regex(R"(2\.\d+\.\d+)")))
        << version;
    const std::string escaped =
        std::regex_replace(version, std::regex(R"(\.)"), R"(\.)");
    EXPECT_TRUE(std::regex_match(
        source, std::regex(R"(\S+: torch )" + escaped + R"((\+\w+)?)")))
        << source;
  }
}

TEST(LibTorchOrigin, TheTorchConditionFactIsTheLibrarysVersion) {
  const std::string library = libtorch_library_version(nullptr);
  EXPECT_EQ(condition_facts(TORCH_VERSION).at("torch"), library);
  EXPECT_EQ(library.find('+'), std::string::npos) << library;
}

}  // namespace
}  // namespace casebook
