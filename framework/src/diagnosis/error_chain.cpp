// The first error is the cause; later ones are possible consequences.
//
// A CUDA device-side assert or illegal address is sticky: every later CUDA
// call in the process fails with the same text, so the last error, the one a
// log shows at its end, is usually the least informative.
#include <algorithm>
#include <string>
#include <vector>

#include "casebook/diagnosis.h"
#include "diagnosis/text.h"

namespace casebook {

ErrorChain chain_errors(const std::vector<std::string>& errors_in_order) {
  ErrorChain chain;
  std::vector<std::string_view> seen;  // backtrace-free forms already kept
  for (const std::string& error : errors_in_order) {
    const std::string_view core = diagnosis_text::trim(strip_backtrace(error));
    if (core.empty()) continue;
    if (std::find(seen.begin(), seen.end(), core) != seen.end()) continue;
    seen.push_back(core);
    if (chain.first.empty()) {
      chain.first = std::string(diagnosis_text::trim(error));
    } else {
      chain.consequences.emplace_back(diagnosis_text::trim(error));
    }
  }
  return chain;
}

std::string render_error_chain(const ErrorChain& chain) {
  std::string text = "first error: " + chain.first;
  if (!chain.consequences.empty()) {
    text += "\npossible consequences (not causes):";
    for (const std::string& consequence : chain.consequences) {
      text += "\n  - " + consequence;
    }
  }
  return text;
}

}  // namespace casebook
