# Project-wide options and warning flags.
option(CASEBOOK_WERROR "Treat warnings in casebook's own code as errors" OFF)
# GCC's precompiled ATen header halves a 2-core build; clang-tidy cannot read
# it, so the `tidy` preset turns it off.
option(CASEBOOK_PCH "Precompile <ATen/ATen.h> for the LibTorch targets" ON)
include(CasebookUnity)  # CASEBOOK_UNITY, casebook_unity_build()

add_library(casebook_warnings INTERFACE)
target_compile_options(casebook_warnings INTERFACE
  # Aggregates with default member initializers are initialised in part on
  # purpose (Variant{name}); -Wextra would flag every such brace.
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${CASEBOOK_WERROR}>>:-Werror>)

# (casebook's own build only: a project that add_subdirectory()s it keeps its
# own default.)
if(PROJECT_IS_TOP_LEVEL AND NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "Build type" FORCE)
endif()
# Release at -O2, not CMake's -O3: casebook's own code is not a run's hot
# path (LibTorch's and the kernels' are; CUDA keeps -O3), and -O3 cost 14 %
# more compile time on 2 cores (a casebook_lib unity unit: 10.0 s, 8.6 s).
# A value the user gave is kept.
if(PROJECT_IS_TOP_LEVEL AND CMAKE_CXX_FLAGS_RELEASE STREQUAL "-O3 -DNDEBUG")
  set(CMAKE_CXX_FLAGS_RELEASE "-O2 -DNDEBUG" CACHE STRING
      "Flags used by the CXX compiler during RELEASE builds." FORCE)
endif()

# The git revision, shown in every run's environment header.
execute_process(
  COMMAND git rev-parse --short=12 HEAD
  WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
  OUTPUT_VARIABLE CASEBOOK_GIT_REVISION
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT CASEBOOK_GIT_REVISION)
  set(CASEBOOK_GIT_REVISION "unknown")
endif()

# Bind every symbol an executable imports when it starts (-z now), not on its
# first call: a run's children are forked after start-up, and each would
# otherwise resolve the same symbols again, searching the ~300 libraries that
# Debian's LibTorch loads and faulting in their symbol tables.
add_link_options($<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:LINKER:-z,now>)
