// Scrubbing a (key, value) pair as a unit: what the key says the value is
// decides, in the report's tables and in its case file alike.
#include <string>
#include <utility>

#include "casebook/diagnosis.h"
#include "diagnosis/scrub_internal.h"
#include "diagnosis/text.h"

namespace casebook {
namespace {

// A single word of name characters: what a user or host field holds.
bool is_single_name(std::string_view value) {
  if (value.empty()) return false;
  for (char c : value) {
    if (!(diagnosis_text::is_alnum(c) || c == '_' || c == '.' || c == '-')) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::pair<std::string, std::string> scrub_entry(std::string_view key,
                                                std::string_view value,
                                                const ScrubContext& given) {
  ScrubContext ctx = given;
  learn_names_from_entry(key, value, ctx);
  std::string clean_key = scrub(key, ctx);
  if (is_secret_key(key)) {
    if (!value.empty()) log_replacement(ctx, "secret", "(value not shown)");
    return {clean_key, value.empty() ? std::string() : "<redacted>"};
  }
  const std::string_view whole = diagnosis_text::trim(value);
  if (names_a_user(key) && is_single_name(whole) && is_user_name(whole)) {
    log_replacement(ctx, "user name", whole);
    return {clean_key, "<user>"};
  }
  if (names_a_host(key) && is_single_name(whole) && is_host_name(whole)) {
    log_replacement(ctx, "host name", whole);
    return {clean_key, "<host>"};
  }
  return {clean_key, scrub(value, ctx)};
}

}  // namespace casebook
