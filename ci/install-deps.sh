#!/usr/bin/env bash
# Installs what casebook builds against on Debian 12, where it is missing.
# Idempotent; needs root (or sudo) the first time only. Arguments name
# further packages a caller needs (bench/run.sh: the peer's pytest).
set -euo pipefail
packages=(cmake ninja-build g++ git libtorch-dev libyaml-cpp-dev libgtest-dev
          libgmock-dev libcli11-dev nlohmann-json3-dev libssl-dev
          hipcc libxml2-utils python3-yaml
          python3-jsonschema pkg-config libre2-dev python3-numpy clang
          libclang-rt-14-dev python3-torch python3-venv python3-setuptools
          python3-wheel ccache "$@")
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" ||
    missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
fi
