# Optional GPU toolchains. Where nvcc is found the CUDA kernels build; where
# hipcc is found the HIP kernels build. Neither is needed to build or test.
include(CheckLanguage)

set(CASEBOOK_HAVE_CUDA OFF)
if(NOT DEFINED CASEBOOK_ENABLE_CUDA OR CASEBOOK_ENABLE_CUDA)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      # sm_90 machine code (H200) plus PTX for newer GPUs.
      set(CMAKE_CUDA_ARCHITECTURES 90-real 90-virtual)
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(CASEBOOK_HAVE_CUDA ON)
  endif()
endif()

set(CASEBOOK_HAVE_HIP OFF)
if(NOT DEFINED CASEBOOK_ENABLE_HIP OR CASEBOOK_ENABLE_HIP)
  # CMake's HIP language does not find Debian's ROCm layout: call hipcc.
  find_program(CASEBOOK_HIPCC hipcc)
  if(CASEBOOK_HIPCC)
    set(CASEBOOK_HAVE_HIP ON)
    set(CASEBOOK_HIP_ARCHS "gfx90a;gfx1030" CACHE STRING
        "AMD targets for the HIP kernels (CDNA2 and RDNA2)")
  endif()
endif()
message(STATUS "casebook: CUDA kernels ${CASEBOOK_HAVE_CUDA}, HIP kernels ${CASEBOOK_HAVE_HIP}")
