#!/usr/bin/env bash
# The CMake package, proven from outside: installs the casebook that the
# `cpu` preset built, then configures, builds and tests examples/downstream
# (its own kernel, its own cases) against the installed package alone.
# Usage: ci/downstream.sh [BUILD_DIR]   (default: build/cpu)
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build/cpu}")
prefix=$build/package-install
example=$build/downstream-example
rm -rf "$prefix" "$example"
start=$(date +%s)
cmake --install "$build" --prefix "$prefix" >/dev/null
cmake -S examples/downstream -B "$example" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$example"
ctest --test-dir "$example" --output-on-failure
echo "downstream example: installed, configured, built and tested in $(( $(date +%s) - start )) s"
