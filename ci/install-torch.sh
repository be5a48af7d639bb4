#!/usr/bin/env bash
# Installs PyTorch VERSION from PyPI into a virtual environment of its own and
# prints that environment's python, for CASEBOOK_PYTHON:
#   CASEBOOK_PYTHON=$(ci/install-torch.sh 2.13.0) cmake --preset torch
# Idempotent: an environment that already imports torch VERSION is reused.
# The environments live outside the clone (CASEBOOK_VENV_DIR, default
# ~/.cache/casebook/venvs): LibTorch's include paths must not lie under the
# source tree (CMake refuses to export such paths), and a CUDA build is
# about 5.5 GB, worth keeping between clones.
set -euo pipefail
version=${1:?usage: ci/install-torch.sh VERSION (e.g. 2.13.0 or 2.14.1)}
root=${CASEBOOK_VENV_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/casebook/venvs}
venv="$root/torch-$version"
python=${CASEBOOK_BASE_PYTHON:-python3}
have() {
  [ -x "$venv/bin/python" ] &&
    "$venv/bin/python" -c "import sys, torch; sys.exit(torch.__version__.split('+')[0] != '$version')" \
      2>/dev/null
}
if ! have; then
  echo "installing torch==$version into $venv" >&2
  rm -rf "$venv"
  mkdir -p "$root"
  "$python" -m venv "$venv"
  # numpy and pyyaml: the Python capture module's tests (tests/python).
  # setuptools: to install python/ offline (Python 3.12 venvs have none).
  "$venv/bin/python" -m pip install -q --disable-pip-version-check \
    "torch==$version" numpy pyyaml setuptools >&2
  have || { echo "torch $version did not install into $venv" >&2; exit 1; }
fi
# The Python capture package (python/ of this clone), offline, each time (so
# that it is this clone's): what the README's example imports. From a copy:
# pip's build must not leave build/ or *.egg-info in the source.
package=$(mktemp -d)
trap 'rm -rf "$package"' EXIT
cp -r "$(dirname "$0")/../python" "$package/python"
"$venv/bin/python" -m pip install -q --disable-pip-version-check \
  --no-build-isolation --no-index "$package/python" >&2
echo "$venv/bin/python"
