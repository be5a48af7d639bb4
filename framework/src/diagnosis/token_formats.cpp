// Secrets that give themselves away by their format, wherever they stand
// (no key name before them): JSON Web Tokens, Google API keys, Slack
// webhooks and tokens, and the tokens of GitHub, GitLab, Hugging Face,
// OpenAI, npm, Stripe and AWS. Each format is an RE2 pattern with the
// character before it as a group of its own (RE2 has no look-behind), so a
// prefix inside a longer word ("ask_live_questions") is not a token.
#include <re2/re2.h>

#include <algorithm>
#include <string>

#include "diagnosis/scrub_internal.h"
#include "diagnosis/scrub_match.h"

namespace casebook {
namespace {

using scrub_match::Groups;
using scrub_match::replace_groups;
using scrub_match::str;

bool has_digit(const std::string& text) {
  return std::any_of(text.begin(), text.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

// What a word of a generic prefix must hold to be a token rather than a
// name that starts the same way ("sk-learn-compatible-estimator"): random
// tokens hold digits.
bool looks_random(const std::string& token) { return has_digit(token); }

// An AWS secret access key with no key name before it: 40 characters of
// base64 with upper and lower case and digits, and a '/' or '+' or at
// least four digits (a 40-letter kernel name with a digit or two is not
// one; a git revision is lower-case hex; a path has more than two '/').
bool looks_like_aws_secret(const std::string& word) {
  int upper = 0;
  int lower = 0;
  int digits = 0;
  int slashes = 0;
  int pluses = 0;
  for (char c : word) {
    upper += c >= 'A' && c <= 'Z';
    lower += c >= 'a' && c <= 'z';
    digits += c >= '0' && c <= '9';
    slashes += c == '/';
    pluses += c == '+';
  }
  return word.front() != '/' && upper > 0 && lower > 0 && digits > 0 &&
         slashes <= 2 && (slashes + pluses > 0 || digits >= 4);
}

struct TokenFormat {
  const char* pattern;  // group 1: the character before; group 2: the token
  bool generic_prefix;  // the token must look random (looks_random)
  bool aws_secret;      // the token must pass looks_like_aws_secret
};

// Group 2 is replaced; group 3, where there is one, is the character after
// the token (not replaced).
const TokenFormat kFormats[] = {
    // header.payload.signature, each base64url; both JSON parts start '{"'.
    {R"((^|[^A-Za-z0-9_-])(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}))",
     false, false},
    {R"((^|[^A-Za-z0-9_-])(AIza[0-9A-Za-z_-]{35})($|[^0-9A-Za-z_-]))", false,
     false},
    {R"((^|[^A-Za-z0-9_-])(xox[abposr]-[A-Za-z0-9-]{10,}|xapp-[A-Za-z0-9-]{10,}))",
     false, false},
    {R"((^|[^A-Za-z0-9_])(npm_[A-Za-z0-9]{36})($|[^A-Za-z0-9_]))", false,
     false},
    {R"((^|[^A-Za-z0-9_])((?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}))", false,
     false},
    {R"((^|[^A-Za-z0-9_])(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}))",
     false, false},
    {R"((^|[^A-Za-z0-9_-])(glpat-[A-Za-z0-9_-]{20,}))", false, false},
    {R"((^|[^A-Za-z0-9_])(hf_[A-Za-z0-9]{30,}))", false, false},
    {R"((^|[^A-Za-z0-9_-])(sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}))",
     true, false},
    {R"((^|[^A-Za-z0-9])((?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16})($|[^0-9A-Za-z]))",
     false, false},
    {R"((^|[^A-Za-z0-9/+=_.-])([A-Za-z0-9/+]{40})($|[^A-Za-z0-9/+_.-]|\.[^A-Za-z0-9]|\.$))",
     false, true},
};

// https://hooks.slack.com/services/T.../B.../...: the path is the secret.
void redact_webhooks(std::string& text, ScrubLog* log) {
  static const RE2 kWebhook(
      R"((?i)(https?://(?:hooks\.slack\.com/(?:services|workflows|triggers)|(?:discord|discordapp)\.com/api/webhooks)/)([A-Za-z0-9_/-]+))");
  replace_groups(text, kWebhook, 2, 2, [&](const Groups&) {
    if (log != nullptr) log->add("secret", "(value not shown)");
    return std::optional<std::string>(std::string(kRedactedMarker));
  });
}

}  // namespace

void redact_token_formats(std::string& text, ScrubLog* log) {
  redact_webhooks(text, log);
  for (const TokenFormat& format : kFormats) {
    const RE2 re(format.pattern);
    replace_groups(text, re, 2, 2, [&](const Groups& groups) {
      const std::string token = str(groups[2]);
      if ((format.generic_prefix && !looks_random(token)) ||
          (format.aws_secret && !looks_like_aws_secret(token))) {
        return std::optional<std::string>();
      }
      if (log != nullptr) log->add("secret", "(value not shown)");
      return std::optional<std::string>(std::string(kRedactedMarker));
    });
  }
}

}  // namespace casebook
