// The environment of this host, without LibTorch: what casebook is, how it was
// built, and the operating system. Never the host's name.
#include <sys/utsname.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "casebook/diagnosis.h"
#include "casebook_build_config.h"
#include "diagnosis/text.h"

namespace casebook {
namespace {

std::string read_file(const char* path) {
  std::ifstream in(path);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::string os_release_pretty_name(std::string_view os_release_text) {
  constexpr std::string_view kKey = "PRETTY_NAME=";
  std::string name;
  diagnosis_text::for_each_line(os_release_text, [&](std::string_view line) {
    if (line.rfind(kKey, 0) != 0) return true;
    std::string_view value = diagnosis_text::trim(line.substr(kKey.size()));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    name = std::string(value);
    return false;
  });
  return name;
}

CpuInfo parse_cpuinfo(std::string_view text) {
  CpuInfo info;
  // The first processor's block: it ends at the first empty line.
  diagnosis_text::for_each_line(text, [&](std::string_view line) {
    if (line.empty()) return info.model.empty() && info.flags.empty();
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) return true;
    const std::string_view key = diagnosis_text::trim(line.substr(0, colon));
    const std::string_view value = diagnosis_text::trim(line.substr(colon + 1));
    if (key == "model name" && info.model.empty()) {
      info.model = std::string(value);
    } else if ((key == "flags" || key == "Features") && info.flags.empty()) {
      std::istringstream words{std::string(value)};
      for (std::string word; words >> word;) info.flags.push_back(word);
    }
    return true;
  });
  return info;
}

CpuInfo host_cpu() { return parse_cpuinfo(read_file("/proc/cpuinfo")); }

namespace {

// The path of the mapped libtorch_cpu.so, from /proc/self/maps; empty if
// none.
std::string mapped_libtorch() {
  std::istringstream maps(read_file("/proc/self/maps"));
  for (std::string line; std::getline(maps, line);) {
    const size_t slash = line.find('/');
    if (slash == std::string::npos) continue;
    const std::string path = line.substr(slash);
    const size_t name = path.rfind('/');
    if (path.compare(name + 1, 15, "libtorch_cpu.so") == 0) return path;
  }
  return {};
}

// The upstream version of a Debian package's "Version:" ("1.13.1+dfsg-4"
// -> "1.13.1"), from /var/lib/dpkg/status.
std::string dpkg_version(const std::string& package) {
  std::istringstream status(read_file("/var/lib/dpkg/status"));
  bool inside = false;
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("Package: ", 0) == 0) inside = line.substr(9) == package;
    if (inside && line.rfind("Version: ", 0) == 0) {
      std::string version = line.substr(9);
      const size_t epoch = version.find(':');
      if (epoch != std::string::npos) version = version.substr(epoch + 1);
      return version.substr(0, version.find_first_of("+-~"));
    }
  }
  return {};
}

// The Debian package whose file list holds `path` (libtorch* packages only:
// the one place a LibTorch library comes from on Debian).
std::string dpkg_owner(const std::string& path) {
  const std::filesystem::path info = "/var/lib/dpkg/info";
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(info, error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("libtorch", 0) != 0 || entry.path().extension() != ".list")
      continue;
    std::istringstream files(read_file(entry.path().c_str()));
    for (std::string line; std::getline(files, line);) {
      if (line == path) {
        const std::string stem = entry.path().stem().string();
        return stem.substr(0, stem.find(':'));
      }
    }
  }
  return {};
}

}  // namespace

// `name = '12.4'` from a wheel's torch/version.py beside the loaded
// libtorch_cpu.so (the CUDA or HIP version LibTorch was built with); empty
// when absent or None.
std::string wheel_version_field(const std::string& name) {
  const std::string path = mapped_libtorch();
  if (path.empty()) return {};
  std::error_code error;
  const std::filesystem::path real = std::filesystem::canonical(path, error);
  std::istringstream text(
      read_file((real.parent_path().parent_path() / "version.py").c_str()));
  for (std::string line; std::getline(text, line);) {
    if (line.rfind(name + " ", 0) != 0 && line.rfind(name + "=", 0) != 0)
      continue;
    const size_t open = line.find_first_of("'\"");
    const size_t close = line.find_last_of("'\"");
    if (open != std::string::npos && close > open) {
      return line.substr(open + 1, close - open - 1);
    }
  }
  return {};
}

std::string libtorch_library_version(std::string* source) {
  const std::string path = mapped_libtorch();
  if (path.empty()) return {};
  std::error_code error;
  const std::filesystem::path real = std::filesystem::canonical(path, error);
  for (const std::string& candidate : {path, real.string()}) {
    const std::string package = dpkg_owner(candidate);
    if (package.empty()) continue;
    const std::string version = dpkg_version(package);
    if (!version.empty()) {
      if (source) *source = "Debian package " + package;
      return version;
    }
  }
  // A wheel: torch/lib/libtorch_cpu.so beside torch/version.py; its version
  // without the local part (2.13.0 of 2.13.0+cpu), and who installed it
  // (torch-*.dist-info/INSTALLER: "pip", "uv", ...).
  const std::filesystem::path torch_root = real.parent_path().parent_path();
  const std::string full = wheel_version_field("__version__");
  if (!full.empty()) {
    if (source) {
      // The dist-info folder carries the local part or not, by wheel:
      // torch-2.13.0+cpu.dist-info, torch-2.14.1.dist-info.
      std::string installed_by;
      for (const std::string& named : {full, full.substr(0, full.find('+'))}) {
        const std::filesystem::path installer =
            torch_root.parent_path() / ("torch-" + named + ".dist-info") /
            "INSTALLER";
        installed_by = read_file(installer.c_str());
        if (!installed_by.empty()) break;
      }
      const std::string by(diagnosis_text::trim(installed_by));
      *source = (by.empty() ? "wheel" : by) + ": torch " + full;
    }
    return full.substr(0, full.find('+'));
  }
  // The file name: libtorch_cpu.so.1.13.0.
  const std::string file = real.filename().string();
  const size_t so = file.find(".so.");
  if (so != std::string::npos) {
    if (source) *source = "the library's file name";
    return file.substr(so + 4);
  }
  return {};
}

std::map<std::string, std::string> condition_facts(
    const std::string& header_version) {
  std::map<std::string, std::string> facts;
  const std::string library = libtorch_library_version(nullptr);
  facts["torch"] = library.empty() ? header_version : library;
  // The CUDA / HIP version LibTorch was built with (a wheel's version.py);
  // absent for a CPU-only LibTorch, so a condition on it does not hold.
  for (const char* runtime : {"cuda", "hip"}) {
    const std::string version = wheel_version_field(runtime);
    if (!version.empty()) facts[runtime] = version;
  }
  utsname names{};
  if (uname(&names) == 0) {
    std::string os = names.sysname;
    for (char& c : os) c = static_cast<char>(std::tolower(c));
    facts["os"] = os;
    facts["arch"] = names.machine;
  }
  std::string flags;
  for (const std::string& flag : host_cpu().flags) {
    flags += (flags.empty() ? "" : " ") + flag;
  }
  facts["cpu"] = flags;
  return facts;
}

std::vector<std::pair<std::string, std::string>> host_environment() {
  std::vector<std::pair<std::string, std::string>> facts;
  facts.emplace_back("casebook.version", CASEBOOK_VERSION);
  facts.emplace_back("casebook.revision", CASEBOOK_GIT_REVISION);
  facts.emplace_back("casebook.libtorch_flavour", CASEBOOK_TORCH_FLAVOUR);
  facts.emplace_back("build.compiler", CASEBOOK_CXX_COMPILER);
  // os-release(5): /etc first, /usr/lib as the fallback.
  std::string os = os_release_pretty_name(read_file("/etc/os-release"));
  if (os.empty()) os = os_release_pretty_name(read_file("/usr/lib/os-release"));
  facts.emplace_back("os.name", os.empty() ? "unknown" : os);
  utsname names{};
  if (uname(&names) == 0) {  // nodename, the host's name, stays out
    facts.emplace_back("os.kernel",
                       std::string(names.sysname) + " " + names.release);
    facts.emplace_back("os.machine", names.machine);
  }
  // What decided verdicts before (bfloat16 matmul on AVX2 without AVX512).
  const CpuInfo cpu = host_cpu();
  facts.emplace_back("cpu.model", cpu.model.empty() ? "unknown" : cpu.model);
  std::string vector;
  for (const std::string& flag : cpu.flags) {
    if (flag == "avx2" || flag == "avx512f" || flag == "avx512_bf16" ||
        flag.rfind("amx", 0) == 0 || flag == "asimd" || flag == "sve") {
      vector += (vector.empty() ? "" : " ") + flag;
    }
  }
  facts.emplace_back("cpu.vector", vector.empty() ? "none" : vector);
  std::string source;
  const std::string library = libtorch_library_version(&source);
  if (!library.empty()) {
    facts.emplace_back("libtorch.library", library + " (" + source + ")");
  }
  return facts;
}

}  // namespace casebook
