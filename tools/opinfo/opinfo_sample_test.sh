#!/bin/bash
# ctest opinfo.sample: a few named OpInfo entries (tools/opinfo/README.md)
# turned into cases by make_opinfo_cases.py in a temporary folder, run with
# the built casebook: every case must PASS, and every case of the entry
# whose expected values are made wrong on purpose (abs) must FAIL.
#
#   opinfo_sample_test.sh CASEBOOK PYTHON SOURCE_DIR
#
# Exit 77 (ctest: skipped) when PYTHON has no torch; the folder is removed.
set -euo pipefail
casebook=$1 python=$2 src=$3
if ! "$python" -c 'import torch, numpy' 2>/dev/null; then
  echo "SKIP: $python has no torch and numpy"; exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/opinfo-sample.XXXXXX")
trap 'rm -rf "$work"' EXIT
# --no-steps until casebook runs steps: cases (then add
# nn.functional.normalize and drop the flag).
entries=(softmax index_select nn.functional.nll_loss cat add max.reduction_with_dim
         where sum abs)
"$python" "$src/tools/opinfo/make_opinfo_cases.py" "$work" --no-steps --samples 2 \
  --entries "${entries[@]}" --wrong-expected abs
"$python" "$src/tools/opinfo/run_opinfo_corpus.py" "$work" --casebook "$casebook" -j 2 \
  --expect-all-pass --expect-fail abs
