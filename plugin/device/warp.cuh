// Warp primitives of the thin device layer: the only device code that names a vendor's
// warp intrinsics. Kernels call these.
//
// The plugin's warp is kWarpSize = 32 lanes in every build, a compile-time constant the
// kernels' index arithmetic is written against (lane = threadIdx.x & (kWarpSize - 1), warp =
// threadIdx.x / kWarpSize, lane masks of type LaneMask with one bit per lane):
//   - CUDA: one hardware warp. Every function is the vendor intrinsic with the same
//     arguments (member mask, width), so the generated code is what the kernels had when
//     they called the intrinsics directly.
//   - HIP on CDNA (64-lane wavefronts, kWavefrontSize = 64): one plugin warp is one 32-lane
//     half of a wavefront. Shuffles run with width <= 32, so they stay inside the caller's
//     half; a ballot returns the 32 bits of the caller's half; match and reductions are
//     computed over that half. Member masks are not needed there (a wavefront's lanes run in
//     lock step) and are ignored. sync_warp is a wavefront barrier with a shared-memory fence.
// Widths below 32 (groups of 2..16 lanes) keep their CUDA meaning on both. Bit intrinsics
// (__popc, __ffs, __clzll), __ldg, the atomics and __syncthreads have the same names and
// meaning under HIP and are called directly.
//
// Why 32 and not the wavefront: the tile kernels' layouts are built on 32 (a warp holds
// two 4x4 tiles' 16 entries each, the mma fragments of 32 lanes, 32-bit ballots over a
// warp's tiles); on CDNA two plugin warps fill a wavefront, so no lane idles. The block sizes
// of the launches are multiples of 64, so a wavefront never straddles two thread blocks.
#pragma once

#include "device/backend.h"

#include <cstdint>
#include <type_traits>

namespace amgt::device {

using LaneMask                 = uint32_t;
constexpr int      kWarpSize   = 32;
constexpr LaneMask kAllLanes   = 0xffffffffu;
#if defined(AMGT_DEVICE_HIP)
constexpr int kWavefrontSize = 64; // CDNA (gfx90a); RDNA's wave32 is not a target
#else
constexpr int kWavefrontSize = 32;
#endif
static_assert(kWavefrontSize % kWarpSize == 0, "a plugin warp is a whole part of a wavefront");

#if defined(AMGT_DEVICE_HIP)

namespace hip_detail {
__device__ __forceinline__ int      clamp_width(int w) { return w <= kWarpSize ? w : kWarpSize; }
// First lane (0 or 32) of the caller's half of the wavefront.
__device__ __forceinline__ unsigned half_base() { return __lane_id() & 32u; }
} // namespace hip_detail

template <class T>
__device__ __forceinline__ T shfl(T v, int src, int width = kWarpSize, LaneMask = kAllLanes)
{
   return __shfl(v, src, hip_detail::clamp_width(width));
}
template <class T>
__device__ __forceinline__ T shfl_xor(T v, int lane_mask, int width = kWarpSize, LaneMask = kAllLanes)
{
   return __shfl_xor(v, lane_mask, hip_detail::clamp_width(width));
}
template <class T>
__device__ __forceinline__ T shfl_up(T v, unsigned delta, int width = kWarpSize, LaneMask = kAllLanes)
{
   return __shfl_up(v, delta, hip_detail::clamp_width(width));
}
template <class T>
__device__ __forceinline__ T shfl_down(T v, unsigned delta, int width = kWarpSize, LaneMask = kAllLanes)
{
   return __shfl_down(v, delta, hip_detail::clamp_width(width));
}
__device__ __forceinline__ LaneMask ballot(bool p, LaneMask = kAllLanes)
{
   const unsigned long long b = __ballot(p);
   return static_cast<LaneMask>(b >> hip_detail::half_base());
}
__device__ __forceinline__ void sync_warp(LaneMask = kAllLanes)
{
   __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
   __builtin_amdgcn_wave_barrier();
   __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}
// Lanes of the caller's warp holding the same value: one ballot per bit of v.
template <class T>
__device__ __forceinline__ LaneMask match_any(T v, LaneMask = kAllLanes)
{
   static_assert(std::is_integral<T>::value, "match_any: integral types");
   using U      = typename std::make_unsigned<T>::type;
   const U  u   = static_cast<U>(v);
   LaneMask same = kAllLanes;
   for (int b = 0; b < static_cast<int>(8 * sizeof(U)); ++b)
   {
      const bool     bit  = (u >> b) & 1u;
      const LaneMask ones = ballot(bit);
      same &= bit ? ones : ~ones;
   }
   return same;
}
// Reductions over the caller's 32-lane warp (butterfly within width 32).
template <class T, class Op>
__device__ __forceinline__ T hip_warp_reduce(T v, Op op)
{
   for (int o = kWarpSize / 2; o > 0; o >>= 1) v = op(v, __shfl_xor(v, o, kWarpSize));
   return v;
}
__device__ __forceinline__ unsigned reduce_or(unsigned v, LaneMask = kAllLanes)
{
   return hip_warp_reduce(v, [](unsigned a, unsigned b) { return a | b; });
}
__device__ __forceinline__ unsigned reduce_and(unsigned v, LaneMask = kAllLanes)
{
   return hip_warp_reduce(v, [](unsigned a, unsigned b) { return a & b; });
}
__device__ __forceinline__ unsigned reduce_max(unsigned v, LaneMask = kAllLanes)
{
   return hip_warp_reduce(v, [](unsigned a, unsigned b) { return a > b ? a : b; });
}
__device__ __forceinline__ int reduce_max(int v, LaneMask = kAllLanes)
{
   return hip_warp_reduce(v, [](int a, int b) { return a > b ? a : b; });
}
__device__ __forceinline__ unsigned reduce_add(unsigned v, LaneMask = kAllLanes)
{
   return hip_warp_reduce(v, [](unsigned a, unsigned b) { return a + b; });
}
__device__ __forceinline__ int reduce_add(int v, LaneMask = kAllLanes)
{
   return hip_warp_reduce(v, [](int a, int b) { return a + b; });
}

// Asks for the line holding p in the cache nearest the lane (a hint; none on this backend).
__device__ __forceinline__ void prefetch_l1(const void*) {}

#else // CUDA

template <class T>
__device__ __forceinline__ T shfl(T v, int src, int width = kWarpSize, LaneMask m = kAllLanes)
{
   return __shfl_sync(m, v, src, width);
}
template <class T>
__device__ __forceinline__ T shfl_xor(T v, int lane_mask, int width = kWarpSize, LaneMask m = kAllLanes)
{
   return __shfl_xor_sync(m, v, lane_mask, width);
}
template <class T>
__device__ __forceinline__ T shfl_up(T v, unsigned delta, int width = kWarpSize, LaneMask m = kAllLanes)
{
   return __shfl_up_sync(m, v, delta, width);
}
template <class T>
__device__ __forceinline__ T shfl_down(T v, unsigned delta, int width = kWarpSize, LaneMask m = kAllLanes)
{
   return __shfl_down_sync(m, v, delta, width);
}
__device__ __forceinline__ LaneMask ballot(bool p, LaneMask m = kAllLanes) { return __ballot_sync(m, p); }
__device__ __forceinline__ void     sync_warp(LaneMask m = kAllLanes) { __syncwarp(m); }
template <class T>
__device__ __forceinline__ LaneMask match_any(T v, LaneMask m = kAllLanes)
{
   return __match_any_sync(m, v);
}
__device__ __forceinline__ unsigned reduce_or(unsigned v, LaneMask m = kAllLanes) { return __reduce_or_sync(m, v); }
__device__ __forceinline__ unsigned reduce_and(unsigned v, LaneMask m = kAllLanes) { return __reduce_and_sync(m, v); }
__device__ __forceinline__ unsigned reduce_max(unsigned v, LaneMask m = kAllLanes) { return __reduce_max_sync(m, v); }
__device__ __forceinline__ int      reduce_max(int v, LaneMask m = kAllLanes) { return __reduce_max_sync(m, v); }
__device__ __forceinline__ unsigned reduce_add(unsigned v, LaneMask m = kAllLanes) { return __reduce_add_sync(m, v); }
__device__ __forceinline__ int      reduce_add(int v, LaneMask m = kAllLanes) { return __reduce_add_sync(m, v); }

// Asks for the 128-byte line holding p in this SM's L1 (a hint: nothing is returned).
__device__ __forceinline__ void prefetch_l1(const void* p) { asm volatile("prefetch.global.L1 [%0];" ::"l"(p)); }

#endif // vendor

// The caller's group of G consecutive lanes (G a power of two up to kWarpSize) as the member
// mask of the group's shuffles (ignored where masks are: HIP).
template <int G>
__device__ __forceinline__ LaneMask group_lanes()
{
   static_assert(G >= 1 && G <= kWarpSize && (G & (G - 1)) == 0, "a group is a power of two up to a warp");
   return (kAllLanes >> (kWarpSize - G)) << ((threadIdx.x & (kWarpSize - 1)) & ~(G - 1));
}

// A thread a row (the thread kernels of the row sums, strength counts and F-F weights): the
// calling thread's lane in the warp and its row of nrows; a thread past the last row is not
// active (row 0) and still meets its warp's shuffles and ballots.
struct ThreadRow
{
   int     lane;
   bool    active;
   int32_t row;
};

__device__ __forceinline__ ThreadRow thread_row(int32_t nrows)
{
   const int64_t t      = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   const int     lane   = static_cast<int>(threadIdx.x & (kWarpSize - 1));
   const bool    active = t < nrows;
   return {lane, active, active ? static_cast<int32_t>(t) : 0};
}

// The sum of W = G * V values in the order of a W-lane butterfly (lane L adds lane L ^ d for
// d = W/2 .. 1; lane 0's result is also that of a shfl_down tree), held by a group of G lanes,
// lane l holding the values of the butterfly's lanes l + G*j in v[j]: the distances d >= G add
// within the lane, the smaller ones shuffle within the group. Every lane of the group gets the
// sum. So a group of G lanes reproduces, bit for bit, the sums of a kernel that gives a row a
// whole warp of W lanes (hypre's warp_reduce_sum / warp_allreduce_sum).
template <int G, int V>
__device__ __forceinline__ double tree_sum(double (&v)[V], LaneMask group)
{
   static_assert(V >= 1 && (V & (V - 1)) == 0, "values a lane: a power of two");
#pragma unroll
   for (int d = V / 2; d > 0; d >>= 1)
   {
      double next[V];
#pragma unroll
      for (int j = 0; j < V; ++j) next[j] = v[j] + v[j ^ d];
#pragma unroll
      for (int j = 0; j < V; ++j) v[j] = next[j];
   }
   double x = v[0];
#pragma unroll
   for (int d = G / 2; d > 0; d >>= 1) x = x + shfl_xor(x, d, G, group);
   return x;
}

} // namespace amgt::device
