#!/usr/bin/env bash
# The hardening lane (issue 16): `CASEBOOK_LANES=hardening ci/test.sh`
# (ci/lane.sh hardening; `all`, what .ci/run runs, ends with it):
#  - the framework's tests (unit.core, unit.lib, unit.kernels) under
#    AddressSanitizer, LeakSanitizer and UndefinedBehaviorSanitizer (`asan`
#    preset, GCC). casebook's code is instrumented, LibTorch is Debian's; no
#    code is excluded from the sanitizers. unit.lib leaves out the tests of
#    the commands' wording and flow (the preset's CASEBOOK_LIB_TESTS_EXCLUDE;
#    the lane before this one runs them): they drive the executable over the
#    project's own files, and took most of this lane's time.
#  - each libFuzzer target for a fixed number of inputs from a fixed seed
#    (CASEBOOK_FUZZ_SEED, default 1), seeded with cases/ and fixtures/
#    (`fuzz` preset, clang): the same commit, the same answer. To explore:
#    CASEBOOK_FUZZ_SEED=0 CASEBOOK_FUZZ_SECONDS=600 ci/hardening.sh.
# CASEBOOK_SKIP_HARDENING=1 skips it (a quick local run).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${CASEBOOK_SKIP_HARDENING:-0}" = 1 ] && exit 0
# The LibTorch of the lane that called (ci/lane.sh): Debian's in CI.
from=${CASEBOOK_TORCH_FROM:-auto}
cmake --preset asan -DCASEBOOK_TORCH_FROM="$from" >/dev/null
cmake --build --preset asan
ctest --preset asan -j "$(nproc)"
cmake --preset fuzz -DCASEBOOK_TORCH_FROM="$from" -DCASEBOOK_FUZZ_SECONDS="${CASEBOOK_FUZZ_SECONDS:-0}" \
  -DCASEBOOK_FUZZ_SEED="${CASEBOOK_FUZZ_SEED:-1}" >/dev/null
cmake --build --preset fuzz
ctest --preset fuzz -j "$(nproc)"
