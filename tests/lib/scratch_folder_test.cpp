// process/scratch_folder.h: the one maker of the folders children write into.
#include "process/scratch_folder.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

namespace casebook {
namespace {

namespace fs = std::filesystem;

TEST(ScratchFolder, IsAPrivateFolderNamedForItsPurposeAndGoesWithItsFiles) {
  auto folder = std::make_unique<ScratchFolder>("test");
  const fs::path path = folder->path();
  ASSERT_TRUE(fs::is_directory(path)) << path;
  EXPECT_EQ(path.filename().string().rfind("casebook-test-", 0), 0u) << path;
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
            fs::perms::owner_all);
  fs::create_directories(path / "job0");
  std::ofstream(path / "job0" / "out0.bin") << "x";
  folder.reset();
  EXPECT_FALSE(fs::exists(path)) << path;
}

TEST(ScratchFolder, OneThatCannotBeMadeSaysWhereAndWhy) {
  try {
    ScratchFolder folder("no-such-folder/test");
    FAIL() << "made " << folder.path();
  } catch (const std::runtime_error& error) {
    const std::string message = error.what();
    EXPECT_EQ(
        message.rfind("cannot create a no-such-folder/test folder under ", 0),
        0u)
        << message;
    EXPECT_NE(message.find("No such file or directory"), std::string::npos)
        << message;
  }
}

}  // namespace
}  // namespace casebook
