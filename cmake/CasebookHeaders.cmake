# casebook_headers: every header of framework/ compiled alone, in a unit that
# includes it and nothing else (twice, for its include guard), without the
# precompiled header or unity units, which hide a missing include: a header
# states what it needs. Not part of `all`; the debian lane builds it in the
# `tidy` preset's folder (ci/lane.sh), which has neither.
function(casebook_add_header_check)
  file(GLOB_RECURSE _headers CONFIGURE_DEPENDS
    RELATIVE ${PROJECT_SOURCE_DIR}/framework
    ${PROJECT_SOURCE_DIR}/framework/include/*.h ${PROJECT_SOURCE_DIR}/framework/src/*.h)
  # One of the GPU halves is built, by the LibTorch's flavour.
  if(NOT CASEBOOK_TORCH_FLAVOUR STREQUAL "cuda")
    list(FILTER _headers EXCLUDE REGEX "torch_gpu_cuda")
  endif()
  set(_units)
  foreach(_header IN LISTS _headers)
    string(REGEX REPLACE "^(include|src)/" "" _included "${_header}")
    string(MAKE_C_IDENTIFIER "${_header}" _stem)
    set(_unit ${PROJECT_BINARY_DIR}/header_check/${_stem}.cpp)
    set(_text "#include \"${_included}\"\n#include \"${_included}\"  // guarded\n")
    if(EXISTS ${_unit})
      file(READ ${_unit} _old)
    endif()
    if(NOT _old STREQUAL _text)
      file(WRITE ${_unit} "${_text}")
    endif()
    unset(_old)
    list(APPEND _units ${_unit})
  endforeach()
  add_library(casebook_headers OBJECT EXCLUDE_FROM_ALL ${_units})
  set_target_properties(casebook_headers PROPERTIES UNITY_BUILD OFF DISABLE_PRECOMPILE_HEADERS ON)
  target_include_directories(casebook_headers PRIVATE
    ${PROJECT_SOURCE_DIR}/framework/src ${PROJECT_SOURCE_DIR}/kernels
    ${PROJECT_BINARY_DIR}/framework/generated)
  target_link_libraries(casebook_headers PRIVATE casebook_lib casebook_warnings CLI11::CLI11 GTest::gtest)
endfunction()
