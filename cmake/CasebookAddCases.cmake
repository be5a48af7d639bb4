# casebook_add_cases(): a folder of case files as ctest tests, in casebook's
# own tree (cases/CMakeLists.txt) and in a project that found the installed
# package (find_package(casebook)).
#
#   casebook_add_cases(DIRECTORY <folder>
#                      [NAME <prefix>]              default: cases
#                      [BACKENDS <backend>...]      default: cpu cuda hip
#                      [EACH_CASE ON|OFF]           default: CASEBOOK_CTEST_EACH_CASE
#                      [OPS <target> [REGISTER <function>]])
#
# One ctest test per backend, `<prefix>.<backend>`, runs `casebook test`
# (gtest mode) over the folder, which finds the files when it runs: a new case
# file needs no CMake edit. JUnit goes to <build>/junit/<prefix>-<backend>.xml.
# Labels: `cases` and the backend. GPU backends take one GPU from ctest's
# resource allocation (RESOURCE_GROUPS gpus:1) and report Skipped, not
# Passed, when their backend is absent.
#
# EACH_CASE ON: the cpu backend gets one ctest test per case file instead,
# `<prefix>.cpu/<id>` (its id: the path under the folder without .yaml; its
# neighbours run with it), so that `ctest -R label_4` runs that case and
# `--output-on-failure` shows its failure block; the files are globbed with
# CONFIGURE_DEPENDS: `cmake --build` picks up a new or removed file with no
# CMake edit. The cost model: a LibTorch start costs about 0.7 s of CPU, a
# case a few milliseconds, so the folder is run once, by the batch test
# `<prefix>.cpu.batch` (in parallel, JUnit to <build>/junit/<prefix>-cpu.xml;
# it fails only when it could not run), and each file's test (a shell that
# reads the file's record, no LibTorch) depends on it: a whole `ctest` costs
# one run of the folder plus a few milliseconds a file. A file's test
# selected alone (`ctest -R <id>`: DEPENDS orders, it adds no test) runs its
# own file and reads no other. GPU backends keep one test each (one GPU,
# one device start).
#
# OPS: a library target holding the project's own ops and kernels, with a
# function `void <function>(casebook::OpRegistry&)` at global scope (default
# name: casebook_register_ops) that registers them (casebook/ops.h). The
# tests then run `<prefix>_casebook`, an executable built here: casebook's
# command line with those ops beside casebook's own. It needs
# casebook::casebook_lib (find_package(casebook COMPONENTS lib), or casebook's
# source tree through add_subdirectory); without OPS the executable alone is
# enough, in a project of any languages, LANGUAGES NONE included.
#
# The functions are called from other directories (a project that
# add_subdirectory()s casebook's tree): they read nothing from this file's
# directory scope, only CMAKE_CURRENT_FUNCTION_LIST_DIR and constants.

# The exit status of `casebook test` when nothing ran because the backend is
# absent (ctest's SKIP_RETURN_CODE; kExitNothingRan in cli/commands.h).
macro(_casebook_skip_return_code out)
  set(${out} 77)
endmacro()

option(CASEBOOK_CTEST_EACH_CASE
  "casebook_add_cases: one ctest test per case file on cpu (ctest -R <case>), not one per folder"
  ON)

# EACH_CASE: one ctest test per case file on cpu, `<prefix>.cpu/<id>`, and
# one batch test, `<prefix>.cpu.batch`, that they depend on. The batch runs
# the folder once (`casebook run --ctest-records`, every core) and keeps
# each file's verdicts; each file's test then shows its record through
# casebook_ctest_case.sh (a shell, no LibTorch start) and exits with its
# status. Without the batch (`ctest -R <id>` selects only the file's test;
# DEPENDS orders, it does not add) the file's test runs its file alone.
function(_casebook_add_each_case runner dir prefix)
  file(GLOB_RECURSE _files CONFIGURE_DEPENDS RELATIVE "${dir}" "${dir}/*.yaml")
  list(SORT _files)
  set(_records "${CMAKE_CURRENT_BINARY_DIR}/casebook-records/${prefix}")
  _casebook_skip_return_code(_skip)
  add_test(NAME ${prefix}.cpu.batch
    COMMAND ${runner} run --backend cpu --quiet --ctest-records ${_records}
            --junit ${CMAKE_BINARY_DIR}/junit/${prefix}-cpu.xml ${dir})
  # Its record for --last-failed stays in the build tree: a ctest run
  # writes nothing beside the cases.
  set_tests_properties(${prefix}.cpu.batch PROPERTIES
    LABELS "cases;cpu" SKIP_RETURN_CODE ${_skip}
    ENVIRONMENT "CASEBOOK_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/casebook-cache/${prefix}")
  foreach(_file IN LISTS _files)
    string(REGEX REPLACE "\\.yaml$" "" _id "${_file}")
    add_test(NAME ${prefix}.cpu/${_id}
      COMMAND ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/casebook_ctest_case.sh ${_records}/${_file}.record
              ${dir}/${_file} $<TARGET_FILE:${runner}> test --backend cpu
              ${dir}/${_file})
    set_tests_properties(${prefix}.cpu/${_id} PROPERTIES
      LABELS "cases;cpu" SKIP_RETURN_CODE ${_skip}
      DEPENDS ${prefix}.cpu.batch)
  endforeach()
endfunction()

function(casebook_add_cases)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "DIRECTORY;NAME;OPS;REGISTER;EACH_CASE" "BACKENDS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "casebook_add_cases: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_DIRECTORY)
    message(FATAL_ERROR "casebook_add_cases: DIRECTORY <folder of case files> is required")
  endif()
  get_filename_component(_dir "${arg_DIRECTORY}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT IS_DIRECTORY "${_dir}")
    message(FATAL_ERROR "casebook_add_cases: DIRECTORY ${arg_DIRECTORY}: no such folder (${_dir})")
  endif()
  if(NOT arg_NAME)
    set(arg_NAME cases)
  endif()
  # The built-in backends, as `casebook describe --json` lists them (ctest
  # schema.vocabulary checks the two agree).
  set(_built_in_backends cpu cuda hip)
  if(NOT arg_BACKENDS)
    set(arg_BACKENDS ${_built_in_backends})
  endif()
  foreach(_backend IN LISTS arg_BACKENDS)
    if(NOT _backend IN_LIST _built_in_backends)
      string(REPLACE ";" ", " _known "${_built_in_backends}")
      message(FATAL_ERROR "casebook_add_cases: BACKENDS: expected one of ${_known}; got `${_backend}`")
    endif()
  endforeach()

  set(_runner casebook::casebook)
  if(arg_OPS)
    if(NOT TARGET ${arg_OPS})
      message(FATAL_ERROR "casebook_add_cases: OPS ${arg_OPS} is not a target")
    endif()
    if(NOT TARGET casebook::casebook_lib)
      if(NOT CASEBOOK_LIB_NOT_FOUND_REASON)
        set(CASEBOOK_LIB_NOT_FOUND_REASON "it was not asked for")
      endif()
      message(FATAL_ERROR "casebook_add_cases: OPS ${arg_OPS} builds a casebook "
        "with the project's ops, which links casebook::casebook_lib; this "
        "project has none: ${CASEBOOK_LIB_NOT_FOUND_REASON}. Ask for it with "
        "find_package(casebook REQUIRED COMPONENTS lib), or leave OPS out to "
        "run the cases with the casebook executable alone.")
    endif()
    if(NOT arg_REGISTER)
      set(arg_REGISTER casebook_register_ops)
    endif()
    if(NOT arg_REGISTER MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
      message(FATAL_ERROR "casebook_add_cases: REGISTER: a function name at global scope; got `${arg_REGISTER}`")
    endif()
    string(MAKE_C_IDENTIFIER "${arg_NAME}_casebook" _runner)
    set(CASEBOOK_REGISTER_FUNCTION ${arg_REGISTER})
    set(CASEBOOK_OPS_TARGET ${arg_OPS})
    configure_file(${CMAKE_CURRENT_FUNCTION_LIST_DIR}/casebook_main.cpp.in
                   ${CMAKE_CURRENT_BINARY_DIR}/${_runner}_main.cpp @ONLY)
    add_executable(${_runner} ${CMAKE_CURRENT_BINARY_DIR}/${_runner}_main.cpp)
    target_link_libraries(${_runner} PRIVATE casebook::casebook_lib ${arg_OPS})
    # Bind every symbol at start-up: the runs are forked children, which would
    # each resolve LibTorch's symbols again otherwise.
    target_link_options(${_runner} PRIVATE LINKER:-z,now)
    # The kernel plugins: the installed ones, or in casebook's source tree
    # (add_subdirectory) the ones built beside its executable; unless
    # CASEBOOK_KERNEL_PLUGIN_DIR says otherwise when it runs.
    set(_plugin_dir "${CASEBOOK_PLUGIN_DIR}")
    get_target_property(_imported casebook::casebook IMPORTED)
    if(NOT _plugin_dir AND NOT _imported)
      set(_plugin_dir "$<TARGET_FILE_DIR:casebook::casebook>")
    endif()
    if(_plugin_dir)
      target_compile_definitions(${_runner} PRIVATE CASEBOOK_PLUGIN_DIR="${_plugin_dir}")
    endif()
  endif()

  if(NOT DEFINED arg_EACH_CASE)
    set(arg_EACH_CASE ${CASEBOOK_CTEST_EACH_CASE})
  endif()
  foreach(_backend IN LISTS arg_BACKENDS)
    if(_backend STREQUAL "cpu" AND arg_EACH_CASE)
      _casebook_add_each_case(${_runner} "${_dir}" ${arg_NAME})
      continue()
    endif()
    add_test(NAME ${arg_NAME}.${_backend}
      COMMAND ${_runner} test --backend ${_backend} ${_dir}
              --gtest_output=xml:${CMAKE_BINARY_DIR}/junit/${arg_NAME}-${_backend}.xml)
    _casebook_skip_return_code(_skip)
    set_tests_properties(${arg_NAME}.${_backend} PROPERTIES
      LABELS "cases;${_backend}" SKIP_RETURN_CODE ${_skip})
    if(NOT _backend STREQUAL "cpu")
      set_tests_properties(${arg_NAME}.${_backend} PROPERTIES RESOURCE_GROUPS "gpus:1")
    endif()
  endforeach()
endfunction()
