#!/usr/bin/env bash
# The installed CMake package and casebook's source tree, used from projects
# made here (issue 47, item 2), each configured by a real cmake:
#
#   none          project(LANGUAGES NONE) + find_package(casebook) +
#                 casebook_add_cases(): configures with no compiler, looks for
#                 none of casebook's C++ dependencies (each is a trap here that
#                 fails the configure if looked for), and its ctest runs the
#                 case with the installed executable
#   none-ops      the same with OPS: an error saying casebook::casebook_lib is
#                 needed and how to ask for it
#   none-lib      COMPONENTS lib without C++: an error saying C++ is needed
#   mismatch      COMPONENTS lib against another LibTorch (a fake 2.13.0, or
#                 2.12.0 where casebook was built against 2.13):
#                 the reason in clean text, no stray list separators
#   mismatch-auto the same without COMPONENTS: found, executable only, said
#   subproject    FetchContent (add_subdirectory) of the source tree: its
#                 targets and casebook_add_cases(), none of casebook's own
#                 tests; configured only (a build is casebook's whole build;
#                 CASEBOOK_SUBPROJECT_BUILD=1 builds it and runs its ctest)
#
# usage: package_test.sh PREFIX SOURCE_DIR BUILD_DIR
#   PREFIX      where `cmake --install BUILD_DIR` put casebook
#   BUILD_DIR   the build it came from (its LibTorch and GPU choices are
#               given to the subproject)
set -euo pipefail
prefix=$(realpath "$1")
source_dir=$(realpath "$2")
build=$(realpath "$3")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -n "${KEEP:-}" ] && trap - EXIT
failures=0
# What the build runs with is said on the command lines below alone.
unset CASEBOOK_PYTHON CASEBOOK_TORCH_FROM

pass() { echo "PASS: $1"; }
fail() {
  echo "FAIL: $1"
  [ -f "${2:-}" ] && sed 's/^/    /' "$2" | tail -30
  failures=$((failures + 1))
}
# has LOG TEXT: LOG holds TEXT once CMake's folding of long lines is undone.
has() { tr -s ' \n' '  ' <"$1" | grep -qF -- "$2"; }

# A project folder: CMakeLists.txt from standard input, the README's case.
project_dir() {
  local dir=$work/$1
  mkdir -p "$dir/cases/cross_entropy"
  cp "$source_dir/cases/cross_entropy/label_out_of_range.yaml" "$dir/cases/cross_entropy/"
  cat >"$dir/CMakeLists.txt"
  echo "$dir"
}

# Traps: every package casebook's C++ side needs, as a config package and as
# a find module, each failing the configure when looked for.
traps=$work/traps
for name in Torch yaml-cpp GTest CLI11 nlohmann_json OpenSSL PkgConfig Threads; do
  mkdir -p "$traps/prefix/lib/cmake/$name" "$traps/modules"
  echo "message(FATAL_ERROR \"trap: casebook's package looked for $name\")" \
    >"$traps/prefix/lib/cmake/$name/${name}Config.cmake"
  cp "$traps/prefix/lib/cmake/$name/${name}Config.cmake" "$traps/modules/Find$name.cmake"
done

# none: the executable alone.
dir=$(project_dir none <<'CMAKE'
cmake_minimum_required(VERSION 3.22)
project(none_example LANGUAGES NONE)
find_package(casebook 0.1 REQUIRED)
get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
list(REMOVE_ITEM languages NONE)
if(languages OR NOT TARGET casebook::casebook OR TARGET casebook::casebook_lib)
  message(FATAL_ERROR "expected the executable alone, no language: ${languages}")
endif()
if(NOT EXISTS "${CASEBOOK_SCHEMA}")
  message(FATAL_ERROR "CASEBOOK_SCHEMA: ${CASEBOOK_SCHEMA}")
endif()
enable_testing()
casebook_add_cases(DIRECTORY cases NAME mine)
CMAKE
)
if cmake -S "$dir" -B "$dir/build" -DCMAKE_PREFIX_PATH="$traps/prefix;$prefix" \
     -DCMAKE_MODULE_PATH="$traps/modules" >"$work/none.log" 2>&1 &&
   ! grep -q '^CMAKE_CXX_COMPILER' "$dir/build/CMakeCache.txt"; then
  pass "none: configured with no compiler and no dependency looked for"
else
  fail "none: configure" "$work/none.log"
fi
if ctest --test-dir "$dir/build" --output-on-failure >"$work/none-ctest.log" 2>&1 &&
   grep -Eq 'mine\.cpu[^ ]* \.+ +Passed' "$work/none-ctest.log"; then
  pass "none: ctest ran the case with the installed executable"
else
  fail "none: ctest" "$work/none-ctest.log"
fi

# none-ops: OPS needs the libraries.
dir=$(project_dir none-ops <<'CMAKE'
cmake_minimum_required(VERSION 3.22)
project(none_ops LANGUAGES NONE)
find_package(casebook REQUIRED)
add_library(my_ops INTERFACE)
enable_testing()
casebook_add_cases(DIRECTORY cases OPS my_ops)
CMAKE
)
if ! cmake -S "$dir" -B "$dir/build" -DCMAKE_PREFIX_PATH="$prefix" >"$work/none-ops.log" 2>&1 &&
   has "$work/none-ops.log" "casebook_add_cases: OPS my_ops builds a casebook with the project's ops, which links casebook::casebook_lib; this project has none: it was not asked for. Ask for it with find_package(casebook REQUIRED COMPONENTS lib)"; then
  pass "none-ops: OPS without the lib component is refused, saying how to ask for it"
else
  fail "none-ops" "$work/none-ops.log"
fi

# none-lib: the lib component needs C++.
dir=$(project_dir none-lib <<'CMAKE'
cmake_minimum_required(VERSION 3.22)
project(none_lib LANGUAGES NONE)
find_package(casebook REQUIRED COMPONENTS lib)
CMAKE
)
if ! cmake -S "$dir" -B "$dir/build" -DCMAKE_PREFIX_PATH="$prefix" >"$work/none-lib.log" 2>&1 &&
   has "$work/none-lib.log" "casebook's lib component (casebook::casebook_lib): it needs C++ enabled in this project (project(... LANGUAGES CXX))"; then
  pass "none-lib: COMPONENTS lib without C++ says C++ is needed"
else
  fail "none-lib" "$work/none-lib.log"
fi

# mismatch: another LibTorch than the one casebook was built against.
built_torch=$(sed -n 's/^Torch_DIR:[A-Z]*=//p' "$build/CMakeCache.txt")
# The other LibTorch's version differs from the built one's, whichever that is.
built_version=$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")/\1/p' "$built_torch/TorchConfigVersion.cmake")
other_version=2.13.0
[ "$built_version" = 2.13.0 ] && other_version=2.12.0
mkdir -p "$work/other-torch/share/cmake/Torch"
echo 'set(Torch_FOUND TRUE)' >"$work/other-torch/share/cmake/Torch/TorchConfig.cmake"
printf 'set(PACKAGE_VERSION %s)\nset(PACKAGE_VERSION_COMPATIBLE TRUE)\n' "$other_version" \
  >"$work/other-torch/share/cmake/Torch/TorchConfigVersion.cmake"
for mode in mismatch mismatch-auto; do
  components=""
  [ "$mode" = mismatch ] && components="COMPONENTS lib"
  dir=$(project_dir "$mode" <<CMAKE
cmake_minimum_required(VERSION 3.22)
project(mismatch LANGUAGES CXX)
find_package(casebook REQUIRED $components)
if(TARGET casebook::casebook_lib OR NOT TARGET casebook::casebook)
  message(FATAL_ERROR "expected the executable alone")
endif()
CMAKE
)
  status=0
  cmake -S "$dir" -B "$dir/build" -DCMAKE_PREFIX_PATH="$prefix" \
    -DTorch_DIR="$work/other-torch/share/cmake/Torch" >"$work/$mode.log" 2>&1 || status=$?
  # The reason as one sentence: "against ;LibTorch" and "project ;found"
  # (list separators of a message given as several strings) do not match.
  text=$(tr -s ' \n' '  ' <"$work/$mode.log" |
    grep -o -- "casebook was built against LibTorch [0-9.]* ([^();]*); this project found LibTorch ${other_version//./\\.} ([^();]*)" |
    head -1 || true)
  said=1
  if [ "$mode" = mismatch ]; then
    [ "$status" -ne 0 ] && has "$work/$mode.log" "casebook's lib component (casebook::casebook_lib): $text" || said=0
  else
    [ "$status" -eq 0 ] && has "$work/$mode.log" "casebook: the executable only, without casebook::casebook_lib: $text" || said=0
  fi
  if [ -n "$text" ] && [ "$said" -eq 1 ]; then
    pass "$mode: $text"
  else
    fail "$mode: exit $status; expected the versions in clean text" "$work/$mode.log"
  fi
done

# subproject: casebook's source tree inside another project.
dir=$(project_dir subproject <<CMAKE
cmake_minimum_required(VERSION 3.22)
project(subproject_example LANGUAGES NONE)
include(FetchContent)
FetchContent_Declare(casebook SOURCE_DIR "$source_dir")
FetchContent_MakeAvailable(casebook)
if(NOT TARGET casebook::casebook OR NOT TARGET casebook::casebook_lib)
  message(FATAL_ERROR "expected casebook::casebook and casebook::casebook_lib")
endif()
enable_testing()
casebook_add_cases(DIRECTORY cases NAME mine BACKENDS cpu)
CMAKE
)
cache_args=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DTorch_DIR="$built_torch")
for variable in CASEBOOK_ENABLE_CUDA CASEBOOK_ENABLE_HIP CMAKE_CUDA_COMPILER \
                CMAKE_CUDA_ARCHITECTURES CUDA_NVRTC_LIB CMAKE_CXX_COMPILER_LAUNCHER; do
  value=$(sed -n "s/^$variable:[A-Z]*=//p" "$build/CMakeCache.txt")
  if [ -n "$value" ] && [[ "$value" != *NOTFOUND ]]; then
    cache_args+=("-D$variable=$value")
  fi
done
if cmake -S "$dir" -B "$dir/build" "${cache_args[@]}" >"$work/subproject.log" 2>&1 &&
   ctest --test-dir "$dir/build" -N >"$work/subproject-tests.log" 2>&1 &&
   grep -q 'mine\.cpu\.batch$' "$work/subproject-tests.log" &&
   grep -q 'mine\.cpu/cross_entropy/label_out_of_range$' "$work/subproject-tests.log" &&
   grep -q 'Total Tests: 2$' "$work/subproject-tests.log"; then
  pass "subproject: FetchContent of the source tree gives its targets and casebook_add_cases, not its own tests"
else
  fail "subproject: configure" "$work/subproject.log"
  cat "$work/subproject-tests.log" 2>/dev/null | sed 's/^/    /'
fi
if [ -n "${CASEBOOK_SUBPROJECT_BUILD:-}" ]; then
  if cmake --build "$dir/build" >"$work/subproject-build.log" 2>&1 &&
     ctest --test-dir "$dir/build" --output-on-failure >>"$work/subproject-build.log" 2>&1; then
    pass "subproject: built, and its ctest ran the case"
  else
    fail "subproject: build and ctest" "$work/subproject-build.log"
  fi
fi

[ "$failures" -eq 0 ] || { echo "$failures scenario(s) failed"; exit 1; }
echo "all package scenarios passed"
