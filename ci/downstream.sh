#!/usr/bin/env bash
# The CMake package, proven from outside: installs the casebook that the
# `cpu` preset built, then configures, builds and tests examples/downstream
# (its own kernel, its own cases) against the installed package alone. Also
# checks what the package installs for a project's case files and training
# loops: the case schema (the example's modelines name it under the default
# prefix) and the Python capture package, importable from where it lies.
# Then the package and the source tree from other projects made on the spot
# (tests/cmake/package_test.sh): LANGUAGES NONE with the executable alone,
# the lib component's errors, a version mismatch's words, FetchContent.
# Usage: ci/downstream.sh [BUILD_DIR]   (default: build/cpu)
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build/cpu}")
prefix=$build/package-install
example=$build/downstream-example
rm -rf "$prefix" "$example" "$example.configure.log"
start=$(date +%s)
cmake --install "$build" --prefix "$prefix" >/dev/null
data=$prefix/share/casebook
cmp schema/case.schema.json "$data/case.schema.json"
cmp python/casebook_capture/__init__.py "$data/python/casebook_capture/__init__.py"
test -f "$data/python/pyproject.toml"
# A training loop finds it in the installed tree, not the source tree
# (found, not imported: importing needs torch).
(cd / && PYTHONPATH="$data/python" python3 -c \
  'import importlib.util, sys; spec = importlib.util.find_spec("casebook_capture"); sys.exit(0 if spec and spec.origin.startswith(sys.argv[1]) else 1)' \
  "$data/python")
for case_file in examples/downstream/cases/*/*.yaml; do
  if ! head -n1 "$case_file" | grep -qx '# yaml-language-server: $schema=/usr/local/share/casebook/case.schema.json'; then
    echo "$case_file: the modeline must name the installed schema (share/casebook/case.schema.json)" >&2
    exit 1
  fi
done
cmake -S examples/downstream -B "$example" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" >"$example.configure.log"
grep -qx -- "-- casebook case schema: $data/case.schema.json" "$example.configure.log"
grep -qx -- "-- casebook Python capture package: $data/python" "$example.configure.log"
cmake --build "$example"
ctest --test-dir "$example" --output-on-failure
bash tests/cmake/package_test.sh "$prefix" . "$build"
echo "downstream example: installed, configured, built and tested in $(( $(date +%s) - start )) s"
