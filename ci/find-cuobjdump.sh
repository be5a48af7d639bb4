#!/usr/bin/env bash
# Prints the path of a cuobjdump, or fails: on PATH, in $CUDA_HOME/bin or
# /usr/local/cuda/bin, else the one a CUDA torch wheel brings with its triton
# (or an nvidia-cuda-cuobjdump wheel) in CASEBOOK_PYTHON's site-packages: a
# toolkit of nvcc alone, as on this project's CI machines, has none.
set -euo pipefail
for candidate in "$(command -v cuobjdump || true)" "${CUDA_HOME:+$CUDA_HOME/bin/cuobjdump}" \
                 /usr/local/cuda/bin/cuobjdump; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then echo "$candidate"; exit 0; fi
done
python=${CASEBOOK_PYTHON:-python3}
site=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2>/dev/null) || site=""
for candidate in "$site"/nvidia/cu*/bin/cuobjdump "$site"/triton/backends/nvidia/bin/cuobjdump; do
  if [ -x "$candidate" ]; then echo "$candidate"; exit 0; fi
done
echo "no cuobjdump: not on PATH, in CUDA_HOME or /usr/local/cuda, nor in $python's packages" >&2
exit 1
