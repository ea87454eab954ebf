// The SpMV's tensor-core kernels (the solve phase of the tensor_core path; spmv_device.cu
// starts them). They read the dense layout (blk_val) of A.
//
// tensor_core (fp64): mma.sync.m8n8k4.f64 with one block row per half warp. A warp owns
// 2*kTensorPairs consecutive block rows as pairs; for a pair (rows b, b+1) and step i:
//   A (8x4, row-major): rows 0-3 = tile i of block row b, rows 4-7 = tile i of block row b+1.
//       Lane l holds A[l/4][l%4], i.e. element l%16 of its half's tile: blk_val[16t + l%16],
//       one coalesced 128-byte load per half warp.
//   B (4x8, col-major): columns 0-3 = x piece of b's tile, columns 4-7 = that of b+1's, each
//       repeated. Lane l holds B[l%4][l/4] = x[4*col(t) + l%4] of its half's tile (0 past
//       ncols).
//   D (8x8): lane l holds D[l/4][2*(l%4)] and D[l/4][2*(l%4)+1]. Only the diagonal 4x4 blocks
//       are useful (each row's tiles times their own x pieces) and their 4 columns are equal:
//       D[r][0] (lane 4r, first register) accumulates tile row r of b, D[4+r][4] (lane 4r+18,
//       first register) tile row r of b+1. Those 8 lanes write y; the rest is discarded.
//   The shorter row of a pair is padded with zero tiles (zeros in A and B add exact zeros).
//   The dense blk_val is read as is (zeros where the bitmap is clear). Consequence: an Inf or
//   NaN in x reaches every row of a tile, not only the rows with an entry in that column
//   (0 * Inf = NaN); for finite x the result equals the CUDA-core paths' up to summation
//   order. Without sm_80 the same fragments are multiplied on CUDA cores through shuffles
//   (mma_8x8x4). fp32: no tensor-core instruction computes its contract (tf32 inputs only),
//   so a tensor_core plan for fp32 is built as cuda_core and says so.
//
// tensor_core (fp16): mma.sync.m16n8k16.row.col.f32.f16.f16.f32, one warp per 4 consecutive
// block rows g = 0..3; step i takes tiles 4i..4i+3 of each block row (zero tiles past a
// row's end, so rows of any length, empty ones included, share the warp's step count):
//   A (16x16, row): rows 4g..4g+3 = the 4 tiles of block row g side by side (A[4g+r][4q+c] =
//       tile 4i+q, entry (r,c)). PTX layout: lane l (grp = l/4, tig = l%4) holds rows grp and
//       grp+8, columns 2tig,2tig+1 and 2tig+8,2tig+9, i.e. tile row grp%4 of block rows grp/4
//       and 2+grp/4, tiles q = tig/2 and 2+tig/2, tile columns 2(tig%2)+{0,1}: each register is
//       one aligned 4-byte load of two adjacent halves of the dense blk_val (zeros where the
//       bitmap is clear).
//   B (16x8, col): column g (< 4) = x of those 16 tile columns of block row g (0 past ncols);
//       columns 4..7 zero. Lane l holds column grp, rows 2tig,2tig+1, 2tig+8,2tig+9.
//   D (16x8, f32, C = 0): D[4g+r][g] is row r of block row g for this step; it sits in lane
//       4(4g+r)%32 + (g>=2), register 2(g>=2) + (g%2). The other 112 entries are discarded.
//   Scaling: x is double in memory and may be far below half's range (task of precision.h).
//   The 16 x values of column g (lanes 4g..4g+3, max via 2 xor shuffles, m = max |x_j u_j|)
//   are multiplied by 2^e, e = 10 - ilogb(m), before __double2half; the partial sum
//   D[4g+r][g] is multiplied back by 2^-e (ldexpf) and added to an fp32 register with
//   __fadd_rn. Each column has its own e because D's column g only ever meets B's column g.
//   Rounding, against the contract (x in double, one double FMA per entry):
//     x~_j = half(x_j 2^e) 2^-e: |x~_j - x_j| <= 2^-11 |x_j| + 2^-35 m (relative 2^-11 down
//       to 2^-24 m, then half's subnormals; zero below ~2^-35 m), not float's 2^-24;
//     products exact inside the mma (11 x 11 bits); the 16 products of a row of one step are
//       summed in fp32 by the tensor core in an order and with a rounding PTX does not
//       specify (assumed: at most one fp32 ulp, 2^-23, per addition); then one RNE add per
//       step. The back-scaling is exact unless the float result is subnormal.
//   So it matches spmv_ref bit for bit only where every partial sum is exact (small
//   integers: x_j 2^e is then an integer < 2^11, products and sums integers < 2^24), and is
//   tested within the bound of tests/common/tolerances.h (spmv_tensor_fp16_tolerance)
//   otherwise. Inf/NaN in x spread within a tile's rows as in the fp64 tensor path.
//   Without sm_80 the same fragments are multiplied on CUDA cores through shuffles.
#pragma once

#include "spmv/spmv_common.cuh"
#include "device/warp.cuh"

#include "device/launch.h"

#include "device/mma.cuh"

#include <cstdint>

namespace amgt::device::spmv_detail {

constexpr int kTensorPairs     = 2; // tensor_core: block-row pairs per warp (measured: 1, 2, 4)
constexpr int kTensorHalfSteps = 2; // fp16 tensor_core: mma steps in flight per warp (not timed)

// D = A * B + D for one 8x8x4 fp64 fragment (layouts in the notes at the top; the
// instruction, or its CUDA-core form where there is none, is device/mma.cuh's).
__device__ inline void mma_8x8x4(double& d0, double& d1, double a, double b)
{
   const double c0 = d0, c1 = d1;
   mma_m8n8k4_f64(a, b, c0, c1, d0, d1);
}

// tensor_core (fp64): a warp owns 2R consecutive block rows as R pairs; pair p is one mma
// chain (lanes 0-15: block row 2p, lanes 16-31: block row 2p+1), U tiles of each row per step.
template <int R, int U, bool Unscale>
__global__ void __launch_bounds__(kThreads)
spmv_tensor_kernel(const int32_t* __restrict__ blk_ptr, const int32_t* __restrict__ blk_col,
                   const double* __restrict__ blk_val, int32_t block_rows, int32_t nrows,
                   int32_t ncols, double alpha, const double* __restrict__ x,
                   const double* __restrict__ us, double beta, const double* yb, double* y)
{
   const int64_t first = ((blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) >> 5) * (2 * R);
   if (first >= block_rows) return; // whole warp: mma.sync below needs all 32 lanes
   const int lane = static_cast<int>(threadIdx.x & 31);
   const int k    = lane & 3; // B row = column inside the tile
   int32_t   start[R], len[R], steps[R];
   int32_t   most = 0;
#pragma unroll
   for (int p = 0; p < R; ++p)
   {
      const int64_t b = first + 2 * p + (lane >> 4);
      start[p]        = 0;
      len[p]          = 0;
      if (b < block_rows)
      {
         start[p] = __ldg(blk_ptr + b);
         len[p]   = __ldg(blk_ptr + b + 1) - start[p];
      }
      steps[p] = max(len[p], device::shfl_xor(len[p], 16)); // same in the whole warp
      most     = max(most, steps[p]);
   }
   double d0[R], d1[R];
#pragma unroll
   for (int p = 0; p < R; ++p) d0[p] = d1[p] = 0.0;
   for (int32_t i = 0; i < most; i += U)
   {
      double a[R][U], xb[R][U];
#pragma unroll
      for (int p = 0; p < R; ++p)
      {
#pragma unroll
         for (int u = 0; u < U; ++u)
         {
            a[p][u]  = 0.0; // no tile: zeros in A and B add exact zeros
            xb[p][u] = 0.0;
            if (i + u < len[p])
            {
               const int32_t t = start[p] + i + u;
               a[p][u]         = __ldg(blk_val + 16 * static_cast<int64_t>(t) + (lane & 15));
               const int64_t j = 4 * static_cast<int64_t>(__ldg(blk_col + t)) + k;
               if (j < ncols) xb[p][u] = x_of<Unscale>(x, us, j);
            }
         }
      }
#pragma unroll
      for (int p = 0; p < R; ++p)
      {
#pragma unroll
         for (int u = 0; u < U; ++u)
         {
            if (i + u < steps[p]) mma_8x8x4(d0[p], d1[p], a[p][u], xb[p][u]); // uniform in the warp
         }
      }
   }
   // Lane 4r holds D[r][0] (tile row r of the pair's first block row) and lane 16+4r+2 holds
   // D[4+r][4] (tile row r of its second block row), both in d0.
   const bool writer = (lane < 16) ? (lane & 3) == 0 : (lane & 3) == 2;
#pragma unroll
   for (int p = 0; p < R; ++p)
   {
      const int64_t b = first + 2 * p + (lane >> 4);
      if (writer && b < block_rows)
      {
         const int64_t i = 4 * b + ((lane >> 2) & 3);
         if (i < nrows) y[i] = combine(alpha, row_of<Unscale>(d0[p], us, i), beta, yb + i);
      }
   }
}

// D = A * B (+ zero C) for one m16n8k16 fragment set, f16 inputs, f32 accumulation (layouts in
// the notes at the top). a/b: .f16x2 registers, the lower-indexed element in the low 16 bits.
__device__ inline void mma_16x8x16_f16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
   const float zero[4] = {0.0f, 0.0f, 0.0f, 0.0f};
   mma_m16n8k16_f16f32(a, b, zero, d);
}

// 2^e as a double, e in [-1022, 1023].
__device__ inline double pow2(int e)
{
   return __longlong_as_double(static_cast<long long>(e + 1023) << 52);
}

// tensor_core (fp16): one warp per 4 consecutive block rows, U steps of 4 tiles per block row
// in flight (layout, scaling and rounding in the notes at the top).
template <int U, bool Unscale>
__global__ void __launch_bounds__(kThreads)
spmv_tensor_h_kernel(const int32_t* __restrict__ blk_ptr, const int32_t* __restrict__ blk_col,
                     const unsigned short* __restrict__ blk_val, int32_t block_rows, int32_t nrows,
                     int32_t ncols, double alpha, const double* __restrict__ x,
                     const double* __restrict__ us, double beta, const double* yb, double* y)
{
   const int64_t first = ((blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) >> 5) * 4;
   if (first >= block_rows) return; // whole warp: mma.sync below needs all 32 lanes
   const int lane = static_cast<int>(threadIdx.x & 31);
   const int grp  = lane >> 2; // PTX groupID
   const int tig  = lane & 3;  // PTX threadID_in_group
   const int r    = grp & 3;   // tile row of this lane's A rows and of its output
   const int c    = 2 * (tig & 1); // first of the two tile columns of its A and B halves
   // A rows grp and grp+8 are tile row r of block rows first + gA[0], first + gA[1]; B column
   // grp (< 4) is block row first + grp; lanes with grp >= 4 hold zero B columns.
   const int gA[2] = {grp >> 2, 2 + (grp >> 2)};
   int32_t   startA[2], lenA[2];
#pragma unroll
   for (int h = 0; h < 2; ++h)
   {
      const int64_t b = first + gA[h];
      startA[h]       = 0;
      lenA[h]         = 0;
      if (b < block_rows)
      {
         startA[h] = __ldg(blk_ptr + b);
         lenA[h]   = __ldg(blk_ptr + b + 1) - startA[h];
      }
   }
   int32_t sB = 0, lB = 0; // B column grp: block row first + grp
   if (grp < 4 && first + grp < block_rows)
   {
      sB = __ldg(blk_ptr + first + grp);
      lB = __ldg(blk_ptr + first + grp + 1) - sB;
   }
   int32_t most = max(lenA[0], lenA[1]);
#pragma unroll
   for (int d = 16; d > 0; d >>= 1) most = max(most, device::shfl_xor(most, d));
   // Output of this lane (tig < 2): D[4g + r][g] for g = gOut, in register 2*tig + (grp >= 4).
   const int gOut = (grp >> 2) + 2 * tig;
   float     acc  = 0.0f;
   for (int32_t i = 0; i < most; i += 4 * U)
   {
      uint32_t a[U][4], bfrag[U][2];
      int      e[U];
#pragma unroll
      for (int u = 0; u < U; ++u)
      {
         const int32_t i0 = i + 4 * u; // first tile of the step in each block row
#pragma unroll
         for (int q2 = 0; q2 < 2; ++q2)
         {
            const int32_t k = i0 + (tig >> 1) + 2 * q2; // tile of A columns 2tig(+8 for q2 = 1)
#pragma unroll
            for (int h = 0; h < 2; ++h)
            {
               uint32_t v = 0u; // no tile: zeros in A add exact zeros
               if (k < lenA[h])
               {
                  const int64_t off = 16 * static_cast<int64_t>(startA[h] + k) + 4 * r + c;
                  v = __ldg(reinterpret_cast<const unsigned int*>(blk_val + off)); // off even
               }
               a[u][h + 2 * q2] = v;
            }
         }
         double xv[2][2] = {{0.0, 0.0}, {0.0, 0.0}};
#pragma unroll
         for (int q2 = 0; q2 < 2; ++q2)
         {
            const int32_t k = i0 + (tig >> 1) + 2 * q2;
            if (k < lB)
            {
               const int64_t j = 4 * static_cast<int64_t>(__ldg(blk_col + sB + k)) + c;
               if (j < ncols) xv[q2][0] = x_of<Unscale>(x, us, j);
               if (j + 1 < ncols) xv[q2][1] = x_of<Unscale>(x, us, j + 1);
            }
         }
         // The piece of B column grp: 16 values in lanes 4grp..4grp+3. Scale it so that its
         // largest magnitude m lands in [2^10, 2^11): e = 10 - ilogb(m) (capped at 1023, where
         // everything rounds to 0 in float anyway); e = 0 for an all-zero or non-finite piece.
         double m = fmax(fmax(fabs(xv[0][0]), fabs(xv[0][1])), fmax(fabs(xv[1][0]), fabs(xv[1][1])));
         m        = fmax(m, device::shfl_xor(m, 1));
         m        = fmax(m, device::shfl_xor(m, 2));
         e[u]     = (m > 0.0 && m <= 1.7976931348623157e308) ? min(10 - ilogb(m), 1023) : 0;
         const double sc = pow2(e[u]);
#pragma unroll
         for (int q2 = 0; q2 < 2; ++q2)
         {
            const unsigned short lo = __half_as_ushort(device::double_to_half(__dmul_rn(xv[q2][0], sc)));
            const unsigned short hi = __half_as_ushort(device::double_to_half(__dmul_rn(xv[q2][1], sc)));
            bfrag[u][q2]            = static_cast<uint32_t>(lo) | (static_cast<uint32_t>(hi) << 16);
         }
      }
#pragma unroll
      for (int u = 0; u < U; ++u)
      {
         if (i + 4 * u < most) // uniform in the warp
         {
            float d[4];
            mma_16x8x16_f16(d, a[u], bfrag[u]);
            const int   eo = device::shfl(e[u], 4 * (tig < 2 ? gOut : 0));
            const float dv = tig == 0 ? (grp < 4 ? d[0] : d[1]) : (grp < 4 ? d[2] : d[3]);
            acc            = __fadd_rn(acc, ldexpf(dv, -eo)); // exact unless subnormal in float
         }
      }
   }
   if (tig < 2)
   {
      const int64_t b = first + gOut;
      const int64_t i = 4 * b + r;
      if (b < block_rows && i < nrows)
      {
         y[i] = combine(alpha, row_of<Unscale>(static_cast<double>(acc), us, i), beta, yb + i);
      }
   }
}

} // namespace amgt::device::spmv_detail
