// Learning the names a text gives away, so that a name seen where it
// identifies someone (a user, home or scratch folder, user@host, a user or
// host field, an e-mail's local part and the name before it) is replaced
// wherever else it stands: as a path component, and as a free word where
// it cannot be a common word ("seen by alice.nguyen" after
// "/home/alice.nguyen"; "ask jdoe" after "/home/jdoe"). The domain of an
// e-mail or a dotted host name is the organisation's, and every host under
// it is internal (is_internal_name).
#include <re2/re2.h>

#include <algorithm>
#include <memory>
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

// What a learned name may be: a word of name characters, or capitalised
// words ("John Smith"); not a number, not a marker an earlier scrub left.
bool looks_like_a_name(const std::string& name) {
  static const RE2 kName(
      R"([A-Za-z_][A-Za-z0-9_.-]*[A-Za-z0-9_](?: [A-Z][A-Za-z0-9_.'-]*[A-Za-z0-9_])*)");
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

// Domains of mail providers and public projects: no organisation's own.
bool is_public_domain(const std::string& domain) {
  static const std::vector<std::string> kPublic = {
      "gmail.com",   "googlemail.com", "outlook.com",    "hotmail.com",
      "live.com",    "yahoo.com",      "icloud.com",     "me.com",
      "aol.com",     "proton.me",      "protonmail.com", "gmx.de",
      "gmx.net",     "web.de",         "qq.com",         "163.com",
      "yandex.ru",   "mail.ru",        "example.com",    "example.org",
      "example.net", "github.com",     "gitlab.com",     "bitbucket.org",
      "pytorch.org", "nvidia.com",     "amd.com",        "intel.com",
      "google.com",  "microsoft.com",  "amazonaws.com",  "gserviceaccount.com",
      "python.org",  "pypi.org",       "huggingface.co"};
  return std::find(kPublic.begin(), kPublic.end(), domain) != kPublic.end();
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

// A user name that is a login (a folder's owner, a user field's value).
void learn_login(const std::string& name, ScrubContext& ctx) {
  if (looks_like_a_name(name) && is_user_name(name)) {
    add(ctx.learned_users, name);
    add(ctx.learned_logins, name);
  }
}

void learn_host(const std::string& name, ScrubContext& ctx) {
  if (looks_like_a_name(name) && is_host_name(name)) {
    add(ctx.learned_hosts, name);
  }
}

// acme.com of gpu-07.corp.acme.com or of an e-mail's domain (acme.co.uk of
// x.acme.co.uk); none of an internal suffix or a public domain.
void learn_domain(const std::string& host, ScrubContext& ctx) {
  static const RE2 kDomain(
      R"((?i).*?([a-z0-9-]+\.(?:(?:co|com|ac|org|net|gov|edu|ne|or)\.[a-z]{2}|[a-z]{2,})))");
  static const RE2 kInternal(std::string(R"((?i)(?:.+\.)?)") + kInternalSuffix);
  std::string domain;
  if (!RE2::FullMatch(host, kDomain, &domain) ||
      RE2::FullMatch(host, kInternal)) {
    return;
  }
  domain = to_lower(domain);
  if (!is_public_domain(domain)) add(ctx.learned_domains, domain);
}

// An e-mail's domain is an organisation's, not a machine's: of
// "bob.smith+ml@corp.example.com" only "bob.smith" is learned.
bool is_mail_domain(const std::string& host) {
  static const RE2 kDomain(R"((?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,})");
  return RE2::FullMatch(host, kDomain);
}

// The owners of user and scratch folders (not shared ones).
void learn_folder_owners(const std::string& text, ScrubContext& ctx) {
  static const std::vector<std::unique_ptr<RE2>> kFolders =
      scrub_match::compile_all(kUserFolderPatterns, kUserFolderPatternCount);
  static const RE2 kScratch(kScratchPattern);
  for (const auto& folder : kFolders) {
    for_each_match(text, *folder, 2, [&](const Groups& groups) {
      const std::string name = str(groups[3]);
      if (!is_shared_folder(name)) learn_login(name, ctx);
    });
  }
  for_each_match(text, kScratch, 3, [&](const Groups& groups) {
    const std::string name = str(groups[3]);
    if (!is_shared_folder(name)) learn_login(name, ctx);
  });
}

// user@host: the user; the host when it is a machine's name, not an
// address or a mail domain. An e-mail (also <addr>, tagged bob+ml@): its
// local part, the name before "<", its domain; none of a role mailbox.
void learn_addresses(const std::string& text, ScrubContext& ctx) {
  static const RE2 kUserAtHost(kUserAtHostPattern);
  for_each_match(text, kUserAtHost, 3, [&](const Groups& groups) {
    const std::string host = str(groups[3]);
    static const RE2 kIpv4(R"([0-9]{1,3}(?:\.[0-9]{1,3}){3})");
    if (is_mail_domain(host)) return;
    learn_user(str(groups[2]), ctx);
    if (!RE2::FullMatch(host, kIpv4)) learn_host(host, ctx);
  });
  static const RE2 kEmail(
      R"((^|[^A-Za-z0-9_.%+-])(?:([A-Z][a-z]+(?: [A-Z][A-Za-z'-]+){1,3}) <)?([A-Za-z0-9._%-]+)(?:\+[A-Za-z0-9._-]*)?@((?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}))");
  for_each_match(text, kEmail, 4, [&](const Groups& groups) {
    const std::string local = str(groups[3]);
    if (is_role_mailbox(local)) return;
    learn_user(local, ctx);
    if (groups[2].data() != nullptr) learn_user(str(groups[2]), ctx);
    learn_domain(str(groups[4]), ctx);
  });
}

}  // namespace

void learn_names(std::string_view input, ScrubContext& ctx) {
  const std::string text(input);
  learn_folder_owners(text, ctx);
  learn_addresses(text, ctx);
  static const RE2 kUserField(kUserFieldPattern);
  for_each_match(text, kUserField, 4, [&](const Groups& groups) {
    learn_login(str(groups[4]), ctx);
  });
  static const RE2 kHostField(kHostFieldPattern);
  for_each_match(text, kHostField, 4, [&](const Groups& groups) {
    learn_host(str(groups[4]), ctx);
  });
  learn_domain(ctx.host_name, ctx);
  for (const std::string& host : std::vector<std::string>(ctx.learned_hosts)) {
    learn_domain(host, ctx);
  }
}

void learn_names_from_entry(std::string_view key, std::string_view value,
                            ScrubContext& ctx) {
  const std::string whole(diagnosis_text::trim(value));
  if (names_a_user(key)) learn_login(whole, ctx);
  if (names_a_host(key)) learn_host(whole, ctx);
  learn_names(value, ctx);
}

}  // namespace casebook
