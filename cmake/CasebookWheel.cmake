# pip's build (scikit-build-core sets SKBUILD; pyproject.toml): the install
# prefix is the wheel's data tree, which pip puts at the environment's root,
# so the layout is `cmake --install`'s (bin/, lib/cmake/casebook, share/casebook)
# with the environment as the prefix. What a wheel adds, as auditwheel and
# torchvision do:
#   - the libraries casebook needs that neither the system's C/C++ runtime
#     nor torch provides (yaml-cpp, RE2, libcrypto) are copied into
#     lib/casebook/, so the wheel installs where no development package is;
#   - the executable and the plugins find them, and torch's own libraries,
#     through a RUNPATH relative to themselves: $ORIGIN/../lib/casebook and
#     the environment's site-packages/torch/lib (torch in the same
#     environment, the one casebook was built against);
#   - the Python capture module is importable (site-packages/casebook_capture).
include_guard(GLOBAL)

# From bin/ (the data tree's) to site-packages, as the building Python lays
# out an environment (a venv's and `pip install --user`'s agree).
execute_process(
  COMMAND "${CASEBOOK_PYTHON}" -Ic
    "import os, sysconfig; print(os.path.relpath(sysconfig.get_path('platlib'), sysconfig.get_path('data')))"
  OUTPUT_VARIABLE _casebook_site_packages
  RESULT_VARIABLE _casebook_site_result
  OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _casebook_site_result EQUAL 0 OR _casebook_site_packages STREQUAL "")
  message(FATAL_ERROR "casebook: ${CASEBOOK_PYTHON} does not say where its site-packages are")
endif()
set(CASEBOOK_BUNDLED_LIBDIR ${CMAKE_INSTALL_LIBDIR}/casebook)
set(CMAKE_INSTALL_RPATH_USE_LINK_PATH OFF)
set(CMAKE_INSTALL_RPATH
  "$ORIGIN/../${CASEBOOK_BUNDLED_LIBDIR}" "$ORIGIN/../${_casebook_site_packages}/torch/lib")

# The sonames a manylinux system always has (the C and C++ runtimes), and
# torch's own libraries (its lib/ folder): everything else is bundled.
set(CASEBOOK_SYSTEM_SONAMES
  "^(ld-linux|libc|libm|libdl|librt|libpthread|libgcc_s|libstdc\\+\\+)[.-]")
