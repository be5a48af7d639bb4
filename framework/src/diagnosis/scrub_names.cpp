// User and host names where they identify someone: user@host (and
// user@address; not git@github.com), user and host fields, and the names
// this machine and the text itself give away (ScrubContext) as path
// components always, and as free words where they cannot be common words:
// a distinctive name, or a login (this user's, a home folder's, a user
// field's) that is no common word ("ask jdoe" but "mark the step").
#include <re2/re2.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "diagnosis/scrub_internal.h"
#include "diagnosis/scrub_match.h"

namespace casebook {
namespace {

using scrub_match::Groups;
using scrub_match::replace_groups;
using scrub_match::str;

bool is_ipv4(const std::string& text) {
  static const RE2 kIpv4(R"([0-9]{1,3}(?:\.[0-9]{1,3}){3})");
  return RE2::FullMatch(text, kIpv4);
}

struct Name {
  std::string name;
  const char* marker;
  const char* kind;
  bool as_word;
};

void add_name(std::vector<Name>& names, const std::string& name,
              const char* marker, const char* kind, bool as_word) {
  for (const Name& known : names) {
    if (known.name == name) return;
  }
  names.push_back({name, marker, kind, as_word});
}

// This machine's names and the learned ones. A host name is also known by
// its first label (gpu-node-7 of gpu-node-7.example.org); a full name with
// a dot is a name anywhere.
std::vector<Name> known_names(const ScrubContext& ctx) {
  std::vector<Name> names;
  std::vector<std::string> users = ctx.learned_users;
  users.insert(users.begin(), ctx.user_name);
  for (const std::string& user : users) {
    if (!is_user_name(user)) continue;
    const bool login =
        user == ctx.user_name ||
        std::find(ctx.learned_logins.begin(), ctx.learned_logins.end(), user) !=
            ctx.learned_logins.end();
    add_name(names, user, "<user>", "user name",
             is_distinctive(user) || (login && !is_common_word(user)));
  }
  std::vector<std::string> hosts = ctx.learned_hosts;
  hosts.insert(hosts.begin(), ctx.host_name);
  for (const std::string& host : hosts) {
    if (!is_host_name(host)) continue;
    const size_t dot = host.find('.');
    add_name(names, host, "<host>", "host name",
             dot != std::string::npos || is_distinctive(host));
    const std::string short_host = host.substr(0, dot);
    if (dot != std::string::npos && is_host_name(short_host)) {
      add_name(names, short_host, "<host>", "host name",
               is_distinctive(short_host));
    }
  }
  // Longer names first: "alice.nguyen" before a learned "alice".
  std::stable_sort(names.begin(), names.end(),
                   [](const Name& a, const Name& b) {
                     return a.name.size() > b.name.size();
                   });
  return names;
}

}  // namespace

void replace_names(std::string& text, const ScrubContext& ctx) {
  static const RE2 kUserAtHost(kUserAtHostPattern);
  replace_groups(text, kUserAtHost, 2, 3, [&](const Groups& groups) {
    std::string user = str(groups[2]);
    std::string host = str(groups[3]);
    if (user.size() < 2 || host.size() < 2 ||
        is_forge_remote(user, host, ctx)) {
      return std::optional<std::string>();
    }
    if (is_user_name(user)) {
      log_replacement(ctx, "user name", user);
      user = "<user>";
    }
    // An address is the address rule's (loopback stays, others go).
    if (!is_ipv4(host) && is_host_name(host)) {
      log_replacement(ctx, "host name", host);
      host = "<host>";
    }
    return std::optional<std::string>(user + "@" + host);
  });
  static const RE2 kUserField(kUserFieldPattern);
  replace_groups(text, kUserField, 4, 4, [&](const Groups& groups) {
    const std::string name = str(groups[4]);
    if (!is_user_name(name)) return std::optional<std::string>();
    log_replacement(ctx, "user name", name);
    return std::optional<std::string>("<user>");
  });
  static const RE2 kHostField(kHostFieldPattern);
  replace_groups(text, kHostField, 4, 4, [&](const Groups& groups) {
    const std::string name = str(groups[4]);
    if (!is_host_name(name)) return std::optional<std::string>();
    log_replacement(ctx, "host name", name);
    return std::optional<std::string>("<host>");
  });

  for (const Name& name : known_names(ctx)) {
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

}  // namespace casebook
