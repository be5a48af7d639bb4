// Pieces of scrubbing shared between its sources (internal).
#pragma once

#include <string>
#include <string_view>

#include "casebook/diagnosis.h"

namespace casebook {

inline constexpr std::string_view kRedactedMarker = "<redacted>";

// Secrets only: key values, Authorization headers, URL credentials, private
// key blocks, well-known token formats (secrets.cpp).
// Each redaction is counted in `log` where given.
std::string redact_secrets(std::string_view text, ScrubLog* log);

// The rules for names, addresses and paths (scrub_rules.cpp), each recording
// what it replaced in ctx.log: internal URLs, other users' scratch folders,
// user@host, user and host fields, the user's and host's names as path
// components and (where distinctive) as words, IP addresses, internal host
// names.
void replace_internal_urls(std::string& text, const ScrubContext& ctx);
void replace_scratch_folders(std::string& text, const ScrubContext& ctx);
void replace_names(std::string& text, const ScrubContext& ctx);
void replace_addresses(std::string& text, const ScrubContext& ctx);

// Accounts and host names that many machines share: not names of anyone.
bool is_generic_account(std::string_view name);
bool is_generic_host(std::string_view name);

inline void log_replacement(const ScrubContext& ctx, std::string_view kind,
                            std::string_view original) {
  if (ctx.log != nullptr) ctx.log->add(kind, original);
}

}  // namespace casebook
