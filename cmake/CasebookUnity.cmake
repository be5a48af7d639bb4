# Unity builds (CMake's UNITY_BUILD): each casebook target compiles its
# sources about CASEBOOK_UNITY_BATCH to a unit. What a unit repeats (loading
# the ATen header, instantiating its templates, CLI11's validators) is then
# paid once a unit: casebook_lib's compiles took 342 job-seconds batched
# against 919 one file at a time (pip's torch 2.13, 2 cores; ci/lane.sh
# prints each lane's build time). The cost: a name local to one file (an
# anonymous namespace's) must be unique within its target; two files that
# define the same helper no longer compile, and are usually one helper
# written twice. CASEBOOK_UNITY_BATCH=0 compiles each target as one unit:
# every such clash at once. Turn CASEBOOK_UNITY off to edit and rebuild one
# file at a time.
option(CASEBOOK_UNITY "Compile each casebook target's sources in units" ON)
set(CASEBOOK_UNITY_BATCH 8 CACHE STRING "Sources per unity unit, about; 0: one unit a target")
# casebook_unity_build(target [OUT_OF sources...])
# A source's unit is chosen by its path alone (a hash of it, modulo the number
# of units), not by its place in a list: adding a file recompiles one unit,
# not every unit after it, and a build that leaves some of OUT_OF out (the
# asan preset's CASEBOOK_LIB_TESTS_EXCLUDE) compiles parts of the units every
# other build compiles, so it meets no clash that they do not. OUT_OF, the
# list the target's sources are taken from, sets the number of units
# (default: the target's own sources).
function(casebook_unity_build target)
  cmake_parse_arguments(PARSE_ARGV 1 _unity "" "" "OUT_OF")
  get_target_property(_sources ${target} SOURCES)
  list(FILTER _sources INCLUDE REGEX "\\.cpp$")
  if(NOT _unity_OUT_OF)
    set(_unity_OUT_OF ${_sources})
  endif()
  list(LENGTH _unity_OUT_OF _count)
  set(_units 1)
  if(CASEBOOK_UNITY_BATCH GREATER 0)
    math(EXPR _units "(${_count} + ${CASEBOOK_UNITY_BATCH} - 1) / ${CASEBOOK_UNITY_BATCH}")
  endif()
  foreach(_source IN LISTS _sources)
    get_filename_component(_path "${_source}" ABSOLUTE)
    file(RELATIVE_PATH _path "${PROJECT_SOURCE_DIR}" "${_path}")
    string(MD5 _hash "${_path}")
    string(SUBSTRING "${_hash}" 0 6 _hash)
    math(EXPR _unit "0x${_hash} % ${_units}")
    set_property(SOURCE ${_source} PROPERTY UNITY_GROUP "unit${_unit}")
  endforeach()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ${CASEBOOK_UNITY}
    UNITY_BUILD_MODE GROUP)
endfunction()
