// Which library answers a program's calls into the C++ standard library: the
// system's libstdc++, not a copy that LibTorch exports
// (cmake/CasebookTorch.cmake lists libstdc++ first). Seen on an H200 with
// torch 2.11.0+cu130: the copy's std::filesystem::remove_all jumped to address
// 0 at the end of every run.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>

namespace casebook {
namespace {

std::string library_defining(const void* address) {
  Dl_info info{};
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) return "?";
  return info.dli_fname;
}

TEST(StandardLibrary, FilesystemCallsAreLibstdcxxsNotACopyInLibTorch) {
  using RemoveAll =
      std::uintmax_t (*)(const std::filesystem::path&, std::error_code&);
  using CreateDirectories =
      bool (*)(const std::filesystem::path&, std::error_code&);
  const RemoveAll remove_all = &std::filesystem::remove_all;
  const CreateDirectories create_directories =
      &std::filesystem::create_directories;
  for (const void* address :
       {reinterpret_cast<const void*>(remove_all),
        reinterpret_cast<const void*>(create_directories)}) {
    const std::string library = library_defining(address);
    EXPECT_NE(library.find("libstdc++.so"), std::string::npos) << library;
  }
}

}  // namespace
}  // namespace casebook
