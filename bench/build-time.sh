#!/usr/bin/env bash
# What the unity build (CASEBOOK_UNITY, cmake/CasebookUnity.cmake) saves:
# configures one preset twice into fresh temporary folders, unity on and off,
# builds each from nothing with the same job count and no compiler cache, and
# prints both wall times, their ratio, and each target's compile job-seconds
# (from ninja's log). The folders go when it ends.
#
#   bench/build-time.sh [PRESET] [TARGET...]    default: cpu, everything
#
# (pip-cpu wants CASEBOOK_PYTHON, as its preset says.)
#
# JOBS (default: the cores) sets the job count. It takes two full builds (about
# 20 minutes on 2 cores); run it alone, since anything else on the machine
# moves its figures.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
preset=${1:-cpu}
shift || true
jobs=${JOBS:-$(nproc)}
targets="$*"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/casebook-build-time.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
unset CMAKE_CXX_COMPILER_LAUNCHER CMAKE_CUDA_COMPILER_LAUNCHER

# Prints "<seconds>" for a clean build of the preset with CASEBOOK_UNITY=$1.
build_seconds() {
  local unity=$1 dir="$scratch/unity-$1"
  (cd "$repo" && cmake --preset "$preset" -B "$dir" -DCASEBOOK_UNITY="$unity" \
    -DCMAKE_CXX_COMPILER_LAUNCHER= -DCMAKE_CUDA_COMPILER_LAUNCHER= >/dev/null)
  local start
  start=$(date +%s.%N)
  # shellcheck disable=SC2086 # the targets are words
  cmake --build "$dir" -j "$jobs" ${targets:+--target $targets} >/dev/null
  awk -v start="$start" -v end="$(date +%s.%N)" 'BEGIN { print end - start }'
}

# Sums each target's compile seconds from ninja's log (start and end ms).
job_seconds() {
  awk -F'\t' '!/^#/ && $4 ~ /CMakeFiles\// {
      split($4, p, "CMakeFiles/"); split(p[2], name, ".dir/");
      sum[name[1]] += ($2 - $1) / 1000 }
    END { for (t in sum) printf "    %-36s %7.0f job-s\n", t, sum[t] }' \
    "$scratch/unity-$1/.ninja_log" | sort
}

echo "build time of preset ${preset}, ${jobs} jobs, $(nproc) cores${targets:+, targets: $targets}"
on=$(build_seconds ON)
off=$(build_seconds OFF)
printf 'unity ON   %7.0f s\n' "$on"
job_seconds ON
printf 'unity OFF  %7.0f s\n' "$off"
job_seconds OFF
awk -v on="$on" -v off="$off" 'BEGIN { printf "OFF / ON   %7.2f\n", off / on }'
