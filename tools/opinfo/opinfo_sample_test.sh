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
# nn.functional.normalize is a steps: case (four ATen calls), __getitem__'s
# sample 5 (x[:, :, idx]) an index with null elements in its Tensor?[] list;
# allclose's result is a bool the last call returned, hsplit's gathers the
# outputs of several calls, bitwise_and has no float dtype (int64), complex
# has a complex64 result, rand_like of an empty tensor is a random op whose
# values do not depend on the draw (issue 36).
entries=(softmax nn.functional.normalize index_select nn.functional.nll_loss cat add
         max.reduction_with_dim where sum __getitem__ abs allclose hsplit bitwise_and
         complex rand_like)
"$python" "$src/tools/opinfo/make_opinfo_cases.py" "$work" --samples 6 --casebook "$casebook" \
  --entries "${entries[@]}" --wrong-expected abs
for want in 'nn.functional.normalize/*.yaml:^steps:' '__getitem__/*.yaml:indices: \[null' \
    'allclose/*.yaml:dtype: bool' 'hsplit/*.yaml:^  [a-z_0-9]*\.[0-9]*: ' \
    'bitwise_and/*.yaml:dtype: int64' 'complex/*.yaml:dtype: complex64' \
    'rand_like/*.yaml:shape: \[0'; do
  if ! grep -q -- "${want#*:}" "$work"/cases/${want%%:*}; then
    echo "FAIL: no case of ${want%%:*} has ${want#*:}"; exit 1
  fi
done
"$python" "$src/tools/opinfo/run_opinfo_corpus.py" "$work" --casebook "$casebook" -j 2 \
  --expect-all-pass --expect-fail abs --per-entry
