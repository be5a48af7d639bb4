// The shared vocabulary of the scrubbing rules (which names are generic,
// which keys name a user or a host, which hosts are internal, the patterns
// learning and replacing share) and the rules for internal URLs, user
// folders and scratch folders.
#include <re2/re2.h>

#include <algorithm>
#include <iterator>
#include <memory>
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

// A name of capitalised words ("John Smith") where a separator follows it,
// else one path component; /root; \\server\home$\x (UNC), and doubled as
// JSON writes it; ~x/ (not ~/, not ~Tensor(), not Python's ~mask).
const char* const kUserFolderPatterns[] = {
    R"(()((?:/home/|/Users/|\b[A-Za-z]:[\\/]+(?i:users)[\\/]+)([A-Za-z0-9_.$-]+(?: [A-Z][A-Za-z0-9_.'-]*){1,3}))[\\/])",
    R"(()((?:/home/|/Users/|\b[A-Za-z]:[\\/]+(?i:users)[\\/]+)([^/\\\s"':;,)\]}>`<]+)))",
    R"((^|[^A-Za-z0-9/._-])(/root)()($|[/\\\s"':;,)\]}>`]))",
    R"((^|[\s"'=(,\[])(\\\\[A-Za-z0-9][A-Za-z0-9.-]*\\(?i:home|homes|users|user|profiles)\$?\\([^/\\\s"':;,)\]}>`<$]+)))",
    R"((^|[\s"'=(,\[])(\\\\\\\\[A-Za-z0-9][A-Za-z0-9.-]*\\\\(?i:home|homes|users|user|profiles)\$?\\\\([^/\\\s"':;,)\]}>`<$]+)))",
    R"((^|[\s"'=(:,\[])(~([a-z_][a-z0-9_.-]*[a-z0-9_]))/)",
};
const size_t kUserFolderPatternCount = std::size(kUserFolderPatterns);

namespace {

using diagnosis_text::to_lower;
using scrub_match::Groups;
using scrub_match::replace_groups;
using scrub_match::str;

bool one_of(std::string_view word,
            std::initializer_list<std::string_view> list) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

}  // namespace

bool is_internal_name(std::string_view host, const ScrubContext& ctx) {
  static const RE2 kSuffix(std::string(R"(.+\.)") + kInternalSuffix);
  static const RE2 kCorpLabel(
      R"((?:[a-z0-9-]+\.)*(?:corp|internal|intranet|intra)\.(?:[a-z0-9-]+\.)*(?:com|net|org|io|ai|dev|app|cloud|edu|gov|biz|info|tech|[a-z]{2}))");
  const std::string lower = to_lower(host);
  if (RE2::FullMatch(lower, kSuffix) || RE2::FullMatch(lower, kCorpLabel)) {
    return true;
  }
  return std::any_of(ctx.learned_domains.begin(), ctx.learned_domains.end(),
                     [&](const std::string& domain) {
                       return lower == domain ||
                              (lower.size() > domain.size() &&
                               lower.compare(lower.size() - domain.size(),
                                             domain.size(), domain) == 0 &&
                               lower[lower.size() - domain.size() - 1] == '.');
                     });
}

bool is_internal_host(std::string_view host, const ScrubContext& ctx) {
  static const RE2 kIpv4(R"(\d{1,3}(?:\.\d{1,3}){3})");
  const std::string lower = to_lower(host);
  if (lower.empty() || lower == "localhost" || lower.rfind("127.", 0) == 0 ||
      lower == "[::1]") {
    return false;
  }
  if (RE2::FullMatch(lower, kIpv4) || lower.front() == '[') return true;
  if (lower.find('.') == std::string::npos) return true;  // one label
  return is_internal_name(lower, ctx);
}

bool is_forge_remote(std::string_view user, std::string_view host,
                     const ScrubContext& ctx) {
  return user == "git" && host.find('.') != std::string_view::npos &&
         !is_internal_host(host, ctx);
}

bool is_distinctive(std::string_view name) {
  return name.size() >= 3 && std::any_of(name.begin(), name.end(), [](char c) {
           return (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' ||
                  c == ' ';
         });
}

bool is_common_word(std::string_view name) {
  return one_of(
      to_lower(name),
      {"mark",  "will",  "bill",   "max",   "min",   "may",   "june",  "april",
       "grace", "frank", "rose",   "art",   "ray",   "dawn",  "gene",  "pat",
       "rob",   "sue",   "guy",    "jack",  "hope",  "joy",   "page",  "lane",
       "young", "long",  "king",   "price", "white", "brown", "green", "black",
       "gray",  "grey",  "hunter", "chase", "drew",  "dean",  "rich",  "sunny",
       "don",   "ruby",  "iris",   "ivy",   "cook",  "baker", "ward",  "wood",
       "hall",  "hill",  "field",  "bell",  "adam",  "ada",   "lamb",  "nova",
       "sky",   "star",  "link",   "case",  "job",   "jobs",  "data",  "model",
       "train", "batch", "step",   "mean",  "sum",   "ml",    "ai",    "team"});
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
       "rocm",     "ray",      "slurm",         "git"});
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
    if (!is_internal_host(host, ctx)) {
      return std::optional<std::string>();
    }
    log_replacement(ctx, "internal URL", str(groups[0]));
    return std::optional<std::string>("<internal-url>");
  });
}

void replace_user_folders(std::string& text, const ScrubContext& ctx) {
  static const std::vector<std::unique_ptr<RE2>> kFolders =
      scrub_match::compile_all(kUserFolderPatterns, kUserFolderPatternCount);
  for (const auto& folder : kFolders) {
    replace_groups(text, *folder, 2, 2, [&](const Groups& groups) {
      log_replacement(ctx, "home folder", str(groups[2]));
      return std::optional<std::string>("<home>");
    });
  }
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
