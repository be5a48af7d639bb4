#include "diagnosis/case_text.h"

#include <yaml-cpp/yaml.h>

#include <vector>

namespace casebook {
namespace {

size_t line_start(std::string_view text, size_t pos) {
  const size_t newline = text.rfind('\n', pos == 0 ? 0 : pos - 1);
  return pos == 0 || newline == std::string_view::npos ? 0 : newline + 1;
}

}  // namespace

std::optional<std::string> without_top_level_key(std::string_view text,
                                                 std::string_view key) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
  if (!root.IsMap() || root.Style() == YAML::EmitterStyle::Flow) {
    return std::nullopt;
  }
  std::vector<std::pair<std::string, size_t>> keys;  // name, where it starts
  for (const auto& entry : root) {
    if (!entry.first.IsScalar() || entry.first.Mark().pos < 0) {
      return std::nullopt;
    }
    keys.emplace_back(entry.first.Scalar(),
                      static_cast<size_t>(entry.first.Mark().pos));
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i].first != key) continue;
    const size_t begin = line_start(text, keys[i].second);
    const size_t end = i + 1 < keys.size()
                           ? line_start(text, keys[i + 1].second)
                           : text.size();
    std::string out(text.substr(0, begin));
    out += text.substr(end);
    return out;
  }
  return std::nullopt;
}

}  // namespace casebook
