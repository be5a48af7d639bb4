// Scrubbing a case file so that it still loads as the same case. yaml-cpp
// finds every scalar and where it starts (its Mark); each scalar's extent in
// the text is read from its style (a quoted scalar ends at its closing
// quote, a plain one where YAML ends it), checked against the parsed value,
// and the scalar is scrubbed as the (key, value) pair it is, then written
// back in place, requoted where its new text needs it. What lies between
// the scalars (indentation, indicators, comments, block scalars) is scrubbed
// as free text, which leaves indicators and indentation alone.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "casebook/diagnosis.h"
#include "casebook/quoted.h"
#include "diagnosis/text.h"

namespace casebook {
namespace {

// One scalar of the file: where it stands, what it is, what key holds it.
struct ScalarSite {
  size_t begin = 0;
  size_t end = 0;
  std::string key_path;  // "origin.data.user"; for a key: the key's own path
  std::string value;
  bool is_key = false;
  bool in_flow = false;  // inside [...] or {...}
};

bool is_blank_or_newline(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool is_flow_indicator(char c) {
  return c == ',' || c == '[' || c == ']' || c == '{' || c == '}';
}

// One past the closing quote of the double-quoted scalar opening at `begin`
// (a backslash escapes the next character); nullopt when it never closes.
std::optional<size_t> double_quoted_end(const std::string& text, size_t begin) {
  const size_t n = text.size();
  size_t at = begin + 1;
  while (at < n && text[at] != '"') at += text[at] == '\\' ? 2 : 1;
  return at < n ? std::optional<size_t>(at + 1) : std::nullopt;
}

// One past the closing quote of the single-quoted scalar opening at `begin`
// ('' is a quote inside); nullopt when it never closes.
std::optional<size_t> single_quoted_end(const std::string& text, size_t begin) {
  const size_t n = text.size();
  size_t at = begin + 1;
  while (at < n) {
    if (text[at] == '\'') {
      if (at + 1 < n && text[at + 1] == '\'') {
        at += 2;  // '' is a quote inside
        continue;
      }
      return at + 1;
    }
    ++at;
  }
  return std::nullopt;
}

// Whether a plain scalar begun at `begin` stops at `at`: a line's end, ": "
// (a key's end), " #" (a comment), and in a flow collection its indicators.
bool ends_plain_scalar(const std::string& text, size_t begin, size_t at,
                       bool in_flow) {
  const size_t n = text.size();
  const char c = text[at];
  if (c == '\n' || c == '\r') return true;
  if (c == ':' && (at + 1 == n || is_blank_or_newline(text[at + 1]) ||
                   (in_flow && is_flow_indicator(text[at + 1])))) {
    return true;
  }
  if (c == '#' && at > begin && (text[at - 1] == ' ' || text[at - 1] == '\t')) {
    return true;
  }
  return in_flow && is_flow_indicator(c);
}

// Where the plain scalar starting at `begin` ends, its trailing blanks left
// out.
size_t plain_scalar_end(const std::string& text, size_t begin, bool in_flow) {
  size_t at = begin;
  while (at < text.size() && !ends_plain_scalar(text, begin, at, in_flow)) ++at;
  while (at > begin && (text[at - 1] == ' ' || text[at - 1] == '\t')) --at;
  return at;
}

// Where the scalar starting at `begin` ends in `text` (one past its last
// character), from its style; nullopt for a block scalar (| or >), whose
// lines are left to the free-text pass.
std::optional<size_t> scalar_end(const std::string& text, size_t begin,
                                 bool in_flow) {
  if (begin >= text.size()) return std::nullopt;
  switch (text[begin]) {
    case '|':
    case '>':
      return std::nullopt;
    case '"':
      return double_quoted_end(text, begin);
    case '\'':
      return single_quoted_end(text, begin);
    default:
      return plain_scalar_end(text, begin, in_flow);
  }
}

void add_site(const YAML::Node& node, const std::string& text,
              const std::string& key_path, bool is_key, bool in_flow,
              std::vector<ScalarSite>& sites) {
  const YAML::Mark mark = node.Mark();
  if (mark.pos < 0) return;
  const auto begin = static_cast<size_t>(mark.pos);
  const auto end = scalar_end(text, begin, in_flow);
  if (!end) return;
  const std::string raw = text.substr(begin, *end - begin);
  // A plain scalar is its own text; a quoted one at least ends with its
  // quote. Anything else (a plain scalar over several lines) is left to the
  // free-text pass.
  const char first = raw.empty() ? '\0' : raw.front();
  const bool quoted = first == '"' || first == '\'';
  if (quoted ? (raw.size() < 2 || raw.back() != first) : raw != node.Scalar()) {
    return;
  }
  sites.push_back({begin, *end, key_path, node.Scalar(), is_key, in_flow});
}

void collect(const YAML::Node& node, const std::string& text,
             const std::string& path, bool in_flow,
             std::vector<ScalarSite>& sites) {
  if (node.IsScalar()) {
    add_site(node, text, path, false, in_flow, sites);
    return;
  }
  const bool flow = in_flow || node.Style() == YAML::EmitterStyle::Flow;
  if (node.IsSequence()) {
    for (const YAML::Node& item : node) collect(item, text, path, flow, sites);
    return;
  }
  if (!node.IsMap()) return;
  for (const auto& entry : node) {
    const std::string key =
        entry.first.IsScalar() ? entry.first.Scalar() : std::string("?");
    const std::string child = path.empty() ? key : path + "." + key;
    if (entry.first.IsScalar()) {
      add_site(entry.first, text, child, true, flow, sites);
    }
    collect(entry.second, text, child, flow, sites);
  }
}

// Every scalar site, in text order, none overlapping; nullopt when the text
// is not YAML.
std::optional<std::vector<ScalarSite>> scalar_sites(const std::string& text) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
  std::vector<ScalarSite> sites;
  collect(root, text, "", false, sites);
  std::sort(sites.begin(), sites.end(),
            [](const ScalarSite& a, const ScalarSite& b) {
              return a.begin < b.begin;
            });
  std::vector<ScalarSite> apart;
  for (ScalarSite& site : sites) {
    if (!apart.empty() && site.begin < apart.back().end) continue;
    apart.push_back(std::move(site));
  }
  return apart;
}

// Nothing to scrub in text without a letter or a digit (", ", ": ", "- ").
bool has_word_characters(std::string_view text) {
  return std::any_of(text.begin(), text.end(), diagnosis_text::is_alnum);
}

// A number (what strtod reads whole): nothing in it to scrub. The values of
// a large tensor are thousands of them.
bool is_plain_number(const std::string& value) {
  if (value.empty()) return true;
  char* end = nullptr;
  std::strtod(value.c_str(), &end);
  return end == value.c_str() + value.size();
}

// `value` written where the scalar stood, in its style where that style
// can hold it, else double-quoted; checked by parsing it back.
bool reads_back_as(const std::string& yaml, const std::string& value) {
  try {
    const YAML::Node back = YAML::Load(yaml);
    return back.IsScalar() && back.Scalar() == value;
  } catch (const YAML::Exception&) {
    return false;  // not YAML at all: quote it
  }
}

std::string requoted(const std::string& value, char style, bool in_flow) {
  std::string candidate;
  if (style == '\'' && value.find('\n') == std::string::npos) {
    candidate = "'";
    for (char c : value)
      candidate += c == '\'' ? std::string("''") : std::string(1, c);
    candidate += '\'';
  } else if (style != '"' && !value.empty() &&
             value.find_first_of(in_flow ? ":#,[]{}\n\"'`" : ":#\n\"'`") ==
                 std::string::npos &&
             std::string("-?&*!|>%@").find(value.front()) ==
                 std::string::npos &&
             value.front() != ' ' && value.back() != ' ') {
    candidate = value;
  } else {
    return double_quoted(value);
  }
  return reads_back_as(candidate, value) ? candidate : double_quoted(value);
}

std::string scrub_gap(std::string_view gap, const ScrubContext& ctx) {
  return has_word_characters(gap) ? scrub(gap, ctx) : std::string(gap);
}

}  // namespace

void learn_names_from_case_file(std::string_view input, ScrubContext& ctx) {
  const std::string text(input);
  const auto sites = scalar_sites(text);
  if (!sites) {
    learn_names(text, ctx);
    return;
  }
  size_t copied = 0;
  for (const ScalarSite& site : *sites) {
    learn_names(std::string_view(text).substr(copied, site.begin - copied),
                ctx);
    if (!site.is_key) learn_names_from_entry(site.key_path, site.value, ctx);
    copied = site.end;
  }
  learn_names(std::string_view(text).substr(copied), ctx);
}

std::string scrub_case_file(std::string_view input, const ScrubContext& given) {
  const std::string text(input);
  const auto sites = scalar_sites(text);
  if (!sites) return scrub(text, given);
  ScrubContext ctx = given;
  learn_names_from_case_file(text, ctx);
  std::string out;
  size_t copied = 0;
  for (const ScalarSite& site : *sites) {
    out += scrub_gap(std::string_view(text).substr(copied, site.begin - copied),
                     ctx);
    const std::string raw = text.substr(site.begin, site.end - site.begin);
    std::string clean;
    if (is_plain_number(site.value)) {
      clean = site.value;
    } else if (site.is_key) {
      clean = scrub(site.value, ctx);
    } else {
      clean = scrub_entry(site.key_path, site.value, ctx).second;
    }
    out +=
        clean == site.value ? raw : requoted(clean, raw.front(), site.in_flow);
    copied = site.end;
  }
  out += scrub_gap(std::string_view(text).substr(copied), ctx);
  return out;
}

}  // namespace casebook
