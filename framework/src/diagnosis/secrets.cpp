// Secret redaction: the values of secret-looking keys, Authorization headers,
// cookies, URL credentials (and the host they open) and private key blocks;
// the token formats that give themselves away are in token_formats.cpp.
//
// A value is redacted token by token: an unquoted value ends at its first
// blank or separator, a quoted one at its closing quote, never at the end
// of the line, so that the rest of a sentence and the syntax around it (a
// YAML flow map, a JSON object, a closing quote) survive.
//
// Hand-written scanners or RE2 rather than std::regex: libstdc++'s regex
// recurses per character and overflows the stack on the long messages
// (backtraces, case files) a report carries.
#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "casebook/diagnosis.h"
#include "diagnosis/scrub_internal.h"
#include "diagnosis/scrub_match.h"
#include "diagnosis/text.h"

namespace casebook {
namespace {

using diagnosis_text::ascii_lower;
using diagnosis_text::is_alnum;
using diagnosis_text::to_lower;
using scrub_match::Groups;
using scrub_match::replace_groups;
using scrub_match::str;

bool is_key_char(char c) {
  return is_alnum(c) || c == '_' || c == '-' || c == '.';
}

bool is_blank(char c) { return c == ' ' || c == '\t'; }

// Where an unquoted value ends: a blank, a separator, a closing quote or
// bracket.
bool ends_token(char c) {
  return is_blank(c) || c == ',' || c == ';' || c == '&' || c == '"' ||
         c == '\'' || c == '`' || c == ')' || c == ']' || c == '}';
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

// The end of an unquoted value starting at `from`: its first blank or
// separator (one token, never the rest of the line).
size_t unquoted_value_end(const std::string& text, size_t from) {
  size_t end = from;
  while (end < text.size() && text[end] != '\n' && text[end] != '\r' &&
         !ends_token(text[end])) {
    ++end;
  }
  return end;
}

// The schemes of an Authorization header: the credential is the token after
// them ("Authorization: Bearer <redacted>").
bool is_auth_scheme(std::string_view word) {
  const std::string lower = to_lower(word);
  return lower == "bearer" || lower == "basic" || lower == "token" ||
         lower == "digest" || lower == "bot" || lower == "apikey";
}

bool looks_like_credential(std::string_view word) {
  return word.size() >= 16 ||
         word.find_first_of("0123456789") != std::string_view::npos;
}

// Redacts the quoted value whose opening quote is at `open` (up to its
// closing quote on the same line); returns the position after the closing
// quote's replacement.
size_t redact_quoted(std::string& text, size_t open) {
  const char quote = text[open];
  size_t close = open + 1;
  while (close < text.size() && text[close] != quote && text[close] != '\n') {
    close += text[close] == '\\' && close + 1 < text.size() ? 2 : 1;
  }
  close = std::min(close, text.size());
  redact_range(text, open + 1, close);
  return open + 1 + kRedactedMarker.size();
}

// Where the value of the secret key [key_begin, key_end) starts: after a
// ':' or '=' and the blanks around it, or, where `blank_separates` (a flag:
// --token VALUE; Bearer VALUE), after blanks alone; nullopt when no value
// follows on the line (a mere mention of the word). `*separated` tells
// whether a ':' or '=' came.
std::optional<size_t> value_begin(const std::string& text, size_t key_begin,
                                  size_t key_end, bool blank_separates,
                                  bool* separated) {
  size_t at = key_end;
  const char open_quote = key_begin > 0 ? text[key_begin - 1] : '\0';
  if ((open_quote == '"' || open_quote == '\'') && at < text.size() &&
      text[at] == open_quote) {
    ++at;  // "key": "value"
  }
  const size_t separator = at;
  while (at < text.size() && is_blank(text[at])) ++at;
  *separated = at < text.size() && (text[at] == ':' || text[at] == '=');
  if (*separated) {
    ++at;
    while (at < text.size() && is_blank(text[at])) ++at;
  } else if (!(blank_separates && at > separator)) {
    return std::nullopt;
  }
  if (at >= text.size() || text[at] == '\n' || text[at] == '\r') {
    return std::nullopt;
  }
  return at;
}

// "Authorization: Bearer TOKEN": the scheme stays, the token goes. Moves
// [*begin, *end) from the scheme to the token after it, where one follows on
// the line.
void move_past_scheme(const std::string& text, size_t* begin, size_t* end) {
  size_t token = *end;
  while (token < text.size() && is_blank(text[token])) ++token;
  const size_t token_end = unquoted_value_end(text, token);
  if (token > *end && token_end > token) {
    *begin = token;
    *end = token_end;
  }
}

// If a value follows the secret key that ends at `key_end`, redacts it and
// returns the position after the redaction; otherwise returns key_end.
size_t redact_value_after(std::string& text, size_t key_begin, size_t key_end) {
  const bool flag = text[key_begin] == '-';  // --token VALUE
  const bool bearer = to_lower(text.substr(key_begin, key_end - key_begin)) ==
                      "bearer";  // Bearer VALUE
  bool separated = false;
  const std::optional<size_t> value =
      value_begin(text, key_begin, key_end, flag || bearer, &separated);
  if (!value) return key_end;
  if (text[*value] == '"' || text[*value] == '\'') {
    return redact_quoted(text, *value);
  }
  size_t begin = *value;
  size_t end = unquoted_value_end(text, begin);
  if (end == begin) return key_end;
  const std::string_view word =
      std::string_view(text).substr(begin, end - begin);
  // "Bearer XYZ123" is a credential, "the bearer of the token" a word: a
  // bare bearer's value must look like one (a digit, or 16 characters).
  if ((bearer && !separated && !looks_like_credential(word)) ||
      word == kRedactedMarker) {
    return key_end;
  }
  if (!bearer && is_auth_scheme(word)) move_past_scheme(text, &begin, &end);
  redact_range(text, begin, end);
  return begin + kRedactedMarker.size();
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

bool ends_host(char c) {
  return c == ':' || c == '/' || c == '?' || c == '#' || is_blank(c) ||
         c == '\n' || c == '"' || c == '\'' || c == '>' || c == ')' ||
         c == ']' || c == '}' || c == ',' || c == ';';
}

// "scheme://user:password@host" -> "scheme://<redacted>@<host>": the
// credentials, and the host they open (a private service, whatever its
// name; a loopback address stays).
void redact_url_credentials(std::string& text, ScrubLog* log) {
  size_t from = 0;
  while ((from = text.find("://", from)) != std::string::npos) {
    const size_t begin = from + 3;
    size_t end = begin;
    while (end < text.size() && text[end] != '@' && text[end] != '/' &&
           !is_blank(text[end]) && text[end] != '\n' && text[end] != '"') {
      ++end;
    }
    if (end >= text.size() || text[end] != '@' || end == begin) {
      from = end;
      continue;
    }
    redact_range(text, begin, end);
    const size_t host = begin + kRedactedMarker.size() + 1;
    size_t host_end = host;
    if (host_end < text.size() && text[host_end] == '[') {  // [IPv6]
      while (host_end < text.size() && text[host_end] != ']') ++host_end;
      host_end = std::min(host_end + 1, text.size());
    }
    while (host_end < text.size() && !ends_host(text[host_end])) ++host_end;
    const std::string name = text.substr(host, host_end - host);
    const std::string lower = to_lower(name);
    const bool loopback =
        lower == "localhost" || lower == "[::1]" || lower.rfind("127.", 0) == 0;
    if (!name.empty() && !loopback) {
      if (log != nullptr) log->add("host name", name);
      text.replace(host, host_end - host, "<host>");
      host_end = host + 6;
    }
    from = host_end;
  }
}

// "Cookie: a=1; b=2", "Set-Cookie: a=1; Path=/": every cookie's value to
// the end of the header (its line or closing quote); the names and the
// attributes stay.
void redact_cookies(std::string& text) {
  static const RE2 kHeader(
      R"((?i)(^|[^A-Za-z0-9_-])((?:set-)?cookie["']?[ \t]*:[ \t]*)([^\r\n"']+))");
  static const RE2 kPair(R"(([^=;\s]+)=([^;]+))");
  static const RE2 kAttribute(
      R"((?i)path|domain|expires|max-age|samesite|secure|httponly|priority)");
  replace_groups(text, kHeader, 3, 3, [&](const Groups& header) {
    std::string value = str(header[3]);
    replace_groups(value, kPair, 2, 2, [&](const Groups& pair) {
      if (RE2::FullMatch(pair[1], kAttribute)) {
        return std::optional<std::string>();
      }
      if (redaction_log != nullptr) {
        redaction_log->add("secret", "(value not shown)");
      }
      return std::optional<std::string>(std::string(kRedactedMarker));
    });
    return std::optional<std::string>(value);
  });
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

}  // namespace

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
  // Session cookies: sessionid, JSESSIONID, PHPSESSID, csrftoken.
  if (last == "sessionid" || last == "jsessionid" || last == "phpsessid" ||
      last == "csrftoken") {
    return true;
  }
  if (words.size() < 2) return false;
  const std::string& before = words[words.size() - 2];
  if (last == "key") {
    // AccountKey: an Azure storage connection string's secret.
    return before == "api" || before == "private" || before == "access" ||
           before == "secret" || before == "signing" ||
           before == "encryption" || before == "auth" || before == "account";
  }
  // kubeconfig's client-key-data and client-certificate-data; session_id;
  // a service account's private_key_id.
  return (last == "data" && (before == "key" || before == "certificate")) ||
         (last == "id" && before == "session") ||
         (last == "id" && before == "key" && words.size() >= 3 &&
          words[words.size() - 3] == "private");
}

std::string redact_secrets(std::string_view input, ScrubLog* log) {
  redaction_log = log;
  std::string text(input);
  redact_private_key_blocks(text);
  redact_url_credentials(text, log);
  redact_cookies(text);
  redact_key_values(text);
  redaction_log = nullptr;
  redact_token_formats(text, log);
  return text;
}

}  // namespace casebook
