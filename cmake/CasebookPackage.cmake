# `cmake --install`: casebook as a CMake package. Another project then does
#
#   find_package(casebook REQUIRED)
#   casebook_add_cases(DIRECTORY cases [OPS my_ops])
#
# to run its own case folders through ctest, with its own ops and kernels
# (examples/downstream). Installed: the `casebook` executable and the kernel
# plugins (bin/), the public headers, the static libraries a program with its
# own ops links (casebook_lib and what it needs), and the CMake files.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(CASEBOOK_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/casebook)

install(TARGETS casebook EXPORT casebookTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS casebook_lib casebook_core casebook_kernels_cpu casebook_torch
                casebook_warnings
  EXPORT casebookTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/framework/include/casebook
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The runner looks for kernel plugins beside its executable.
foreach(_plugin casebook_kernels_cuda_plugin)
  if(TARGET ${_plugin})
    install(TARGETS ${_plugin} LIBRARY DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()
if(TARGET casebook_kernels_hip_plugin)
  install(FILES ${CMAKE_BINARY_DIR}/bin/libcasebook_kernels_hip.so
    DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

install(EXPORT casebookTargets NAMESPACE casebook::
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
