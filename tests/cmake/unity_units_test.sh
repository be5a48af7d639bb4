#!/usr/bin/env bash
# The unity units (cmake/CasebookUnity.cmake), through real configures of
# tests/cmake/unity_units. What it must hold:
#  - a build that leaves sources out (the asan preset's
#    CASEBOOK_LIB_TESTS_EXCLUDE) cuts units that are each part of a unit of
#    the full build: it meets no name clash the other lanes do not (a unit
#    cut by place in a list shifted every later file, and the asan lane met
#    a clash no other lane built);
#  - units hold about CASEBOOK_UNITY_BATCH sources; 0 is one unit a target.
# usage: unity_units_test.sh CMAKE SOURCE_DIR
set -euo pipefail
cmake=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
mkdir "$work/sources"

# configure NAME CMAKE_ARGS...: a fresh folder; prints its units, one line
# each: the sorted file names it includes.
configure() {
  local name=$1
  shift
  "$cmake" -S "$source_dir/tests/cmake/unity_units" -B "$work/$name" -G Ninja \
    -DCASEBOOK_SOURCE_DIR="$source_dir" -DPROBE_SOURCE_DIR="$work/sources" "$@" >"$work/$name.log" 2>&1 ||
    { cat "$work/$name.log" >&2; return 1; }
  local unit
  for unit in "$work/$name"/CMakeFiles/probe.dir/Unity/*.cxx; do
    grep -o 'probe_[0-9]*\.cpp' "$unit" | sort | tr '\n' ' '
    echo
  done
}

check() {
  if eval "$2"; then echo "PASS: $1"; else echo "FAIL: $1"; failures=$((failures + 1)); fi
}

full=$(configure full -DPROBE_SOURCES=40)
part=$(configure part -DPROBE_SOURCES=40 '-DPROBE_EXCLUDE=probe_(3|7|1[0-9])\.cpp$')
one=$(configure one -DPROBE_SOURCES=40 -DCASEBOOK_UNITY_BATCH=0)

# Every unit of the part is within one unit of the full build.
contained=1
while read -r unit; do
  [ -z "$unit" ] && continue
  holder=0
  while read -r whole; do
    missing=0
    for file in $unit; do
      [[ " $whole " == *" $file "* ]] || missing=1
    done
    [ "$missing" -eq 0 ] && holder=1
  done <<<"$full"
  [ "$holder" -eq 1 ] || { echo "unit '$unit' is in no unit of the full build" >&2; contained=0; }
done <<<"$part"
check "a build without some sources cuts parts of the full build's units" '[ "$contained" -eq 1 ]'
check "the part leaves the excluded sources out" \
  '! grep -qE "probe_(3|7|1[0-9])\.cpp" <<<"$part"'
check "the full build has every source once" \
  '[ "$(tr " " "\n" <<<"$full" | grep -c .)" -eq 40 ] && [ "$(tr " " "\n" <<<"$full" | grep . | sort -u | wc -l)" -eq 40 ]'
check "40 sources at the default 8 a unit are 5 units" '[ "$(grep -c . <<<"$full")" -eq 5 ]'
check "CASEBOOK_UNITY_BATCH=0 is one unit" \
  '[ "$(grep -c . <<<"$one")" -eq 1 ] && [ "$(tr " " "\n" <<<"$one" | grep -c .)" -eq 40 ]'
exit $((failures > 0))
