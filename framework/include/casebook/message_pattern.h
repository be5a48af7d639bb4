// `message:` patterns of an expected error (docs/case-format.md): regular
// expressions in RE2's syntax, compiled and matched in linear time with
// bounded memory and no recursion. A case file comes from a merge request:
// with std::regex, `((1, )|(1, ))*Q` hung the whole run and `(1, )*Q` on a
// long message overflowed the runner's stack.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace casebook {

// Why `pattern` is refused (it does not compile, or uses what RE2 lacks:
// backreferences, look-around), or nullopt when it is usable.
std::optional<std::string> message_pattern_problem(const std::string& pattern);

// Whether `message` contains a match of `pattern`. Only the first
// kMessageMatchBytes of the message are searched: the first error's text is
// at its start, and a 50 MB message must cost no more than a short one.
// A pattern message_pattern_problem refuses matches nothing.
inline constexpr size_t kMessageMatchBytes = size_t{1} << 20;
bool message_matches(const std::string& pattern, std::string_view message);

}  // namespace casebook
