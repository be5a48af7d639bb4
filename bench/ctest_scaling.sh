#!/usr/bin/env bash
# Issue 47 (item 3)'s figures: the ctest tests casebook_add_cases registers
# for a folder of N generated cases (one torch.softmax each, one with a wrong
# stated value), in a project of its own with LANGUAGES NONE, timed side by
# side with `casebook run` of the same folder, both at -j JOBS:
#
#   run          casebook run --backend cpu -j JOBS cases
#   ctest        ctest -j JOBS: the batch test, then a test per case file
#                reading its record (what a whole `ctest` costs)
#   ctest -R id  one case file's test alone: it runs its own file
#   per file     (SAMPLE files, -E batch) each file's test running its own
#                file, as every test did before the batch: the cost of a
#                LibTorch start per test, per file
#
# Prints the seconds and the ratios; exit 1 when ctest is not within 3x of
# run or a verdict is not the one expected. Not a ctest test: the times are
# the machine's.
# usage: bench/ctest_scaling.sh [CASEBOOK] [N...]
#   CASEBOOK  the executable (default: build/cpu/bin/casebook); the
#             casebook_add_cases of this source tree is used with it
#   N         folder sizes (default: 1000); JOBS=$(nproc), SAMPLE=20
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
casebook=$(realpath "${1:-$repo/build/cpu/bin/casebook}")
shift || true
sizes=("${@:-1000}")
jobs=${JOBS:-$(nproc)}
sample=${SAMPLE:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

seconds() {  # seconds COMMAND...: wall seconds of COMMAND, its output in $work/out
  local start end
  start=$(date +%s.%N)
  "$@" >"$work/out" 2>&1 || true
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { print b - a }'
}

status=0
printf '%7s %9s %9s %7s %11s %13s\n' cases run ctest ratio "ctest -R id" "per file (s)"
for n in "${sizes[@]}"; do
  project=$work/project-$n
  mkdir -p "$project/cases"
  for i in $(seq 1 "$n"); do
    dir=$project/cases/g$((i % 50))
    mkdir -p "$dir"
    printf 'casebook: 1\nsummary: generated %d\nop: torch.softmax\nargs: {dim: 1}\nbackends: [cpu]\ninputs:\n  input: {shape: [8, 10], dtype: float32, fill: {normal: {mean: 0, std: 1}}, seed: %d}\n' \
      "$i" "$i" >"$dir/c$i.yaml"
  done
  printf 'casebook: 1\nsummary: a wrong stated value\nop: torch.add\nbackends: [cpu]\ninputs:\n  input: {dtype: float32, values: [1, 2]}\n  other: {dtype: float32, values: [3, 4]}\nexpect:\n  cpu: {outputs: {0: {dtype: float32, values: [4, 7]}}}\n' \
    >"$project/cases/wrong.yaml"
  cat >"$project/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.22)
project(ctest_scaling LANGUAGES NONE)
enable_testing()
add_executable(casebook::casebook IMPORTED)
set_target_properties(casebook::casebook PROPERTIES IMPORTED_LOCATION "$casebook")
include("$repo/cmake/CasebookAddCases.cmake")
casebook_add_cases(DIRECTORY cases NAME gen BACKENDS cpu EACH_CASE ON)
CMAKE
  cmake -S "$project" -B "$project/build" >/dev/null
  run=$(cd "$project" && seconds "$casebook" run --backend cpu -j "$jobs" --quiet --evidence '' cases)
  grep -q "^$n PASS, 1 FAIL ($((n + 1)) runs)$" "$work/out" || { echo "run: unexpected counts"; tail -3 "$work/out"; status=1; }
  ctest=$(seconds ctest --test-dir "$project/build" -j "$jobs")
  grep -q " 1 tests failed out of $((n + 2))$" "$work/out" || { echo "ctest: unexpected counts"; tail -5 "$work/out"; status=1; }
  one=$(seconds ctest --test-dir "$project/build" -R 'gen\.cpu/g1/c1$')
  grep -q "^100% tests passed out of 1$" "$work/out" || { echo "ctest -R: not one passing test"; cat "$work/out"; status=1; }
  per_file=$(seconds ctest --test-dir "$project/build" -j "$jobs" -E batch -I "1,$sample")
  per_file=$(awk -v t="$per_file" -v j="$jobs" -v s="$sample" 'BEGIN { print t * j / s }')
  ratio=$(awk -v c="$ctest" -v r="$run" 'BEGIN { print c / r }')
  printf '%7d %9.2f %9.2f %6.2fx %11.2f %13.3f\n' "$n" "$run" "$ctest" "$ratio" "$one" "$per_file"
  if awk -v c="$ctest" -v r="$run" 'BEGIN { exit !(c > 3 * r) }'; then
    echo "ctest is not within 3x of run at $n cases"
    status=1
  fi
  rm -rf "$project"
done
exit "$status"
