#!/usr/bin/env bash
# The GPU lane: build against LibTorch with CUDA (the `cuda` preset), run
# every case on cpu and cuda, record torch's real CUDA error texts
# (tests/messages/record_gpu_messages.py), run the benchmark's GPU section,
# the kernel cases under compute-sanitizer, then build the test programs and
# run ctest (CASEBOOK_CTEST_ARGS: more ctest arguments, e.g. -E to leave out
# tests that need Debian's Python). For a machine with an NVIDIA GPU and
# `import torch` with CUDA (CASEBOOK_PYTHON, default python3). Libraries the
# machine lacks (yaml-cpp, GoogleTest, CLI11, nlohmann-json, OpenSSL headers,
# re2, pkg-config) can be unpacked from Debian packages into .gpu-deps/ first
# (see docs/contributing.md, "On a GPU machine").
#
#   ci/gpu-lane.sh [OUTPUT_DIR]     JUnit files, the Markdown summary
#                                   (cases.md) and logs go to OUTPUT_DIR
#
# It cannot pass by accident: a failed configure or build stops it (with the
# end of its log), the plugin must hold machine code for every requested
# architecture, LibTorch must be a CUDA build, cuda is required
# (CASEBOOK_REQUIRE=cuda: absent is an error, not a skip) and at least one
# cuda verdict must have run. Exit 0 only when every step passed.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-build/gpu-lane}"
mkdir -p "$out"
# Absolute: the ctest step runs in build/cuda ($OUT on the GPU machine is
# absolute already; ${PWD}/${out} made '/repo//tmp/out' of it).
out="$(cd "$out" && pwd)"
archs="${CUDA_ARCHS:-90-real;90-virtual}"
export CASEBOOK_REQUIRE=cuda

fail() {
  echo "gpu-lane: FAILED: $*" >&2
  exit 1
}

# Runs a step with its output in $out/NAME.log; stops the lane with the end of
# the log when it fails.
must() {
  local name="$1"
  shift
  echo "== ${name}: $*"
  if ! "$@" >"${out}/${name}.log" 2>&1; then
    tail -60 "${out}/${name}.log" >&2
    fail "${name} (log: ${out}/${name}.log)"
  fi
  tail -3 "${out}/${name}.log"
}

# Runs a step that may fail without stopping the ones after it.
failed_steps=()
check() {
  local name="$1"
  shift
  echo "== ${name}: $*"
  local status=0
  "$@" 2>&1 | tee "${out}/${name}.log" || status=${PIPESTATUS[0]}
  if [[ ${status} -ne 0 ]]; then
    failed_steps+=("${name} (exit ${status})")
  fi
}

# LibTorch: the torch of CASEBOOK_PYTHON (default python3), a CUDA build.
python="${CASEBOOK_PYTHON:-python3}"
export CASEBOOK_PYTHON="${python}"
torch_python="$("${python}" -c 'import torch; print(torch.__version__, torch.version.cuda)')" ||
  fail "${python} cannot import torch"
read -r torch_version torch_cuda <<<"${torch_python}"
echo "== LibTorch ${torch_version}, CUDA ${torch_cuda} (${python})"
[[ "${torch_cuda}" != "None" ]] ||
  fail "LibTorch ${torch_version} is a CPU build: the GPU lane needs one with CUDA"
if [[ -d .gpu-deps/usr ]]; then
  deps="${PWD}/.gpu-deps/usr"
  export CASEBOOK_PREFIX_PATH="${deps}"
  export LD_LIBRARY_PATH="${deps}/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
  # Debian puts OpenSSL's configuration headers under the multiarch folder,
  # which the compiler searches under /usr only.
  export CPATH="${deps}/include/x86_64-linux-gnu${CPATH:+:${CPATH}}"
  # Debian's .pc files (re2's) name /usr: make them name the folder they
  # were unpacked into, wherever that is (pkg-config's ${pcfiledir}).
  for pc in "${deps}"/lib/x86_64-linux-gnu/pkgconfig/*.pc; do
    [[ -f "${pc}" ]] || continue
    sed -i -E 's#^(prefix|exec_prefix|includedir|libdir)=/usr(/|$)#\1=${pcfiledir}/../../..\2#' "${pc}"
  done
  export PKG_CONFIG_PATH="${deps}/lib/x86_64-linux-gnu/pkgconfig${PKG_CONFIG_PATH:+:${PKG_CONFIG_PATH}}"
  if ! command -v pkg-config >/dev/null && [[ -x "${deps}/bin/pkg-config" ]]; then
    export PATH="${deps}/bin:${PATH}"
  fi
fi
echo "== $(uname -m), $(nproc) cores; $(cmake --version | head -1); $(c++ --version | head -1)"
echo "== $(nvcc --version | tail -1); $(nvidia-smi -L 2>&1 | head -1)"

# CASEBOOK_WERROR=OFF: the warnings gate is CI's, on its pinned compiler; a
# GPU machine's compiler may warn about what CI's does not, and that must not
# keep the GPU from being tested.
must configure cmake --preset cuda -DCMAKE_CUDA_ARCHITECTURES="${archs}" \
  -DCASEBOOK_WERROR=OFF -DCASEBOOK_CTEST_EACH_CASE=OFF
grep -F "casebook: LibTorch" "${out}/configure.log" || true
# The executable, the plugin and the benchmark first: a test program that
# does not compile must not keep the cases from running on the GPU.
must build cmake --build --preset cuda --target casebook \
  casebook_kernels_cuda_plugin casebook_bench

# The plugin must hold what was asked for: LibTorch's CMake can rewrite the
# architectures after casebook set them, and a plugin without sm_XX code for
# the device JIT-compiles from PTX or fails at the first launch.
plugin="build/cuda/bin/libcasebook_kernels_cuda.so"
[[ -f "${plugin}" ]] || fail "no ${plugin}: the build made no CUDA plugin"
cuobjdump="$(ci/find-cuobjdump.sh)" || fail "no cuobjdump: cannot check the plugin's architectures"
elf="$("${cuobjdump}" --list-elf "${plugin}")" || fail "cuobjdump --list-elf ${plugin}"
ptx="$("${cuobjdump}" --list-ptx "${plugin}" 2>/dev/null || true)"
IFS=';' read -r -a wanted <<<"${archs}"
for arch in "${wanted[@]}"; do
  number="${arch%%-*}"
  case "${arch}" in
    # cuobjdump 13 lists PTX as <name>.sm_90.ptx, older ones compute_90.
    *-virtual) grep -Eq "(compute|sm)_${number}\b" <<<"${ptx}" ||
      fail "${plugin} has no PTX for compute_${number}: ${ptx:-none}" ;;
    *) grep -q "sm_${number}" <<<"${elf}" ||
      fail "${plugin} has no machine code for sm_${number}: ${elf:-none}" ;;
  esac
done
echo "== plugin architectures: $(grep -o 'sm_[0-9a-z]*' <<<"${elf}" | sort -u | tr '\n' ' ')"

# CASEBOOK_SHARD=I/N: this runner's share of the cases (a CI matrix over
# several GPU runners; ci/merge-results.sh joins their files).
shard=()
if [[ -n "${CASEBOOK_SHARD:-}" ]]; then shard=(--shard "${CASEBOOK_SHARD}"); fi
check cases build/cuda/bin/casebook run cases --verbose --backend cpu,cuda --require cuda \
  "${shard[@]}" --junit "${out}/cases.xml" --summary "${out}/cases.md" \
  --json "${out}/cases.json"
ran="$(python3 ci/results.py "${out}/cases.json" ran cuda || echo 0)"
echo "== cuda verdicts that ran: ${ran}"
[[ "${ran}" -gt 0 ]] || failed_steps+=("cases (no cuda verdict ran)")
# The real error texts of this torch on this GPU (tests/data/messages).
check messages bash -c "'${python}' tests/messages/record_gpu_messages.py \
  >'${out}/messages.txt'"
check bench build/cuda/bin/casebook_bench --only-gpu --sizes 100
check sanitize ci/sanitize.sh build/cuda/bin/casebook
# Last: the test programs and ctest, the longest step. The tests whose GPU
# lanes share one device take turns by ci/gpus.json; the others run side by
# side.
failed_before=${#failed_steps[@]}
check build-tests cmake --build --preset cuda
[[ ${#failed_steps[@]} -gt ${failed_before} ]] ||
  check ctest bash -c "cd build/cuda && ctest --output-on-failure -j '$(nproc)' \
  --output-junit '${out}/ctest.xml' --resource-spec-file ../../ci/gpus.json \
  ${CASEBOOK_CTEST_ARGS:-}"

if [[ ${#failed_steps[@]} -gt 0 ]]; then
  printf 'gpu-lane: FAILED: %s\n' "${failed_steps[@]}" >&2
  exit 1
fi
echo "gpu-lane: every step passed"
