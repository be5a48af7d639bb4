// An argument value given outside a case file (model/arg_text.h).
#include "model/arg_text.h"

#include <yaml-cpp/yaml.h>

#include "casebook/loader.h"
#include "model/sections.h"

namespace casebook::model {

std::optional<ArgValue> read_arg_text(const std::string& key,
                                      const std::string& text,
                                      std::string* error) {
  YAML::Node value;
  try {
    value = YAML::Load(text);
  } catch (const YAML::Exception& invalid) {
    *error = "`args." + key + "`: invalid YAML: " + invalid.msg;
    return std::nullopt;
  }
  YAML::Node map(YAML::NodeType::Map);
  map[key] = value;
  Reader reader("--arg");
  const Entry entry{"args", YAML::Node("args"), map};
  std::map<std::string, ArgValue> args = read_args(reader, entry, "args");
  if (reader.error_count() > 0) {
    const CaseError first = reader.take_errors().front();
    *error = "`" + first.key_path + "`: " + first.message;
    return std::nullopt;
  }
  const auto found = args.find(key);
  if (found == args.end()) {
    *error = "`args." + key + "`: expected a value; got nothing";
    return std::nullopt;
  }
  return found->second;
}

}  // namespace casebook::model
