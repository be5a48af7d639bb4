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

# Whether CASEBOOK_HIPCC takes `arch` as an --offload-arch: a syntax-only
# compile of an empty HIP source (Debian's hipcc 5.2, clang 15, knows gfx940
# but not MI300's gfx942, which needs the clang of ROCm 5.7 or later).
function(casebook_hip_knows_arch arch result)
  set(_source ${CMAKE_BINARY_DIR}/CMakeFiles/casebook_hip_arch_probe.hip)
  file(WRITE ${_source} "")
  execute_process(
    COMMAND ${CMAKE_COMMAND} -E env TMPDIR=${CMAKE_BINARY_DIR}/CMakeFiles
            ${CASEBOOK_HIPCC} -x hip --offload-arch=${arch} -fsyntax-only ${_source}
    RESULT_VARIABLE _status OUTPUT_QUIET ERROR_QUIET)
  if(_status EQUAL 0)
    set(${result} ON PARENT_SCOPE)
  else()
    set(${result} OFF PARENT_SCOPE)
  endif()
endfunction()

# CASEBOOK_HIP_ARCHS, the AMD targets the HIP kernels are built for: by
# default gfx90a (MI200, CDNA2) and gfx1030 (RDNA2), and gfx942 (MI300,
# CDNA3) where hipcc knows it. A list given (-DCASEBOOK_HIP_ARCHS=...) is
# taken as is; a target hipcc does not know is a configure error naming it,
# never a plugin silently built without it. Checked once per list and hipcc.
function(casebook_hip_archs)
  if(NOT DEFINED CACHE{CASEBOOK_HIP_ARCHS})
    set(_default gfx90a gfx1030)
    casebook_hip_knows_arch(gfx942 _knows_gfx942)
    if(_knows_gfx942)
      list(APPEND _default gfx942)
    endif()
    set(CASEBOOK_HIP_ARCHS "${_default}" CACHE STRING
        "AMD targets for the HIP kernels (default: gfx90a, gfx1030, and gfx942 where hipcc knows it)")
  endif()
  set(_checked "${CASEBOOK_HIPCC}|${CASEBOOK_HIP_ARCHS}")
  if(_checked STREQUAL "${_CASEBOOK_HIP_ARCHS_CHECKED}")
    return()
  endif()
  if(NOT CASEBOOK_HIP_ARCHS)
    message(FATAL_ERROR "casebook: CASEBOOK_HIP_ARCHS is empty: expected AMD "
      "targets such as gfx90a;gfx942 (or -DCASEBOOK_ENABLE_HIP=OFF)")
  endif()
  set(_unknown)
  foreach(_arch IN LISTS CASEBOOK_HIP_ARCHS)
    casebook_hip_knows_arch(${_arch} _known)
    if(NOT _known)
      list(APPEND _unknown ${_arch})
    endif()
  endforeach()
  if(_unknown)
    string(REPLACE ";" ", " _unknown "${_unknown}")
    message(FATAL_ERROR "casebook: CASEBOOK_HIP_ARCHS: ${CASEBOOK_HIPCC} does "
      "not know ${_unknown} (refused as --offload-arch by its clang). "
      "Remove it from CASEBOOK_HIP_ARCHS (now ${CASEBOOK_HIP_ARCHS}), or use a "
      "ROCm whose hipcc knows it (MI300's gfx942: ROCm 5.7 or later), or "
      "-DCASEBOOK_ENABLE_HIP=OFF.")
  endif()
  set(_CASEBOOK_HIP_ARCHS_CHECKED "${_checked}" CACHE INTERNAL "")
endfunction()

set(CASEBOOK_HAVE_HIP OFF)
if(NOT DEFINED CASEBOOK_ENABLE_HIP OR CASEBOOK_ENABLE_HIP)
  # CMake's HIP language does not find Debian's ROCm layout: call hipcc.
  find_program(CASEBOOK_HIPCC hipcc)
  if(CASEBOOK_HIPCC)
    set(CASEBOOK_HAVE_HIP ON)
    casebook_hip_archs()
  endif()
endif()
message(STATUS "casebook: CUDA kernels ${CASEBOOK_HAVE_CUDA}, HIP kernels ${CASEBOOK_HAVE_HIP}")
