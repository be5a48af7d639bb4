// Addresses: IPv4 (not loopback, not a version number of four parts), MAC
// addresses, IPv6, and host names only an internal network resolves.
#include <re2/re2.h>

#include <algorithm>
#include <optional>
#include <string>

#include "diagnosis/scrub_internal.h"
#include "diagnosis/scrub_match.h"
#include "diagnosis/text.h"

namespace casebook {
namespace {

using diagnosis_text::to_lower;
using scrub_match::Groups;
using scrub_match::replace_groups;
using scrub_match::str;

bool is_loopback_or_any(std::string_view ip) {
  return ip.rfind("127.", 0) == 0 || ip == "0.0.0.0" ||
         ip.rfind("255.", 0) == 0;
}

// Version numbers of four parts (cuDNN 8.9.2.26, TensorRT 8.6.1.6) look like
// addresses: what stands just before them on the line tells them apart.
bool follows_a_version_word(const std::string& text, size_t at) {
  const size_t line = text.rfind('\n', at == 0 ? 0 : at - 1);
  const size_t from = std::max(line == std::string::npos ? 0 : line + 1,
                               at >= 24 ? at - 24 : size_t{0});
  const std::string before = to_lower(text.substr(from, at - from));
  for (const char* word : {"version", "cudnn", "tensorrt", "nccl", "driver",
                           "ver ", "ver=", "ver:", "build"}) {
    if (before.find(word) != std::string::npos) return true;
  }
  return false;
}

void replace_ipv4(std::string& text, const ScrubContext& ctx) {
  static const RE2 kIpv4(
      R"((^|[^0-9A-Za-z_.])((?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(?:\.(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3})($|[^0-9A-Za-z_.]|\.[^0-9]|\.$))");
  replace_groups(text, kIpv4, 2, 2, [&](const Groups& groups) {
    const std::string ip = str(groups[2]);
    const size_t at = groups[2].data() - text.data();
    if (is_loopback_or_any(ip) || follows_a_version_word(text, at)) {
      return std::optional<std::string>();
    }
    log_replacement(ctx, "IP address", ip);
    return std::optional<std::string>("<ip>");
  });
}

// 00:1a:2b:3c:4d:5e and 3C-52-82-4A-1B-7F: six pairs of hex digits, one
// separator throughout (a time has three parts, IPv6 groups are longer).
void replace_mac_addresses(std::string& text, const ScrubContext& ctx) {
  static const RE2 kColons(
      R"((^|[^0-9A-Za-z_:.-])([0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5})($|[^0-9A-Za-z_:-]))");
  static const RE2 kDashes(
      R"((^|[^0-9A-Za-z_:.-])([0-9A-Fa-f]{2}(?:-[0-9A-Fa-f]{2}){5})($|[^0-9A-Za-z_:-]))");
  for (const RE2* re : {&kColons, &kDashes}) {
    replace_groups(text, *re, 2, 2, [&](const Groups& groups) {
      log_replacement(ctx, "MAC address", str(groups[2]));
      return std::optional<std::string>("<mac>");
    });
  }
}

// fe80::1ff:fe23:4567:890a, 2001:db8::8a2e:370:7334, eight full groups.
void replace_ipv6(std::string& text, const ScrubContext& ctx) {
  static const RE2 kIpv6(
      R"((^|[^0-9A-Za-z_:.])([0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7})($|[^0-9A-Za-z_:]))");
  replace_groups(text, kIpv6, 2, 2, [&](const Groups& groups) {
    const std::string ip = str(groups[2]);
    const auto colons = std::count(ip.begin(), ip.end(), ':');
    int filled = 0;
    size_t begin = 0;
    while (begin <= ip.size()) {
      const size_t end = std::min(ip.find(':', begin), ip.size());
      filled += end > begin ? 1 : 0;
      begin = end + 1;
    }
    const bool shaped =
        (ip.find("::") != std::string::npos && filled >= 2) || colons == 7;
    if (!shaped) return std::optional<std::string>();
    log_replacement(ctx, "IP address", ip);
    return std::optional<std::string>("<ip>");
  });
}

// gpu07.cluster.local, db.corp, wiki.corp.acme.com, ml-data.acme.com where
// acme.com is learned: the whole name (is_internal_name); and the server of
// a UNC path (\\nas-02\share: a machine of the local network).
void replace_internal_hosts(std::string& text, const ScrubContext& ctx) {
  static const RE2 kDottedName(
      R"((?i)(^|[^A-Za-z0-9_.@<-])([a-z0-9-]+(?:\.[a-z0-9-]+)+)($|[^A-Za-z0-9_-]))");
  replace_groups(text, kDottedName, 2, 2, [&](const Groups& groups) {
    if (!is_internal_name(str(groups[2]), ctx)) {
      return std::optional<std::string>();
    }
    log_replacement(ctx, "host name", str(groups[2]));
    return std::optional<std::string>("<host>");
  });
  // One backslash after the server, or two after four (JSON): "\\xc0\\xaf"
  // is neither.
  static const RE2 kUncServer(
      R"((^|[\s"'=(,\[])(?:\\\\([A-Za-z0-9][A-Za-z0-9.-]*)\\|\\\\\\\\([A-Za-z0-9][A-Za-z0-9.-]*)\\\\)[A-Za-z0-9_.$-])");
  for (int server : {2, 3}) {
    replace_groups(text, kUncServer, server, server, [&](const Groups& groups) {
      log_replacement(ctx, "host name", str(groups[server]));
      return std::optional<std::string>("<host>");
    });
  }
}

}  // namespace

void replace_addresses(std::string& text, const ScrubContext& ctx) {
  replace_ipv4(text, ctx);
  replace_mac_addresses(text, ctx);
  replace_ipv6(text, ctx);
  replace_internal_hosts(text, ctx);
}

}  // namespace casebook
