#include "diagnosis/scrub_match.h"

#include <algorithm>

namespace casebook::scrub_match {

void replace_groups(std::string& text, const RE2& re, int first, int last,
                    const Decide& decide) {
  const int count = re.NumberOfCapturingGroups() + 1;
  Groups groups(static_cast<size_t>(count));
  const re2::StringPiece input(text);
  std::string out;
  size_t copied = 0;
  size_t pos = 0;
  bool replaced = false;
  while (pos <= text.size() &&
         re.Match(input, pos, text.size(), RE2::UNANCHORED, groups.data(),
                  count)) {
    const size_t match_begin = groups[0].data() - text.data();
    const re2::StringPiece& from = groups[first];
    const re2::StringPiece& to = groups[last];
    if (from.data() == nullptr || to.data() == nullptr) {
      pos = std::max(match_begin + groups[0].size(), pos + 1);
      continue;
    }
    const size_t begin = from.data() - text.data();
    const size_t end = to.data() - text.data() + to.size();
    if (const auto replacement = decide(groups)) {
      out.append(text, copied, begin - copied);
      out += *replacement;
      copied = end;
      replaced = true;
    }
    pos = std::max(end, match_begin + 1);
  }
  if (!replaced) return;
  out.append(text, copied, std::string::npos);
  text = std::move(out);
}

void for_each_match(const std::string& text, const RE2& re, int resume_group,
                    const std::function<void(const Groups&)>& visit) {
  const int count = re.NumberOfCapturingGroups() + 1;
  Groups groups(static_cast<size_t>(count));
  const re2::StringPiece input(text);
  size_t pos = 0;
  while (pos <= text.size() &&
         re.Match(input, pos, text.size(), RE2::UNANCHORED, groups.data(),
                  count)) {
    visit(groups);
    const size_t match_begin = groups[0].data() - text.data();
    const re2::StringPiece& resume = groups[resume_group];
    const size_t end =
        resume.data() == nullptr
            ? match_begin + groups[0].size()
            : static_cast<size_t>(resume.data() - text.data()) + resume.size();
    pos = std::max(end, match_begin + 1);
  }
}

std::vector<std::unique_ptr<RE2>> compile_all(const char* const* patterns,
                                              size_t count) {
  std::vector<std::unique_ptr<RE2>> compiled;
  compiled.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    compiled.push_back(std::make_unique<RE2>(patterns[i]));
  }
  return compiled;
}

}  // namespace casebook::scrub_match
