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
  std::string name = without_module(lower(given));
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

std::vector<std::string> suggest_backends(const std::string& given) {
  // The words for a GPU that are not a backend's name: `gpu` is either
  // vendor's, `cuda:0` a device of cuda.
  static const std::map<std::string, std::vector<std::string>> aliases{
      {"gpu", {"cuda", "hip"}},
      {"gpus", {"cuda", "hip"}},
      {"device", {"cuda", "hip"}},
      {"nvidia", {"cuda"}},
      {"rocm", {"hip"}},
      {"amd", {"hip"}},
      {"host", {"cpu"}}};
  std::string name = lower(given);
  name = name.substr(0, name.find(':'));  // cuda:0 -> cuda
  const auto alias = aliases.find(name);
  if (alias != aliases.end()) return alias->second;
  std::vector<std::string> names;
  for (Backend backend : all_backends()) {
    names.emplace_back(backend_name(backend));
  }
  if (std::find(names.begin(), names.end(), name) != names.end()) return {name};
  const std::string nearest = nearest_name(name, names);
  if (nearest.empty()) return {};
  return {nearest};
}

std::string suggest_backend(const std::string& given) {
  const std::vector<std::string> names = suggest_backends(given);
  return names.size() == 1 ? names.front() : "";
}

std::string did_you_mean(const std::string& suggestion) {
  return suggestion.empty() ? "" : "; did you mean `" + suggestion + "`?";
}

std::string did_you_mean(const std::vector<std::string>& suggestions) {
  if (suggestions.empty()) return "";
  std::string text = "; did you mean ";
  for (size_t i = 0; i < suggestions.size(); ++i) {
    if (i > 0) text += i + 1 == suggestions.size() ? " or " : ", ";
    text += "`" + suggestions[i] + "`";
  }
  return text + "?";
}

namespace {

// `CrossEntropyLoss` -> `cross_entropy_loss`, `NLLLoss` -> `nll_loss`,
// `LogSoftmax` -> `log_softmax`: a word starts at a capital after a small
// letter or digit, or at the last capital of a run followed by a small one.
std::string snake_case(const std::string& camel) {
  std::string out;
  for (size_t i = 0; i < camel.size(); ++i) {
    const unsigned char c = camel[i];
    const bool upper = std::isupper(c) != 0;
    if (upper && i > 0) {
      const unsigned char before = camel[i - 1];
      const bool next_lower =
          i + 1 < camel.size() && std::islower(camel[i + 1]) != 0;
      if (std::islower(before) || std::isdigit(before) ||
          (std::isupper(before) && next_lower)) {
        out += '_';
      }
    }
    out += static_cast<char>(std::tolower(c));
  }
  return out;
}

// A torch.nn module class: the function it calls (torch.nn.functional's
// name, which is also ATen's). Where PyTorch's names do not follow the
// snake_case rule (and `Loss` is not part of the function's name), a table.
std::string module_function(const std::string& module_class) {
  static const std::map<std::string, std::string> irregular{
      {"CrossEntropyLoss", "cross_entropy"},
      {"BCELoss", "binary_cross_entropy"},
      {"BCEWithLogitsLoss", "binary_cross_entropy_with_logits"},
      {"KLDivLoss", "kl_div"},
      {"ReLU", "relu"},
      {"GELU", "gelu"},
      {"SiLU", "silu"}};
  const auto found = irregular.find(module_class);
  return found != irregular.end() ? found->second : snake_case(module_class);
}

}  // namespace

std::string python_op_spelling(const std::string& given) {
  for (const char* prefix :
       {"torch.nn.functional.", "nn.functional.", "functional.", "F."}) {
    const std::string module = prefix;
    if (given.size() > module.size() && given.rfind(module, 0) == 0) {
      return "torch." + given.substr(module.size());
    }
  }
  for (const char* prefix : {"torch.nn.", "nn."}) {
    const std::string module = prefix;
    if (given.size() > module.size() && given.rfind(module, 0) == 0 &&
        std::isupper(static_cast<unsigned char>(given[module.size()]))) {
      return "torch." + module_function(given.substr(module.size()));
    }
  }
  return "";
}

}  // namespace casebook
