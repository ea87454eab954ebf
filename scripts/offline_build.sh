#!/usr/bin/env bash
# Configures and builds on a machine without package registries (an air-gapped GPU node):
# hypre's tarball, GoogleTest's sources and, if the system lacks them, zlib's headers come
# from a local folder prepared on a connected machine (scripts/offline_bundle.sh DIR):
#   DIR/hypre_2.32.0.orig.tar.gz   DIR/googletest/ (Debian's /usr/src/googletest)
#   DIR/zlib/usr/include/zlib.h    (optional: files of Debian's zlib1g-dev)
#
#   scripts/offline_build.sh DIR BUILD_DIR [extra cmake arguments...]
# Builds for the GPU when nvcc is found (AMGT_GPU=0 forces a CPU build), with all cores.
set -eu -o pipefail
dir=$(cd "${1:?usage: offline_build.sh DIR BUILD_DIR [cmake args]}" && pwd)
build=${2:?usage: offline_build.sh DIR BUILD_DIR [cmake args]}
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)

args=(-DAMGT_HYPRE_TARBALL="$dir/hypre_2.32.0.orig.tar.gz" -DCMAKE_BUILD_TYPE=Release)
[ -f /usr/include/gtest/gtest.h ] || args+=(-DAMGT_GTEST_SOURCE_DIR="$dir/googletest")
if [ ! -f /usr/include/zlib.h ] && [ -f "$dir/zlib/usr/include/zlib.h" ]; then
  lib=$(ls /usr/lib/x86_64-linux-gnu/libz.so* /lib/x86_64-linux-gnu/libz.so* 2>/dev/null | head -1)
  args+=(-DZLIB_INCLUDE_DIR="$dir/zlib/usr/include" -DZLIB_LIBRARY="$lib")
fi
nvcc=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null || true)
if [ "${AMGT_GPU:-1}" != 0 ] && [ -n "$nvcc" ]; then
  args+=(-DAMGT_WITH_CUDA=ON -DCMAKE_CUDA_COMPILER="$nvcc" -DAMGT_CUDA_ARCHITECTURES="${AMGT_CUDA_ARCH:-90}")
fi
gen=()
command -v ninja >/dev/null && [ ! -f "$build/CMakeCache.txt" ] && gen=(-G Ninja)
cmake -S "$root" -B "$build" "${gen[@]}" "${args[@]}" "$@"
# AMGT_TARGETS="a b": build only those targets (a quicker turn on a machine held by the minute)
# shellcheck disable=SC2086
cmake --build "$build" -j "$(nproc)" ${AMGT_TARGETS:+--target $AMGT_TARGETS}
