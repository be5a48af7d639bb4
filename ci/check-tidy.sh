#!/usr/bin/env bash
# The clang-tidy gate (issue 37, item 9), a step of the `debian` lane:
# .clang-tidy's checks, every warning an error, over the LibTorch-free
# sources (framework/src/model, framework/src/diagnosis and the ops'
# *_declarations.cpp: casebook_core; framework/src/process: the runner's
# process mechanics),
# with the pinned clang-tidy below. A unit that includes LibTorch takes
# clang-tidy about ten times as long, so the lane leaves them out; name
# files to check any of them (the `tidy` preset's compile commands have
# every source).
#
#   ci/check-tidy.sh               the LibTorch-free sources
#   ci/check-tidy.sh FILE...       these sources
#
# It configures the `tidy` preset into BUILD_DIR (default build/tidy) when
# that has no compile commands; CASEBOOK_TORCH_FROM picks its LibTorch as
# for the other presets. The tool lives in a virtual environment outside the
# clone, beside ci/check-style.sh's clang-format (ci/pinned-tool.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
readonly clang_tidy_version=23.1.4
source ci/pinned-tool.sh
tidy=$(pinned_tool clang-tidy "$clang_tidy_version")
build=${BUILD_DIR:-build/tidy}
if [ ! -f "$build/compile_commands.json" ]; then
  cmake --preset tidy -B "$build" \
    -DCASEBOOK_TORCH_FROM="${CASEBOOK_TORCH_FROM:-auto}" >/dev/null
fi
if [ "$#" -gt 0 ]; then
  sources=("$@")
else
  mapfile -t sources < <(git ls-files 'framework/src/model/*.cpp' 'framework/src/diagnosis/*.cpp' 'framework/src/files/*.cpp' \
    'framework/src/process/*.cpp' 'framework/src/*/*_declarations.cpp')
fi
# Four files a call, as many calls as cores; every warning is an error, so
# a call's status says whether its files are clean (or could not be read).
output=$(mktemp)
trap 'rm -f "$output"' EXIT
if ! printf '%s\n' "${sources[@]}" |
  xargs -P "$(nproc)" -n 4 "$tidy" -p "$build" --quiet --warnings-as-errors='*' \
    >"$output" 2>&1; then
  grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error)' "$output" | sort -u ||
    tail -20 "$output"
  echo "clang-tidy $clang_tidy_version flags the places above (.clang-tidy); ci/check-tidy.sh FILE... checks some"
  exit 1
fi
echo "clang-tidy $clang_tidy_version: ${#sources[@]} sources clean"
