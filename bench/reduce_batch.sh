#!/usr/bin/env bash
# Issue 50's figures: `casebook reduce` of a captured batch of 512 x 1000
# float32 logits whose labels hold one 1000 (row 317; classes 0..999), its
# two fixtures .npy files as `casebook capture` writes them (2 MB and 4 KB).
# Prints what `casebook reduce` says (its runs, the file written's check
# included, and its seconds) and the command's wall time. Not a ctest test:
# the time is the machine's. Needs python3 with numpy to write the fixtures.
# usage: bench/reduce_batch.sh [CASEBOOK]   (default: build/cpu/bin/casebook)
set -euo pipefail
casebook=$(realpath "${1:-build/cpu/bin/casebook}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir -p cases/cross_entropy fixtures/cross_entropy
python3 - <<'PY'
import numpy as np
logits = np.sin(np.arange(512 * 1000, dtype=np.float32)).reshape(512, 1000)
target = np.arange(512, dtype=np.int64) * 7 % 1000
target[317] = 1000
np.save("fixtures/cross_entropy/logits.npy", logits.astype(np.float32))
np.save("fixtures/cross_entropy/target.npy", target)
PY
cat >cases/cross_entropy/batch.yaml <<'YAML'
casebook: 1
summary: a captured batch with one label of 1000
op: torch.cross_entropy
args: {reduction: mean}
inputs:
  input: {dtype: float32, shape: [512, 1000], file: cross_entropy/logits.npy}
  target: {dtype: int64, shape: [512], file: cross_entropy/target.npy}
origin:
  first_error: "IndexError: Target 1000 is out of bounds."
  backend: cpu
YAML
start=$(date +%s%N)
"$casebook" reduce cases/cross_entropy/batch.yaml
end=$(date +%s%N)
echo "wall time of casebook reduce: $(( (end - start) / 1000000 )) ms"
grep -A3 '^inputs:' cases/cross_entropy/batch.reduced.yaml
