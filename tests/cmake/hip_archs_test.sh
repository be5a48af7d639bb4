#!/usr/bin/env bash
# The AMD targets of the HIP kernels (cmake/CasebookGpu.cmake, issue 48):
# MI300's gfx942 joins the default list where hipcc knows it, and a target
# hipcc does not know is a configure error naming it, never a plugin built
# without it. Real configures of tests/cmake/hip_archs with a fake hipcc that
# knows gfx942 or not ($FAKE_HIPCC_KNOWS_GFX942).
# usage: hip_archs_test.sh CMAKE SOURCE_DIR
set -euo pipefail
cmake=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
cat >"$work/hipcc" <<'SH'
#!/bin/sh
for argument in "$@"; do
  case $argument in
    --offload-arch=gfx942) [ "${FAKE_HIPCC_KNOWS_GFX942:-0}" = 1 ] || exit 1 ;;
    --offload-arch=gfx90a | --offload-arch=gfx1030) ;;
    --offload-arch=*) exit 1 ;;
  esac
done
exit 0
SH
chmod +x "$work/hipcc"

# configure NAME KNOWS_GFX942 CMAKE_ARGS...: prints the configure's output.
configure() {
  local name=$1 knows=$2
  shift 2
  FAKE_HIPCC_KNOWS_GFX942=$knows "$cmake" -S "$source_dir/tests/cmake/hip_archs" \
    -B "$work/$name" -DCASEBOOK_SOURCE_DIR="$source_dir" \
    -DCASEBOOK_HIPCC="$work/hipcc" "$@" 2>&1 || true
}

check() {
  if eval "$2"; then echo "PASS: $1"; else echo "FAIL: $1"; failures=$((failures + 1)); fi
}

new=$(configure new 1)
old=$(configure old 0)
# CMake wraps its error: one line, single spaces.
given=$(configure given 0 '-DCASEBOOK_HIP_ARCHS=gfx90a;gfx942' | tr -s '\n ' '  ')
check "gfx942 is built by default where hipcc knows it" \
  'grep -q "probe: CASEBOOK_HIP_ARCHS=gfx90a;gfx1030;gfx942$" <<<"$new"'
check "the default leaves gfx942 out where hipcc does not know it" \
  'grep -q "probe: CASEBOOK_HIP_ARCHS=gfx90a;gfx1030$" <<<"$old"'
check "a target given that hipcc does not know is an error naming it" \
  'grep -q "does not know gfx942" <<<"$given" && ! grep -q "probe: " <<<"$given"'
if [ "$failures" -ne 0 ]; then
  echo "$new" "$old" "$given" >&2
  exit 1
fi
