# Sourced by ci/check-style.sh and ci/check-tidy.sh: the style tools at one
# pinned version each, since their output differs between versions.
#
#   pinned_tool PACKAGE VERSION    prints the path of PACKAGE's command
#
# Each lives in a virtual environment of its own outside the clone
# (CASEBOOK_VENV_DIR, default ~/.cache/casebook/venvs, as
# ci/install-torch.sh), installed from PyPI the first time it is asked for.
pinned_tool() {
  local package=$1 version=$2
  local root=${CASEBOOK_VENV_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/casebook/venvs}
  local venv="$root/style-$package-$version"
  if ! "$venv/bin/$package" --version 2>/dev/null | grep -qF " $version"; then
    echo "installing $package==$version into $venv" >&2
    rm -rf "$venv"
    mkdir -p "$root"
    "${CASEBOOK_BASE_PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check \
      "$package==$version" >&2
  fi
  echo "$venv/bin/$package"
}
