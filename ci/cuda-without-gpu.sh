#!/usr/bin/env bash
# What a CUDA build of casebook (the `cuda` preset, LibTorch with CUDA) must
# say on a machine without a GPU or driver, as CI's: cuda is absent (SKIP,
# ctest Skipped), never "built without CUDA", never broken or a crash;
# `--require cuda` makes it an ERROR; hip stays absent. Also checks what the
# build holds: a CUDA LibTorch, sm_90 machine code in the plugin, and one
# shared CUDA runtime in the process (the plugin's own is static and hidden).
#
#   ci/cuda-without-gpu.sh [BUILD_DIR]      (default: build/cuda)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/cuda}
casebook=$build/bin/casebook
plugin=$build/bin/libcasebook_kernels_cuda.so
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() {
  echo "cuda-without-gpu: FAILED: $*" >&2
  exit 1
}
pass() { echo "cuda-without-gpu: ok: $*"; }

[ -x "$casebook" ] || fail "no $casebook"
[ -f "$plugin" ] || fail "no $plugin: the build made no CUDA plugin"

# The plugin holds sm_90 machine code and compute_90 PTX, whatever
# find_package(Torch) did to CMAKE_CUDA_ARCHITECTURES and CMAKE_CUDA_FLAGS.
cuobjdump=$(ci/find-cuobjdump.sh) || fail "no cuobjdump to read $plugin"
elf=$("$cuobjdump" --list-elf "$plugin") || fail "cuobjdump --list-elf $plugin"
grep -q 'sm_90\.cubin' <<<"$elf" || fail "$plugin has no sm_90 machine code: $elf"
# PTX (for GPUs newer than sm_90) is listed as <name>.sm_90.ptx.
ptx=$("$cuobjdump" --list-ptx "$plugin") || fail "cuobjdump --list-ptx $plugin"
grep -q 'sm_90\.ptx' <<<"$ptx" || fail "$plugin has no PTX for compute_90: $ptx"
pass "plugin machine code: $(grep -o 'sm_[0-9a-z]*' <<<"$elf" | sort -u | tr '\n' ' ')"

# One shared CUDA runtime: the executable and LibTorch resolve the same
# libcudart.so.N; the plugin links none (its runtime is static, hidden).
cudart=$(ldd "$casebook" | awk '/libcudart\.so/ {print $3}' | sort -u)
[ "$(wc -l <<<"$cudart")" -eq 1 ] && [ -n "$cudart" ] ||
  fail "the executable loads not exactly one libcudart: ${cudart:-none}"
torch_cuda=$(ldd "$casebook" | awk '/libtorch_cuda\.so/ {print $3}')
[ -n "$torch_cuda" ] || fail "$casebook does not load libtorch_cuda.so (--as-needed?)"
if ldd "$plugin" | grep -q libcudart; then
  fail "$plugin links a shared libcudart: $(ldd "$plugin" | grep libcudart)"
fi
pass "one CUDA runtime: $cudart (LibTorch: $torch_cuda); the plugin's is static"

# No device: every cuda run is SKIP with the reason said once: nothing was
# tested, exit 77 (0 with --allow-skipped).
status=0
"$casebook" run cases --backend cuda,hip --verbose --json "$work/skip.json" >"$work/skip.log" 2>&1 || status=$?
[ "$status" -eq 77 ] || { tail -40 "$work/skip.log"; fail "run --backend cuda,hip exited $status, not 77"; }
status=0
"$casebook" run cases --backend cuda,hip --quiet --allow-skipped >/dev/null 2>&1 || status=$?
[ "$status" -eq 0 ] || fail "run --backend cuda,hip --allow-skipped exited $status"
env_of() { python3 "$(dirname "${BASH_SOURCE[0]}")/results.py" "$work/skip.json" env "$1"; }
case "$(env_of cuda)" in
  "absent: no CUDA device: no NVIDIA driver or device"*) ;;
  *) head -30 "$work/skip.log"; fail "the environment does not say cuda is absent for want of a driver or device" ;;
esac
if grep -Eqi 'built without cuda|cuda +broken|internal error' "$work/skip.log"; then
  fail "a CUDA build says: $(grep -Ei 'built without cuda|cuda +broken|internal error' "$work/skip.log" | head -3)"
fi
[[ "$(env_of hip)" == absent:* ]] || fail "the environment does not say hip is absent"
ran="$(python3 "$(dirname "${BASH_SOURCE[0]}")/results.py" "$work/skip.json" ran cuda hip)" ||
  fail "no results of run --backend cuda,hip"
if [ "$ran" -ne 0 ]; then
  fail "a cuda or hip verdict other than SKIP without a GPU"
fi
[ "$(env_of casebook.libtorch_flavour)" = cuda ] ||
  fail "$casebook is not built against a CUDA LibTorch"
pass "built against a CUDA LibTorch: libtorch.library $(env_of libtorch.library)"
pass "cuda $(env_of cuda)"
pass "$(tail -1 "$work/skip.log")"

# Required: absent is an ERROR, exit 1.
status=0
"$casebook" run cases --backend cuda --require cuda >"$work/require.log" 2>&1 || status=$?
[ "$status" -eq 1 ] || { tail -20 "$work/require.log"; fail "--require cuda exited $status, not 1"; }
grep -Eq '[0-9]+ ERROR' "$work/require.log" || fail "--require cuda gave no ERROR"
pass "--require cuda: $(tail -1 "$work/require.log")"

# ctest: the cuda lane is Skipped (exit 77), not Passed or Failed.
ctest --test-dir "$build" -R '^cases\.cuda$' --output-on-failure >"$work/ctest.log" 2>&1 ||
  { cat "$work/ctest.log"; fail "ctest cases.cuda failed"; }
grep -q 'Skipped' "$work/ctest.log" || { cat "$work/ctest.log"; fail "ctest cases.cuda was not Skipped"; }
pass "ctest cases.cuda: Skipped"
echo "cuda-without-gpu: every check passed"
