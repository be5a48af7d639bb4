// The kernel list (kernels/common/kernel_list.h) is the one source of the
// plugin ABI's launchers: every function-pointer slot of the ABI is a runtime
// call named here or a row of the list, the simulated device fills every row,
// and the loader refuses a table that leaves one null.
#include "common/kernel_list.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "casebook/op_catalog.h"
#include "casebook/ops.h"
#include "common/plugin_abi.h"
#include "device/kernel_plugin.h"
#include "simulated_device.h"

namespace casebook {
namespace {

struct Row {
  std::string name;
  size_t offset;
};

// The list's rows with their fields' offsets, in list order.
std::vector<Row> kernel_rows() {
  return {
#define CASEBOOK_ROW(name, Args) \
  {#name, offsetof(CasebookKernelPluginV1, name)},
      CASEBOOK_FOR_EACH_KERNEL(CASEBOOK_ROW)
#undef CASEBOOK_ROW
  };
}

TEST(KernelList, EveryFunctionSlotOfTheAbiIsARuntimeCallOrARowOfTheList) {
  // The runtime calls are the ABI's own fields, not kernels.
  const std::vector<size_t> runtime_calls = {
      offsetof(CasebookKernelPluginV1, device_count),
      offsetof(CasebookKernelPluginV1, describe),
      offsetof(CasebookKernelPluginV1, set_device),
      offsetof(CasebookKernelPluginV1, device_malloc),
      offsetof(CasebookKernelPluginV1, device_free),
      offsetof(CasebookKernelPluginV1, copy_to_device),
      offsetof(CasebookKernelPluginV1, copy_to_host),
      offsetof(CasebookKernelPluginV1, synchronize),
      offsetof(CasebookKernelPluginV1, device_facts)};
  const std::vector<Row> rows = kernel_rows();
  const size_t first = offsetof(CasebookKernelPluginV1, device_count);
  const size_t slots = (sizeof(CasebookKernelPluginV1) - first) / sizeof(void*);
  EXPECT_EQ(rows.size(), static_cast<size_t>(
                             CASEBOOK_KERNEL_COUNT(CASEBOOK_FOR_EACH_KERNEL)));
  EXPECT_EQ(rows.size(), slots - runtime_calls.size());

  std::set<size_t> taken(runtime_calls.begin(), runtime_calls.end());
  for (const Row& row : rows) {
    EXPECT_TRUE(taken.insert(row.offset).second) << row.name;
  }
  std::set<size_t> every_slot;
  for (size_t slot = 0; slot < slots; ++slot) {
    every_slot.insert(first + slot * sizeof(void*));
  }
  EXPECT_EQ(taken, every_slot);
}

TEST(KernelList, TheRowsOfAbi1KeepTheirReleasedPlaces) {
  // Plugins built before the list: four launchers after synchronize, then
  // device_facts; a new row goes after device_facts.
  std::vector<std::string> v1;
#define CASEBOOK_NAME(name, Args) v1.push_back(#name);
  CASEBOOK_FOR_EACH_KERNEL_V1(CASEBOOK_NAME)
#undef CASEBOOK_NAME
  EXPECT_EQ(v1, (std::vector<std::string>{"nll_loss", "softmax", "sum",
                                          "embedding"}));
  const std::vector<Row> rows = kernel_rows();
  for (size_t i = 0; i < rows.size(); ++i) {
    const size_t after = i < v1.size()
                             ? offsetof(CasebookKernelPluginV1, synchronize)
                             : offsetof(CasebookKernelPluginV1, device_facts);
    const size_t index_in_block = i < v1.size() ? i : i - v1.size();
    EXPECT_EQ(rows[i].offset, after + (1 + index_in_block) * sizeof(void*))
        << rows[i].name;
  }
  EXPECT_EQ(CASEBOOK_KERNEL_PLUGIN_ABI_VERSION, 1);
  EXPECT_STREQ(CASEBOOK_KERNEL_PLUGIN_ENTRY, "casebook_kernel_plugin_v1");
}

TEST(KernelList, TheSimulatedDeviceFillsEveryRowOfTheList) {
  const CasebookKernelPluginV1& table = *simulated_device::plugin().table;
  std::vector<std::string> missing;
#define CASEBOOK_CHECK(name, Args) \
  if (table.name == nullptr) missing.push_back(#name);
  CASEBOOK_FOR_EACH_KERNEL(CASEBOOK_CHECK)
#undef CASEBOOK_CHECK
  EXPECT_EQ(missing, std::vector<std::string>{});
  EXPECT_STREQ(first_missing_launcher(table), nullptr);
  EXPECT_EQ(table.struct_size, sizeof(CasebookKernelPluginV1));
}

TEST(KernelList, TheLoaderNamesTheLauncherATableLeavesNull) {
  for (const Row& row : kernel_rows()) {
    CasebookKernelPluginV1 table = *simulated_device::plugin().table;
    // Null the row's field through its offset, as a plugin that lacks it
    // would leave it.
    void* null_pointer = nullptr;
    std::memcpy(reinterpret_cast<char*>(&table) + row.offset, &null_pointer,
                sizeof(null_pointer));
    const char* missing = first_missing_launcher(table);
    EXPECT_EQ(std::string(missing != nullptr ? missing : "(none)"), row.name);
  }
}

TEST(KernelList, EveryRowIsAKernelsOpOfTheRegistry) {
  // The registrations come from the list too (kernel_ops/
  // register_kernel_ops.cpp): a row cannot be left without its op.
  const OpRegistry& registry = default_registry();
  for (const Row& row : kernel_rows()) {
    const OpDef* op = registry.find("kernels." + row.name);
    ASSERT_NE(op, nullptr) << row.name;
    EXPECT_TRUE(op->needs_kernel_plugin) << row.name;
    EXPECT_TRUE(static_cast<bool>(op->torch_reference)) << row.name;
  }
}

}  // namespace
}  // namespace casebook
