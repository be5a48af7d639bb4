# Finds LibTorch the way its users have it, in one order (docs/contributing.md,
# "Which LibTorch"):
#   1. explicit: Torch_DIR, or a Torch package on CMAKE_PREFIX_PATH;
#   2. the `torch` package of a Python: CASEBOOK_PYTHON (-D, else the
#      environment at the first configure, else python3), its share/cmake;
#   3. Debian's libtorch-dev (ci/install-deps.sh installs it).
# Sets CASEBOOK_TORCH_ORIGIN (what was taken and why, shown at configure and
# in the build facts) and fails the configure for a LibTorch outside the
# supported range or one whose libraries come from another install than its
# headers.
set(CASEBOOK_TORCH_MIN_VERSION 1.13)
set(CASEBOOK_TORCH_MAX_VERSION 3.0)  # exclusive

# CASEBOOK_PYTHON: -D, else the environment at the first configure (as CMake
# reads CC and CXX), else python3.
if(NOT DEFINED CACHE{CASEBOOK_PYTHON})
  set(_casebook_python_default python3)
  if(SKBUILD AND Python_EXECUTABLE)
    set(_casebook_python_default "${Python_EXECUTABLE}")  # pip's build: the Python that runs pip
  endif()
  if(DEFINED ENV{CASEBOOK_PYTHON} AND NOT "$ENV{CASEBOOK_PYTHON}" STREQUAL "")
    set(_casebook_python_default "$ENV{CASEBOOK_PYTHON}")
  endif()
  set(CASEBOOK_PYTHON "${_casebook_python_default}" CACHE STRING
    "The Python whose torch package gives LibTorch (step 2 of the search)")
endif()

set(CASEBOOK_TORCH_FROM "auto" CACHE STRING
  "auto: the order above; python: step 2 or a configure error; system: step 3 only")
set_property(CACHE CASEBOOK_TORCH_FROM PROPERTY STRINGS auto python system)
if(NOT CASEBOOK_TORCH_FROM MATCHES "^(auto|python|system)$")
  message(FATAL_ERROR "casebook: CASEBOOK_TORCH_FROM is '${CASEBOOK_TORCH_FROM}'; "
    "expected auto, python or system")
endif()

# 1. Explicit: Torch_DIR, or CMAKE_PREFIX_PATH holding a Torch package (the
# system paths are left out here, so that Debian's package is step 3 only).
set(_casebook_torch_why "")
set(_casebook_torch_dir "")
set(_casebook_torch_request "${CASEBOOK_TORCH_FROM}|${CASEBOOK_PYTHON}")
if(Torch_DIR AND Torch_DIR STREQUAL _CASEBOOK_TORCH_CHOSEN_DIR AND
   _casebook_torch_request STREQUAL _CASEBOOK_TORCH_CHOSEN_REQUEST)
  # A reconfigure: the choice of the first configure, with its reason.
  set(_casebook_torch_why "${_CASEBOOK_TORCH_CHOSEN_WHY}")
  set(_casebook_torch_dir "${Torch_DIR}")
elseif(CASEBOOK_TORCH_FROM STREQUAL "system")
  unset(Torch_DIR CACHE)
elseif(Torch_DIR AND NOT Torch_DIR STREQUAL _CASEBOOK_TORCH_CHOSEN_DIR)
  # Torch_DIR given by hand (the one casebook chose is never "explicit").
  set(_casebook_torch_why "Torch_DIR")
  set(_casebook_torch_dir "${Torch_DIR}")
elseif(CMAKE_PREFIX_PATH AND CASEBOOK_TORCH_FROM STREQUAL "auto")
  find_path(_casebook_torch_config TorchConfig.cmake PATHS ${CMAKE_PREFIX_PATH}
    PATH_SUFFIXES share/cmake/Torch lib/cmake/Torch Torch NO_DEFAULT_PATH)
  if(_casebook_torch_config)
    set(_casebook_torch_why "CMAKE_PREFIX_PATH")
    set(_casebook_torch_dir "${_casebook_torch_config}")
  endif()
  unset(_casebook_torch_config CACHE)
endif()

if(NOT _casebook_torch_why AND Torch_DIR STREQUAL _CASEBOOK_TORCH_CHOSEN_DIR)
  unset(Torch_DIR CACHE)  # another request: search again
endif()

# 2. The torch package of CASEBOOK_PYTHON. In pip's build (SKBUILD), build
# isolation hides the environment's own site-packages from the Python that
# builds: `-I` (isolated mode, which ignores PYTHONPATH) sees them again, so
# `pip install` builds against the torch of the environment it installs into.
set(_casebook_python_modes "-c")
if(SKBUILD)
  list(APPEND _casebook_python_modes "-Ic")
endif()
foreach(_casebook_python_mode IN LISTS _casebook_python_modes)
  if(_casebook_torch_why OR CASEBOOK_TORCH_FROM STREQUAL "system")
    break()
  endif()
  execute_process(
    COMMAND "${CASEBOOK_PYTHON}" ${_casebook_python_mode}
      "import os, torch; print(torch.__version__); print(os.path.dirname(torch.__file__))"
    OUTPUT_VARIABLE _casebook_python_torch
    ERROR_VARIABLE _casebook_python_error
    RESULT_VARIABLE _casebook_python_result
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(_casebook_python_result EQUAL 0)
    string(REPLACE "\n" ";" _casebook_python_torch "${_casebook_python_torch}")
    list(GET _casebook_python_torch 0 _casebook_pip_version)
    list(GET _casebook_python_torch 1 _casebook_torch_root)
    # A Python whose torch has no CMake package (Debian's python3-torch) is
    # passed over for step 3.
    if(EXISTS "${_casebook_torch_root}/share/cmake/Torch/TorchConfig.cmake")
      set(_casebook_torch_why "the torch package of ${CASEBOOK_PYTHON} (torch ${_casebook_pip_version})")
      set(_casebook_torch_dir "${_casebook_torch_root}/share/cmake/Torch")
    endif()
  endif()
endforeach()

if(NOT _casebook_torch_dir AND CASEBOOK_TORCH_FROM STREQUAL "python")
  string(STRIP "${_casebook_python_error}" _casebook_python_error)
  message(FATAL_ERROR "casebook: CASEBOOK_TORCH_FROM=python, and ${CASEBOOK_PYTHON} "
    "gives no torch package with CMake files (${_casebook_python_error}). "
    "Name a Python with torch installed by pip: "
    "CASEBOOK_PYTHON=$(ci/install-torch.sh 2.13.0); for `pip install`, "
    "install torch into that environment first.")
endif()

if(_casebook_torch_dir)
  # The package's root first: TorchConfig finds its libraries with
  # find_library, which would otherwise take a system libtorch.so (Debian's)
  # before the package's own lib/.
  get_filename_component(_casebook_torch_root "${_casebook_torch_dir}/../../.." ABSOLUTE)
  list(PREPEND CMAKE_PREFIX_PATH "${_casebook_torch_root}")
  set(Torch_DIR "${_casebook_torch_dir}" CACHE PATH "LibTorch's CMake package" FORCE)
elseif(CASEBOOK_TORCH_FROM STREQUAL "system")
  set(_casebook_torch_why "the system's LibTorch (Debian's libtorch-dev), as CASEBOOK_TORCH_FROM=system asks")
else()
  set(_casebook_torch_why "the system's LibTorch (Debian's libtorch-dev): no Torch_DIR, no Torch on CMAKE_PREFIX_PATH, no torch package with CMake files in ${CASEBOOK_PYTHON}")
endif()

# A CUDA LibTorch's Caffe2 config finds the toolkit with its own FindCUDA,
# which does not look where CasebookGpu found nvcc: tell it.
if(CUDAToolkit_BIN_DIR AND NOT DEFINED CUDA_TOOLKIT_ROOT_DIR)
  get_filename_component(CUDA_TOOLKIT_ROOT_DIR "${CUDAToolkit_BIN_DIR}/.." ABSOLUTE)
endif()
# What Caffe2's cuda.cmake would otherwise guess for its own flags (eleven
# architectures, none of them casebook's); the plugin's stay the preset's.
# A wheel's Caffe2 config links libnvrtc from the toolkit, which a toolkit
# of nvcc and the runtime alone (this project's machines) lacks; the wheel
# ships its own (nvidia/cu*/lib), the one its libtorch_cuda.so loads.
# (Caffe2's FindCUDA resets CUDA_nvrtc_LIBRARY; CUDA_NVRTC_LIB, which its
# cuda.cmake caches without FORCE, is what TorchConfig links.)
if(_casebook_torch_dir AND NOT CUDA_NVRTC_LIB AND CUDA_TOOLKIT_ROOT_DIR AND
   NOT EXISTS "${CUDA_TOOLKIT_ROOT_DIR}/lib64/libnvrtc.so")
  file(GLOB _casebook_wheel_nvrtc "${_casebook_torch_root}/../nvidia/cu*/lib/libnvrtc.so.*")
  if(_casebook_wheel_nvrtc)
    list(GET _casebook_wheel_nvrtc 0 _casebook_wheel_nvrtc)
    set(CUDA_NVRTC_LIB "${_casebook_wheel_nvrtc}" CACHE FILEPATH
      "libnvrtc: the wheel's, where the CUDA toolkit has none")
  endif()
endif()
# "90-real;90-virtual" -> "9.0".
if(CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{TORCH_CUDA_ARCH_LIST} AND
   NOT DEFINED TORCH_CUDA_ARCH_LIST)
  set(TORCH_CUDA_ARCH_LIST "")
  foreach(_casebook_arch IN LISTS CMAKE_CUDA_ARCHITECTURES)
    string(REGEX REPLACE "^([0-9]+)([0-9])[a-z]*(-real|-virtual)?$" "\\1.\\2"
      _casebook_arch "${_casebook_arch}")
    list(APPEND TORCH_CUDA_ARCH_LIST "${_casebook_arch}")
  endforeach()
  list(REMOVE_DUPLICATES TORCH_CUDA_ARCH_LIST)
endif()
find_package(Torch REQUIRED)
# TorchConfig caches the libraries it found: a build folder keeps one LibTorch.
if(_CASEBOOK_TORCH_CHOSEN_DIR AND NOT Torch_DIR STREQUAL _CASEBOOK_TORCH_CHOSEN_DIR)
  message(FATAL_ERROR "casebook: this build folder was configured with the "
    "LibTorch at ${_CASEBOOK_TORCH_CHOSEN_DIR}; now ${Torch_DIR} is asked for "
    "(${_casebook_torch_why}). Configure another folder, or remove this one.")
endif()

# Headers and libraries from one install: a Torch_DIR whose libraries were
# found elsewhere (find_library's system paths) would compile against one
# LibTorch and run another.
get_filename_component(_casebook_torch_prefix "${Torch_DIR}/../../.." ABSOLUTE)
get_filename_component(_casebook_torch_library "${TORCH_LIBRARY}" REALPATH)
get_filename_component(_casebook_torch_prefix_real "${_casebook_torch_prefix}" REALPATH)
string(FIND "${_casebook_torch_library}" "${_casebook_torch_prefix_real}/" _casebook_torch_at)
if(NOT _casebook_torch_at EQUAL 0)
  message(FATAL_ERROR "casebook: LibTorch's CMake package at ${Torch_DIR} "
    "found its library at ${TORCH_LIBRARY}, outside ${_casebook_torch_prefix}: "
    "two LibTorch installs are mixed. Put the package's root first on "
    "CMAKE_PREFIX_PATH.")
endif()

if(Torch_VERSION VERSION_LESS CASEBOOK_TORCH_MIN_VERSION OR
   NOT Torch_VERSION VERSION_LESS CASEBOOK_TORCH_MAX_VERSION)
  message(FATAL_ERROR "casebook: LibTorch ${Torch_VERSION} at ${Torch_DIR} "
    "(taken from ${_casebook_torch_why}) is outside the supported range "
    ">= ${CASEBOOK_TORCH_MIN_VERSION}, < ${CASEBOOK_TORCH_MAX_VERSION}. "
    "Name another with CASEBOOK_PYTHON, Torch_DIR or CMAKE_PREFIX_PATH.")
endif()
set(CASEBOOK_TORCH_ORIGIN "${_casebook_torch_why}")
set(_CASEBOOK_TORCH_CHOSEN_DIR "${Torch_DIR}" CACHE INTERNAL "")
set(_CASEBOOK_TORCH_CHOSEN_WHY "${_casebook_torch_why}" CACHE INTERNAL "")
set(_CASEBOOK_TORCH_CHOSEN_REQUEST "${_casebook_torch_request}" CACHE INTERNAL "")
message(STATUS "casebook: LibTorch ${Torch_VERSION} at ${Torch_DIR}, taken from ${CASEBOOK_TORCH_ORIGIN}")
