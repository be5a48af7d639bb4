// libFuzzer target: any bytes as a torch.save file, read by casebook's own
// reader (tensors/pt_archive.h: the strict zip layer and the restricted
// unpickler), without LibTorch and without a file: many more inputs a second
// than casebook_fuzz_fixtures. The reader may refuse (PtRefusal) but must
// not crash, read out of bounds, recurse without bound or allocate past its
// limits; what it accepts must be a view inside its storage.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "casebook/limits.h"
#include "tensors/pt_archive.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  casebook::LoadLimits limits = casebook::load_limits();
  limits.max_tensor_bytes = uint64_t{64} << 20;
  casebook::set_load_limits(limits);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const casebook::PtContents contents = casebook::read_pt_contents(bytes);
    for (const casebook::PtTensor& tensor : contents.tensors) {
      if (casebook::pt_view_problem(tensor,
                                    contents.storages.at(tensor.storage))) {
        __builtin_trap();  // accepted a view it should have refused
      }
    }
  } catch (const casebook::PtRefusal&) {
  }
  return 0;
}
