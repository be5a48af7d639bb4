# Sourced by ci/test.sh and ci/run-cases.sh (after ci/install-deps.sh, which
# installs ccache): compiles go through ccache, so that the lanes of one run
# compile each unit they share once (casebook_core and the kernels need no
# LibTorch, so debian, torch-2.13 and cuda-2.14 build them alike), and so
# that both README commands configure build/ alike: the launcher is part of
# every compile command, and a build folder configured without it would be
# compiled again with it. The cache lives in build/ccache unless the caller
# has one (CCACHE_DIR) or a launcher of their own (CMAKE_CXX_COMPILER_LAUNCHER).
if command -v ccache >/dev/null && [ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_CUDA_COMPILER_LAUNCHER=ccache
  export CCACHE_DIR=${CCACHE_DIR:-$PWD/build/ccache} CCACHE_BASEDIR=$PWD
  export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-4G}
fi
