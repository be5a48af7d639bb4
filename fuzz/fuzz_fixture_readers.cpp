// libFuzzer target: any bytes as a fixture file, read as .npy, .safetensors
// and .pt. A reader may refuse a file (FixtureError) but must not crash,
// read out of bounds or allocate past the tensor limit.
#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "casebook/limits.h"
#include "tensors/fixtures.h"

namespace {

// One file per process and format, written for each input and removed after
// it (fixture readers take a path, as they do in a run). libFuzzer ends the
// process without running static destructors, so no cleanup may wait for
// them.
const std::string& scratch(const char* extension) {
  static const std::string base =
      "/dev/shm/casebook-fuzz-" + std::to_string(getpid());
  static std::string names[3];
  std::string& name = names[extension[1] == 'n'   ? 0
                            : extension[1] == 's' ? 1
                                                  : 2];
  if (name.empty()) name = base + extension;
  return name;
}

void write(const std::string& path, const uint8_t* data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data),
            static_cast<std::streamsize>(size));
}

template <typename Read>
void try_read(Read read) {
  try {
    const at::Tensor tensor = read();
    (void)tensor.numel();
  } catch (const casebook::FixtureError&) {
  } catch (const c10::Error&) {
    // LibTorch refusing what a reader made of the bytes: an error, not a
    // crash (no byte of a .pt reaches LibTorch's unpickler any more).
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Small limits: a header may ask for anything; nothing over 64 MiB is
  // allocated.
  casebook::LoadLimits limits = casebook::load_limits();
  limits.max_tensor_bytes = uint64_t{64} << 20;
  casebook::set_load_limits(limits);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Every input is tried by every reader, so that the shipped fixtures seed
  // all three as they are.
  write(scratch(".npy"), data, size);
  try_read([] { return casebook::read_npy(scratch(".npy")); });
  try_read([] { return casebook::read_npy(scratch(".npy"), at::kBFloat16); });
  write(scratch(".safetensors"), data, size);
  try_read(
      [] { return casebook::read_safetensors(scratch(".safetensors"), ""); });
  write(scratch(".pt"), data, size);
  try_read([] { return casebook::read_pt(scratch(".pt"), ""); });
  for (const char* extension : {".npy", ".safetensors", ".pt"}) {
    std::remove(scratch(extension).c_str());
  }
  return 0;
}
