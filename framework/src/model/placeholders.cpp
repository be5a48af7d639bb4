#include "model/placeholders.h"

#include <algorithm>

namespace casebook::model {
namespace {

std::string placeholder_message() {
  return "`" + std::string(kPlaceholder) +
         "` is a placeholder `casebook new` left here: write the value";
}

bool is_placeholder(const YAML::Node& node) {
  if (!node.IsScalar()) return false;
  const Scalar scalar = resolve_scalar(node);
  if (scalar.quoted || scalar.kind != Scalar::Kind::kString) return false;
  const std::string& text = scalar.text;
  const std::string word(kPlaceholder);
  return text == word || text.rfind(word + " ", 0) == 0 ||
         text.rfind(word + "(", 0) == 0;
}

void search(Reader& reader, const YAML::Node& node, const std::string& path,
            std::vector<std::string>* found) {
  if (node.IsMap()) {
    for (const auto& pair : node) {
      if (!pair.first.IsScalar()) continue;
      const std::string key = pair.first.Scalar();
      if (path.empty() && key == "origin") continue;
      search(reader, pair.second, join_path(path, key), found);
    }
  } else if (node.IsSequence()) {
    for (size_t i = 0; i < node.size(); ++i) {
      search(reader, node[i], path + "[" + std::to_string(i) + "]", found);
    }
  } else if (is_placeholder(node)) {
    reader.error(node, path, placeholder_message());
    found->push_back(path);
  }
}

// `inputs.x.shape[0]` is at or below `inputs.x.shape` and `inputs.x`.
bool at_or_below(const std::string& path, const std::string& above) {
  if (above.empty() || path.rfind(above, 0) != 0) return false;
  return path.size() == above.size() || path[above.size()] == '.' ||
         path[above.size()] == '[';
}

}  // namespace

std::vector<std::string> report_placeholders(Reader& reader,
                                             const YAML::Node& root) {
  std::vector<std::string> found;
  search(reader, root, "", &found);
  return found;
}

void drop_errors_about_placeholders(std::vector<CaseError>* errors,
                                    const std::vector<std::string>& paths) {
  if (paths.empty()) return;
  errors->erase(std::remove_if(errors->begin(), errors->end(),
                               [&](const CaseError& error) {
                                 if (error.message == placeholder_message())
                                   return false;
                                 return std::any_of(
                                     paths.begin(), paths.end(),
                                     [&](const std::string& path) {
                                       return at_or_below(path, error.key_path);
                                     });
                               }),
                errors->end());
}

}  // namespace casebook::model
