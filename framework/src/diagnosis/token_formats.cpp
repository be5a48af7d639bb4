// Secrets that give themselves away by their format, wherever they stand
// (no key name before them): JSON Web Tokens, Google API keys and OAuth
// tokens (ya29., 1//), Slack webhooks and tokens, the tokens of GitHub,
// GitLab, Hugging Face, OpenAI, npm, Stripe (keys and whsec_ webhook
// secrets) and AWS (access key ids; secret keys by their shape and their
// entropy or the word before them), an Azure storage key, and the
// signature of a signed URL (Azure SAS sig=, X-Amz-Signature=...). Each
// format is an RE2 pattern with the character before it as a group of its
// own (RE2 has no look-behind), so a prefix inside a longer word
// ("ask_live_questions") is not a token.
#include <re2/re2.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "diagnosis/scrub_internal.h"
#include "diagnosis/scrub_match.h"

namespace casebook {
namespace {

using scrub_match::Groups;
using scrub_match::replace_groups;
using scrub_match::str;

// What a word of a generic prefix must hold to be a token rather than a
// name that starts the same way ("sk-learn-compatible-estimator"): random
// tokens hold digits.
bool looks_random(const std::string& token, std::string_view) {
  return std::any_of(token.begin(), token.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

// Bits per character of `word`'s own distribution: about 4.8 for 40
// random base64 characters (4.47 at the 1st percentile), about 4.3 for a
// 40-character CamelCase name with digits.
double entropy(const std::string& word) {
  std::map<char, int> counts;
  for (char c : word) ++counts[c];
  double bits = 0;
  for (const auto& [c, count] : counts) {
    const double p =
        static_cast<double>(count) / static_cast<double>(word.size());
    bits -= p * std::log2(p);
  }
  return bits;
}

// Steps that words in CamelCase rarely take (an upper-case letter before
// an upper-case letter or a digit, a digit before a lower-case letter):
// 0 or 1 in "NumpyV2IsReadAsBfloat16WhenTheCaseSaysSo", 3 or more in 99.9%
// of random keys.
int case_jumps(const std::string& word) {
  int jumps = 0;
  for (size_t i = 0; i + 1 < word.size(); ++i) {
    const char a = word[i];
    const char b = word[i + 1];
    const bool upper = a >= 'A' && a <= 'Z';
    jumps += (upper && ((b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9'))) ||
             (a >= '0' && a <= '9' && b >= 'a' && b <= 'z');
  }
  return jumps;
}

// An AWS secret access key with no key name before it: 40 characters of
// base64 with upper and lower case and digits (a git revision is lower-case
// hex; a path has more than two '/'), and a '/' or '+', the entropy and
// case jumps of a random key (not a CamelCase name), or "aws" or "secret"
// before it on the line.
bool looks_like_aws_secret(const std::string& word, std::string_view before) {
  static const RE2 kContext(R"((?i)(?:^|[^a-z])(?:aws|secret))");
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
  const bool shaped = word.front() != '/' && upper > 0 && lower > 0 &&
                      digits > 0 && slashes <= 2;
  const bool random = entropy(word) >= 4.5 && case_jumps(word) >= 3;
  return shaped && (slashes + pluses > 0 || random ||
                    RE2::PartialMatch(before, kContext));
}

struct TokenFormat {
  // Group 1: what stands before (a character, a URL's "sig="); group 2:
  // the token.
  const char* pattern;
  // What the token must also be, given the line before it (nullptr: none).
  bool (*check)(const std::string& token, std::string_view before);
};

// Group 2 is replaced; group 3, where there is one, is the character after
// the token (not replaced).
const TokenFormat kFormats[] = {
    // header.payload.signature, each base64url; both JSON parts start '{"'.
    {R"((^|[^A-Za-z0-9_-])(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}))",
     nullptr},
    // A signed URL's signature: Azure SAS, S3 and GCS presigned URLs.
    {R"(([?&;](?i:sig|signature|x-amz-signature|x-amz-security-token|x-amz-credential|x-goog-signature|x-goog-credential)=)([^&\s"'#<>]+))",
     nullptr},
    {R"((^|[^A-Za-z0-9_-])(AIza[0-9A-Za-z_-]{35})($|[^0-9A-Za-z_-]))", nullptr},
    // Google OAuth access and refresh tokens.
    {R"((^|[^A-Za-z0-9_.-])(ya29\.[A-Za-z0-9_-]{20,}|1//0[A-Za-z0-9_-]{20,}))",
     nullptr},
    {R"((^|[^A-Za-z0-9_-])(xox[abposr]-[A-Za-z0-9-]{10,}|xapp-[A-Za-z0-9-]{10,}))",
     nullptr},
    {R"((^|[^A-Za-z0-9_])(npm_[A-Za-z0-9]{36})($|[^A-Za-z0-9_]))", nullptr},
    {R"((^|[^A-Za-z0-9_])((?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9]{24,}))",
     nullptr},
    {R"((^|[^A-Za-z0-9_])(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}))",
     nullptr},
    {R"((^|[^A-Za-z0-9_-])(glpat-[A-Za-z0-9_-]{20,}))", nullptr},
    {R"((^|[^A-Za-z0-9_])(hf_[A-Za-z0-9]{30,}))", nullptr},
    {R"((^|[^A-Za-z0-9_-])(sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}))",
     looks_random},
    {R"((^|[^A-Za-z0-9])((?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16})($|[^0-9A-Za-z]))",
     nullptr},
    {R"((^|[^A-Za-z0-9/+=_.-])([A-Za-z0-9/+]{40})($|[^A-Za-z0-9/+_.-]|\.[^A-Za-z0-9]|\.$))",
     looks_like_aws_secret},
    // An Azure storage account key: 64 bytes of base64.
    {R"((^|[^A-Za-z0-9/+=])([A-Za-z0-9/+]{86}==)($|[^A-Za-z0-9/+=]))", nullptr},
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
  static const std::vector<std::unique_ptr<RE2>> kCompiled = [] {
    std::vector<const char*> patterns;
    for (const TokenFormat& format : kFormats)
      patterns.push_back(format.pattern);
    return scrub_match::compile_all(patterns.data(), patterns.size());
  }();
  for (size_t i = 0; i < kCompiled.size(); ++i) {
    const TokenFormat& format = kFormats[i];
    replace_groups(text, *kCompiled[i], 2, 2, [&](const Groups& groups) {
      const std::string token = str(groups[2]);
      const size_t at = groups[2].data() - text.data();
      const size_t line = text.rfind('\n', at == 0 ? 0 : at - 1);
      const size_t from =
          line == std::string::npos || line >= at ? 0 : line + 1;
      if (format.check != nullptr &&
          !format.check(token,
                        std::string_view(text).substr(from, at - from))) {
        return std::optional<std::string>();
      }
      if (log != nullptr) log->add("secret", "(value not shown)");
      return std::optional<std::string>(std::string(kRedactedMarker));
    });
  }
}

}  // namespace casebook
