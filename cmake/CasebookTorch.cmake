# casebook::torch: LibTorch as an imported target, with which GPU flavour it was
# built for. Debian's libtorch-dev 1.13.1 is CPU only; the GPU machine's 2.11
# has CUDA. A ROCm build of LibTorch presents HIP devices as "cuda".
add_library(casebook_torch INTERFACE)
add_library(casebook::torch ALIAS casebook_torch)
target_link_libraries(casebook_torch INTERFACE ${TORCH_LIBRARIES})
target_include_directories(casebook_torch SYSTEM INTERFACE ${TORCH_INCLUDE_DIRS})
# TORCH_CXX_FLAGS carries the C++ ABI flag LibTorch was built with.
separate_arguments(_casebook_torch_flags UNIX_COMMAND "${TORCH_CXX_FLAGS}")
target_compile_options(casebook_torch INTERFACE ${_casebook_torch_flags})

set(CASEBOOK_TORCH_FLAVOUR "cpu")
if(TARGET torch_cuda OR TORCH_CUDA_LIBRARIES OR CUDA_FOUND AND TARGET c10_cuda)
  set(CASEBOOK_TORCH_FLAVOUR "cuda")
endif()
if(TARGET torch_hip OR TARGET c10_hip)
  set(CASEBOOK_TORCH_FLAVOUR "rocm")
endif()
if(CASEBOOK_TORCH_FLAVOUR STREQUAL "cuda")
  find_package(CUDAToolkit REQUIRED)
  target_link_libraries(casebook_torch INTERFACE CUDA::cudart)
endif()
message(STATUS "casebook: LibTorch ${Torch_VERSION} (${CASEBOOK_TORCH_FLAVOUR})")
# A lane that needs a flavour says so (ci/gpu-lane.sh: cuda): a CPU LibTorch
# found first on the prefix path then stops the configure instead of turning
# every GPU run into a skip.
set(CASEBOOK_EXPECT_TORCH_FLAVOUR "" CACHE STRING
  "cpu, cuda or rocm: fail the configure when LibTorch is another flavour")
if(CASEBOOK_EXPECT_TORCH_FLAVOUR AND
   NOT CASEBOOK_EXPECT_TORCH_FLAVOUR STREQUAL CASEBOOK_TORCH_FLAVOUR)
  message(FATAL_ERROR "casebook: LibTorch ${Torch_VERSION} at ${Torch_DIR} is "
    "a ${CASEBOOK_TORCH_FLAVOUR} build; CASEBOOK_EXPECT_TORCH_FLAVOUR wants "
    "${CASEBOOK_EXPECT_TORCH_FLAVOUR}")
endif()
