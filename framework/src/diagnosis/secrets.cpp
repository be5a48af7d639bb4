// Secret redaction: the values of secret-looking keys, Authorization headers,
// URL credentials, private key blocks and well-known token formats.
//
// Hand-written scanners rather than std::regex: libstdc++'s regex recurses
// per character and overflows the stack on the long messages (backtraces,
// case files) a report carries.
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "casebook/diagnosis.h"
#include "diagnosis/scrub_internal.h"
#include "diagnosis/text.h"

namespace casebook {
namespace {

using diagnosis_text::ascii_lower;
using diagnosis_text::is_alnum;
using diagnosis_text::to_lower;

bool is_key_char(char c) {
  return is_alnum(c) || c == '_' || c == '-' || c == '.';
}

bool is_blank(char c) { return c == ' ' || c == '\t'; }

// Where a key=value word's value ends: a blank, a separator, a closing quote
// or bracket.
bool ends_tight_value(char c) {
  return is_blank(c) || c == ',' || c == ';' || c == '&' || c == '"' ||
         c == '\'' || c == '`' || c == ')' || c == ']' || c == '}';
}

// "HF_TOKEN" -> {hf, token}; "apiKey" -> {api, key}; "x-api-key" -> {x, api,
// key}.
std::vector<std::string> key_words(std::string_view key) {
  std::vector<std::string> words(1);
  for (size_t i = 0; i < key.size(); ++i) {
    const char c = key[i];
    if (!is_alnum(c)) {
      if (!words.back().empty()) words.emplace_back();
      continue;
    }
    const bool camel_hump =
        c >= 'A' && c <= 'Z' && i > 0 && key[i - 1] >= 'a' && key[i - 1] <= 'z';
    if (camel_hump && !words.back().empty()) words.emplace_back();
    words.back() += ascii_lower(c);
  }
  if (words.back().empty()) words.pop_back();
  return words;
}

// Where the redactions of the current call are counted (nullptr: nowhere).
thread_local ScrubLog* redaction_log = nullptr;

// Replaces [begin, end) of `text` by <redacted>.
void redact_range(std::string& text, size_t begin, size_t end) {
  if (redaction_log != nullptr && end > begin) {
    redaction_log->add("secret", "(value not shown)");
  }
  text.replace(begin, end - begin, std::string(kRedactedMarker));
}

// The end of an unquoted value starting at `from`: the end of the line, or
// for a tight key=value word its first blank or separator.
size_t unquoted_value_end(const std::string& text, size_t from, bool tight) {
  size_t end = from;
  while (end < text.size() && text[end] != '\n' && text[end] != '\r') {
    if (tight && ends_tight_value(text[end])) break;
    ++end;
  }
  while (end > from && is_blank(text[end - 1])) --end;
  return end;
}

// If a value follows the secret key that ends at `key_end`, redacts it and
// returns the position after the redaction; otherwise returns key_end.
size_t redact_value_after(std::string& text, size_t key_begin, size_t key_end) {
  size_t at = key_end;
  const char open_quote = key_begin > 0 ? text[key_begin - 1] : '\0';
  if ((open_quote == '"' || open_quote == '\'') && at < text.size() &&
      text[at] == open_quote) {
    ++at;  // "key": "value"
  }
  const bool flag = text[key_begin] == '-';  // --token VALUE
  const bool bearer = to_lower(text.substr(key_begin, key_end - key_begin)) ==
                      "bearer";  // Bearer VALUE
  size_t separator = at;
  while (at < text.size() && is_blank(text[at])) ++at;
  bool tight = false;
  if (at < text.size() && (text[at] == ':' || text[at] == '=')) {
    tight = text[at] == '=' && at == separator && at + 1 < text.size() &&
            !is_blank(text[at + 1]);
    ++at;
    while (at < text.size() && is_blank(text[at])) ++at;
  } else if (!((flag || bearer) && at > separator)) {
    return key_end;  // a mere mention of the word
  }
  if (at >= text.size() || text[at] == '\n') return key_end;
  if (text[at] == '"' || text[at] == '\'') {
    const char quote = text[at];
    size_t close = at + 1;
    while (close < text.size() && text[close] != quote) {
      close += text[close] == '\\' ? 2 : 1;
    }
    close = std::min(close, text.size());
    redact_range(text, at + 1, close);
    return at + 1 + kRedactedMarker.size();
  }
  const size_t end = unquoted_value_end(text, at, tight || flag || bearer);
  redact_range(text, at, end);
  return at + kRedactedMarker.size();
}

void redact_key_values(std::string& text) {
  size_t i = 0;
  while (i < text.size()) {
    if (!is_key_char(text[i]) || (i > 0 && is_key_char(text[i - 1]))) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && is_key_char(text[end])) ++end;
    const std::string_view key(text.data() + i, end - i);
    i = is_secret_key(key) ? redact_value_after(text, i, end) : end;
  }
}

// "scheme://user:password@host" -> "scheme://<redacted>@host".
void redact_url_credentials(std::string& text) {
  size_t from = 0;
  while ((from = text.find("://", from)) != std::string::npos) {
    const size_t begin = from + 3;
    size_t end = begin;
    while (end < text.size() && text[end] != '@' && text[end] != '/' &&
           !is_blank(text[end]) && text[end] != '\n' && text[end] != '"') {
      ++end;
    }
    if (end < text.size() && text[end] == '@' && end > begin) {
      redact_range(text, begin, end);
      end = begin + kRedactedMarker.size();
    }
    from = end;
  }
}

// -----BEGIN ... PRIVATE KEY----- ... -----END ... PRIVATE KEY-----
void redact_private_key_blocks(std::string& text) {
  size_t from = 0;
  while ((from = text.find("-----BEGIN ", from)) != std::string::npos) {
    const size_t header_end = text.find("-----", from + 11);
    if (header_end == std::string::npos) return;
    const size_t end_marker = text.find("-----END ", header_end);
    size_t end = text.size();
    if (end_marker != std::string::npos) {
      const size_t close = text.find("-----", end_marker + 9);
      end = close == std::string::npos ? text.size() : close + 5;
    }
    redact_range(text, from, end);
    from += kRedactedMarker.size();
  }
}

// Tokens whose format gives them away (GitHub, GitLab, Hugging Face, OpenAI,
// Slack, AWS access keys), at least 20 characters long.
void redact_known_tokens(std::string& text) {
  static constexpr std::array<std::string_view, 11> kPrefixes{
      "ghp_",   "gho_", "ghu_", "ghs_", "ghr_", "github_pat_",
      "glpat-", "hf_",  "sk-",  "xox",  "AKIA"};
  size_t i = 0;
  while (i < text.size()) {
    if (!is_key_char(text[i]) || (i > 0 && is_key_char(text[i - 1]))) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() &&
           (is_alnum(text[end]) || text[end] == '_' || text[end] == '-')) {
      ++end;
    }
    const std::string_view word(text.data() + i, end - i);
    bool secret = false;
    for (std::string_view prefix : kPrefixes) {
      secret = secret || (word.size() >= 20 && word.rfind(prefix, 0) == 0);
    }
    if (secret) {
      redact_range(text, i, end);
      end = i + kRedactedMarker.size();
    }
    i = std::max(end, i + 1);
  }
}

}  // namespace

bool is_secret_key(std::string_view key) {
  // The whole name decides, by its last word (or last two): "HF_TOKEN" and
  // "access_token" hold a token, "token_type_ids" (a model input) and
  // "max_tokens" do not; "password_file" names a file, not a password.
  const std::vector<std::string> words = key_words(key);
  if (words.empty()) return false;
  const std::string& last = words.back();
  if (last == "token" || last == "auth" || last == "bearer" ||
      last == "authorization" || last == "credentials" ||
      last == "credential" || last == "apikey" || last == "privatekey" ||
      last == "passphrase" || last == "secret" || last == "pat" ||
      last.find("password") != std::string::npos ||
      last.find("passwd") != std::string::npos) {
    return true;
  }
  if (words.size() >= 2 && last == "key") {
    const std::string& before = words[words.size() - 2];
    return before == "api" || before == "private" || before == "access" ||
           before == "secret" || before == "signing" ||
           before == "encryption" || before == "auth";
  }
  return false;
}

std::string redact_secrets(std::string_view input, ScrubLog* log) {
  redaction_log = log;
  std::string text(input);
  redact_private_key_blocks(text);
  redact_url_credentials(text);
  redact_key_values(text);
  redact_known_tokens(text);
  redaction_log = nullptr;
  return text;
}

}  // namespace casebook
