#!/usr/bin/env bash
# The GPU lane: build against LibTorch with CUDA (the `cuda` preset), run the
# tests and every case on cpu and cuda, then the kernel cases under
# compute-sanitizer. For a machine with an NVIDIA GPU and `import torch` with
# CUDA. Libraries the machine lacks (yaml-cpp, GoogleTest, CLI11,
# nlohmann-json, OpenSSL headers) can be unpacked from Debian packages into
# .gpu-deps/ first (see README.md, "On a GPU machine").
#
#   ci/gpu-lane.sh [OUTPUT_DIR]     JUnit files and logs go to OUTPUT_DIR
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:-build/gpu-lane}"
mkdir -p "$out"
torch_prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')"
export CASEBOOK_PREFIX_PATH="$torch_prefix;$PWD/.gpu-deps/usr"
export LD_LIBRARY_PATH="$PWD/.gpu-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
status=0
step() { echo "== $*"; "$@" || status=1; }
step cmake --preset cuda -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90-real;90-virtual}" \
  >"$out/configure.log" 2>&1 || { tail -40 "$out/configure.log"; exit 1; }
step cmake --build --preset cuda 2>&1 | tail -20
(cd build/cuda && ctest --output-on-failure --output-junit "$PWD/../../$out/ctest.xml" \
  --resource-spec-file ../../ci/gpus.json) || status=1
step build/cuda/bin/casebook run cases --backend cpu,cuda --junit "$out/cases.xml"
step ci/sanitize.sh build/cuda/bin/casebook
exit $status
