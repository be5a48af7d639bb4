// Pieces of scrubbing shared between its sources (internal).
#pragma once

#include <string>
#include <string_view>

namespace casebook {

inline constexpr std::string_view kRedactedMarker = "<redacted>";

// Secrets only: key values, Authorization headers, URL credentials, private
// key blocks, well-known token formats (secrets.cpp).
std::string redact_secrets(std::string_view text);

}  // namespace casebook
