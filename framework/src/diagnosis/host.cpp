// The environment of this host, without LibTorch: what casebook is, how it was
// built, and the operating system. Never the host's name.
#include <sys/utsname.h>

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
  size_t line_start = 0;
  while (line_start < os_release_text.size()) {
    size_t line_end = os_release_text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = os_release_text.size();
    const std::string_view line =
        os_release_text.substr(line_start, line_end - line_start);
    if (line.rfind(kKey, 0) == 0) {
      std::string_view value = diagnosis_text::trim(line.substr(kKey.size()));
      if (value.size() >= 2 &&
          (value.front() == '"' || value.front() == '\'') &&
          value.back() == value.front()) {
        value = value.substr(1, value.size() - 2);
      }
      return std::string(value);
    }
    line_start = line_end + 1;
  }
  return {};
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
  return facts;
}

}  // namespace casebook
