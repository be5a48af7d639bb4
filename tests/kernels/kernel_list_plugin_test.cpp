// The built GPU plugins against the kernel list (kernels/common/kernel_list.h):
// each loads (in a child: loading initialises its runtime) and fills every
// row of the list, the broken test plugin too, with its variant swapped in.
// Skipped where a plugin was not built; nothing here needs a GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "common/kernel_list.h"
#include "device/kernel_plugin.h"
#include "kernel_test_support.h"

namespace casebook {
namespace {

using kernel_tests::executable_dir;
using kernel_tests::run_in_child;

// "complete <struct_size> <variant>", the list's null launchers, or why the
// plugin did not load. Call it in a child only.
std::string launchers_of(Backend backend) {
  std::string why_not;
  const KernelPlugin* plugin = load_kernel_plugin(backend, &why_not);
  if (plugin == nullptr) return "absent: " + why_not;
  std::string missing;
#define CASEBOOK_CHECK(name, Args) \
  if (plugin->table->name == nullptr) missing += " " #name;
  CASEBOOK_FOR_EACH_KERNEL(CASEBOOK_CHECK)
#undef CASEBOOK_CHECK
  if (!missing.empty()) return "missing:" + missing;
  return "complete " + std::to_string(plugin->table->struct_size) + " " +
         plugin->table->variant;
}

const std::string kComplete =
    "complete " + std::to_string(sizeof(CasebookKernelPluginV1)) + " ";

void expect_complete(Backend backend, const std::filesystem::path& dir) {
  if (!std::filesystem::exists(dir / kernel_plugin_file_name(backend))) {
    GTEST_SKIP() << "no " << kernel_plugin_file_name(backend) << " in " << dir;
  }
  EXPECT_EQ(run_in_child([backend] { return launchers_of(backend); }),
            kComplete);
}

TEST(KernelListPlugins, TheCudaPluginFillsEveryRowOfTheList) {
  expect_complete(Backend::kCuda, executable_dir());
}

TEST(KernelListPlugins, TheHipPluginFillsEveryRowOfTheList) {
  expect_complete(Backend::kHip, executable_dir());
}

TEST(KernelListPlugins, TheBrokenPluginFillsEveryRowWithItsVariantSwappedIn) {
  const std::filesystem::path broken_dir = executable_dir() / "broken";
  if (!std::filesystem::exists(broken_dir /
                               kernel_plugin_file_name(Backend::kCuda))) {
    GTEST_SKIP() << "no broken CUDA plugin built";
  }
  const std::string seen = run_in_child([&] {
    setenv("CASEBOOK_KERNEL_PLUGIN_DIR", broken_dir.c_str(), 1);
    setenv("CASEBOOK_BROKEN_VARIANT", "embedding_bound_check_removed", 1);
    return launchers_of(Backend::kCuda);
  });
  EXPECT_EQ(seen, kComplete + "embedding_bound_check_removed");
}

}  // namespace
}  // namespace casebook
