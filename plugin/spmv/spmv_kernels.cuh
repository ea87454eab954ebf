// The SpMV's CUDA-core kernels (the solve phase): spmv_device.cu starts them, spmv_plan.cu
// builds the arrays they read.
//
// Index arithmetic of packed_val. The offset of a tile's first entry is not stored per tile
// (that would cost 4 more bytes per tile); the plan stores one int64 per block row (row_val)
// or per chunk (chunk_val), and a kernel recovers each tile's offset as that base plus the
// exclusive prefix sum of the popcounts of the tiles before it, computed with shuffles. Inside
// a tile, tile row r starts at popc(map & ((1 << 4r) - 1)) and its entry in column c comes
// popc(nibble_r & ((1 << c) - 1)) after that. Offsets inside one block row are int32 (the
// plan checks that a block row holds fewer than 2^27 tiles).
//
// cuda_core (group_row_sum): a group of G lanes (4, 8, 16 or 32 by the mean number of tiles
// per block row, spmv_group_lanes) handles one block row, G tiles per step. Lane g loads the
// map and column of tile g of the step (coalesced: consecutive block rows own consecutive
// tiles, so a warp's groups read one contiguous stretch), the group scans the popcounts, and
// then in 4 sub-steps lane g works on tile (sub*G/4 + g/4), tile row g%4, taking that tile's
// map/column/offset by shuffle: it gathers its row's entries (<= 4 contiguous values) and
// x[4*col + c] for each set bit c, so x is read only where an entry is stored (never past
// ncols). The 4 sub-steps are unrolled: up to 16 value and 16 x loads in flight per lane. The
// lanes of equal tile row are then reduced with xor shuffles and lanes 0..3 of the group
// write rows 4b..4b+3, each guarded by < nrows. Empty block rows write alpha*0 (+ beta*y).
//
// cuda_core_balanced: a block row of thousands of tiles would keep its group busy long after
// the others are done. Block rows of more than 64 tiles ("long") are cut into chunks of 64
// tiles (the paper's budget per warp); one warp per chunk runs group_row_sum with G = 32 and
// writes its 4 row sums to partial[4c..4c+3]; then one warp per long row adds its chunks'
// partials in a fixed order (lane l: chunks l/4, l/4+8, ... of tile row l%4, then a fixed xor
// tree) and writes y. The other block rows, empty ones included, go through the cuda_core
// kernel (G = 4), which skips the long ones. Every y row is written exactly once by exactly
// one kernel; the kernels run in stream order; no atomics, so results are reproducible bit
// for bit; the chunk tables and partials are built in the plan (no allocation in spmv).
// Only the long rows are budgeted: a flat budget of 64 tiles per warp across row boundaries
// needs a segmented scan and head/tail partials, and lost to cuda_core on regular rows
// (bench/RESULTS.md, "Figures behind the kernel sources' comments").
//
// cuda_core_tiles: G lanes per block row, one tile per lane and step: lane g loads the map and
// column of its tile, the group scans the popcounts for the packed offsets, and the lane
// multiplies its tile's entries (bitmap-driven, x of the tile's used columns only) into four
// row sums; the group reduces the four sums once per block row (cuda_core pays three shuffles
// per tile row and step instead). G = spmv_tile_lanes.
//
// cuda_core_entries: the plan adds entry_meta, 2 bytes per stored entry: (index of its tile
// inside the block row) << 4 | r*4+c, built from the bitmaps. G lanes per block row take the
// block row's packed entries k0+g, k0+g+G, ... (coalesced value and decode loads), the tile's
// column from blk_col (prefetched into L1 with the block row's offsets) and x_j; four entries per
// lane and pass, each load stage issued for all four before the next needs it. Every lane is
// busy whatever the tile fill (cuda_core and cuda_core_tiles test up to 16 bitmap positions per
// tile: at fill ~2 most lanes idle). Bytes per entry: sizeof(V) + 2 + 6/fill. G =
// spmv_entry_lanes. Block rows of more than 4096 tiles do not fit the 12-bit tile index: a plan
// forced to this path for such a matrix takes the automatic choice.
#pragma once

#include "spmv/spmv_common.cuh"
#include "device/warp.cuh"

#include "device/arith.cuh"
#include "device/launch.h"

#include <cstdint>

namespace amgt::device::spmv_detail {

// Partial product of one tile row: the set bits of `nib` (columns of tile row r) against
// x[c0 + c]; `pv` points at the row's first packed entry. The unrolled, predicated loads are
// independent of each other, so all of them can be in flight at once.
template <class V, bool Unscale>
__device__ inline typename SpmvArith<V>::Acc row_product(uint32_t nib, const typename SpmvArith<V>::Bits* pv,
                                                     const double* x, const double* us, int64_t j0,
                                                     typename SpmvArith<V>::Acc s)
{
   using A = SpmvArith<V>;
#pragma unroll
   for (int c = 0; c < kTileDim; ++c)
   {
      if (nib & (1u << c))
      {
         const int k = __popc(nib & ((1u << c) - 1u));
         s           = A::madd(A::widen(__ldg(pv + k)), A::round_x(x_of<Unscale>(x, us, j0 + c)), s);
      }
   }
   return s;
}

__global__ void scale_kernel(int32_t n, double beta, const double* yb, double* y)
{
   const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (i < n) y[i] = beta == 0.0 ? 0.0 : __dmul_rn(beta, yb[i]);
}

// A group of G lanes (part of one warp) serves a block row: the block row of this thread's
// group, then (once the group knows it has a row) g, the lane's place in the group, and mask,
// the group's lanes for shuffles.
template <int G>
__device__ __forceinline__ int64_t group_block_row()
{
   static_assert(G == 4 || G == 8 || G == 16 || G == 32, "a group is 4..32 lanes of one warp");
   return (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) / G;
}

struct GroupLane
{
   int      g;
   unsigned mask;
};

template <int G>
__device__ __forceinline__ GroupLane group_lane()
{
   return {static_cast<int>(threadIdx.x & (G - 1)),
           G == 32 ? kFull : ((1u << G) - 1u) << ((threadIdx.x & 31) & ~(G - 1))};
}

// Sums the group's partial tile-row sums s[0..3] over its G lanes (every lane gets the sums).
template <int G, class Acc>
__device__ __forceinline__ void group_reduce_rows(Acc (&s)[4], unsigned mask)
{
#pragma unroll
   for (int r = 0; r < 4; ++r)
   {
#pragma unroll
      for (int d = G / 2; d >= 1; d >>= 1) s[r] += device::shfl_xor(s[r], d, G, mask);
   }
}

// Lane g < 4 writes row i = 4b + g of y from the reduced sums s; bi points at b_i (read only
// when beta != 0).
template <bool Unscale, class Acc>
__device__ __forceinline__ void store_group_row(const Acc (&s)[4], int g, int64_t i, double alpha,
                                                const double* __restrict__ us, double beta, const double* bi,
                                                double* y)
{
   Acc v = s[0];
#pragma unroll
   for (int r = 1; r < 4; ++r)
      if (g == r) v = s[r];
   y[i] = combine(alpha, row_of<Unscale>(static_cast<double>(v), us, i), beta, bi);
}

// Lanes g < 4 write row 4b + g of y from the reduced sums s (rows past nrows: nothing).
template <bool Unscale, class Acc>
__device__ __forceinline__ void store_group_rows(const Acc (&s)[4], int g, int64_t b, int32_t nrows,
                                                 double alpha, const double* __restrict__ us,
                                                 double beta, const double* yb, double* y)
{
   const int64_t i = 4 * b + g;
   if (g < 4 && i < nrows) store_group_row<Unscale>(s, g, i, alpha, us, beta, yb + i, y);
}

// One step of a group of G lanes over the tiles [c, c + G) of a range ending at `end`: lane g
// gets tile c + g's bitmap and column (an empty bitmap past the end, so it does no work) and
// returns the packed offset of its first entry relative to the range's first tile; `base`
// (the same in every lane) advances past the step's entries.
template <int G>
__device__ inline int32_t tile_step(const int32_t* __restrict__ blk_col,
                                    const uint16_t* __restrict__ blk_map, int32_t c, int32_t end,
                                    int g, unsigned mask, int32_t& base, uint32_t& map, int32_t& col)
{
   const int32_t t = c + g;
   map             = 0;
   col             = 0;
   if (t < end)
   {
      map = __ldg(blk_map + t);
      col = __ldg(blk_col + t);
   }
   const int cnt  = __popc(map);
   int       incl = cnt;
#pragma unroll
   for (int d = 1; d < G; d <<= 1)
   {
      const int v = device::shfl_up(incl, d, G, mask);
      if (g >= d) incl += v;
   }
   const int32_t off = base + incl - cnt;
   base += device::shfl(incl, G - 1, G, mask);
   return off;
}

// The sum over tiles [start, end) of one block row by a group of G lanes (see the notes at
// the top); `vals` points at the packed entry of tile `start`. Every lane of the group
// returns the sum for tile row g % 4. All lanes of the group must call it together.
template <class V, int G, bool Unscale>
__device__ inline typename SpmvArith<V>::Acc group_row_sum(const int32_t* __restrict__ blk_col,
                                                       const uint16_t* __restrict__ blk_map,
                                                       const typename SpmvArith<V>::Bits* __restrict__ vals,
                                                       int32_t start, int32_t end,
                                                       const double* __restrict__ x,
                                                       const double* __restrict__ us, int g,
                                                       unsigned mask)
{
   using S   = typename SpmvArith<V>::Bits;
   using Acc = typename SpmvArith<V>::Acc;
   const int r    = g & 3;
   Acc       s    = Acc(0);
   int32_t   base = 0; // packed offset of tile `c`, relative to `vals`
   for (int32_t c = start; c < end; c += G)
   {
      uint32_t      map = 0;
      int32_t       col = 0;
      const int32_t off = tile_step<G>(blk_col, blk_map, c, end, g, mask, base, map, col);

#pragma unroll
      for (int sub = 0; sub < 4; ++sub)
      {
         if (c + sub * (G / 4) >= end) break; // uniform in the group
         const int      q    = sub * (G / 4) + (g >> 2);
         const uint32_t mq   = device::shfl(map, q, G, mask);
         const int32_t  colq = device::shfl(col, q, G, mask);
         const int32_t  offq = device::shfl(off, q, G, mask);
         const uint32_t nib  = (mq >> (4 * r)) & 0xFu;
         const S*       pv   = vals + offq + __popc(mq & ((1u << (4 * r)) - 1u));
         s = row_product<V, Unscale>(nib, pv, x, us, 4 * static_cast<int64_t>(colq), s);
      }
   }
#pragma unroll
   for (int d = G / 2; d >= 4; d >>= 1) s += device::shfl_xor(s, d, G, mask);
   return s;
}

// cuda_core (and the short rows of cuda_core_balanced): G lanes per block row. Rows of more
// than long_row_tiles tiles are left to the chunk kernels. Unscale: us is read (else it is
// not touched; nullptr then).
template <class V, int G, bool Unscale>
__global__ void __launch_bounds__(kThreads)
spmv_rows_kernel(const int32_t* __restrict__ blk_ptr, const int32_t* __restrict__ blk_col,
                 const uint16_t* __restrict__ blk_map, const typename SpmvArith<V>::Bits* __restrict__ packed,
                 const int64_t* __restrict__ row_val, int32_t block_rows, int32_t nrows,
                 int32_t long_row_tiles, double alpha, const double* __restrict__ x,
                 const double* __restrict__ us, double beta, const double* yb, double* y)
{
   const int64_t b = group_block_row<G>();
   if (b >= block_rows) return; // a whole group leaves: the group masks below stay valid
   const auto [g, mask] = group_lane<G>();
   const int32_t  start = __ldg(blk_ptr + b);
   const int32_t  end   = __ldg(blk_ptr + b + 1);
   if (end - start > long_row_tiles) return; // uniform in the group
   const auto* vals = start < end ? packed + __ldg(row_val + b) : packed;
   const auto  s    = group_row_sum<V, G, Unscale>(blk_col, blk_map, vals, start, end, x, us, g, mask);
   if (g < 4)
   {
      const int64_t i = 4 * b + g;
      if (i < nrows) y[i] = combine(alpha, row_of<Unscale>(static_cast<double>(s), us, i), beta, yb + i);
   }
}

// cuda_core_tiles: the sum over tiles [start, end) of one block row by a group of G lanes,
// one tile per lane and step (see the notes at the top). Lane g returns in s[r] its partial
// sums of tile rows r = 0..3; the caller reduces them across the group.
template <class V, int G, bool Unscale>
__device__ inline void group_tile_sums(const int32_t* __restrict__ blk_col,
                                       const uint16_t* __restrict__ blk_map,
                                       const typename SpmvArith<V>::Bits* __restrict__ vals, int32_t start,
                                       int32_t end, const double* __restrict__ x,
                                       const double* __restrict__ us, int g, unsigned mask,
                                       typename SpmvArith<V>::Acc (&s)[4])
{
   using A   = SpmvArith<V>;
   using Acc = typename A::Acc;
   int32_t base = 0; // packed offset of tile `c`, relative to `vals`
   for (int32_t c = start; c < end; c += G)
   {
      uint32_t    map = 0;
      int32_t     col = 0;
      const auto* pv  = vals + tile_step<G>(blk_col, blk_map, c, end, g, mask, base, map, col);
      if (map == 0) continue;
      // x of the tile's columns that hold an entry (never past ncols: no entry lies there)
      const uint32_t cols = (map | (map >> 4) | (map >> 8) | (map >> 12)) & 0xFu;
      const int64_t  j0   = 4 * static_cast<int64_t>(col);
      Acc            xv[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) xv[k] = (cols >> k) & 1u ? A::round_x(x_of<Unscale>(x, us, j0 + k)) : Acc(0);
      // entry e = 4r + c is packed entry popc(map below e) of the tile. (Issuing all 16
      // predicated loads before the FMAs is slower: more registers, and 16 load instructions
      // per tile at ~2-4 entries; bench/RESULTS.md.)
#pragma unroll
      for (int e = 0; e < 16; ++e)
      {
         if ((map >> e) & 1u)
         {
            const int k = __popc(map & ((1u << e) - 1u));
            s[e >> 2]   = A::madd(A::widen(__ldg(pv + k)), xv[e & 3], s[e >> 2]);
         }
      }
   }
   group_reduce_rows<G>(s, mask);
}

// cuda_core_tiles: G lanes per block row, one tile per lane and step.
template <class V, int G, bool Unscale>
__global__ void __launch_bounds__(kThreads)
spmv_tiles_kernel(const int32_t* __restrict__ blk_ptr, const int32_t* __restrict__ blk_col,
                  const uint16_t* __restrict__ blk_map, const typename SpmvArith<V>::Bits* __restrict__ packed,
                  const int64_t* __restrict__ row_val, int32_t block_rows, int32_t nrows,
                  double alpha, const double* __restrict__ x, const double* __restrict__ us,
                  double beta, const double* yb, double* y)
{
   using Acc = typename SpmvArith<V>::Acc;
   const int64_t b = group_block_row<G>();
   if (b >= block_rows) return; // a whole group leaves: the group masks below stay valid
   const auto [g, mask] = group_lane<G>();
   const int32_t  start = __ldg(blk_ptr + b);
   const int32_t  end   = __ldg(blk_ptr + b + 1);
   const auto*    vals  = start < end ? packed + __ldg(row_val + b) : packed;
   Acc            s[4]  = {Acc(0), Acc(0), Acc(0), Acc(0)};
   group_tile_sums<V, G, Unscale>(blk_col, blk_map, vals, start, end, x, us, g, mask, s);
   store_group_rows<Unscale>(s, g, b, nrows, alpha, us, beta, yb, y);
}

// cuda_core_entries is bound by the latency of its dependent loads: ncu on the H100 (laplace27
// n=200, fine A, fp32, 824 us) counted 22.6 cycles of long-scoreboard stall per issued
// instruction; a quarter of the stall samples waited on the decodes, a quarter on the tile
// columns (the first lookup of a block row's tiles goes to DRAM), 9% on the block row's
// offsets and 6% on b, read only after the reduction. Prefetching the block row's tile
// columns into L1 with the offsets and loading b at the start took that SpMV to 737 us (fp64
// 1024 -> 945 us). Eight entries a pass instead of four (913 / 1021 us with the prefetch), the
// next pass's decodes and values loaded before this pass's columns (64 registers: 764 /
// 971 us) and register caps for more resident warps (spills: 1.2-2.5 ms) were slower
// (bench/RESULTS.md, record 2026-11-26c).
constexpr int kEntriesUnroll = 4;

// cuda_core_entries: G lanes per block row, one stored entry per lane and step (see the notes
// at the top): the value and its 2-byte decode are coalesced loads, the tile's column comes
// from blk_col (the block row's tiles are contiguous: prefetched into L1 at the start), x_j is
// gathered; each lane keeps the 4 row sums of the block row and the group reduces them once at
// the end. Lanes g < 4 load their row's b at the start (it is needed only after the reduction).
template <class V, int G, bool Unscale>
__global__ void __launch_bounds__(kThreads)
spmv_entries_kernel(const int32_t* __restrict__ blk_ptr, const int32_t* __restrict__ blk_col,
                    const typename SpmvArith<V>::Bits* __restrict__ packed, const uint16_t* __restrict__ meta,
                    const int64_t* __restrict__ row_val, int32_t block_rows, int32_t nrows,
                    double alpha, const double* __restrict__ x, const double* __restrict__ us,
                    double beta, const double* yb, double* y)
{
   using A   = SpmvArith<V>;
   using Acc = typename A::Acc;
   const int64_t b = group_block_row<G>();
   if (b >= block_rows) return; // a whole group leaves: the group masks below stay valid
   const auto [g, mask] = group_lane<G>();
   const int32_t  start = __ldg(blk_ptr + b);
   const int64_t  k0    = __ldg(row_val + b), k1 = __ldg(row_val + b + 1);
   const int64_t  iy    = 4 * b + g;
   const bool     owns  = g < 4 && iy < nrows; // writes y[iy]
   // yb may be y (the in-place product): each y row is read here and written at the end by the
   // same lane only
   const double   bi    = owns && beta != 0.0 ? yb[iy] : 0.0;
   Acc            s[4]  = {Acc(0), Acc(0), Acc(0), Acc(0)};
   {
      // the block row's tile columns into L1 (their first lookup waits on the decodes): one
      // 128-byte line (32 tile columns) per lane
      const int32_t end = __ldg(blk_ptr + b + 1);
      for (int32_t t = start + 32 * g; t < end; t += 32 * G) device::prefetch_l1(blk_col + t);
   }
   // kUnroll entries per lane and pass, each stage (decode, tile column, x, value) loaded for
   // all of them before the next stage needs it: kUnroll independent chains in flight.
   constexpr int kUnroll = kEntriesUnroll;
   for (int64_t kb = k0 + g; kb < k1; kb += int64_t{kUnroll} * G)
   {
      uint32_t m[kUnroll];
      Acc      p[kUnroll];
      bool     in[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
      {
         const int64_t k = kb + int64_t{u} * G;
         in[u]           = k < k1;
         m[u]            = in[u] ? __ldg(meta + k) : 0u;
         p[u]            = in[u] ? A::widen(__ldg(packed + k)) : Acc(0);
      }
      int32_t tc[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) tc[u] = in[u] ? __ldg(blk_col + start + static_cast<int32_t>(m[u] >> 4)) : 0;
      Acc xj[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
         xj[u] = in[u] ? A::round_x(x_of<Unscale>(x, us, 4 * static_cast<int64_t>(tc[u]) + (m[u] & 3u))) : Acc(0);
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
      {
         if (!in[u]) break; // the entries of a lane are in order: the first absent ends the pass
         const uint32_t r = (m[u] >> 2) & 3u;
#pragma unroll
         for (uint32_t q = 0; q < 4; ++q)
            if (r == q) s[q] = A::madd(p[u], xj[u], s[q]);
      }
   }
   group_reduce_rows<G>(s, mask);
   if (owns) store_group_row<Unscale>(s, g, iy, alpha, us, beta, &bi, y); // b_i already loaded
}

// cuda_core_balanced: one warp per 64-tile chunk of a long row; its 4 row sums go to
// partial[4c .. 4c+3].
template <class V, bool Unscale>
__global__ void __launch_bounds__(kThreads)
spmv_chunks_kernel(const int32_t* __restrict__ blk_ptr, const int32_t* __restrict__ blk_col,
                   const uint16_t* __restrict__ blk_map, const typename SpmvArith<V>::Bits* __restrict__ packed,
                   const int32_t* __restrict__ chunk_row, const int32_t* __restrict__ chunk_tile,
                   const int64_t* __restrict__ chunk_val, int64_t num_chunks,
                   const double* __restrict__ x, const double* __restrict__ us,
                   typename SpmvArith<V>::Acc* __restrict__ partial)
{
   const int64_t c = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) >> 5;
   if (c >= num_chunks) return; // whole warp
   const int     lane  = static_cast<int>(threadIdx.x & 31);
   const int32_t start = __ldg(chunk_tile + c);
   const int32_t end   = static_cast<int32_t>(min(static_cast<int64_t>(start) + kBudget,
                                                    static_cast<int64_t>(__ldg(blk_ptr + __ldg(chunk_row + c) + 1))));
   const auto    s     = group_row_sum<V, 32, Unscale>(blk_col, blk_map, packed + __ldg(chunk_val + c),
                                                       start, end, x, us, lane, kFull);
   if (lane < 4) partial[4 * c + lane] = s;
}

// cuda_core_balanced: one warp per long row sums its chunks' partials in a fixed order
// (lane l takes chunks l/4, l/4 + 8, ... of tile row l%4, then a fixed xor tree), so the
// result does not depend on scheduling.
template <class Acc, bool Unscale>
__global__ void __launch_bounds__(kThreads)
spmv_long_rows_kernel(const int32_t* __restrict__ blk_ptr, const int32_t* __restrict__ long_row,
                      const int32_t* __restrict__ long_chunk, int32_t num_long, int32_t nrows,
                      const Acc* __restrict__ partial, double alpha, const double* __restrict__ us,
                      double beta, const double* yb, double* y)
{
   const int64_t j = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) >> 5;
   if (j >= num_long) return; // whole warp
   const int     lane = static_cast<int>(threadIdx.x & 31);
   const int     r    = lane & 3;
   const int32_t b    = __ldg(long_row + j);
   const int64_t c0   = __ldg(long_chunk + j);
   const int32_t n    = (__ldg(blk_ptr + b + 1) - __ldg(blk_ptr + b) + kBudget - 1) / kBudget;
   Acc           acc  = Acc(0);
   for (int32_t k = lane >> 2; k < n; k += 8) acc += partial[4 * (c0 + k) + r];
#pragma unroll
   for (int d = 4; d < 32; d <<= 1) acc += device::shfl_xor(acc, d);
   if (lane < 4)
   {
      const int64_t i = 4 * static_cast<int64_t>(b) + r;
      if (i < nrows) y[i] = combine(alpha, row_of<Unscale>(static_cast<double>(acc), us, i), beta, yb + i);
   }
}

} // namespace amgt::device::spmv_detail
