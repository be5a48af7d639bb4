#!/usr/bin/env bash
# The main job of README.md: installs what is missing, builds casebook and
# runs every case in cases/ on every backend present, printing the verdict
# table. Extra arguments go to `casebook run` (e.g. --filter, --junit FILE).
set -euo pipefail
cd "$(dirname "$0")/.."
ci/install-deps.sh
source ci/ccache-env.sh  # as ci/test.sh configures build/cpu
cmake --preset cpu >/dev/null
cmake --build --preset cpu --target casebook
exec build/cpu/bin/casebook run cases "$@"
