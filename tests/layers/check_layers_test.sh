#!/usr/bin/env bash
# ci/check-layers.py against small trees of its own: a clean one passes, and
# an include up the layers, into a sibling, or from a room the table does not
# know is named at its file:line. Then the repository itself.
#   check_layers_test.sh PYTHON REPOSITORY_ROOT
set -euo pipefail
python=$1 root=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

tree() {  # a fresh tree with the real table and one kernel folder
  rm -rf "$scratch/t"
  mkdir -p "$scratch/t/docs" "$scratch/t/kernels/sum" "$scratch/t/framework/src/process" \
    "$scratch/t/framework/src/runner" "$scratch/t/framework/src/model" \
    "$scratch/t/framework/src/kernel_ops"
  cp "$root/docs/architecture.md" "$scratch/t/docs/"
  printf '#include "process/subprocess.h"\n#include "runner/judge.h"\n' \
    >"$scratch/t/framework/src/runner/ok.cpp"
  printf '#include "casebook/case.h"\n#include "build_config.h"\n' \
    >"$scratch/t/framework/src/model/ok.cpp"
  printf '#include "ops/shipped_op_traits.h"\n#include "sum/sum.h"\n' \
    >"$scratch/t/framework/src/kernel_ops/ok.cpp"
}

tree
"$python" "$root/ci/check-layers.py" "$scratch/t" >"$scratch/out" || fail "a clean tree: $(cat "$scratch/out")"

tree
printf '// process/ is mechanics\n#include "runner/judge.h"\n' >"$scratch/t/framework/src/process/up.cpp"
if "$python" "$root/ci/check-layers.py" "$scratch/t" >"$scratch/out"; then fail "an include up the layers passed"; fi
grep -q '^framework/src/process/up.cpp:2: `process` may not include `runner/`' "$scratch/out" ||
  fail "not named at its line: $(cat "$scratch/out")"

tree
# The case model knows no kernel: the ops' traits table brings their block sizes.
printf '#include "casebook/op_traits.h"\n#include "sum/sum.h"\n' >"$scratch/t/framework/src/model/blocks.cpp"
if "$python" "$root/ci/check-layers.py" "$scratch/t" >"$scratch/out"; then fail "a kernel header in model passed"; fi
grep -q '^framework/src/model/blocks.cpp:2: `model` may not include `sum/`' "$scratch/out" ||
  fail "not named at its line: $(cat "$scratch/out")"

tree
mkdir -p "$scratch/t/framework/src/newroom"
printf '\n' >"$scratch/t/framework/src/newroom/x.cpp"
if "$python" "$root/ci/check-layers.py" "$scratch/t" >"$scratch/out"; then fail "an unknown room passed"; fi
grep -q 'room `newroom` is not in the table' "$scratch/out" || fail "$(cat "$scratch/out")"

"$python" "$root/ci/check-layers.py" "$root"
echo "check-layers: 4 planted trees and the repository as expected"
