#!/usr/bin/env bash
# The test command of README.md: installs what is missing, then runs one or
# more lanes, each a LibTorch with its build and its tests (ci/lane.sh):
#
#   ci/test.sh [CTEST_ARGS...]        the `cpu` lane: the LibTorch found first
#                                     (docs/contributing.md, "Which LibTorch"): the build,
#                                     unit tests and every case, the
#                                     downstream example; no sanitizers
#   CASEBOOK_LANES=hardening ci/test.sh   the sanitizer and fuzz builds
#   CASEBOOK_LANES="debian torch-2.13" ci/test.sh
#   CASEBOOK_LANES=all ci/test.sh     what CI runs (.ci/run): debian
#                                     torch-2.13 cuda-2.14 hardening
#
# Every lane runs even when one before it failed; a table of lanes, results
# and times ends the output, and the exit status is 1 if any lane failed.
set -euo pipefail
cd "$(dirname "$0")/.."
lanes=${CASEBOOK_LANES:-cpu}
[ "$lanes" = all ] && lanes="debian torch-2.13 cuda-2.14 hardening"
ci/install-deps.sh

# ccache for every lane's compiles (ci/ccache-env.sh).
source ci/ccache-env.sh

results=()
status=0
for lane in $lanes; do
  echo "=== lane ${lane}"
  start=$(date +%s)
  lane_status=0
  ci/lane.sh "$lane" "$@" || lane_status=$?
  seconds=$(( $(date +%s) - start ))
  if [ "$lane_status" -eq 0 ]; then
    results+=("$(printf '%-12s passed  %5d s' "$lane" "$seconds")")
  else
    results+=("$(printf '%-12s FAILED  %5d s (exit %d)' "$lane" "$seconds" "$lane_status")")
    status=1
  fi
done
echo "=== lanes"
printf '%s\n' "${results[@]}"
exit "$status"
