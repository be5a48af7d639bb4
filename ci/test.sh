#!/usr/bin/env bash
# The test command of README.md: installs what is missing, builds with the
# `cpu` preset and runs every test (unit tests and every case on every
# backend present) through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
ci/install-deps.sh
cmake --preset cpu
cmake --build --preset cpu
ctest --preset cpu "$@"
# The installed CMake package, used by a project of its own (examples/).
ci/downstream.sh build/cpu
# Sanitizers and fuzzers: the hardening lane.
ci/hardening.sh
