// The rules for names, addresses and paths, as RE2 patterns: RE2 runs in
// linear time without recursion, so a long backtrace or case file cannot
// overflow the stack (as libstdc++'s std::regex does), and each rule reads as
// the rule it is. RE2 has no look-behind: a rule matches the character
// before a name as its own group, and only the name's group is replaced; the
// search goes on from the end of the name, so that the character after it
// can start the next match.
#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diagnosis/scrub_internal.h"
#include "diagnosis/text.h"

namespace casebook {
namespace {

using diagnosis_text::to_lower;
using Groups = std::vector<re2::StringPiece>;
// The replacement of the span from group `first` to group `last`, or nullopt
// to keep the text.
using Decide = std::function<std::optional<std::string>(const Groups&)>;

void replace_groups(std::string& text, const RE2& re, int first, int last,
                    const Decide& decide) {
  const int count = re.NumberOfCapturingGroups() + 1;
  Groups groups(static_cast<size_t>(count));
  const re2::StringPiece input(text);
  std::string out;
  size_t copied = 0;
  size_t pos = 0;
  bool replaced = false;
  while (pos <= text.size() &&
         re.Match(input, pos, text.size(), RE2::UNANCHORED, groups.data(),
                  count)) {
    const size_t match_begin = groups[0].data() - text.data();
    const re2::StringPiece& from = groups[first];
    const re2::StringPiece& to = groups[last];
    if (from.data() == nullptr || to.data() == nullptr) {
      pos = std::max(match_begin + groups[0].size(), pos + 1);
      continue;
    }
    const size_t begin = from.data() - text.data();
    const size_t end = to.data() - text.data() + to.size();
    if (const auto replacement = decide(groups)) {
      out.append(text, copied, begin - copied);
      out += *replacement;
      copied = end;
      replaced = true;
    }
    pos = std::max(end, match_begin + 1);
  }
  if (!replaced) return;
  out.append(text, copied, std::string::npos);
  text = std::move(out);
}

std::string str(const re2::StringPiece& piece) {
  return std::string(piece.data(), piece.size());
}

bool one_of(std::string_view word,
            std::initializer_list<std::string_view> list) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

// A name that cannot be a common word: it holds a digit, '.', '_' or '-'.
bool is_distinctive(std::string_view name) {
  return name.size() >= 3 && std::any_of(name.begin(), name.end(), [](char c) {
           return (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
         });
}

bool is_user_name(std::string_view name) {
  return name.size() >= 2 && !is_generic_account(name);
}

bool is_host_name(std::string_view name) {
  return name.size() >= 2 && !is_generic_host(name);
}

// Folders under a scratch root that belong to nobody.
bool is_shared_folder(std::string_view name) {
  return one_of(
      to_lower(name),
      {"tmp",    "temp",     "shared",  "share",     "public",  "common",
       "data",   "datasets", "dataset", "projects",  "project", "models",
       "cache",  "local",    "scratch", "users",     "home",    "group",
       "groups", "software", "apps",    "containers"});
}

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

const char kInternalSuffix[] =
    R"((?:local|internal|lan|corp|intranet|intra|localdomain|cluster|svc|private|home\.arpa))";

bool is_internal_host(const std::string& host) {
  static const RE2 kIpv4(R"(\d{1,3}(?:\.\d{1,3}){3})");
  static const RE2 kSuffix(std::string(R"((?i).*\.)") + kInternalSuffix);
  const std::string lower = to_lower(host);
  if (lower == "localhost" || lower.rfind("127.", 0) == 0 || lower == "[::1]") {
    return false;
  }
  if (RE2::FullMatch(lower, kIpv4) || lower.front() == '[') return true;
  if (lower.find('.') == std::string::npos) return true;  // one label
  return RE2::FullMatch(lower, kSuffix);
}

}  // namespace

bool is_generic_account(std::string_view name) {
  return one_of(
      to_lower(name),
      {"root",     "admin",    "administrator", "ubuntu",    "debian",
       "centos",   "fedora",   "ec2-user",      "azureuser", "cloud-user",
       "opc",      "runner",   "user",          "users",     "guest",
       "nobody",   "jenkins",  "gitlab-runner", "builder",   "build",
       "buildbot", "ci",       "docker",        "vagrant",   "pi",
       "test",     "tester",   "dev",           "developer", "default",
       "www-data", "postgres", "jovyan",        "colab",     "kaggle",
       "coder",    "app",      "service",       "daemon",    "nvidia",
       "rocm",     "ray",      "slurm"});
}

bool is_generic_host(std::string_view name) {
  return one_of(to_lower(name), {"localhost",
                                 "localhost.localdomain",
                                 "gpu",
                                 "gpus",
                                 "node",
                                 "server",
                                 "host",
                                 "master",
                                 "main",
                                 "worker",
                                 "login",
                                 "compute",
                                 "head",
                                 "machine",
                                 "devbox",
                                 "box",
                                 "ubuntu",
                                 "debian",
                                 "runner",
                                 "sandbox",
                                 "container",
                                 "docker",
                                 "buildkitsandbox"});
}

void replace_internal_urls(std::string& text, const ScrubContext& ctx) {
  // scheme://[user@]host[:port][path]; the host decides.
  static const RE2 kUrl(
      R"((?i)\b([a-z][a-z0-9+.-]*://)(?:[^\s/@"'<>]*@)?(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(:[0-9]+)?([^\s"'<>)\]}]*))");
  replace_groups(text, kUrl, 0, 0, [&](const Groups& groups) {
    const std::string host = str(groups[2]);
    if (host.empty() || !is_internal_host(host)) {
      return std::optional<std::string>();
    }
    log_replacement(ctx, "internal URL", str(groups[0]));
    return std::optional<std::string>("<internal-url>");
  });
}

void replace_scratch_folders(std::string& text, const ScrubContext& ctx) {
  // /scratch/bob/run, /lustre/bob, /global/homes/b/bob: the folder after a
  // shared root is a person's.
  static const RE2 kScratch(
      R"((^|[^A-Za-z0-9_.~-])(/(?:scratch[0-9]*|lscratch|mnt/scratch|local/scratch|beegfs|lustre|gpfs|nfs/home|export/home|global/homes/[a-z]|data/users|work/users)/)([A-Za-z0-9._-]+))");
  replace_groups(text, kScratch, 3, 3, [&](const Groups& groups) {
    const std::string name = str(groups[3]);
    if (is_shared_folder(name) || !is_user_name(name)) {
      return std::optional<std::string>();
    }
    log_replacement(ctx, "user name", name);
    return std::optional<std::string>("<user>");
  });
}

void replace_names(std::string& text, const ScrubContext& ctx) {
  // alice@gpu-node-7 (a prompt, an ssh target; e-mails are gone already).
  static const RE2 kUserAtHost(
      R"((^|[^A-Za-z0-9_.%+<-])([A-Za-z_][A-Za-z0-9_.-]*)@([A-Za-z][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)*))");
  replace_groups(text, kUserAtHost, 2, 3, [&](const Groups& groups) {
    std::string user = str(groups[2]);
    std::string host = str(groups[3]);
    if (user.size() < 2 || host.size() < 2) return std::optional<std::string>();
    if (is_user_name(user)) {
      log_replacement(ctx, "user name", user);
      user = "<user>";
    }
    if (is_host_name(host)) {
      log_replacement(ctx, "host name", host);
      host = "<host>";
    }
    return std::optional<std::string>(user + "@" + host);
  });
  // user: alice, USER=alice, "owner": "alice".
  static const RE2 kUserField(
      R"((?i)(^|[^A-Za-z0-9_])(user|username|user_name|login|logname|owner)(["']?[ \t]*[:=][ \t]*["']?)([A-Za-z_][A-Za-z0-9_.-]*))");
  replace_groups(text, kUserField, 4, 4, [&](const Groups& groups) {
    const std::string name = str(groups[4]);
    if (!is_user_name(name)) return std::optional<std::string>();
    log_replacement(ctx, "user name", name);
    return std::optional<std::string>("<user>");
  });
  // host: gpu-node-7, HOSTNAME=dgx01.
  static const RE2 kHostField(
      R"((?i)(^|[^A-Za-z0-9_])(host|hostname|host_name|nodename|node_name)(["']?[ \t]*[:=][ \t]*["']?)([A-Za-z][A-Za-z0-9_.-]*))");
  replace_groups(text, kHostField, 4, 4, [&](const Groups& groups) {
    const std::string name = str(groups[4]);
    if (!is_host_name(name)) return std::optional<std::string>();
    log_replacement(ctx, "host name", name);
    return std::optional<std::string>("<host>");
  });

  // This machine's user and host names: as path components always, as free
  // words where they cannot be common words (the full host name always).
  struct Name {
    std::string name;
    const char* marker;
    const char* kind;
    bool as_word;
  };
  std::vector<Name> names;
  if (is_user_name(ctx.user_name)) {
    names.push_back(
        {ctx.user_name, "<user>", "user name", is_distinctive(ctx.user_name)});
  }
  if (is_host_name(ctx.host_name)) {
    names.push_back({ctx.host_name, "<host>", "host name",
                     ctx.host_name.find('.') != std::string::npos ||
                         is_distinctive(ctx.host_name)});
    const size_t dot = ctx.host_name.find('.');
    const std::string short_host = ctx.host_name.substr(0, dot);
    if (dot != std::string::npos && is_host_name(short_host)) {
      names.push_back(
          {short_host, "<host>", "host name", is_distinctive(short_host)});
    }
  }
  for (const Name& name : names) {
    const std::string quoted = RE2::QuoteMeta(name.name);
    const RE2 component(R"((/|\\)()" + quoted + R"()($|[/\\\s"':;,)\]}>]))");
    const RE2 word(R"((?i)(^|[^A-Za-z0-9_.<-])()" + quoted +
                   R"()($|[^A-Za-z0-9_>-]|\.[^A-Za-z0-9]|\.$))");
    const auto replace = [&](const Groups& groups) {
      log_replacement(ctx, name.kind, str(groups[2]));
      return std::optional<std::string>(name.marker);
    };
    replace_groups(text, component, 2, 2, replace);
    if (name.as_word) replace_groups(text, word, 2, 2, replace);
  }
}

void replace_addresses(std::string& text, const ScrubContext& ctx) {
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
  // fe80::1ff:fe23:4567:890a, 2001:db8::8a2e:370:7334, eight full groups.
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
  // gpu07.cluster.local, db.corp: names only an internal network resolves.
  static const RE2 kInternalHost(
      std::string(
          R"((?i)(^|[^A-Za-z0-9_.@/<-])([a-z0-9-]+(?:\.[a-z0-9-]+)*\.)") +
      kInternalSuffix + R"()($|[^A-Za-z0-9_-]))");
  replace_groups(text, kInternalHost, 2, 2, [&](const Groups& groups) {
    log_replacement(ctx, "host name", str(groups[2]));
    return std::optional<std::string>("<host>");
  });
}

}  // namespace casebook
