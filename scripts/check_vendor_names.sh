#!/usr/bin/env bash
# Checks that no source outside the device layer names a GPU vendor's API: the CUDA and HIP
# runtimes (cudaXxx, hipXxx), their headers (<cuda_runtime.h>, <hip/...>, <cub/...>,
# <rocprim/...>, ...), warp intrinsics (__shfl_sync, __syncwarp, ...), CUB/rocPRIM/Thrust
# namespaces, compiler macros (__CUDACC__, __CUDA_ARCH__, __HIP_PLATFORM_*), fp16 types
# (__half) and the sparse libraries (cusparseXxx, CUSPARSE_*, rocsparse_*, ...).
#
#   scripts/check_vendor_names.sh     # exit 0: clean; 1: the offending lines are printed
#
# Scanned: the C/C++/CUDA sources of plugin/, hypre_glue/, tests/, bench/ and fuzz/, code
# only (// comments and lines of /* */ blocks that start with * are skipped; a name in a
# string literal counts). Allowed:
#   plugin/device/**                         the device layer, the one place that names a vendor
#   bench/kernels/vendor_sparse_*.cpp        the vendor sparse libraries behind vendor_sparse.h
#                                            (library names, headers and data-type constants;
#                                            the runtime still only through the device layer)
#   plugin/common/config.h                   the host/device annotation (AMGT_HD) keys on the
#                                            compilers' __CUDACC__ / __HIPCC__
# Kernel-path names such as cuda_core or cuda_core_entries are not vendor API (lower case
# after "cuda", so the runtime pattern does not match them). No build needed; runs in CI.
set -eu -o pipefail
cd "$(dirname "$0")/.."

runtime='\b(cuda|hip|nvrtc)[A-Z][A-Za-z0-9_]*|\bcu[A-Z][a-z][A-Za-z0-9_]*'
headers='#[[:space:]]*include[[:space:]]*[<"](cuda[a-z0-9_]*\.h|cuda/|cusparse|cublas|cub/|hipcub/|thrust/|hip/|rocprim/|rocsparse|rocblas|mma\.h|cooperative_groups|nvtx|crt/|sm_[0-9]+)'
intrinsics='\b__[a-z_]+_sync\b|\b__syncwarp\b|\b__shfl[a-z_]*|\b__ballot[a-z_]*|\b__activemask\b|\b__match_[a-z_]+|\b(cub|hipcub|rocprim|thrust|nvcuda)::|\b__half2?\b|\b__nv_[a-z0-9_]+|\b__hip_[a-z0-9_]+'
macros='\b__CUDACC__\b|\b__CUDA_ARCH__\b|\b__HIPCC__\b|\b__HIP__\b|\b__HIP_PLATFORM_[A-Z_]+|\b__HIP_DEVICE_COMPILE__\b'
libraries='\b(cusparse|rocsparse|hipsparse|cublas|rocblas)[A-Za-z0-9_]*|\b(CUSPARSE|ROCSPARSE|HIPSPARSE|CUBLAS)_[A-Z0-9_]+|\bCUDA_[RC]_[0-9A-Z_]+'

code_only() { sed -E 's#//.*$##' "$1" | grep -nE "$2" | grep -vE '^[0-9]+:[[:space:]]*(\*|/\*)' || true; }

found=0
report() { # file, matches
  [ -n "$2" ] || return 0
  found=1
  while IFS= read -r line; do echo "$1:$line"; done <<<"$2"
}

while IFS= read -r f; do
  case "$f" in
    plugin/device/*) continue ;;
    bench/kernels/vendor_sparse_*.cpp) pattern="$runtime|$intrinsics|$macros" ;;
    plugin/common/config.h) pattern="$runtime|$headers|$intrinsics|$libraries" ;;
    *) pattern="$runtime|$headers|$intrinsics|$macros|$libraries" ;;
  esac
  report "$f" "$(code_only "$f" "$pattern")"
done < <(find plugin hypre_glue tests bench fuzz -type f \
           \( -name '*.h' -o -name '*.hpp' -o -name '*.cuh' -o -name '*.cu' -o -name '*.cpp' \
              -o -name '*.cc' -o -name '*.c' \) 2>/dev/null | sort)

# The vendor-library files may name their library but reach the runtime only through the
# device layer (checked above); they must not name the other vendor's library either.
report bench/kernels/vendor_sparse_cusparse.cpp \
  "$(code_only bench/kernels/vendor_sparse_cusparse.cpp '\b(rocsparse|hipsparse)[a-z_]*|#[[:space:]]*include[[:space:]]*<(hip|rocsparse)')"
report bench/kernels/vendor_sparse_rocsparse.cpp \
  "$(code_only bench/kernels/vendor_sparse_rocsparse.cpp '\bcusparse[A-Za-z_]*|\bCUSPARSE_|#[[:space:]]*include[[:space:]]*<cusparse')"

if [ "$found" != 0 ]; then
  echo "check_vendor_names: vendor API named outside plugin/device (see the lines above);" \
       "reach it through the device layer (plugin/device/backend.h, warp.cuh, fp16.cuh," \
       "prim.cuh, mma.cuh) or bench/kernels/vendor_sparse.h" >&2
  exit 1
fi
echo "check_vendor_names: no vendor API named outside plugin/device and the bench's vendor_sparse_*.cpp"
