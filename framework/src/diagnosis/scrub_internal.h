// Pieces of scrubbing shared between its sources (internal).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "casebook/diagnosis.h"

namespace casebook {

inline constexpr std::string_view kRedactedMarker = "<redacted>";

// Secrets only: key values, Authorization headers, URL credentials and the
// host after them, private key blocks (secrets.cpp), then the token formats
// (token_formats.cpp). Each redaction is counted in `log` where given.
std::string redact_secrets(std::string_view text, ScrubLog* log);
void redact_token_formats(std::string& text, ScrubLog* log);

// The rules for names, addresses and paths, each recording what it replaced
// in ctx.log: internal URLs, user folders (kUserFolderPatterns) and other
// users' scratch folders (scrub_rules.cpp); user@host, user and host
// fields, the user's, the host's and the learned names as path components
// and (where distinctive, or a login that is no common word) as words
// (scrub_names.cpp); MAC and IP addresses, internal host names
// (scrub_addresses.cpp); card numbers, IBANs, social security and phone
// numbers (scrub_identifiers.cpp).
void replace_internal_urls(std::string& text, const ScrubContext& ctx);
void replace_user_folders(std::string& text, const ScrubContext& ctx);
void replace_scratch_folders(std::string& text, const ScrubContext& ctx);
void replace_names(std::string& text, const ScrubContext& ctx);
void replace_addresses(std::string& text, const ScrubContext& ctx);
void replace_identifiers(std::string& text, const ScrubContext& ctx);

// Accounts and host names that many machines share: not names of anyone.
bool is_generic_account(std::string_view name);
bool is_generic_host(std::string_view name);
// Folders under a scratch root that belong to nobody ("shared", "datasets").
bool is_shared_folder(std::string_view name);
// A user or host name worth replacing: 2 characters or more, not generic.
bool is_user_name(std::string_view name);
bool is_host_name(std::string_view name);
// A name that cannot be a common word: it holds a digit, '.', '_', '-' or
// a space ("John Smith").
bool is_distinctive(std::string_view name);
// Words a login can also be ("mark", "will", "max"): such a login is a
// name where it identifies someone, not as a free word.
bool is_common_word(std::string_view name);
// A host only an internal network resolves or the organisation's own: an
// address (not loopback), a single label, an internal suffix (.local,
// .internal, .corp...), a corp or internal label before a public suffix
// (wiki.corp.acme.com), or a name under a learned domain (ctx).
bool is_internal_host(std::string_view host, const ScrubContext& ctx);
// The same for a dotted name as free text (no address, no single label).
bool is_internal_name(std::string_view host, const ScrubContext& ctx);
// git@github.com: the SSH account of a public forge, no one's address.
bool is_forge_remote(std::string_view user, std::string_view host,
                     const ScrubContext& ctx);

// The words of a key or variable name: "HF_TOKEN" -> {hf, token}; "apiKey"
// -> {api, key}; "x-api-key" -> {x, api, key} (secrets.cpp).
std::vector<std::string> key_words(std::string_view key);

// Whether a key's value is a user name ("user", "owner", "data.username")
// or a host name ("host", "versions.hostname", "node_name"), by its last
// word or two.
bool names_a_user(std::string_view key);
bool names_a_host(std::string_view key);

// Patterns the learning and the replacing rules share, so that a name is
// learned exactly where it would be replaced. kUserAtHost: group 2 the
// user, 3 the host or IPv4 address; the fields: group 4 the name.
extern const char kUserAtHostPattern[];
extern const char kUserFieldPattern[];
extern const char kHostFieldPattern[];
extern const char kScratchPattern[];  // group 3: the folder's owner
// User folders on every OS, one pattern each: group 2 the folder (replaced
// by <home>), group 3 its owner's name where it has one (learned).
extern const char* const kUserFolderPatterns[];
extern const size_t kUserFolderPatternCount;
// "(?:local|internal|corp|...)": the suffixes of internal host names.
extern const char kInternalSuffix[];

inline void log_replacement(const ScrubContext& ctx, std::string_view kind,
                            std::string_view original) {
  if (ctx.log != nullptr) ctx.log->add(kind, original);
}

}  // namespace casebook
