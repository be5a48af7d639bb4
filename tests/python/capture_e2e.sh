#!/usr/bin/env bash
# End to end (ctest label `python`): the casebook_capture package installs
# offline with pip into a venv over PYTHON's torch (the torch whose LibTorch
# casebook was built against: Debian's python3-torch for Debian's LibTorch, a
# pip venv's torch 2.x for that wheel), a training loop failing on a label of
# 4 in a 4-class problem records a case (its tensors saved by that torch's
# torch.save), and casebook runs that case to index_out_of_range on the CPU;
# a rerun records a case of its own, and a forward failing inside the
# recorder's step is recorded (tests/python/train_*.py).
# The shipped .pt fixtures load in that torch with weights_only=True.
# usage: capture_e2e.sh CASEBOOK_EXECUTABLE SOURCE_DIR [PYTHON]
set -euo pipefail
casebook=$1
source_dir=$2
python=${3:-/usr/bin/python3}  # default: Debian's, with python3-torch
if ! "$python" -c 'import torch, numpy, venv' 2>/dev/null; then
  echo "SKIP: $python lacks torch, numpy or venv (ci/install-deps.sh)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A copy: pip's build must not leave build/ or *.egg-info in the source.
cp -r "$source_dir/python" "$work/package"
"$python" -m venv --system-site-packages "$work/venv"
# A venv made from a venv's Python sees the base interpreter's packages, not
# that venv's: point it at PYTHON's own site-packages too.
purelib=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
venv_purelib=$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$purelib" >"$venv_purelib/casebook-e2e-base.pth"
"$work/venv/bin/python" -c 'import torch; print("torch", torch.__version__)'
"$work/venv/bin/pip" install --quiet --no-build-isolation --no-index \
  --disable-pip-version-check "$work/package"
mkdir -p "$work/project/fixtures"
cd "$work/project"
# train SCRIPT LOG: runs tests/python/SCRIPT, its stderr (the recorder's
# messages) into LOG, shown.
train() {
  local status=0
  CASEBOOK=$casebook "$work/venv/bin/python" \
    "$source_dir/tests/python/$1" cases 2>"$2" || status=$?
  cat "$2" >&2
  return "$status"
}
train train_label_4.py "$work/first.log"
case_file=cases/cross_entropy/label_4.yaml
test -f "$case_file"
grep -q '^  iteration: 2$' "$case_file"
grep -q '^  last_completed_step: "forward"$' "$case_file"
grep -q '^  first_error: "IndexError: Target 4 is out of bounds.' "$case_file"
grep -q '^  target: {dtype: int64, shape: \[6\], values: \[0, 1, 4, 3, 2, 1\]}$' "$case_file"
# The watched call's reduction="sum" over the Recorder's "mean"; its epoch=1,
# no argument of torch.cross_entropy, left out.
grep -q '^args: {.*reduction: sum.*}$' "$case_file"
! grep -q 'epoch' "$case_file"
# The recorder prints the capture's verdict.
grep -q "^casebook: recorded the first failure (iteration 2) as $case_file\$" \
  "$work/first.log"
grep -Eq '^casebook: +cross_entropy/label_4 +FAIL index_out_of_range$' \
  "$work/first.log"
grep -q '^casebook: the capture reproduces the failure: cpu: FAIL index_out_of_range: Target 4 is out of bounds.$' \
  "$work/first.log"
echo "PASS: the recorder wrote $case_file, args kept, its verdict printed"
# A rerun records its own failure under the next free name, the first case
# untouched, and never asks for a --name it was not given.
first_sum=$(sha256sum "$case_file")
train train_label_4.py "$work/second.log"
test "$(sha256sum "$case_file")" = "$first_sum"
grep -q "as cases/cross_entropy/label_4-2.yaml\$" "$work/second.log"
grep -q '^  iteration: 2$' cases/cross_entropy/label_4-2.yaml
! grep -q -- '--name' "$work/second.log"
echo "PASS: the rerun wrote cases/cross_entropy/label_4-2.yaml"
# A forward failing inside the step is recorded; its last completed step is
# of its own iteration (none), not the previous iteration's.
train train_forward.py "$work/forward.log"
forward_case=cases/embedding/token_10.yaml
grep -q '^  iteration: 1$' "$forward_case"
grep -q '^  first_error: "IndexError: index out of range in self"$' \
  "$forward_case"
grep -q 'values: \[4, 10, 5\]}$' "$forward_case"
! grep -q 'last_completed_step' "$forward_case"
grep -Eq '^casebook: +embedding/token_10 +FAIL index_out_of_range$' \
  "$work/forward.log"
echo "PASS: the forward's failure inside the step wrote $forward_case"
# Issue 50: Recorder(..., reduce=True) reduces the recorded case at once and
# prints both files; the reduced case keeps the one label of 4.
train train_reduce.py "$work/reduce.log"
reduced_case=cases/cross_entropy/batch_64.reduced.yaml
grep -q "^casebook: recorded the first failure (iteration 0) as cases/cross_entropy/batch_64.yaml\$" \
  "$work/reduce.log"
grep -q "^casebook: reduced cases/cross_entropy/batch_64.yaml to $reduced_case\$" \
  "$work/reduce.log"
grep -q '^casebook:   from: input \[64, 4\], target \[64\]$' "$work/reduce.log"
grep -q '^  target: {dtype: int64, shape: \[1\], values: \[4\]}$' "$reduced_case"
grep -q '^    id: "cross_entropy/batch_64"$' "$reduced_case"
echo "PASS: the recorder reduced its case to $reduced_case"
# Issue 34, part 3: the Recorder checks casebook and the op when made, and
# keeps a batch it cannot capture, with the command that captures it later.
CASEBOOK=$casebook "$work/venv/bin/python" "$source_dir/tests/python/keep_batch.py" cases
# Issue 48, item 6: under a ROCm torch (torch.version.hip) PyTorch's `cuda`
# tensors are casebook's hip.
CASEBOOK=$casebook "$work/venv/bin/python" "$source_dir/tests/python/rocm_backend.py" cases
# Issue 48, item 4: names of training code bound by the table, other names
# refused before anything is written.
CASEBOOK=$casebook "$work/venv/bin/python" "$source_dir/tests/python/training_names.py" cases
# Issue 51: a tensor handed twice (out=x) is captured as `{same_as: NAME}`.
CASEBOOK=$casebook "$work/venv/bin/python" "$source_dir/tests/python/capture_alias.py" cases
# Issue 34: the README's Python example, as written (its code block under
# "Capturing a failure"), captures a case whose cpu run is
# index_out_of_range, and says so.
"$work/venv/bin/python" - "$source_dir/README.md" >readme_example.py <<'PY'
import re, sys
text = open(sys.argv[1]).read()
section = text[text.index("## Capturing a failure"):]
print(re.search(r"```python\n(.*?)```", section, re.S).group(1))
PY
mkdir readme && cd readme
readme_status=0
CASEBOOK=$casebook "$work/venv/bin/python" ../readme_example.py \
  2>"$work/readme.log" || readme_status=$?
cat "$work/readme.log" >&2
cd ..
test "$readme_status" -eq 1  # the training loop's IndexError propagates
grep -q '^IndexError: Target 4 is out of bounds.$' "$work/readme.log"
grep -q '^casebook: recorded the first failure (iteration 1) as cases/cross_entropy/label_4.yaml$' \
  "$work/readme.log"
grep -Eq '^casebook: +cross_entropy/label_4 +FAIL index_out_of_range$' \
  "$work/readme.log"
grep -q '^casebook: the capture reproduces the failure: cpu: FAIL index_out_of_range: Target 4 is out of bounds.$' \
  "$work/readme.log"
echo "PASS: the README's example captured a case that is index_out_of_range on cpu"
status=0
output=$("$casebook" run "$case_file" --backend cpu --evidence '') || status=$?
echo "$output"
test "$status" -eq 1
echo "$output" | grep -Eq 'cross_entropy/label_4 +FAIL index_out_of_range'
echo "PASS: the captured case fails with index_out_of_range on cpu"
# The committed .pt fixtures load as weights (no code) in this torch.
find "$source_dir/fixtures" -name '*.pt' -print0 |
  xargs -0 -r "$work/venv/bin/python" -c '
import sys, torch
for path in sys.argv[1:]:
    value = torch.load(path, weights_only=True)
    print("PASS: weights_only load of", path.split("/fixtures/")[-1], type(value).__name__)
'

