// Editing a case file's text without rewriting it (internal): what a report
// carries keeps the author's comments, order and spelling.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace casebook {

// The text without the top-level key `key` and its value (from the start of
// the key's line to the start of the next top-level key's line, or the
// end). nullopt when the text is not a YAML map or has no such key.
std::optional<std::string> without_top_level_key(std::string_view text,
                                                 std::string_view key);

}  // namespace casebook
