// HIP compatibility layer for the compile-only AMD check (scripts/hip_compile_check.sh).
//
// What it covers: the plugin's CUDA sources (plugin/**/*.cu) and its .cpp files are compiled
// with hipcc for gfx90a (CDNA2, MI200), this header force-included (-include) and
// plugin/device/hip_shim/ first on the include path (cuda_runtime.h, cuda_fp16.h and the
// few cub/device/*.cuh headers the sources use, the latter implemented on rocPRIM). The
// CUDA build never sees this file: it is not included by any source, and everything below
// is inside #if defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC__).
//
// What it does not cover: nothing here has run on AMD hardware. The check proves that the
// layouts, conversions and kernels compile for gfx90a; it says nothing about their results
// or speed there. The tensor-core (mma.sync) assembly is compiled out on AMD (it sits inside
// #if __CUDA_ARCH__ >= 800, undefined under HIP) and the CUDA-core fallbacks beside it take
// its place; CDNA's matrix-core (MFMA) instructions are not used yet.
//
// Warps: every kernel of the plugin is written for 32-lane CUDA warps and indexes lanes with
// threadIdx.x & 31 and warps with threadIdx.x / 32. On CDNA a wavefront has 64 lanes, so one
// CUDA warp here is one 32-lane half of a wavefront: the shuffles run with width 32 (they
// stay inside the calling lane's half), a ballot returns the 32 bits of the calling lane's
// half, and the match/reduce intrinsics are emulated over that half. Widths up to 32 keep
// their CUDA meaning. The member masks of the *_sync intrinsics are ignored (every use in
// the plugin passes the full mask of a converged warp). __syncwarp becomes a wavefront
// barrier (lanes of a wavefront execute in lock step; the fence orders shared memory).
#pragma once

#if defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC__)

#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

#include <cstdint>
#include <type_traits>

// ---- runtime API -----------------------------------------------------------------------
#define cudaStream_t hipStream_t
#define cudaEvent_t hipEvent_t
#define cudaError_t hipError_t
#define cudaSuccess hipSuccess
#define cudaErrorMemoryAllocation hipErrorOutOfMemory
#define cudaGetLastError hipGetLastError
#define cudaGetErrorString hipGetErrorString
#define cudaGetErrorName hipGetErrorName
#define cudaGetDevice hipGetDevice
#define cudaDeviceGetAttribute hipDeviceGetAttribute
#define cudaDevAttrMultiProcessorCount hipDeviceAttributeMultiprocessorCount
#define cudaDevAttrMaxSharedMemoryPerBlockOptin hipDeviceAttributeSharedMemPerBlockOptin
#define cudaMalloc hipMalloc
#define cudaFree hipFree
#define cudaMemGetInfo hipMemGetInfo
#define cudaMemcpyAsync hipMemcpyAsync
#define cudaMemcpyDeviceToHost hipMemcpyDeviceToHost
#define cudaMemcpyHostToDevice hipMemcpyHostToDevice
#define cudaMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define cudaMemsetAsync hipMemsetAsync
#define cudaStreamSynchronize hipStreamSynchronize
#define cudaEventCreate hipEventCreate
#define cudaEventDestroy hipEventDestroy
#define cudaEventRecord hipEventRecord
#define cudaEventSynchronize hipEventSynchronize
#define cudaEventElapsedTime hipEventElapsedTime
#define cudaFuncAttributes hipFuncAttributes
#define cudaFuncAttributeMaxDynamicSharedMemorySize hipFuncAttributeMaxDynamicSharedMemorySize
#define cudaOccupancyMaxActiveBlocksPerMultiprocessor hipOccupancyMaxActiveBlocksPerMultiprocessor

// hipFuncGetAttributes / hipFuncSetAttribute take a const void*; CUDA's take any function
// pointer (a template in the runtime header). Same shape here.
template <class F>
inline hipError_t amgt_hip_func_get_attributes(hipFuncAttributes* attr, F* f)
{
   return hipFuncGetAttributes(attr, reinterpret_cast<const void*>(f));
}
template <class F>
inline hipError_t amgt_hip_func_set_attribute(F* f, hipFuncAttribute a, int v)
{
   return hipFuncSetAttribute(reinterpret_cast<const void*>(f), a, v);
}
#define cudaFuncGetAttributes amgt_hip_func_get_attributes
#define cudaFuncSetAttribute amgt_hip_func_set_attribute

// The device part below needs HIP's device compilation (hipcc -x hip); the .cpp files,
// compiled as host C++ against HIP's runtime headers, see the runtime names only.
#if defined(__HIP__)

// ---- fp16 ---------------------------------------------------------------------------------
// CUDA's __double2half (one rounding, to nearest even, from double; not via float). HIP 5.2
// has none; clang's conversion of double to _Float16 is one IEEE rounding.
__device__ __forceinline__ __half __double2half(double x)
{
   __half_raw r;
   r.data = static_cast<_Float16>(x);
   return r;
}

// ---- warp intrinsics: a CUDA warp is one 32-lane half of a 64-lane wavefront ------------
namespace amgt_hip {

constexpr int kCudaWarp = 32;

__device__ __forceinline__ int clamp_width(int w) { return w <= kCudaWarp ? w : kCudaWarp; }

// First lane (0 or 32) of the calling lane's half of the wavefront.
__device__ __forceinline__ unsigned half_base() { return __lane_id() & 32u; }

__device__ __forceinline__ unsigned ballot32(bool p)
{
   const unsigned long long b = __ballot(p);
   return static_cast<unsigned>(b >> half_base());
}

} // namespace amgt_hip

template <class T>
__device__ __forceinline__ T __shfl_sync(unsigned, T v, int src, int w = 32)
{
   return __shfl(v, src, amgt_hip::clamp_width(w));
}
template <class T>
__device__ __forceinline__ T __shfl_xor_sync(unsigned, T v, int m, int w = 32)
{
   return __shfl_xor(v, m, amgt_hip::clamp_width(w));
}
template <class T>
__device__ __forceinline__ T __shfl_up_sync(unsigned, T v, unsigned d, int w = 32)
{
   return __shfl_up(v, d, amgt_hip::clamp_width(w));
}
template <class T>
__device__ __forceinline__ T __shfl_down_sync(unsigned, T v, unsigned d, int w = 32)
{
   return __shfl_down(v, d, amgt_hip::clamp_width(w));
}

__device__ __forceinline__ unsigned __ballot_sync(unsigned, int p) { return amgt_hip::ballot32(p != 0); }

__device__ __forceinline__ void __syncwarp(unsigned = 0xffffffffu)
{
   __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
   __builtin_amdgcn_wave_barrier();
   __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}

// Lanes of the calling lane's half holding the same value: one ballot per bit of v.
template <class T>
__device__ __forceinline__ unsigned __match_any_sync(unsigned, T v)
{
   static_assert(std::is_integral<T>::value, "__match_any_sync emulation: integral types");
   using U             = typename std::make_unsigned<T>::type;
   const U  u          = static_cast<U>(v);
   unsigned same       = 0xffffffffu;
   for (int b = 0; b < static_cast<int>(8 * sizeof(U)); ++b)
   {
      const bool     bit  = (u >> b) & 1u;
      const unsigned ones = amgt_hip::ballot32(bit);
      same &= bit ? ones : ~ones;
   }
   return same;
}

// Reductions over the 32 lanes of the calling lane's half (butterfly within width 32).
__device__ __forceinline__ unsigned __reduce_or_sync(unsigned, unsigned v)
{
   for (int o = 16; o > 0; o >>= 1) v |= __shfl_xor(v, o, 32);
   return v;
}
__device__ __forceinline__ unsigned __reduce_and_sync(unsigned, unsigned v)
{
   for (int o = 16; o > 0; o >>= 1) v &= __shfl_xor(v, o, 32);
   return v;
}
__device__ __forceinline__ unsigned __reduce_max_sync(unsigned, unsigned v)
{
   for (int o = 16; o > 0; o >>= 1)
   {
      const unsigned y = __shfl_xor(v, o, 32);
      v                = y > v ? y : v;
   }
   return v;
}
__device__ __forceinline__ int __reduce_max_sync(unsigned, int v)
{
   for (int o = 16; o > 0; o >>= 1)
   {
      const int y = __shfl_xor(v, o, 32);
      v           = y > v ? y : v;
   }
   return v;
}
__device__ __forceinline__ unsigned __reduce_add_sync(unsigned, unsigned v)
{
   for (int o = 16; o > 0; o >>= 1) v += __shfl_xor(v, o, 32);
   return v;
}
__device__ __forceinline__ int __reduce_add_sync(unsigned, int v)
{
   for (int o = 16; o > 0; o >>= 1) v += __shfl_xor(v, o, 32);
   return v;
}

#endif // __HIP__

#endif // __HIP_PLATFORM_AMD__ || __HIPCC__
