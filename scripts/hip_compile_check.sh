#!/usr/bin/env bash
# Compile-only check of the AMD path: every plugin source (plugin/**/*.cu as HIP device code,
# plugin/**/*.cpp as host C++ against HIP's runtime headers) compiled with Debian's hipcc for
# gfx90a (CDNA2, MI200), rocPRIM standing in for CUB. It proves that the layouts,
# conversions and kernels compile for AMD; none of it has run on AMD hardware. The sources
# are the CUDA build's, unchanged: AMGT_DEVICE_HIP selects the HIP backend of the thin device
# layer (plugin/device/backend.h, warp.cuh -- a plugin warp is one 32-lane half of a 64-lane
# wavefront --, fp16.cuh, prim.cuh on rocPRIM, mma.cuh), the only code that names a vendor.
# The tensor-core instructions have no AMD form there yet; their CUDA-core form stands in.
#
#   scripts/hip_compile_check.sh          # installs hipcc & co. with apt-get when missing
#   AMGT_HIP_ARCH=gfx90a AMGT_JOBS=2 HIPCC=/usr/bin/hipcc  (defaults)
# Exits non-zero when a source does not compile (its log is printed), or when hipcc cannot
# be had; exit status 3 means "hipcc cannot be installed here" so CI can tell it apart.
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
amgt_log "HIP compile check with $hipcc ($("$hipcc" --version 2>/dev/null | head -1)), --offload-arch=$arch"

rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
# The flags of the CUDA build's plugin target, as far as they mean anything to hipcc (no
# paths with spaces: the list travels to the parallel jobs as one string).
export HIP_CHECK_FLAGS="-std=c++17 -O2 -Wall -Iplugin -DAMGT_DEVICE_HIP
  -DAMGT_HAVE_DEVICE_RUNTIME -DAMGT_WITH_DEVICE_KERNELS"
# hipcc 5.2 asks rocm_agent_enumerator for the local GPUs even when an architecture is
# given; on a machine without one it prints a traceback. Point it at a no-op.
export ROCM_TARGET_LST="$out/targets.lst"
echo "$arch" > "$ROCM_TARGET_LST"

compile_one() {
  local src=$1 obj log
  obj="$out/$(echo "$src" | tr / _).o"
  log="${obj%.o}.log"
  case "$src" in
    *.cu) set -- -x hip --offload-arch="$arch" ;;
    *) set -- -x c++ ;;
  esac
  # shellcheck disable=SC2086
  if "$hipcc" "$@" $HIP_CHECK_FLAGS -c "$src" -o "$obj" >"$log" 2>&1; then
    echo "ok     $src"
  else
    echo "FAILED $src"
  fi
}
export -f compile_one
export hipcc arch out

mapfile -t sources < <(find plugin -name '*.cu' -o -name '*.cpp' | sort)
start=$(date +%s)
# shellcheck disable=SC2016
results=$(printf '%s\n' "${sources[@]}" |
  xargs -P "$jobs" -I{} bash -c 'compile_one "$1"' _ {})
echo "$results" | sort -k2
elapsed=$(( $(date +%s) - start ))
nfail=$(echo "$results" | grep -c '^FAILED' || true)
for f in $(echo "$results" | awk '/^FAILED/ {print $2}'); do
  echo "---- $f"
  head -40 "$out/$(echo "$f" | tr / _).log"
done
amgt_log "HIP ($arch): $(( ${#sources[@]} - nfail )) of ${#sources[@]} plugin sources compiled in ${elapsed}s"
[ "$nfail" = 0 ]
