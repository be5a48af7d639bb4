#!/usr/bin/env bash
# The LibTorch search (cmake/CasebookFindTorch.cmake), through real configures
# of tests/cmake/find_torch against fake Torch packages made here (a
# TorchConfig.cmake that finds its library as LibTorch's does) and a fake
# Python that names one. Each scenario asserts the configure's outcome and
# words. On a machine with Debian's libtorch-dev the first one is the
# regression test of a wheel whose library was taken from /usr/lib.
# usage: find_torch_test.sh CMAKE SOURCE_DIR
set -euo pipefail
# What the probe configures is said on its command line alone (a lane exports
# these for its own build).
unset CASEBOOK_PYTHON CASEBOOK_TORCH_FROM
cmake=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -n "${KEEP:-}" ] && trap - EXIT
failures=0

# fake_torch ROOT VERSION: a Torch package at ROOT/share/cmake/Torch.
fake_torch() {
  local root=$1 version=$2
  mkdir -p "$root/share/cmake/Torch" "$root/lib" "$root/include"
  : >"$root/lib/libtorch.so"
  cat >"$root/share/cmake/Torch/TorchConfig.cmake" <<'CONFIG'
get_filename_component(TORCH_INSTALL_PREFIX "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
find_library(TORCH_LIBRARY torch PATHS "${TORCH_INSTALL_PREFIX}/lib")
set(TORCH_LIBRARIES "${TORCH_LIBRARY}")
set(TORCH_INCLUDE_DIRS "${TORCH_INSTALL_PREFIX}/include")
set(TORCH_CXX_FLAGS "")
set(Torch_FOUND TRUE)
CONFIG
  cat >"$root/share/cmake/Torch/TorchConfigVersion.cmake" <<VERSION
set(PACKAGE_VERSION "$version")
set(PACKAGE_VERSION_COMPATIBLE TRUE)
VERSION
}

# fake_python FILE VERSION ROOT: answers the module's question as
# `python -c 'import torch; ...'` would.
fake_python() {
  printf '#!/bin/sh\nprintf "%%s\\n%%s\\n" "%s" "%s"\n' "$2" "$3" >"$1"
  chmod +x "$1"
}

# expect NAME ok|error TEXT CMAKE_ARGS...: configures a fresh folder.
expect() {
  local name=$1 outcome=$2 text=$3
  shift 3
  local build="$work/build-$name" status=0
  "$cmake" -S "$source_dir/tests/cmake/find_torch" -B "$build" \
    -DCASEBOOK_SOURCE_DIR="$source_dir" "$@" >"$work/$name.log" 2>&1 || status=$?
  local ok=1
  if [ "$outcome" = ok ] && [ "$status" -ne 0 ]; then ok=0; fi
  if [ "$outcome" = error ] && [ "$status" -eq 0 ]; then ok=0; fi
  # CMake folds long messages over lines: compare with whitespace collapsed.
  tr -s ' \n' '  ' <"$work/$name.log" | grep -qF -- "$text" || ok=0
  if [ "$ok" -eq 1 ]; then
    echo "PASS: $name"
  else
    echo "FAIL: $name: expected $outcome with \"$text\"; exit $status:"
    sed 's/^/    /' "$work/$name.log" | tail -25
    failures=$((failures + 1))
  fi
}

fake_torch "$work/wheel/torch" 2.13.0
fake_python "$work/python-2.13" "2.13.0+cpu" "$work/wheel/torch"
expect python-step ok "probe: TORCH_LIBRARY=$work/wheel/torch/lib/libtorch.so" \
  -DCASEBOOK_PYTHON="$work/python-2.13"
expect python-reason ok "taken from the torch package of $work/python-2.13 (torch 2.13.0+cpu)" \
  -DCASEBOOK_PYTHON="$work/python-2.13"

fake_torch "$work/old/torch" 1.12.1
fake_python "$work/python-1.12" "1.12.1" "$work/old/torch"
expect out-of-range error "LibTorch 1.12.1 at $work/old/torch/share/cmake/Torch" \
  -DCASEBOOK_PYTHON="$work/python-1.12"
expect out-of-range-says-range error "is outside the supported range >= 1.13, < 3.0" \
  -DCASEBOOK_PYTHON="$work/python-1.12"

expect python-required error "CASEBOOK_TORCH_FROM=python, and $work/no-python gives no torch package" \
  -DCASEBOOK_TORCH_FROM=python -DCASEBOOK_PYTHON="$work/no-python"

expect cpu-under-cuda error "is a cpu build; this preset needs a cuda build" \
  -DCASEBOOK_PYTHON="$work/python-2.13" -DCASEBOOK_EXPECT_TORCH_FLAVOUR=cuda

: >"$work/elsewhere-libtorch.so"
expect mixed-installs error "two LibTorch installs are mixed" \
  -DTorch_DIR="$work/wheel/torch/share/cmake/Torch" -DTORCH_LIBRARY="$work/elsewhere-libtorch.so"

expect explicit-prefix ok "taken from CMAKE_PREFIX_PATH" \
  -DCMAKE_PREFIX_PATH="$work/wheel/torch/share/cmake" -DCASEBOOK_PYTHON="$work/python-1.12"

# A build folder keeps its LibTorch: another one asked for is an error.
expect keep-first ok "probe: origin=" -DCASEBOOK_PYTHON="$work/python-2.13"
fake_torch "$work/other/torch" 2.14.1
fake_python "$work/python-2.14" "2.14.1" "$work/other/torch"
status=0
"$cmake" -S "$source_dir/tests/cmake/find_torch" -B "$work/build-keep-first" -DCASEBOOK_PYTHON="$work/python-2.14" \
  >"$work/keep.log" 2>&1 || status=$?
if [ "$status" -ne 0 ] && tr -s ' \n' '  ' <"$work/keep.log" | grep -qF "this build folder was configured with the LibTorch at $work/wheel/torch"; then
  echo "PASS: keep-first-refuses-another"
else
  echo "FAIL: keep-first-refuses-another (exit $status)"; tail -20 "$work/keep.log"
  failures=$((failures + 1))
fi

echo "$(( 12 - failures )) passed, $failures failed"
[ "$failures" -eq 0 ]
