#!/usr/bin/env bash
# casebook installed as a PyTorch user installs a tool, then used from a
# training repository with no C++ (issue 47, item 1). The torch-2.13 lane
# runs it; each step prints PASS or FAIL, the script exits 1 on any FAIL.
#
#   ci/package.sh [TORCH_VERSION]        (default 2.13.0)
#
# 1. builder: a fresh venv with torch. The sdist of this clone, then the
#    wheel pip builds from it with that venv's pip (what `pip install SDIST`
#    or `pip install CLONE` does: pyproject.toml, scikit-build-core, against
#    the venv's torch), installed there.
# 2. user: a second fresh venv with torch gets that wheel with CC and CXX
#    unset and no compiler on PATH: the libraries casebook links come from
#    the wheel (lib/casebook), LibTorch from the venv's torch.
# 3. In each venv, a scratch training repository (git, no CMake, no C++):
#    the README's capture example prints what the README shows; `casebook
#    run cases` fails with index_out_of_range. In the user's venv also:
#    `casebook accept` makes it pass; the report's reproduce.py raises the
#    failure as the run saw it; the README's case gives the README's counts; a LANGUAGES NONE project finds the installed CMake package from
#    the venv alone and ctest runs the case.
# 4. user: the CI templates' steps in a scratch repository, with the wheel
#    (tests/ci/templates_test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source_dir=$PWD
version=${1:-2.13.0}
base_python=${CASEBOOK_BASE_PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
# The README case's verdict on the CPU, from a run's JSON results.
verdict_of() { "$base_python" "$source_dir/ci/results.py" "$1" verdict cross_entropy/label_4 cpu; }
pass() { echo "PASS: $1"; }
fail() {
  echo "FAIL: $1"
  [ -f "${2:-}" ] && sed 's/^/    /' "$2" | tail -30
  failures=$((failures + 1))
}
pip_quiet() { "$@" -q --disable-pip-version-check 2>&1 | grep -v "is ignored" || true; }

# A venv with torch VERSION (numpy: what the capture module saves with).
new_venv() {
  "$base_python" -m venv "$1"
  pip_quiet "$1/bin/python" -m pip install "torch==$version" numpy
}

# The fenced block after `<!-- readme-sample: MARKER -->` in README.md.
readme_block() {
  awk -v tag="<!-- readme-sample: $1 -->" '
    $0 == tag { found = 1; next }
    found && /^```/ { if (inside) exit; inside = 1; next }
    found && inside { print }' README.md
}

# 1. The sdist, then the wheel built from it against the builder's torch.
new_venv "$work/builder"
pip_quiet "$work/builder/bin/python" -m pip install build
"$work/builder/bin/python" -m build --sdist --outdir "$work/dist" . >"$work/sdist.log" 2>&1 ||
  fail "sdist: python -m build --sdist" "$work/sdist.log"
sdist=$(ls "$work"/dist/torch_casebook-*.tar.gz)
start=$(date +%s)
"$work/builder/bin/python" -m pip wheel --no-deps --wheel-dir "$work/dist" "$sdist" \
  >"$work/wheel.log" 2>&1 || fail "wheel: pip wheel $(basename "$sdist")" "$work/wheel.log"
wheel=$(ls "$work"/dist/torch_casebook-*.whl)
pass "built $(basename "$wheel") from $(basename "$sdist") in $(($(date +%s) - start)) s"
pip_quiet "$work/builder/bin/python" -m pip install "$wheel"

# 2. The wheel in a venv with no compiler: PATH is the venv and a folder of
# the system's programs less every compiler and linker.
new_venv "$work/user"
mkdir "$work/no-compiler"
for program in /usr/bin/* /bin/*; do
  name=$(basename "$program")
  case "$name" in
    cc | c++ | cpp | gcc* | g++* | clang* | *-gcc* | *-g++* | *-cpp* | nvcc | hipcc* | ld | ld.* | as | x86_64-linux-gnu-*) ;;
    *) [ -e "$work/no-compiler/$name" ] || ln -s "$program" "$work/no-compiler/$name" ;;
  esac
done
without_compiler() { env -u CC -u CXX PATH="$work/user/bin:$work/no-compiler" "$@"; }
if without_compiler bash -c 'command -v cc || command -v c++ || command -v gcc' >/dev/null; then
  fail "a compiler is still on PATH"
fi
without_compiler "$work/user/bin/python" -m pip install -q --disable-pip-version-check "$wheel" \
  >"$work/user-install.log" 2>&1 || fail "user: pip install the wheel" "$work/user-install.log"
ldd "$work/user/bin/casebook" >"$work/ldd.log" 2>&1 || true
if ! grep -q "not found" "$work/ldd.log" &&
   grep -q "libyaml-cpp.* => $work/user/bin/../lib/casebook/" "$work/ldd.log" &&
   grep -q "libtorch_cpu.so => $work/user/bin/../lib/python.*/site-packages/torch/lib/" "$work/ldd.log"; then
  pass "user: yaml-cpp from the wheel, LibTorch from the venv's torch, nothing missing"
else
  fail "user: the installed casebook's libraries" "$work/ldd.log"
fi

# 3. A training repository, in each venv: the capture and the run; with
# `all`, accept, the README's case and the CMake package too.
journeys() {
  local venv=$1 run=$2 which=$3 repo="$work/$1-repo"
  mkdir -p "$repo/cases/cross_entropy"
  git -C "$repo" init -q
  readme_block capture >"$repo/train.py"
  (cd "$repo" && $run python train.py) >"$repo/train.log" 2>&1 || true
  local line missing=0
  while IFS= read -r line; do
    grep -qxF -- "$line" "$repo/train.log" || missing=1
  done < <(readme_block capture-output)
  [ "$missing" -eq 0 ] && pass "$venv: the README's capture example prints what the README shows" ||
    fail "$venv: the README's capture output" "$repo/train.log"

  local status=0
  (cd "$repo" && $run casebook run cases --json "$work/$venv-run.json") >"$repo/run.log" 2>&1 || status=$?
  [ "$status" -eq 1 ] && [ "$(verdict_of "$work/$venv-run.json")" = "FAIL index_out_of_range" ] &&
    pass "$venv: casebook run cases: FAIL index_out_of_range, exit 1" ||
    fail "$venv: casebook run cases (exit $status)" "$repo/run.log"
  [ "$which" = all ] || return 0
  status=0
  (cd "$repo" && $run casebook accept cases/cross_entropy/label_4.yaml &&
    $run casebook run cases --json "$work/$venv-accept.json") >"$repo/accept.log" 2>&1 || status=$?
  [ "$status" -eq 0 ] && [ "$(verdict_of "$work/$venv-accept.json")" = "PASS index_out_of_range" ] &&
    pass "$venv: after casebook accept, PASS, exit 0" ||
    fail "$venv: casebook accept, then run (exit $status)" "$repo/accept.log"

  # The report's reproduction ends as casebook's run did: the expected
  # IndexError, raised after the line that says it is the expected one.
  status=0
  (cd "$repo" && $run casebook report cases/cross_entropy/label_4.yaml --backend cpu \
    --bundle report && cd report && $run python reproduce.py) >"$repo/report.log" 2>&1 || status=$?
  [ "$status" -eq 1 ] && grep -q "the call raises the error the case expects" "$repo/report.log" &&
    grep -q "^IndexError: Target 4 is out of bounds" "$repo/report.log" &&
    pass "$venv: the report's reproduce.py raises the expected IndexError, as the run did" ||
    fail "$venv: casebook report, then python reproduce.py (exit $status)" "$repo/report.log"

  cp cases/cross_entropy/label_out_of_range.yaml "$repo/cases/cross_entropy/"
  (cd "$repo" && $run casebook run cases/cross_entropy/label_out_of_range.yaml) \
    >"$repo/readme-case.log" 2>&1 || true
  local counts
  counts=$(readme_block output | tail -1)
  grep -qxF -- "$counts" "$repo/readme-case.log" &&
    pass "$venv: the README's case: $counts" ||
    fail "$venv: the README's case, expected '$counts'" "$repo/readme-case.log"

  cat >"$repo/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.22)
project(my_training LANGUAGES NONE)
find_package(casebook REQUIRED)
enable_testing()
casebook_add_cases(DIRECTORY cases)
CMAKE
  status=0
  (cd "$repo" && $run cmake -S . -B build && $run ctest --test-dir build -R label_4) \
    >"$repo/cmake.log" 2>&1 || status=$?
  [ "$status" -eq 0 ] && grep -q "100% tests passed" "$repo/cmake.log" &&
    pass "$venv: find_package(casebook) from the venv alone, ctest -R label_4 passes" ||
    fail "$venv: find_package(casebook) and ctest (exit $status)" "$repo/cmake.log"
}
journeys builder "env PATH=$work/builder/bin:$PATH" capture-and-run
journeys user without_compiler all

# 4. The CI templates, in a repository of their own, with the wheel.
if tests/ci/templates_test.sh "$work/user/bin/python" "$wheel" >"$work/templates.log" 2>&1; then
  pass "the CI templates' steps, in a scratch repository"
else
  fail "the CI templates' steps (tests/ci/templates_test.sh)" "$work/templates.log"
fi

if [ "$failures" -ne 0 ]; then
  echo "ci/package.sh: $failures failed"
  exit 1
fi
echo "ci/package.sh: every step passed"
