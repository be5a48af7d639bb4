#!/bin/bash
# ctest opinfo.error_inputs: the error inputs of a few named OpInfo entries
# (tools/opinfo/README.md) turned into cases by make_error_cases.py in a
# temporary folder, run with the built casebook: each case expects the
# family casebook gives its message and PyTorch's message, so every written
# case must PASS, and each entry but index_select must have one.
#
#   error_inputs_sample_test.sh CASEBOOK PYTHON SOURCE_DIR
#
# Exit 77 (ctest: skipped) when PYTHON has no torch; the folder is removed.
set -euo pipefail
casebook=$1 python=$2 src=$3
if ! "$python" -c 'import torch, numpy' 2>/dev/null; then
  echo "SKIP: $python has no torch and numpy"; exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/error-inputs-sample.XXXXXX")
trap 'rm -rf "$work"' EXIT
# amax: an empty reduction (index_out_of_range) and more than 64 dims (casebook
# aborts writing it: issue 51); unbind: "Dimension specified as 0" and
# "Dimension out of range"; multinomial: nan_or_inf for a probability < 0;
# gather: an index out of bounds, shape and dtype refusals, and an `out`
# overlapping an input (not written); index_select: only the latter; cat: an
# error raised by the Python binding before any ATen call.
entries=(amax unbind multinomial gather index_select cat)
"$python" -W ignore "$src/tools/opinfo/make_error_cases.py" "$work" --casebook "$casebook" \
  --entries "${entries[@]}" -j 2 > "$work/log" || { cat "$work/log"; exit 1; }
"$python" - "$work" "${entries[@]}" <<'PY'
import collections, json, sys
work, entries = sys.argv[1], sys.argv[2:]
records = json.load(open(f"{work}/manifest.json"))["error_inputs"]
verdicts = collections.Counter(r["verdict"] for r in records if "verdict" in r)
bad = [f"{r['entry']}/{r['index']}: {r['verdict']}" for r in records
       if r.get("verdict", "PASS") != "PASS"]
bad += [f"{r['entry']}/{r['index']}: written but not run" for r in records
        if "family" in r and "reason" not in r and "verdict" not in r]
# index_select's one error input rests on aliasing, which a case cannot state.
bad += [f"{e}: no case" for e in entries if e != "index_select" and
        not any(r["entry"] == e and "verdict" in r for r in records)]
for e in entries:
    mine = [r for r in records if r["entry"] == e]
    print(f"{e}: {len(mine)} error inputs, "
          f"{sum('verdict' in r for r in mine)} cases, "
          f"families {sorted({r['family'] for r in mine if 'verdict' in r})}")
print(f"verdicts: {dict(verdicts)}")
for line in bad:
    print("FAIL: " + line)
sys.exit(1 if bad else 0)
PY
