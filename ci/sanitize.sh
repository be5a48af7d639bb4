#!/usr/bin/env bash
# The sanitizer lane: every kernel case on CUDA under compute-sanitizer
# memcheck; fails on any error memcheck reports, or on any failing verdict.
#
#   ci/sanitize.sh [CASEBOOK_EXECUTABLE [CASES...]]
#   ctest -L sanitize            (the same, registered by kernels/CMakeLists.txt)
#
# PYTORCH_NO_CUDA_MEMORY_CACHING=1: without it an out-of-bounds read lands
# inside a block LibTorch's caching allocator holds, and memcheck sees
# nothing. --isolation strict gives every run a process of its own, so an
# error is reported against the one case that caused it.
# Exits 77 (ctest: skipped) where there is no compute-sanitizer or no GPU,
# unless cuda is required ($CASEBOOK_REQUIRE names it, as in ci/gpu-lane.sh):
# then that is a failure. Once it runs, cuda is required and at least one cuda
# verdict must have run: a lane of skips is not a pass.
set -euo pipefail

required=0
if [[ ",${CASEBOOK_REQUIRE:-}," == *,cuda,* ]]; then required=1; fi
skip() {
  echo "sanitize: $*; $([[ ${required} -eq 1 ]] && echo FAILED: cuda is required || echo skipped)" >&2
  if [[ ${required} -eq 1 ]]; then exit 1; fi
  exit 77
}

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
casebook="${1:-${here}/../build/cuda/bin/casebook}"
shift || true
cases=("$@")
if [[ ${#cases[@]} -eq 0 ]]; then cases=("${here}/../cases/kernels"); fi

sanitizer="${CASEBOOK_COMPUTE_SANITIZER:-}"
if [[ -z "${sanitizer}" || "${sanitizer}" == *NOTFOUND ]]; then
  sanitizer="$(command -v compute-sanitizer || true)"
fi
if [[ -z "${sanitizer}" ]]; then skip "no compute-sanitizer found"; fi
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  skip "no NVIDIA GPU"
fi
if [[ ! -x "${casebook}" ]]; then
  echo "sanitize: ${casebook} is not an executable (pass the casebook binary first)" >&2
  exit 2
fi

log="$(mktemp)"
results="$(mktemp)"
trap 'rm -f "${log}" "${results}"' EXIT
status=0
# CASEBOOK_TOOL_THREADS=1: compute-sanitizer's launcher starts a thread in
# every process it follows, which casebook's fork rules must not count
# (framework/src/process/fork_rules.h).
CASEBOOK_TOOL_THREADS=1 PYTORCH_NO_CUDA_MEMORY_CACHING=1 "${sanitizer}" --tool memcheck \
  --target-processes all --error-exitcode 86 --print-limit 20 \
  "${casebook}" run --verbose --backend cuda --require cuda --isolation strict \
  --json "${results}" "${cases[@]}" \
  2>&1 | tee "${log}" || status=$?

# A child's memcheck errors do not always reach the parent's exit status:
# read every process's summary too.
if grep -Eq "ERROR SUMMARY: [1-9][0-9]* error" "${log}"; then
  echo "sanitize: compute-sanitizer reported errors (above)" >&2
  exit 1
fi
if [[ ${status} -ne 0 ]]; then
  echo "sanitize: exit status ${status}" >&2
  exit 1
fi
ran="$(python3 "${here}/results.py" "${results}" ran cuda || echo 0)"
if [[ "${ran}" -eq 0 ]]; then
  echo "sanitize: no cuda verdict ran under memcheck" >&2
  exit 1
fi
echo "sanitize: no memcheck errors in ${ran} cuda run(s)"
