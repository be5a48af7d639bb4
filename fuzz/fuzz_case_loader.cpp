// libFuzzer target: any bytes as a case file. The loader must never crash,
// hang, recurse without bound or allocate without bound, and must either
// return a case or errors (never both, never neither).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "casebook/loader.h"
#include "casebook/op_traits.h"
#include "catalog/shipped_op_declarations.h"

// The loader asks the ops' traits: the ones casebook ships, as the registry
// gives them (catalog/shipped_op_declarations.h).
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  casebook::install_op_traits(casebook::shipped_op_traits());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const casebook::LoadedCase loaded =
      casebook::load_case_text(text, "cases/fuzz/input.yaml");
  if (loaded.ok() != loaded.value.has_value()) std::abort();
  for (const casebook::CaseError& error : loaded.errors) {
    if (error.message.empty()) std::abort();
    (void)error.to_string();
  }
  return 0;
}
