#include "casebook/message_pattern.h"

#include <re2/re2.h>

namespace casebook {
namespace {

// RE2's default budget for the compiled program (8 MiB) bounds the memory a
// pattern may take; errors are returned, never logged to stderr.
RE2::Options pattern_options() {
  RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(int64_t{8} << 20);
  return options;
}

}  // namespace

std::optional<std::string> message_pattern_problem(const std::string& pattern) {
  const RE2 compiled(pattern, pattern_options());
  if (compiled.ok()) return std::nullopt;
  return compiled.error();
}

bool message_matches(const std::string& pattern, std::string_view message) {
  const RE2 compiled(pattern, pattern_options());
  if (!compiled.ok()) return false;
  const std::string_view subject = message.substr(0, kMessageMatchBytes);
  return RE2::PartialMatch(re2::StringPiece(subject.data(), subject.size()),
                           compiled);
}

}  // namespace casebook
