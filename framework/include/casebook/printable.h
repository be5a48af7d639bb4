// Text that came from a case file, a fixture, a file name or a child, made
// fit to show a person or to write into a report. Such text is hostile: a
// newline in a file name could forge a verdict line, an escape sequence could
// clear the terminal or rewrite what it shows, a byte that is not UTF-8 makes
// a JUnit file unparseable, and a 50 MB fixture header quoted in a message
// would become 100 MB of output.
//
// Every verdict the runner publishes and every load error it prints passes
// through here once (runner/judge.cpp, CaseError::to_string); the sinks
// (terminal, JUnit, Markdown) then only add their own quoting.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace casebook {

// The most of a message (one line: the first error) and of a details block
// that a verdict keeps; what is cut is counted in a marker.
constexpr size_t kMessageBytes = 4096;
constexpr size_t kDetailsBytes = size_t{64} * 1024;

// One line: every control character (C0 with newline and tab, DEL, C1) and
// every byte that is not part of well-formed UTF-8 becomes a visible escape
// (`\n`, `\t`, `\x1b`, `\xff`), and so do Unicode's line and paragraph
// separators and its bidirectional controls (`\u2028`, `\u202e`: a reader
// breaks a line there, a terminal reorders the text); all else is kept byte
// for byte, so ordinary text (backslashes included) reads as it was written.
std::string printable_line(std::string_view text);

// The text up to its first newline (all of it where it has none): the line
// a message is known by.
std::string first_line(std::string_view text);

// Several lines: as printable_line, but newlines and tabs stay (U+2028 and
// U+2029 do not: they are escaped).
std::string printable_text(std::string_view text);

// The length of the longest prefix of `text` that is well-formed UTF-8
// (RFC 3629): text.size() when all of it is; else the offset of the first
// byte that is not.
size_t utf8_prefix_length(std::string_view text);

// At most `limit` bytes of `text` (cut at a UTF-8 character boundary) and, when
// anything was cut, " ... (N more bytes)" after it.
std::string bounded_text(std::string_view text, size_t limit);

}  // namespace casebook
