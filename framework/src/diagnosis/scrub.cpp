// Scrubbing: nothing personal leaves the machine in a report, and what is
// left keeps its meaning. The names the text gives away are learned first
// (scrub_learn.cpp); then secrets (secrets.cpp, token_formats.cpp),
// internal URLs (scrub_rules.cpp), e-mail addresses and the home folder
// (here), user and scratch folders (scrub_rules.cpp), personal identifiers
// (scrub_identifiers.cpp), user and host names where they identify someone
// (scrub_names.cpp), and addresses (scrub_addresses.cpp) are replaced by
// markers; "the root cause" and "Ubuntu 22.04" stay as they are. A case
// file is scrubbed scalar by scalar (scrub_case_file.cpp), a (key, value)
// pair by what its key says (scrub_entries.cpp).
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "casebook/diagnosis.h"
#include "diagnosis/scrub_internal.h"
#include "diagnosis/text.h"

namespace casebook {
namespace {

using diagnosis_text::is_alnum;

bool is_path_char(char c) {
  return is_alnum(c) || c == '_' || c == '.' || c == '-' || c == '~';
}

// The home folder as a whole path: where a path starts (not inside
// /x/srv/users/alice) and where a component ends (not /rootfs for /root).
void replace_home_dir(std::string& text, std::string_view home,
                      const ScrubContext& ctx) {
  size_t at = 0;
  while ((at = text.find(home, at)) != std::string::npos) {
    const size_t end = at + home.size();
    const bool starts =
        at == 0 || (!is_path_char(text[at - 1]) && text[at - 1] != '/');
    const bool ends = end == text.size() || !is_path_char(text[end]);
    if (starts && ends) {
      log_replacement(ctx, "home folder", home);
      text.replace(at, home.size(), "<home>");
      at += 6;
    } else {
      at = end;
    }
  }
}

bool is_local_char(char c) {
  return is_alnum(c) || c == '.' || c == '_' || c == '%' || c == '+' ||
         c == '-';
}

bool is_domain_char(char c) { return is_alnum(c) || c == '.' || c == '-'; }

// "alice@example.org" -> "<email>".
void replace_emails(std::string& text, const ScrubContext& ctx) {
  size_t at = 0;
  while ((at = text.find('@', at)) != std::string::npos) {
    size_t begin = at;
    while (begin > 0 && is_local_char(text[begin - 1])) --begin;
    size_t end = at + 1;
    while (end < text.size() && is_domain_char(text[end])) ++end;
    while (end > at + 1 && (text[end - 1] == '.' || text[end - 1] == '-')) {
      --end;
    }
    const std::string_view domain(text.data() + at + 1, end - at - 1);
    const size_t dot = domain.rfind('.');
    bool valid = begin < at && dot != std::string_view::npos && dot > 0 &&
                 domain.size() - dot - 1 >= 2;
    for (size_t k = dot + 1; valid && k < domain.size(); ++k) {
      valid = (domain[k] >= 'a' && domain[k] <= 'z') ||
              (domain[k] >= 'A' && domain[k] <= 'Z');
    }
    if (!valid ||
        is_forge_remote(text.substr(begin, at - begin), domain, ctx)) {
      ++at;
      continue;
    }
    log_replacement(ctx, "e-mail",
                    std::string_view(text).substr(begin, end - begin));
    text.replace(begin, end - begin, "<email>");
    at = begin + 7;
  }
}

std::string first_nonempty(std::initializer_list<const char*> values) {
  for (const char* value : values) {
    if (value != nullptr && *value != '\0') return value;
  }
  return {};
}

}  // namespace

ScrubContext ScrubContext::from_process() {
  ScrubContext ctx;
  const passwd* entry = getpwuid(getuid());
  ctx.user_name = first_nonempty({std::getenv("USER"), std::getenv("LOGNAME"),
                                  entry != nullptr ? entry->pw_name : nullptr});
  ctx.home_dir = first_nonempty(
      {std::getenv("HOME"), entry != nullptr ? entry->pw_dir : nullptr});
  std::array<char, 256> host{};
  if (gethostname(host.data(), host.size() - 1) == 0) {
    ctx.host_name = host.data();
  }
  return ctx;
}

std::string scrub(std::string_view input, const ScrubContext& given) {
  // What the text itself gives away joins what the caller knows.
  ScrubContext ctx = given;
  learn_names(input, ctx);
  std::string text = redact_secrets(input, ctx.log);
  replace_internal_urls(text, ctx);
  replace_emails(text, ctx);
  // The home folder itself first: it need not lie under /home.
  std::string home = ctx.home_dir;
  while (home.size() > 1 && home.back() == '/') home.pop_back();
  if (home.size() > 1) replace_home_dir(text, home, ctx);
  replace_user_folders(text, ctx);
  replace_scratch_folders(text, ctx);
  replace_identifiers(text, ctx);
  replace_names(text, ctx);
  replace_addresses(text, ctx);
  return text;
}

void ScrubLog::add(std::string_view kind, std::string_view original) {
  ++replaced[std::string(kind)][std::string(original)];
}

std::string ScrubLog::summary() const {
  std::string out;
  for (const auto& [kind, originals] : replaced) {
    int times = 0;
    std::string listed;
    for (const auto& [original, count] : originals) {
      times += count;
      if (!listed.empty()) listed += ", ";
      listed += original;
    }
    out += "  " + kind + " (" + std::to_string(times) + "): " + listed + "\n";
  }
  return out;
}

std::string scrub_then_truncate(std::string_view text, size_t max_chars,
                                const ScrubContext& ctx) {
  std::string scrubbed = scrub(text, ctx);
  if (scrubbed.size() <= max_chars) return scrubbed;
  size_t cut = max_chars;
  // Back to the start of a UTF-8 sequence (continuation bytes are 10xxxxxx).
  while (cut > 0 &&
         (static_cast<unsigned char>(scrubbed[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  const size_t dropped = scrubbed.size() - cut;
  scrubbed.resize(cut);
  scrubbed += "... [" + std::to_string(dropped) + " more bytes cut]";
  return scrubbed;
}

std::vector<std::pair<std::string, std::string>> allowed_environment(
    char** envp, const ScrubContext& ctx) {
  static constexpr std::array<std::string_view, 6> kPrefixes{
      "CUDA_", "HIP_", "AMD_", "ROCR_", "PYTORCH_", "TORCH_"};
  std::vector<std::pair<std::string, std::string>> allowed;
  for (char** entry = envp; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view variable(*entry);
    const size_t equals = variable.find('=');
    if (equals == std::string_view::npos) continue;
    const std::string_view name = variable.substr(0, equals);
    const bool wanted = std::any_of(
        kPrefixes.begin(), kPrefixes.end(),
        [&](std::string_view prefix) { return name.rfind(prefix, 0) == 0; });
    if (wanted) {
      allowed.push_back(scrub_entry(name, variable.substr(equals + 1), ctx));
    }
  }
  std::sort(allowed.begin(), allowed.end());
  return allowed;
}

}  // namespace casebook
