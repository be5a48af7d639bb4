#include "casebook/suggestions.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <vector>

#include "casebook/backend.h"
#include "casebook/case.h"
#include "casebook/family.h"
#include "casebook/loader.h"

namespace casebook {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) {
    return static_cast<char>(std::tolower(c));
  });
  return text;
}

// `torch.float32`, `np.int64`, `numpy.float16`: the name after the module.
std::string without_module(const std::string& text) {
  for (const char* prefix : {"torch.", "numpy.", "np."}) {
    const std::string module = prefix;
    if (text.rfind(module, 0) == 0) return text.substr(module.size());
  }
  return text;
}

}  // namespace

std::string suggest_dtype(const std::string& given) {
  // PyTorch's other names of its dtypes (torch.float is torch.float32, ...)
  // and C's, as a Python or C++ author writes them.
  static const std::map<std::string, std::string> aliases{
      {"float", "float32"}, {"double", "float64"}, {"half", "float16"},
      {"long", "int64"},    {"int", "int32"},      {"short", "int16"},
      {"byte", "uint8"},    {"char", "int8"},      {"boolean", "bool"},
      {"bf16", "bfloat16"}, {"fp16", "float16"},   {"fp32", "float32"},
      {"fp64", "float64"}};
  const std::string name = without_module(lower(given));
  std::vector<std::string> names;
  for (DType dtype : all_dtypes()) names.emplace_back(dtype_name(dtype));
  if (std::find(names.begin(), names.end(), name) != names.end()) return name;
  const auto alias = aliases.find(name);
  if (alias != aliases.end()) return alias->second;
  return nearest_name(name, names);
}

std::string suggest_family(const std::string& given) {
  std::string name = lower(given);
  std::replace(name.begin(), name.end(), '-', '_');
  std::replace(name.begin(), name.end(), ' ', '_');
  std::vector<std::string> names;
  for (Family family : all_families()) names.emplace_back(family_name(family));
  return nearest_name(name, names);
}

std::string suggest_backend(const std::string& given) {
  std::vector<std::string> names;
  for (Backend backend : all_backends()) {
    names.emplace_back(backend_name(backend));
  }
  return nearest_name(lower(given), names);
}

std::string did_you_mean(const std::string& suggestion) {
  return suggestion.empty() ? "" : "; did you mean `" + suggestion + "`?";
}

}  // namespace casebook
