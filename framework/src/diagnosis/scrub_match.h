// Replacing what an RE2 pattern matched, for the scrubbing rules (internal).
//
// RE2 runs in linear time without recursion, so a long backtrace or case
// file cannot overflow the stack (as libstdc++'s std::regex does), and each
// rule reads as the rule it is. RE2 has no look-behind: a rule matches the
// character before a name as its own group, and only the name's group is
// replaced; the search goes on from the end of the name, so that the
// character after it can start the next match.
#pragma once

#include <re2/re2.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace casebook::scrub_match {

using Groups = std::vector<re2::StringPiece>;
// The replacement of the span from group `first` to group `last`, or nullopt
// to keep the text.
using Decide = std::function<std::optional<std::string>(const Groups&)>;

// Every match of `re` in `text`, left to right: the span from the start of
// group `first` to the end of group `last` becomes what `decide` returns.
// A match whose groups did not take part is skipped.
void replace_groups(std::string& text, const RE2& re, int first, int last,
                    const Decide& decide);

// Calls `visit` with the groups of every match, left to right, the text
// unchanged (what the learning rules read); the search goes on from the end
// of group `resume_group`.
void for_each_match(const std::string& text, const RE2& re, int resume_group,
                    const std::function<void(const Groups&)>& visit);

// A rule table's patterns, compiled once (each rule holds them static).
std::vector<std::unique_ptr<RE2>> compile_all(const char* const* patterns,
                                              size_t count);

inline std::string str(const re2::StringPiece& piece) {
  return std::string(piece.data(), piece.size());
}

}  // namespace casebook::scrub_match
