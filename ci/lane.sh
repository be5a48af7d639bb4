#!/usr/bin/env bash
# One lane of ci/test.sh: a LibTorch, its build, its tests. Extra arguments go
# to ctest. Each lane prints how long its parts took.
#
#   cpu         the `cpu` preset with the LibTorch found first; unit tests and
#               every case (ctest), the downstream example
#   debian      the same with Debian's libtorch-dev 1.13.1 (CASEBOOK_TORCH_FROM=system),
#               then the style gates (ci/check-style.sh: clang-format, check
#               only; ci/check-tidy.sh: clang-tidy on the LibTorch-free
#               sources; casebook_headers: each header compiled alone)
#   hardening   ci/hardening.sh: the framework's tests under the sanitizers,
#               then the fuzzers (Debian's LibTorch unless CASEBOOK_TORCH_FROM)
#   torch-2.13  the `pip-cpu` preset against pip's torch 2.13.0 (CPU) in a venv
#               of its own (ci/install-torch.sh): unit tests, every case, the
#               Python capture module with that torch, the downstream example;
#               then `pip install` of casebook itself (ci/package.sh)
#   cuda-2.14   the `cuda` preset against pip's torch 2.14.1 (CUDA): configure,
#               compile and link, then what the build must say without a GPU
#               (ci/cuda-without-gpu.sh), and the downstream example
set -euo pipefail
cd "$(dirname "$0")/.."
lane=${1:?usage: ci/lane.sh cpu|debian|torch-2.13|cuda-2.14|hardening [CTEST_ARGS...]}
shift

# ctest runs this many tests side by side (unit.lib is in shards for it).
jobs=$(nproc)
step_start=$(date +%s)
timed() {
  local name=$1
  shift
  "$@"
  echo "lane ${lane}: ${name} took $(( $(date +%s) - step_start )) s"
  step_start=$(date +%s)
}

case "$lane" in
  cpu | debian)
    from=${CASEBOOK_TORCH_FROM:-auto}
    [ "$lane" = debian ] && from=system
    export CASEBOOK_TORCH_FROM=$from
    # cases/ as a user's project has it: a test per case file, after one
    # batch run of the folder (CASEBOOK_CTEST_EACH_CASE, cmake/CasebookAddCases.cmake).
    timed configure cmake --preset cpu -DCASEBOOK_TORCH_FROM="$from"
    timed build cmake --build --preset cpu
    # The report's reproduction of every shipped case (python.reproduce_cases)
    # runs in the torch-2.13 lane, under a PyTorch user's torch; CI's Debian
    # lane leaves it out (a local `cpu` lane keeps it).
    skip=()
    [ "$lane" = debian ] && skip=(-E '^python\.reproduce_cases$')
    timed ctest ctest --preset cpu -j "$jobs" "${skip[@]}" "$@"
    # The installed CMake package, used by a project of its own (examples/).
    timed downstream ci/downstream.sh build/cpu
    # clang-format, check only, and clang-tidy over the LibTorch-free
    # sources (one lane is enough: the sources are the same).
    if [ "$lane" = debian ]; then
      timed style ci/check-style.sh
      timed tidy ci/check-tidy.sh
      # Each header compiled alone (cmake/CasebookHeaders.cmake), in the
      # folder ci/check-tidy.sh configured: no precompiled header, no unity.
      timed headers cmake --build build/tidy --target casebook_headers
    fi
    ;;
  hardening)
    # Sanitizers and fuzzers, a lane of its own (docs/contributing.md, "The two commands").
    export CASEBOOK_TORCH_FROM=${CASEBOOK_TORCH_FROM:-system}
    timed hardening ci/hardening.sh
    ;;
  torch-2.13)
    CASEBOOK_PYTHON=$(ci/install-torch.sh 2.13.0)
    export CASEBOOK_PYTHON
    timed install-torch true
    timed configure cmake --preset pip-cpu
    timed build cmake --build --preset pip-cpu
    timed ctest ctest --preset pip-cpu -j "$jobs" "$@"
    timed downstream ci/downstream.sh build/pip-cpu
    # casebook as a PyTorch user installs it: the sdist, the wheel pip builds
    # against that torch, the wheel in a venv with no compiler, a training
    # repository's journeys and the CI templates (about 8 min).
    timed package ci/package.sh 2.13.0
    ;;
  cuda-2.14)
    CASEBOOK_PYTHON=$(ci/install-torch.sh 2.14.1)
    export CASEBOOK_PYTHON
    timed install-torch true
    timed configure cmake --preset cuda
    # What a GPU-less machine can prove: the executable and the plugin
    # compile and link against the CUDA LibTorch. The test programs are
    # built against 2.13 in the torch-2.13 lane and with the `cuda` preset on
    # a GPU machine, which runs them; building them here cost about half of
    # this lane's build.
    timed build cmake --build --preset cuda-no-gpu
    timed checks ci/cuda-without-gpu.sh build/cuda
    # The installed package with a CUDA LibTorch (its cuda lane Skipped).
    timed downstream ci/downstream.sh build/cuda
    ;;
  *)
    echo "ci/lane.sh: unknown lane '$lane' (cpu, debian, torch-2.13, cuda-2.14, hardening)" >&2
    exit 2
    ;;
esac
