#!/usr/bin/env bash
# The one command: configures and builds casebook_bench and the casebook
# executable if needed, installs what it builds against and the peer's
# pytest packages where missing (ci/install-deps.sh), then
# runs casebook_bench (arguments go to it: --sizes 100,1000 --sample 100 -j N
# --skip-large --skip-usual) and the peer section (bench/peer.py: casebook
# against `pytest --forked`). `--only-peer` runs the peer section alone.
# BUILD_DIR picks the build folder.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$repo/build/bench}"
only_peer=false
if [[ "${1:-}" == "--only-peer" ]]; then
  only_peer=true
  shift
fi
bash "$repo/ci/install-deps.sh" python3-pytest python3-pytest-forked
if [[ ! -f "$build/build.ninja" ]]; then
  cmake -S "$repo" -B "$build" -G Ninja
fi
cmake --build "$build" --target casebook_bench casebook -j"$(nproc)"
status=0
if ! $only_peer; then
  "$build/bin/casebook_bench" "$@" || status=$?
fi
/usr/bin/python3 "$repo/bench/peer.py" --casebook "now=$build/bin/casebook" ||
  status=$?
exit "$status"
