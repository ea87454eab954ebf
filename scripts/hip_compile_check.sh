#!/usr/bin/env bash
# The AMD path, built (compiled and linked, not run): the CMake HIP build
# (-DAMGT_WITH_HIP=ON -DAMGT_WITH_HYPRE=OFF, hipcc as the C++ compiler) with Debian's hipcc for
# gfx90a (CDNA2, MI200): the plugin (plugin/**/*.cu as HIP device code, rocPRIM standing in
# for CUB), the glue, the tests (unit, glue, and the GPU tests, label gpu) and
# amgt-kernel-bench on rocSPARSE, linked against libamdhip64 and librocsparse. It proves that
# the layouts, conversions and kernels compile for AMD and that the programs link; none of it
# has run on AMD hardware. The sources are the CUDA build's, unchanged: AMGT_DEVICE_HIP
# selects the HIP backend of the thin device layer (plugin/device/backend.h, warp.cuh -- a
# plugin warp is one 32-lane half of a 64-lane wavefront --, fp16.cuh, prim.cuh on rocPRIM,
# mma.cuh), the only code that names a vendor. The tensor-core instructions have no AMD form
# there yet (no MFMA); their CUDA-core form stands in. hypre is not built (Debian has no
# rocThrust or hipCUB, and hypre 2.32.0's CMake has no HIP build).
#
#   scripts/hip_compile_check.sh          # installs hipcc & co. with apt-get when missing
#   AMGT_HIP_ARCH=gfx90a AMGT_JOBS=2 HIPCC=/usr/bin/hipcc AMGT_HIP_BUILD_DIR=build-hip-compile
# Exits non-zero when the build fails (the errors are printed), or when hipcc cannot be had;
# exit status 3 means "hipcc cannot be installed here" so CI can tell it apart.
set -eu -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

arch=${AMGT_HIP_ARCH:-gfx90a}
out=${AMGT_HIP_BUILD_DIR:-build-hip-compile}
jobs=${AMGT_JOBS:-$(nproc 2>/dev/null || echo 2)}

# Debian 12's ROCm 5.2 packages (hipcc librocprim-dev libamdhip64-dev librocsparse-dev
# rocm-device-libs): hipcc (clang 15 with the AMDGPU target), the HIP runtime headers,
# rocPRIM (header-only), rocSPARSE and the device bitcode libraries.
hip_missing() {
  local need=()
  command -v "${HIPCC:-hipcc}" >/dev/null || need+=(hipcc)
  [ -f /usr/include/hip/hip_runtime.h ] || need+=(libamdhip64-dev)
  [ -f /usr/include/rocprim/rocprim.hpp ] || need+=(librocprim-dev)
  [ -f /usr/include/rocsparse/rocsparse.h ] || need+=(librocsparse-dev)
  compgen -G "/usr/lib/*/amdgcn/bitcode/ocml.bc" >/dev/null ||
    compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/amdgcn/bitcode/ocml.bc" >/dev/null ||
    need+=(rocm-device-libs)
  echo "${need[@]}"
}
missing=$(hip_missing)
if [ -n "$missing" ]; then
  amgt_log "installing the HIP toolchain: $missing"
  # shellcheck disable=SC2086
  amgt_apt_install $missing || { amgt_log "no hipcc: HIP compile check not run"; exit 3; }
fi
hipcc=${HIPCC:-$(command -v hipcc)}
# hipcc 5.2 asks rocm_agent_enumerator for the local GPUs when no architecture is given (CMake's
# compiler checks, hipcc --version); on a machine without one it prints a traceback. Point it
# at a list holding the target instead. (The build itself passes --offload-arch everywhere.)
mkdir -p "$out"
out=$(cd "$out" && pwd)
export ROCM_TARGET_LST="$out/targets.lst"
echo "$arch" > "$ROCM_TARGET_LST"
amgt_log "HIP build with $hipcc ($("$hipcc" --version 2>/dev/null | head -1)), --offload-arch=$arch"
# cmake, ninja, the compilers and libgtest-dev, as the CPU build
amgt_install_dependencies

start=$(date +%s)
# A fresh configure each time (the arch or the compiler may have changed); the objects of an
# earlier build in the same directory are reused by ninja where nothing changed.
cmake -S . -B "$out" -G Ninja -DAMGT_WITH_HIP=ON -DAMGT_WITH_HYPRE=OFF \
  -DCMAKE_CXX_COMPILER="$hipcc" -DAMGT_HIP_ARCHITECTURES="$arch" >"$out/configure.log" 2>&1 ||
  { tail -40 "$out/configure.log"; amgt_log "HIP build: configure failed"; exit 1; }
configured=$(( $(date +%s) - start ))
rc=0
cmake --build "$out" -j "$jobs" >"$out/build.log" 2>&1 || rc=$?
elapsed=$(( $(date +%s) - start ))
if [ "$rc" != 0 ]; then
  grep -E -B2 -A12 'error:|FAILED:' "$out/build.log" | head -120
  amgt_log "HIP ($arch): build failed after ${elapsed}s (log: $out/build.log)"
  exit 1
fi
nwarn=$(grep -c 'warning:' "$out/build.log" || true)
objects=$(find "$out" -name '*.o' | wc -l)
cu=$(find "$out/plugin" -name '*.cu.o' | wc -l)
amgt_log "HIP ($arch): configured in ${configured}s, built in ${elapsed}s: $cu plugin device sources of" \
  "$objects objects, $(find "$out/bin" -maxdepth 1 -type f -perm -u+x | wc -l) programs linked" \
  "(libamdhip64, librocsparse); $nwarn compiler warnings"
