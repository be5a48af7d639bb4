# `cmake --install`: casebook as a CMake package. Another project then does
#
#   find_package(casebook REQUIRED [COMPONENTS lib])
#   casebook_add_cases(DIRECTORY cases [OPS my_ops])
#
# to run its own case folders through ctest: with the executable alone (a
# project of LANGUAGES NONE), or with its own ops and kernels (the `lib`
# component, examples/downstream). Installed: the `casebook` executable and the kernel
# plugins (bin/), the public headers, the static libraries a program with its
# own ops links (casebook_lib and what it needs), the CMake files, and for
# the project's case files and training loops share/casebook/: the case
# format's JSON Schema for editors (case.schema.json; CASEBOOK_SCHEMA) and
# the Python capture package (python/, a pip-installable folder and a
# PYTHONPATH entry; CASEBOOK_PYTHON_DIR).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(CASEBOOK_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/casebook)

# Two export sets: the executable alone (casebookTargets, all that
# find_package(casebook) loads, in a project of any languages), and the
# libraries a program with its own ops links (casebookLibTargets, loaded with
# their dependencies for the `lib` component; cmake/casebookConfig.cmake.in).
# pip's build (cmake/CasebookWheel.cmake) bundles what the executable and
# plugins link beyond the C/C++ runtimes and torch.
set(_casebook_bundle "")
if(SKBUILD)
  set(_casebook_bundle RUNTIME_DEPENDENCY_SET casebook_bundled)
endif()
install(TARGETS casebook EXPORT casebookTargets ${_casebook_bundle}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS casebook_lib casebook_core casebook_kernels_cpu casebook_torch
                casebook_warnings
  EXPORT casebookLibTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/framework/include/casebook
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The runner looks for kernel plugins beside its executable.
foreach(_plugin casebook_kernels_cuda_plugin)
  if(TARGET ${_plugin})
    install(TARGETS ${_plugin} ${_casebook_bundle} LIBRARY DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()
if(TARGET casebook_kernels_hip_plugin)
  install(FILES ${CMAKE_BINARY_DIR}/bin/libcasebook_kernels_hip.so
    DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

set(CASEBOOK_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/casebook)
install(FILES ${PROJECT_SOURCE_DIR}/schema/case.schema.json
  DESTINATION ${CASEBOOK_INSTALL_DATADIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/casebook_capture
  DESTINATION ${CASEBOOK_INSTALL_DATADIR}/python
  PATTERN "__pycache__" EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/python/pyproject.toml
  DESTINATION ${CASEBOOK_INSTALL_DATADIR}/python)
# Joins the JUnit files and summaries of a case set run in shards
# (--shard I/N) on several CI machines (ci/templates/).
install(PROGRAMS ${PROJECT_SOURCE_DIR}/ci/merge-results.sh
  DESTINATION ${CMAKE_INSTALL_BINDIR} RENAME casebook-merge-results)
if(SKBUILD)
  install(RUNTIME_DEPENDENCY_SET casebook_bundled
    DESTINATION ${CASEBOOK_BUNDLED_LIBDIR}
    PRE_EXCLUDE_REGEXES "${CASEBOOK_SYSTEM_SONAMES}"
    POST_EXCLUDE_REGEXES "/torch/lib/" "/nvidia/")
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/casebook_capture
    DESTINATION ${SKBUILD_PLATLIB_DIR} PATTERN "__pycache__" EXCLUDE)
endif()

install(EXPORT casebookTargets NAMESPACE casebook::
  DESTINATION ${CASEBOOK_INSTALL_CMAKEDIR})
install(EXPORT casebookLibTargets NAMESPACE casebook::
  DESTINATION ${CASEBOOK_INSTALL_CMAKEDIR})
configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/casebookConfig.cmake.in
  ${CMAKE_BINARY_DIR}/package/casebookConfig.cmake
  INSTALL_DESTINATION ${CASEBOOK_INSTALL_CMAKEDIR})
write_basic_package_version_file(
  ${CMAKE_BINARY_DIR}/package/casebookConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${CMAKE_BINARY_DIR}/package/casebookConfig.cmake
  ${CMAKE_BINARY_DIR}/package/casebookConfigVersion.cmake
  ${CMAKE_CURRENT_LIST_DIR}/CasebookAddCases.cmake
  ${CMAKE_CURRENT_LIST_DIR}/casebook_main.cpp.in
  DESTINATION ${CASEBOOK_INSTALL_CMAKEDIR})
install(PROGRAMS ${CMAKE_CURRENT_LIST_DIR}/casebook_ctest_case.sh
  DESTINATION ${CASEBOOK_INSTALL_CMAKEDIR})
