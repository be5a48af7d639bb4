// The shared vocabulary of the scrubbing rules (which names are generic,
// which keys name a user or a host, the patterns learning and replacing
// share) and the rules for internal URLs and scratch folders.
#include <re2/re2.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diagnosis/scrub_internal.h"
#include "diagnosis/scrub_match.h"
#include "diagnosis/text.h"

namespace casebook {

// alice@gpu-node-7, bob@10.0.0.5 (a prompt, an ssh target; e-mails are gone
// already): group 2 the user, group 3 the host or address.
const char kUserAtHostPattern[] =
    R"((^|[^A-Za-z0-9_.%+<-])([A-Za-z_][A-Za-z0-9_.-]*)@([A-Za-z][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)*|[0-9]{1,3}(?:\.[0-9]{1,3}){3}))";
// user: alice, USER=alice, "owner": "alice".
const char kUserFieldPattern[] =
    R"((?i)(^|[^A-Za-z0-9_])(user|username|user_name|login|logname|owner)(["']?[ \t]*[:=][ \t]*["']?)([A-Za-z_][A-Za-z0-9_.-]*))";
// host: gpu-node-7, HOSTNAME=dgx01.
const char kHostFieldPattern[] =
    R"((?i)(^|[^A-Za-z0-9_])(host|hostname|host_name|nodename|node_name)(["']?[ \t]*[:=][ \t]*["']?)([A-Za-z][A-Za-z0-9_.-]*))";
// /scratch/bob/run, /lustre/bob, /global/homes/b/bob: the folder after a
// shared root is a person's.
const char kScratchPattern[] =
    R"((^|[^A-Za-z0-9_.~-])(/(?:scratch[0-9]*|lscratch|mnt/scratch|local/scratch|beegfs|lustre|gpfs|nfs/home|export/home|global/homes/[a-z]|data/users|work/users)/)([A-Za-z0-9._-]+))";

// The last labels of names only an internal network resolves.
const char kInternalSuffix[] =
    R"((?:local|internal|lan|corp|intranet|intra|localdomain|cluster|svc|private|home\.arpa))";

namespace {

using diagnosis_text::to_lower;
using scrub_match::Groups;
using scrub_match::replace_groups;
using scrub_match::str;

bool one_of(std::string_view word,
            std::initializer_list<std::string_view> list) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

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

bool is_shared_folder(std::string_view name) {
  return one_of(
      to_lower(name),
      {"tmp",    "temp",     "shared",  "share",     "public",  "common",
       "data",   "datasets", "dataset", "projects",  "project", "models",
       "cache",  "local",    "scratch", "users",     "home",    "group",
       "groups", "software", "apps",    "containers"});
}

bool names_a_user(std::string_view key) {
  const std::vector<std::string> words = key_words(key);
  if (words.empty()) return false;
  const std::string& last = words.back();
  const std::string two =
      words.size() >= 2 ? words[words.size() - 2] + last : std::string();
  return last == "user" || last == "username" || last == "login" ||
         last == "logname" || last == "owner" || two == "username";
}

bool names_a_host(std::string_view key) {
  const std::vector<std::string> words = key_words(key);
  if (words.empty()) return false;
  const std::string& last = words.back();
  const std::string two =
      words.size() >= 2 ? words[words.size() - 2] + last : std::string();
  return last == "host" || last == "hostname" || last == "nodename" ||
         two == "hostname" || two == "nodename";
}

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
  static const RE2 kScratch(kScratchPattern);
  replace_groups(text, kScratch, 3, 3, [&](const Groups& groups) {
    const std::string name = str(groups[3]);
    if (is_shared_folder(name) || !is_user_name(name)) {
      return std::optional<std::string>();
    }
    log_replacement(ctx, "user name", name);
    return std::optional<std::string>("<user>");
  });
}

}  // namespace casebook
