# casebook::torch: LibTorch (cmake/CasebookFindTorch.cmake found it) as an
# imported target, with the GPU flavour it was built for: Debian's
# libtorch-dev 1.13.1 and the 2.13.0 wheel are CPU only, the 2.14.1 wheel and
# the GPU machine's 2.11 have CUDA. A ROCm build presents HIP devices as
# "cuda" and is told apart by its own targets.
add_library(casebook_torch INTERFACE)
add_library(casebook::torch ALIAS casebook_torch)
target_link_libraries(casebook_torch INTERFACE ${TORCH_LIBRARIES})
target_include_directories(casebook_torch SYSTEM INTERFACE ${TORCH_INCLUDE_DIRS})
# The C++ standard LibTorch's headers need, as ATen.h states it: C++14 for
# 1.13, C++17 for 2.13, C++20 for 2.14 (#error otherwise). casebook's code is
# C++17; the targets that include LibTorch take the newer standard where the
# headers demand it, casebook_core and the kernels stay at C++17.
set(CASEBOOK_TORCH_CXX_STANDARD 17)
foreach(_casebook_dir IN LISTS TORCH_INCLUDE_DIRS)
  if(EXISTS "${_casebook_dir}/ATen/ATen.h")
    file(STRINGS "${_casebook_dir}/ATen/ATen.h" _casebook_aten_std
      REGEX "C\\+\\+[0-9]+ or later compatible compiler is required")
    if(_casebook_aten_std MATCHES "C\\+\\+([0-9]+) or later" AND CMAKE_MATCH_1 GREATER 17)
      set(CASEBOOK_TORCH_CXX_STANDARD ${CMAKE_MATCH_1})
    endif()
    break()
  endif()
endforeach()
target_compile_features(casebook_torch INTERFACE cxx_std_${CASEBOOK_TORCH_CXX_STANDARD})
message(STATUS "casebook: LibTorch's headers: C++${CASEBOOK_TORCH_CXX_STANDARD}")
# GCC 12 at -O3 under C++20 reports impossible overflows inside libstdc++'s
# std::string for ordinary concatenation ("x" + std::string(y): a 2^63-byte
# memcpy; GCC bugs 105329 and 105651), in casebook's code and its tests
# alike. Those two warnings are off there; GCC 13 and C++17 keep them.
if(CASEBOOK_TORCH_CXX_STANDARD GREATER_EQUAL 20 AND
   CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(casebook_torch INTERFACE
    -Wno-array-bounds -Wno-stringop-overflow -Wno-restrict)
endif()
# libstdc++ before LibTorch among each program's libraries. A LibTorch wheel
# exports a copy of parts of libstdc++ (std::filesystem among them, from its
# toolchain's libstdc++_nonshared.a) without symbol versions; listed before
# libstdc++.so.6 it takes every such call of casebook's and of its other
# libraries. On the GPU machine (torch 2.11.0+cu130, Ubuntu 24.04) its
# std::filesystem::remove_all jumped to address 0 at the end of every run.
# tests/lib/standard_library_test.cpp checks which library answers.
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  target_link_options(casebook_torch INTERFACE
    "SHELL:-Wl,--push-state,--no-as-needed -lstdc++ -Wl,--pop-state")
endif()
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
  # framework/src/device/torch_gpu_cuda.cpp asks the CUDA runtime directly.
  # LibTorch's CMake already links its consumers with the toolkit's
  # libcudart.so (torch::cudart), and a wheel's libtorch_cuda.so needs
  # libcudart.so.N from nvidia/cu*/lib: one soname, so the dynamic loader
  # loads one file of the two, whichever the executable's RUNPATH finds
  # first, and LibTorch gets that one (ci/cuda-without-gpu.sh checks that ldd
  # resolves exactly one). That holds only if both have the same major
  # version: two majors (libcudart.so.12 and .13) would both load.
  find_package(CUDAToolkit REQUIRED)
  target_link_libraries(casebook_torch INTERFACE CUDA::cudart)
  get_filename_component(_casebook_torch_lib_dir "${TORCH_LIBRARY}" DIRECTORY)
  file(STRINGS "${_casebook_torch_lib_dir}/../version.py" _casebook_torch_cuda
    REGEX "^cuda[^=]*= *['\"][0-9.]+['\"]")
  if(_casebook_torch_cuda MATCHES "['\"]([0-9]+)\\.([0-9]+)")
    set(CASEBOOK_TORCH_CUDA_VERSION "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}")
    if(NOT CMAKE_MATCH_1 EQUAL CUDAToolkit_VERSION_MAJOR)
      message(FATAL_ERROR "casebook: LibTorch ${Torch_VERSION} is built with CUDA "
        "${CASEBOOK_TORCH_CUDA_VERSION}, the toolkit at ${CUDAToolkit_BIN_DIR} "
        "is CUDA ${CUDAToolkit_VERSION}: two CUDA runtimes of different "
        "majors would load into one process. Use a toolkit of CUDA "
        "${CMAKE_MATCH_1}.x (CMAKE_CUDA_COMPILER) or a LibTorch built for "
        "${CUDAToolkit_VERSION_MAJOR}.x.")
    endif()
  endif()
  message(STATUS "casebook: LibTorch built with CUDA ${CASEBOOK_TORCH_CUDA_VERSION}, "
    "toolkit CUDA ${CUDAToolkit_VERSION} (${CUDAToolkit_LIBRARY_DIR})")
endif()
message(STATUS "casebook: LibTorch ${Torch_VERSION} (${CASEBOOK_TORCH_FLAVOUR})")

# A lane that needs a flavour says so (the `cuda` preset and ci/gpu-lane.sh:
# cuda): a CPU LibTorch found first then stops the configure instead of
# turning every GPU run into a skip.
set(CASEBOOK_EXPECT_TORCH_FLAVOUR "" CACHE STRING
  "cpu, cuda or rocm: fail the configure when LibTorch is another flavour")
if(CASEBOOK_EXPECT_TORCH_FLAVOUR AND
   NOT CASEBOOK_EXPECT_TORCH_FLAVOUR STREQUAL CASEBOOK_TORCH_FLAVOUR)
  message(FATAL_ERROR "casebook: LibTorch ${Torch_VERSION} at ${Torch_DIR} "
    "(taken from ${CASEBOOK_TORCH_ORIGIN}) is a ${CASEBOOK_TORCH_FLAVOUR} "
    "build; this preset needs a ${CASEBOOK_EXPECT_TORCH_FLAVOUR} build "
    "(CASEBOOK_EXPECT_TORCH_FLAVOUR). For CUDA: CASEBOOK_PYTHON naming a "
    "Python whose torch.version.cuda is set (pip install torch==2.14.1).")
endif()
if(CASEBOOK_EXPECT_TORCH_FLAVOUR STREQUAL "cuda" AND NOT CASEBOOK_HAVE_CUDA)
  message(FATAL_ERROR "casebook: a cuda build needs nvcc for the kernel "
    "plugin, and none was found (CMAKE_CUDA_COMPILER, /usr/local/cuda/bin/nvcc)")
endif()
