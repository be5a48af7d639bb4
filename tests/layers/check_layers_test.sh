#!/usr/bin/env bash
# ci/check-layers.py against small trees of its own: a clean one passes, and
# an include up the layers, into a sibling, through a public header of a
# higher room, from kernels/ into the framework, from tests/core into a
# LibTorch room, or from a room or to a public header the tables do not know
# is named at its file:line. Then the repository itself.
#   check_layers_test.sh PYTHON REPOSITORY_ROOT
set -euo pipefail
python=$1 root=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

tree() {  # a fresh tree with the real tables, the public headers' names, one kernel folder
  rm -rf "$scratch/t"
  mkdir -p "$scratch/t/docs" "$scratch/t/kernels/sum" "$scratch/t/kernels/common" \
    "$scratch/t/framework/src/process" "$scratch/t/framework/src/runner" \
    "$scratch/t/framework/src/model" "$scratch/t/framework/src/kernel_ops" \
    "$scratch/t/framework/src/ops" \
    "$scratch/t/framework/include/casebook" "$scratch/t/tests/core" "$scratch/t/tests/lib"
  cp "$root/docs/architecture.md" "$scratch/t/docs/"
  for header in "$root"/framework/include/casebook/*.h; do
    printf '#pragma once\n' >"$scratch/t/framework/include/casebook/${header##*/}"
  done
  printf '#include "casebook/case.h"\n' >"$scratch/t/framework/include/casebook/loader.h"
  printf '#include "process/subprocess.h"\n#include "runner/judge.h"\n' \
    >"$scratch/t/framework/src/runner/ok.cpp"
  printf '#include "casebook/case.h"\n#include "casebook/loader.h"\n#include "build_config.h"\n' \
    >"$scratch/t/framework/src/model/ok.cpp"
  printf '#include "ops/op_declarations.h"\n#include "sum/sum.h"\n' \
    >"$scratch/t/framework/src/kernel_ops/ok.cpp"
  printf '#include "common/kernel_types.h"\n' >"$scratch/t/kernels/sum/sum.h"
  printf '#include "casebook/loader.h"\n#include "diagnosis/conclusions.h"\n' \
    >"$scratch/t/tests/core/ok_test.cpp"
  printf '#include "casebook/ops.h"\n#include "runner/judge.h"\n#include "sum/sum.h"\n' \
    >"$scratch/t/tests/lib/ok_test.cpp"
}

# expect_violation LINE: the check fails on the planted tree and names LINE
# (a file:line and what it breaks) at the start of a line of its output.
expect_violation() {
  if "$python" "$root/ci/check-layers.py" "$scratch/t" >"$scratch/out"; then
    fail "passed a tree that should break: $1"
  fi
  grep -qF -- "$1" "$scratch/out" || fail "not named as \`$1\`: $(cat "$scratch/out")"
}

tree
"$python" "$root/ci/check-layers.py" "$scratch/t" >"$scratch/out" || fail "a clean tree: $(cat "$scratch/out")"

tree
printf '// process/ is mechanics\n#include "runner/judge.h"\n' >"$scratch/t/framework/src/process/up.cpp"
expect_violation 'framework/src/process/up.cpp:2: `process` may not include `runner/judge.h`'

tree
# The case model knows no kernel: the ops' traits table brings their block sizes.
printf '#include "casebook/op_traits.h"\n#include "sum/sum.h"\n' >"$scratch/t/framework/src/model/blocks.cpp"
expect_violation 'framework/src/model/blocks.cpp:2: `model` may not include `sum/sum.h`'

tree
# Through a public header: ops.h is the ops room's, above the case model.
printf '#include "casebook/case.h"\n\n#include "casebook/ops.h"\n' >"$scratch/t/framework/src/model/up.cpp"
expect_violation 'framework/src/model/up.cpp:3: `model` may not include `casebook/ops.h` (implemented by `ops`)'

tree
# A public header including another: the case model's reader does not run ops.
printf '#include "casebook/case.h"\n#include "casebook/ops.h"\n' \
  >"$scratch/t/framework/include/casebook/loader.h"
expect_violation 'framework/include/casebook/loader.h:2: `model` may not include `casebook/ops.h`'

tree
# ops/ and kernel_ops/ are registered from the room above both (catalog/):
# ops calls neither kernel_ops nor the catalog, directly or through its header.
printf '#include "kernel_ops/kernel_ops.h"\n' >"$scratch/t/framework/src/ops/down.cpp"
expect_violation 'framework/src/ops/down.cpp:1: `ops` may not include `kernel_ops/kernel_ops.h`'

tree
printf '#include "casebook/op_catalog.h"\n' >"$scratch/t/framework/src/ops/up.cpp"
expect_violation 'framework/src/ops/up.cpp:1: `ops` may not include `casebook/op_catalog.h` (implemented by `catalog`)'

tree
printf '#pragma once\n' >"$scratch/t/framework/include/casebook/grab_bag.h"
expect_violation 'framework/include/casebook/grab_bag.h: not in the public headers table'

tree
printf '#include "casebook/grab_bag.h"\n' >"$scratch/t/framework/src/runner/new.cpp"
expect_violation 'framework/src/runner/new.cpp:1: `casebook/grab_bag.h` is not in the public headers table'

tree
# Kernels know no framework: a kernel takes pointers, sizes and a stream.
printf '#include "common/kernel_types.h"\n#include "casebook/family.h"\n' >"$scratch/t/kernels/sum/sum_cpu.cpp"
expect_violation 'kernels/sum/sum_cpu.cpp:2: `kernels` may not include `casebook/family.h`'

tree
printf '#include "tensors/fixtures.h"\n' >"$scratch/t/kernels/common/plugin.h"
expect_violation 'kernels/common/plugin.h:1: `kernels` may not include `tensors/fixtures.h`'

tree
# tests/core links casebook_core only: no LibTorch room, through a public header either.
printf '#include "casebook/case.h"\n#include "casebook/runner.h"\n' >"$scratch/t/tests/core/up_test.cpp"
expect_violation 'tests/core/up_test.cpp:2: `tests/core` may not include `casebook/runner.h` (implemented by `runner`)'

tree
printf '#include "tensors/fixtures.h"\n' >"$scratch/t/tests/core/up_test.cpp"
expect_violation 'tests/core/up_test.cpp:1: `tests/core` may not include `tensors/fixtures.h`'

tree
mkdir -p "$scratch/t/framework/src/newroom"
printf '\n' >"$scratch/t/framework/src/newroom/x.cpp"
expect_violation 'framework/src/newroom/x.cpp: room `newroom` is not in the rooms table'

"$python" "$root/ci/check-layers.py" "$root"
echo "check-layers: 13 planted trees and the repository as expected"
