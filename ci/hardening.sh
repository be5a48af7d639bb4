#!/usr/bin/env bash
# The hardening lane (issue 16), run by ci/test.sh after the tests:
#  - casebook_core_tests (the loader, the scrubber: no LibTorch) under
#    AddressSanitizer and UndefinedBehaviorSanitizer (`asan` preset). The
#    LibTorch tests are left out of CI: a sanitized build of casebook_lib and
#    its tests costs about ten minutes more on 2 cores, past CI's budget;
#    `cmake --build --preset asan --target casebook_lib_tests` builds them.
#  - each libFuzzer target for CASEBOOK_FUZZ_SECONDS (default 25), seeded
#    with cases/ and fixtures/ (`fuzz` preset, clang), from a fixed seed
#    (CASEBOOK_FUZZ_SEED, default 1; 0 draws a new one each run).
# CASEBOOK_SKIP_HARDENING=1 skips it (a quick local run).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${CASEBOOK_SKIP_HARDENING:-0}" = 1 ] && exit 0
cmake --preset asan >/dev/null
cmake --build --preset asan
ctest --preset asan
cmake --preset fuzz -DCASEBOOK_FUZZ_SECONDS="${CASEBOOK_FUZZ_SECONDS:-25}" \
  -DCASEBOOK_FUZZ_SEED="${CASEBOOK_FUZZ_SEED:-1}" >/dev/null
cmake --build --preset fuzz
ctest --preset fuzz
