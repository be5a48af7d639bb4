#!/usr/bin/env bash
# The style gate (issue 37, item 9), a step of the `debian` lane:
# clang-format, check only, over every C and C++ source of the clone (the
# ones git tracks, and new ones it does not ignore, so that a file not yet
# added is checked before its commit, not by CI after it), with
# .clang-format and the pinned clang-format below (the formatter's output
# differs between versions, so the check and the people who run
# `clang-format -i` must use one). Prints each unformatted place as
# file:line:col and exits 1; exits 0 when every file is formatted.
#
#   ci/check-style.sh            check
#   ci/check-style.sh --fix      format every such source in place
#
# The formatter lives in a virtual environment outside the clone
# (ci/pinned-tool.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
readonly clang_format_version=23.1.5
source ci/pinned-tool.sh
formatter=$(pinned_tool clang-format "$clang_format_version")
mapfile -t sources < <(git ls-files --cached --others --exclude-standard \
  '*.c' '*.cc' '*.cpp' '*.h' '*.hpp' '*.cu' '*.cuh' '*.hip')
if [ "${1:-}" = --fix ]; then
  "$formatter" -i "${sources[@]}"
  exit 0
fi
report=$("$formatter" --dry-run "${sources[@]}" 2>&1 | grep -E '^[^ ]+:[0-9]+:[0-9]+: warning' || true)
if [ -n "$report" ]; then
  echo "$report"
  echo "$(echo "$report" | wc -l) place(s) in $(echo "$report" | cut -d: -f1 | sort -u | wc -l) file(s) are not as clang-format $clang_format_version writes them: ci/check-style.sh --fix"
  exit 1
fi
echo "clang-format $clang_format_version: ${#sources[@]} sources formatted"
