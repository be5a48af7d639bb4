// Learning the names a text gives away, so that a name seen where it
// identifies someone (a home or scratch folder, user@host, a user or host
// field, an e-mail's local part) is replaced wherever else it stands: as a
// path component, and as a free word where it cannot be a common word
// ("seen by alice.nguyen" after "/home/alice.nguyen").
#include <re2/re2.h>

#include <algorithm>
#include <string>
#include <vector>

#include "diagnosis/scrub_internal.h"
#include "diagnosis/scrub_match.h"
#include "diagnosis/text.h"

namespace casebook {
namespace {

using diagnosis_text::to_lower;
using scrub_match::for_each_match;
using scrub_match::Groups;
using scrub_match::str;

// What a learned name may be: a word of name characters, not a number, not
// a marker an earlier scrub left.
bool looks_like_a_name(const std::string& name) {
  static const RE2 kName(R"([A-Za-z_][A-Za-z0-9_.-]*[A-Za-z0-9_])");
  return RE2::FullMatch(name, kName);
}

// Mailboxes that name a role, not a person.
bool is_role_mailbox(const std::string& local) {
  static const std::vector<std::string> kRoles = {
      "noreply", "no-reply", "support", "info", "contact",    "security",
      "help",    "team",     "hello",   "git",  "maintainers"};
  return std::find(kRoles.begin(), kRoles.end(), to_lower(local)) !=
         kRoles.end();
}

void add(std::vector<std::string>& names, const std::string& name) {
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    names.push_back(name);
  }
}

void learn_user(const std::string& name, ScrubContext& ctx) {
  if (looks_like_a_name(name) && is_user_name(name)) {
    add(ctx.learned_users, name);
  }
}

void learn_host(const std::string& name, ScrubContext& ctx) {
  if (looks_like_a_name(name) && is_host_name(name)) {
    add(ctx.learned_hosts, name);
  }
}

// An e-mail's domain is an organisation's, not a machine's: of
// "bob.smith+ml@corp.example.com" only "bob.smith" is learned.
bool is_mail_domain(const std::string& host) {
  static const RE2 kDomain(R"((?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,})");
  return RE2::FullMatch(host, kDomain);
}

}  // namespace

void learn_names(std::string_view input, ScrubContext& ctx) {
  const std::string text(input);
  // /home/alice, /Users/alice, C:\Users\alice (C:/Users, doubled \\ too).
  static const RE2 kHome(
      R"((?i)(^|[^A-Za-z0-9_.~-])(?:/home/|/users/|[a-z]:[\\/]+users[\\/]+)([^/\\\s"':;,)\]}>`<]+))");
  for_each_match(text, kHome, 2, [&](const Groups& groups) {
    learn_user(str(groups[2]), ctx);
  });
  static const RE2 kScratch(kScratchPattern);
  for_each_match(text, kScratch, 3, [&](const Groups& groups) {
    const std::string name = str(groups[3]);
    if (!is_shared_folder(name)) learn_user(name, ctx);
  });
  // user@host and e-mails: the user (a tagged local part, bob+ml@, is not
  // matched); the host when it is a machine's name, not an address or a
  // mail domain.
  static const RE2 kUserAtHost(kUserAtHostPattern);
  for_each_match(text, kUserAtHost, 3, [&](const Groups& groups) {
    const std::string user = str(groups[2]);
    const std::string host = str(groups[3]);
    const bool mail = is_mail_domain(host);
    if (!(mail && is_role_mailbox(user))) learn_user(user, ctx);
    static const RE2 kIpv4(R"([0-9]{1,3}(?:\.[0-9]{1,3}){3})");
    if (!mail && !RE2::FullMatch(host, kIpv4)) learn_host(host, ctx);
  });
  static const RE2 kUserField(kUserFieldPattern);
  for_each_match(text, kUserField, 4, [&](const Groups& groups) {
    learn_user(str(groups[4]), ctx);
  });
  static const RE2 kHostField(kHostFieldPattern);
  for_each_match(text, kHostField, 4, [&](const Groups& groups) {
    learn_host(str(groups[4]), ctx);
  });
}

void learn_names_from_entry(std::string_view key, std::string_view value,
                            ScrubContext& ctx) {
  const std::string whole(diagnosis_text::trim(value));
  if (names_a_user(key)) learn_user(whole, ctx);
  if (names_a_host(key)) learn_host(whole, ctx);
  learn_names(value, ctx);
}

}  // namespace casebook
