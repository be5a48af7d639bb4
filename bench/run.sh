#!/usr/bin/env bash
# The one command: configures and builds casebook_bench (and the casebook
# executable it runs for the process-per-case figures) if needed, then runs
# it. Arguments go to casebook_bench (--sizes 100,1000 --sample 100 -j N
# --skip-large --skip-usual). BUILD_DIR picks the build folder.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$repo/build/bench}"
if [[ ! -f "$build/build.ninja" ]]; then
  cmake -S "$repo" -B "$build" -G Ninja
fi
cmake --build "$build" --target casebook_bench -j"$(nproc)"
exec "$build/bin/casebook_bench" "$@"
