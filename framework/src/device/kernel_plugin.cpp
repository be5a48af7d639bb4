// Loading GPU kernel plugins (see kernel_plugin.h).
#include "device/kernel_plugin.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>

#include "device/backend_hooks.h"

namespace casebook {
namespace {

std::string backend_title(Backend backend) {
  return std::string(backend_hooks(backend).runtime);
}

// Why the table a plugin's entry returned is not one this casebook can use
// (none, another ABI, a launcher left null), or "".
std::string table_problem(const std::string& path,
                          const CasebookKernelPluginV1* table) {
  if (table == nullptr) {
    return path + ": " CASEBOOK_KERNEL_PLUGIN_ENTRY
                  " returned no table (a broken test plugin without "
                  "$CASEBOOK_BROKEN_VARIANT?)";
  }
  if (table->abi_version != CASEBOOK_KERNEL_PLUGIN_ABI_VERSION ||
      table->struct_size < sizeof(CasebookKernelPluginV1)) {
    return path + ": plugin ABI " + std::to_string(table->abi_version) +
           " (table of " + std::to_string(table->struct_size) +
           " bytes), this casebook needs ABI " +
           std::to_string(CASEBOOK_KERNEL_PLUGIN_ABI_VERSION) + " (" +
           std::to_string(sizeof(CasebookKernelPluginV1)) + " bytes)";
  }
  if (const char* missing = first_missing_launcher(*table)) {
    return path + ": plugin table has no `" + missing +
           "` launcher (a field of the kernel list left null)";
  }
  return "";
}

// Loads without caching; the caller caches.
KernelPlugin* open_plugin(Backend backend, std::string* why_not) {
  const std::string file_name = kernel_plugin_file_name(backend);
  if (file_name.empty()) {  // a backend whose row names no plugin
    *why_not = backend_title(backend) + " has no kernel plugin";
    return nullptr;
  }
  const char* env_dir = std::getenv("CASEBOOK_KERNEL_PLUGIN_DIR");
  const std::filesystem::path path =
      std::filesystem::path(kernel_plugin_dir()) / file_name;
  std::error_code ignored;
  if (!std::filesystem::exists(path, ignored)) {
    *why_not =
        "built without " + backend_title(backend) + ": no " + file_name +
        (env_dir != nullptr && *env_dir != '\0'
             ? " in $CASEBOOK_KERNEL_PLUGIN_DIR (" + std::string(env_dir) + ")"
             : std::string(" beside the executable"));
    return nullptr;
  }
  // RTLD_LOCAL: the plugin's symbols (and its static runtime) stay its own.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* text = dlerror();
    *why_not = text != nullptr ? text : "dlopen failed: " + path.string();
    return nullptr;
  }
  auto entry = reinterpret_cast<CasebookKernelPluginEntry>(
      dlsym(handle, CASEBOOK_KERNEL_PLUGIN_ENTRY));
  if (entry == nullptr) {
    *why_not = path.string() + " has no " CASEBOOK_KERNEL_PLUGIN_ENTRY;
    dlclose(handle);
    return nullptr;
  }
  const CasebookKernelPluginV1* table = entry();
  if (std::string why = table_problem(path.string(), table); !why.empty()) {
    *why_not = why;
    return nullptr;
  }
  auto* plugin = new KernelPlugin();  // lives as long as the process
  plugin->backend = backend;
  plugin->path = path.string();
  plugin->handle = handle;
  plugin->table = table;
  return plugin;
}

}  // namespace

std::string kernel_plugin_file_name(Backend backend) {
  return std::string(backend_hooks(backend).kernel_plugin_file);
}

std::string kernel_plugin_dir() {
  const char* env_dir = std::getenv("CASEBOOK_KERNEL_PLUGIN_DIR");
  if (env_dir != nullptr && *env_dir != '\0') return env_dir;
  std::error_code error;
  const std::filesystem::path exe =
      std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string(".") : exe.parent_path().string();
}

bool kernel_plugin_file_present(Backend backend) {
  if (!is_gpu(backend) || kernel_plugin_file_name(backend).empty()) {
    return false;
  }
  std::error_code ignored;
  return std::filesystem::exists(std::filesystem::path(kernel_plugin_dir()) /
                                     kernel_plugin_file_name(backend),
                                 ignored);
}

const KernelPlugin* load_kernel_plugin(Backend backend, std::string* why_not) {
  std::string ignored;
  if (why_not == nullptr) why_not = &ignored;
  if (!is_gpu(backend)) {
    *why_not = "the cpu backend has no kernel plugin";
    return nullptr;
  }
  static std::mutex mutex;
  static std::map<Backend, std::pair<const KernelPlugin*, std::string>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = loaded.find(backend);
  if (found == loaded.end()) {
    std::string reason;
    const KernelPlugin* plugin = open_plugin(backend, &reason);
    found = loaded.emplace(backend, std::make_pair(plugin, reason)).first;
  }
  *why_not = found->second.second;
  return found->second.first;
}

const char* first_missing_launcher(const CasebookKernelPluginV1& table) {
#define CASEBOOK_CHECK_LAUNCHER(name, Args) \
  if (table.name == nullptr) return #name;
  CASEBOOK_FOR_EACH_KERNEL(CASEBOOK_CHECK_LAUNCHER)
#undef CASEBOOK_CHECK_LAUNCHER
  return nullptr;
}

std::string describe_gpu_error(const CasebookGpuError& error) {
  return std::string(error.call) + " returned " + error.name + " (" +
         error.text + ")";
}

bool plugin_device_count(const KernelPlugin& plugin, int* count,
                         std::string* error) {
  CasebookGpuError gpu_error{};
  if (plugin.table->device_count(count, &gpu_error) != 0) {
    if (error != nullptr) *error = describe_gpu_error(gpu_error);
    *count = 0;
    return false;
  }
  return true;
}

std::string plugin_synchronize(const KernelPlugin& plugin, bool* sticky) {
  CasebookGpuError gpu_error{};
  int sticky_flag = 0;
  const int failed = plugin.table->synchronize(&sticky_flag, &gpu_error);
  if (sticky != nullptr) *sticky = sticky_flag != 0;
  return failed != 0 ? describe_gpu_error(gpu_error) : std::string();
}

std::string plugin_describe(const KernelPlugin& plugin) {
  char text[512] = {0};
  CasebookGpuError gpu_error{};
  std::string build =
      std::string(" (") + plugin.table->build +
      (*plugin.table->variant != '\0'
           ? std::string(", BROKEN TEST VARIANT ") + plugin.table->variant
           : std::string()) +
      ")";
  if (plugin.table->describe(text, sizeof(text), &gpu_error) != 0) {
    return describe_gpu_error(gpu_error) + build;
  }
  return text + build;
}

std::map<std::string, std::string> plugin_device_facts(
    const KernelPlugin& plugin) {
  CasebookDeviceFacts facts{};
  CasebookGpuError gpu_error{};
  if (plugin.table->device_facts(&facts, &gpu_error) != 0) return {};
  facts.arch[sizeof(facts.arch) - 1] = '\0';
  return backend_hooks(plugin.backend)
      .device_facts(facts.major, facts.minor, facts.arch);
}

}  // namespace casebook
