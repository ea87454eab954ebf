// Cooperative helpers of a "group" of threads working on one row: a warp (G == 32) or a whole
// thread block (G == blockDim.x). Shared by the kernels that keep a row's tiles in shared
// memory (SpGEMM's symbolic phase, the hashed CSR->mBSR conversion). Built on the device
// layer's warp primitives (device/warp.cuh), so the same code serves CUDA and HIP.
#pragma once

#include "common/hash.h"
#include "device/warp.cuh"

#include <climits>
#include <cstdint>

namespace amgt::device::group {

constexpr unsigned kFullMask = device::kAllLanes;
constexpr int      kWarpSize = device::kWarpSize; // the plugin's warp (device/warp.cuh)

__device__ __forceinline__ int lane_id()
{
   return static_cast<int>(threadIdx.x) & (kWarpSize - 1);
}

__device__ __forceinline__ int warp_inclusive_scan(int x)
{
   const int lane = lane_id();
#pragma unroll
   for (int o = 1; o < kWarpSize; o <<= 1)
   {
      const int y = device::shfl_up(x, o);
      if (lane >= o) x += y;
   }
   return x;
}

// The reductions below (min, sum) in one form: Op combines two partial results.
struct MinOp
{
   __device__ __forceinline__ int operator()(int a, int b) const { return min(a, b); }
};
struct SumOp
{
   __device__ __forceinline__ int operator()(int a, int b) const { return a + b; }
};

template <class Op>
__device__ __forceinline__ int warp_reduce(int x, Op op)
{
#pragma unroll
   for (int o = kWarpSize / 2; o > 0; o >>= 1) x = op(x, device::shfl_xor(x, o));
   return x;
}

__device__ __forceinline__ int warp_min(int x) { return warp_reduce(x, MinOp{}); }
__device__ __forceinline__ int warp_sum(int x) { return warp_reduce(x, SumOp{}); }

// Block-wide helpers: every thread of the block calls them; `red` is 32 ints of shared memory.
// All end with a barrier, so `red` can be reused right away. identity: Op's neutral value,
// which the lanes past the block's last warp contribute.
template <class Op>
__device__ inline int block_reduce(int v, int* red, int identity, Op op)
{
   const int lane = lane_id(), warp = static_cast<int>(threadIdx.x) / kWarpSize;
   const int nwarps = static_cast<int>(blockDim.x) / kWarpSize;
   v = warp_reduce(v, op);
   if (lane == 0) red[warp] = v;
   __syncthreads();
   int r = lane < nwarps ? red[lane] : identity;
   r     = warp_reduce(r, op);
   __syncthreads();
   return r;
}

__device__ inline int block_min(int v, int* red) { return block_reduce(v, red, INT_MAX, MinOp{}); }
__device__ inline int block_sum(int v, int* red) { return block_reduce(v, red, 0, SumOp{}); }

__device__ inline int block_exclusive_scan(int v, int* red, int& total)
{
   const int lane = lane_id(), warp = static_cast<int>(threadIdx.x) / kWarpSize;
   const int nwarps = static_cast<int>(blockDim.x) / kWarpSize;
   const int x      = warp_inclusive_scan(v);
   if (lane == kWarpSize - 1) red[warp] = x;
   __syncthreads();
   const int w      = lane < nwarps ? red[lane] : 0;
   const int w_incl = warp_inclusive_scan(w);
   const int before = device::shfl(w_incl - w, warp); // exclusive prefix of my warp
   total            = device::shfl(w_incl, nwarps - 1);
   __syncthreads();
   return before + x - v;
}

template <int G>
__device__ __forceinline__ void sync()
{
   if constexpr (G == kWarpSize) device::sync_warp();
   else __syncthreads();
}

// Exclusive prefix sum over the group; total = the group's sum. Every thread calls it.
template <int G>
__device__ __forceinline__ int exclusive_scan(int v, int* red, int& total)
{
   if constexpr (G == kWarpSize)
   {
      const int x = warp_inclusive_scan(v);
      total       = device::shfl(x, kWarpSize - 1);
      return x - v;
   }
   else { return block_exclusive_scan(v, red, total); }
}

template <int G>
__device__ __forceinline__ int sum(int v, int* red)
{
   if constexpr (G == kWarpSize) return warp_sum(v);
   else return block_sum(v, red);
}

// Slot of a key in a table of 2^kLog2T slots (common/hash.h).
template <int kLog2T>
__device__ __forceinline__ uint32_t hash_slot(int32_t key)
{
   return fibonacci_slot(key, kLog2T);
}

// Ascending bitonic sort of a[0, P), P a power of two, by the G threads of a group (ends with
// a group barrier).
template <int G>
__device__ void bitonic_sort(unsigned long long* a, int P, int t)
{
   for (int k = 2; k <= P; k <<= 1)
   {
      for (int j = k >> 1; j > 0; j >>= 1)
      {
         for (int i = t; i < P; i += G)
         {
            const int ixj = i ^ j;
            if (ixj > i)
            {
               const unsigned long long x = a[i], y = a[ixj];
               const bool               up = (i & k) == 0;
               if ((x > y) == up)
               {
                  a[i]   = y;
                  a[ixj] = x;
               }
            }
         }
         sync<G>();
      }
   }
}

} // namespace amgt::device::group
