# Plain `ctest` names the case that failed, and its file:line.
#
# ctest without --output-on-failure shows a failed test as one line
# (`cases.cpu ....***Failed`): a whole folder of cases behind one name. After
# gtest's summary, `casebook test` prints a line per run that did not pass,
# `casebook test: FAIL <id> <backend> (<family>) at <file>:<line>`, then its
# rerun command. This file, given to ctest as its post-test hook, prints those
# lines under ctest's summary, each after the name of the ctest test that
# failed. It reads them from ctest's log of the run that just ended
# (Testing/Temporary/LastTest.log; ctest 4 writes it as LastTest.log.tmp*
# until it ends), so that it costs no LibTorch start (0.7 s) and no test per
# case.
#
# Included in a project: casebook_ctest_failures_hook() writes the build
# folder's CTestCustom.cmake, which ctest reads (and `ctest --test-dir`).
# Run as a script (`cmake -DCASEBOOK_CTEST_LOGS=<folder> -P <this file>`): the
# hook itself. It prints nothing when no test failed with such lines, and
# never fails: a hook that fails would fail the ctest run.

if(NOT CMAKE_SCRIPT_MODE_FILE)
  set(_CASEBOOK_CTEST_FAILURES_FILE ${CMAKE_CURRENT_LIST_FILE})
  function(casebook_ctest_failures_hook)
    file(WRITE ${CMAKE_BINARY_DIR}/CTestCustom.cmake
      "# Written by casebook_ctest_failures_hook() (${_CASEBOOK_CTEST_FAILURES_FILE}).\n"
      "list(APPEND CTEST_CUSTOM_POST_TEST \"\\\"${CMAKE_COMMAND}\\\" "
      "\\\"-DCASEBOOK_CTEST_LOGS=${CMAKE_BINARY_DIR}/Testing/Temporary\\\" "
      "-P \\\"${_CASEBOOK_CTEST_FAILURES_FILE}\\\"\")\n")
  endfunction()
  return()
endif()

# The newest ctest log: the run that just ended (LastTest_<time>.log in
# dashboard mode; LastTestsFailed.log is not one).
file(GLOB _logs "${CASEBOOK_CTEST_LOGS}/LastTest.log*"
     "${CASEBOOK_CTEST_LOGS}/LastTest_*.log*")
set(_log "")
foreach(_candidate IN LISTS _logs)
  if(_log STREQUAL "" OR _candidate IS_NEWER_THAN _log)
    set(_log "${_candidate}")
  endif()
endforeach()
if(_log STREQUAL "")
  return()
endif()
file(READ "${_log}" _text)
# A case's message may hold what a CMake list gives meaning to (`;` splits,
# `\` escapes, an unbalanced `[` stops the splitting): each kept as a control
# character while the text is a list of lines.
string(ASCII 1 _semicolon)
string(ASCII 2 _backslash)
string(ASCII 3 _open)
string(ASCII 4 _close)
string(REPLACE ";" "${_semicolon}" _text "${_text}")
string(REPLACE "\\" "${_backslash}" _text "${_text}")
string(REPLACE "[" "${_open}" _text "${_text}")
string(REPLACE "]" "${_close}" _text "${_text}")
string(REPLACE "\n" ";" _lines "${_text}")

set(_test "")
set(_pending "")
set(_report "")
foreach(_line IN LISTS _lines)
  if(_line MATCHES "^[0-9]+/[0-9]+ Testing: (.*)$")
    set(_test "${CMAKE_MATCH_1}")
    set(_pending "")
  elseif(_line MATCHES "^casebook test: (.*)$")
    string(APPEND _pending "  ${_test}: ${CMAKE_MATCH_1}\n")
  elseif(_line MATCHES "^Test Failed\\.$")
    string(APPEND _report "${_pending}")
    set(_pending "")
  endif()
endforeach()
if(NOT _report STREQUAL "")
  string(REPLACE "${_semicolon}" ";" _report "${_report}")
  string(REPLACE "${_backslash}" "\\" _report "${_report}")
  string(REPLACE "${_open}" "[" _report "${_report}")
  string(REPLACE "${_close}" "]" _report "${_report}")
  message("\ncasebook: the runs that did not pass "
          "(ctest --output-on-failure shows each whole):\n${_report}")
endif()
