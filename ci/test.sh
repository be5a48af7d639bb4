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
ci/hardening.sh  # sanitizers and fuzzers (issue 16)
