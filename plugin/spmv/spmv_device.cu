// y = alpha * A * x + beta * y on the GPU for A in mBSR. Design notes.
//
// Why packed values. An SpMV is bound by memory traffic. Fine AMG levels hold ~4 nonzeros per
// 4x4 tile, so blk_val's 16 padded values per tile would move (16*8 + 4 + 2) / 4.2 = ~32 bytes
// per nonzero in fp64 against CSR's 12. make_spmv_plan therefore builds `packed_val`: only the
// stored entries, tile after tile, each tile's entries in bitmap order (bit r*4+c ascending,
// i.e. row-major). The CUDA-core kernels read blk_col (4 B) and blk_map (2 B) per tile and
// sizeof(V) per entry: 8 + 6/fill bytes per nonzero in fp64 (9.4 at fill 4.2), 4 + 6/fill in
// fp32, 2 + 6/fill in fp16, plus 12 B per block row (blk_ptr, row_val), the x gather and y.
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
// (A first version gave every warp a flat budget of 64 tiles across row boundaries, with a
// segmented scan and head/tail partials; it was 1.7x slower than cuda_core on regular rows,
// so only the long rows are budgeted now.)
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
//   Rounding, against the contract (x rounded to float, one float FMA per entry):
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
//
// Unscaling (unscale != nullptr; every path): x_j * u_j in double (__dmul_rn) replaces x_j
// before its rounding, and the row sum widened to double is multiplied by u_i (__dmul_rn)
// before alpha. Each kernel is a template on Unscale: without it the kernels never load u.
//
// Rounding (common/precision.h): fp64 __fma_rn; fp32 value float, x __double2float_rn, float
// __fmaf_rn; fp16 value half widened to float in registers, x __double2float_rn (float, not
// half: coarse residuals would underflow), float __fmaf_rn. Sums are formed in another order
// than spmv_ref's, so results agree bit for bit only when all partial sums are exact (small
// integers). The final y = alpha*s + beta*y uses __dmul_rn/__dadd_rn so that nvcc cannot
// contract it into an FMA the reference (built with -ffp-contract=off) does not do; beta == 0
// never reads y.
//
// Measured on one H100 SXM (fp64, x and y fp64, beta = 0, median of 21x10 calls; cuSPARSE
// 13.0 CSR SpMV, default algorithm, on the same matrix for comparison):
//   7-point 160^3 (fill 4.02):        cuda_core 171-175 us, cuSPARSE 196 us
//   27-point 100^3 (fill 4.08):       cuda_core 153-156 us (G = 8), cuSPARSE 131 us
//   dense 4x4 block tridiagonal, 4M:  cuda_core 161-166 us, tensor_core 187-197 us,
//                                     cuSPARSE 292 us
//   random, fill 1.08, 16 rows with ~180k tiles: cuda_core_balanced 203 us, cuda_core 45 ms,
//                                     cuSPARSE 82 us (one entry per tile is the format's worst
//                                     case: 13.6 B/nnz and per-tile work for every entry)
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
// column from blk_col (the block row's tiles are contiguous: L1 hits) and x_j; four entries per
// lane and pass, each load stage issued for all four before the next needs it. Every lane is
// busy whatever the tile fill (cuda_core and cuda_core_tiles test up to 16 bitmap positions per
// tile: at fill ~2 most lanes idle). Bytes per entry: sizeof(V) + 2 + 6/fill. G =
// spmv_entry_lanes. Block rows of more than 4096 tiles do not fit the 12-bit tile index: a plan
// forced to this path for such a matrix takes the automatic choice.
//
// Measured on one H100 (kernel benchmark, fp64 storage unless said, us per call; hypre = its
// own CSR kernel, fp64, same run), before/after the two paths above:
//   7-point 160^3, level 1 A (fill 2.36, 37M entries): cuda_core 372, entries 201 (G = 8),
//     fp16 entries 136; cuSPARSE 210, hypre 266
//   27-point 100^3, level 0 A (fill 4.08): cuda_core 161, entries 136 (G = 8), fp16 entries 88;
//     cuSPARSE 150, hypre 167
//   7-point 160^3, level 0 A (fill 4.02, 7 tiles per block row): cuda_core 182, tiles 166,
//     entries 188 (G = 8); fp16 tiles 106
//   coarse levels of 2k-40k rows: cuda_core 10-28, tiles 5-20, entries 4-12; hypre 4-8
// Hence the automatic choice (choose_spmv_path): cuda_core_balanced when the longest block row
// holds more than 64 tiles and at least 4x the mean; tensor_core never (kSpmvAutoTensorCore:
// slower than the packed CUDA-core paths even on all-full tiles in fp64; the fp16 path reads 32
// B per tile against packed fp16's 2 B per entry, so it can only win on nearly full tiles);
// cuda_core_tiles for 3.5 <= fill < 10 in block rows of <= 8 tiles on average, cuda_core for
// denser tiles there; cuda_core_entries otherwise (block rows of <= 4096 tiles); cuda_core for
// what is left.
#include "spmv/spmv_device.h"

#include "common/error.h"
#include "device/arith.cuh"
#include "device/launch.h"

#include <cub/device/device_scan.cuh>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>


namespace amgt::device {
namespace {

constexpr unsigned kFull    = 0xffffffffu;
constexpr int      kBudget  = kSpmvBalancedTiles;
constexpr int      kTensorPairs = 2; // tensor_core: block-row pairs per warp (measured: 1, 2, 4)
constexpr int      kTensorHalfSteps = 2; // fp16 tensor_core: mma steps in flight per warp (not timed)
static_assert(kBudget % 32 == 0, "a balanced budget is whole steps of 32 tiles");
// x_j before its rounding to the contract's x type: x_j, or x_j * u_j formed in double.
template <bool Unscale>
__device__ inline double x_of(const double* __restrict__ x, const double* __restrict__ us, int64_t j)
{
   if constexpr (Unscale) return __dmul_rn(__ldg(x + j), __ldg(us + j));
   else return __ldg(x + j);
}

// Row sum i as the final combination sees it: widened to double, times u_i in double.
template <bool Unscale>
__device__ inline double row_of(double s, const double* __restrict__ us, int64_t i)
{
   if constexpr (Unscale) return __dmul_rn(s, __ldg(us + i));
   else return s;
}

// y_i = alpha * ax + beta * y_i rounded as the reference rounds it (no contraction); with
// beta == 0 y_i is not read, so a NaN there does not survive.
__device__ inline double combine(double alpha, double ax, double beta, const double* yi)
{
   const double a = __dmul_rn(alpha, ax);
   return beta == 0.0 ? a : __dadd_rn(a, __dmul_rn(beta, *yi));
}

// Partial product of one tile row: the set bits of `nib` (columns of tile row r) against
// x[c0 + c]; `pv` points at the row's first packed entry. The unrolled, predicated loads are
// independent of each other, so all of them can be in flight at once.
template <class V, bool Unscale>
__device__ inline typename Arith<V>::Acc row_product(uint32_t nib, const typename Arith<V>::Bits* pv,
                                                     const double* x, const double* us, int64_t j0,
                                                     typename Arith<V>::Acc s)
{
   using A = Arith<V>;
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

// ---- statistics and plan construction -------------------------------------------------

// out[0] += nnz, out[1] += dense tiles, out[2] = max tiles per block row.
__global__ void measure_kernel(const uint16_t* __restrict__ blk_map, int64_t ntiles,
                               const int32_t* __restrict__ blk_ptr, int32_t block_rows,
                               unsigned long long* out)
{
   unsigned long long nnz = 0, dense = 0, longest = 0;
   const int64_t      n   = ntiles > block_rows ? ntiles : block_rows;
   for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
        i += static_cast<int64_t>(gridDim.x) * blockDim.x)
   {
      if (i < ntiles)
      {
         const int c = __popc(static_cast<unsigned>(blk_map[i]));
         nnz += c;
         dense += c >= kDenseTileNnz;
      }
      if (i < block_rows)
      {
         const unsigned long long len = static_cast<unsigned long long>(blk_ptr[i + 1] - blk_ptr[i]);
         longest                      = len > longest ? len : longest;
      }
   }
#pragma unroll
   for (int d = 16; d > 0; d >>= 1)
   {
      nnz += __shfl_xor_sync(kFull, nnz, d);
      dense += __shfl_xor_sync(kFull, dense, d);
      const unsigned long long o = __shfl_xor_sync(kFull, longest, d);
      longest                    = o > longest ? o : longest;
   }
   if ((threadIdx.x & 31) == 0)
   {
      atomicAdd(out + 0, nnz);
      atomicAdd(out + 1, dense);
      atomicMax(out + 2, longest);
   }
}

// cnt[t] = popcount of tile t, cnt[ntiles] = 0 (so the exclusive scan ends with nnz).
__global__ void tile_counts_kernel(const uint16_t* __restrict__ blk_map, int64_t ntiles,
                                   int64_t* __restrict__ cnt)
{
   const int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (t < ntiles) cnt[t] = __popc(static_cast<unsigned>(blk_map[t]));
   else if (t == ntiles) cnt[t] = 0;
}

// 16 threads per tile, one per position: reads of blk_val are fully coalesced.
template <class V>
__global__ void pack_kernel(const uint16_t* __restrict__ blk_map, const V* __restrict__ blk_val,
                            const int64_t* __restrict__ tile_off, int64_t ntiles,
                            V* __restrict__ packed)
{
   const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   const int64_t t = i >> 4;
   const int     p = static_cast<int>(i & 15);
   if (t >= ntiles) return;
   const uint32_t m = blk_map[t];
   if (m & (1u << p)) packed[tile_off[t] + __popc(m & ((1u << p) - 1u))] = blk_val[i];
}

__global__ void row_val_kernel(const int32_t* __restrict__ blk_ptr, const int64_t* __restrict__ tile_off,
                               int32_t block_rows, int64_t* __restrict__ row_val)
{
   const int64_t b = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (b <= block_rows) row_val[b] = tile_off[blk_ptr[b]];
}

// Balanced path, per block row: the number of 64-tile chunks of a long row (more than 64
// tiles; 0 otherwise) and whether the row is long. Entry block_rows is 0 for both, so the
// exclusive scans end with the totals.
__global__ void chunk_count_kernel(const int32_t* __restrict__ blk_ptr, int32_t block_rows,
                                   int32_t* __restrict__ nchunks, int32_t* __restrict__ is_long)
{
   const int64_t b = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (b > block_rows) return;
   const int32_t len = b < block_rows ? blk_ptr[b + 1] - blk_ptr[b] : 0;
   nchunks[b]        = len > kBudget ? (len + kBudget - 1) / kBudget : 0;
   is_long[b]        = len > kBudget ? 1 : 0;
}

// Balanced path: chunk k of long row b starts at tile blk_ptr[b] + 64k; long row number
// long_index[b] is b, its first chunk chunk_first[b].
__global__ void chunk_fill_kernel(const int32_t* __restrict__ blk_ptr, const int64_t* __restrict__ tile_off,
                                  const int32_t* __restrict__ chunk_first, const int32_t* __restrict__ long_index,
                                  int32_t block_rows, int32_t* __restrict__ chunk_row,
                                  int32_t* __restrict__ chunk_tile, int64_t* __restrict__ chunk_val,
                                  int32_t* __restrict__ long_row, int32_t* __restrict__ long_chunk)
{
   const int64_t b = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (b >= block_rows) return;
   const int32_t n = chunk_first[b + 1] - chunk_first[b];
   if (n == 0) return;
   for (int32_t k = 0; k < n; ++k)
   {
      const int32_t c = chunk_first[b] + k;
      const int32_t t = blk_ptr[b] + k * kBudget;
      chunk_row[c]    = static_cast<int32_t>(b);
      chunk_tile[c]   = t;
      chunk_val[c]    = tile_off[t];
   }
   long_row[long_index[b]]   = static_cast<int32_t>(b);
   long_chunk[long_index[b]] = chunk_first[b];
}

// ---- solve-phase kernels --------------------------------------------------------------

__global__ void scale_kernel(int32_t n, double beta, double* __restrict__ y)
{
   const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (i < n) y[i] = beta == 0.0 ? 0.0 : __dmul_rn(beta, y[i]);
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
      const int v = __shfl_up_sync(mask, incl, d, G);
      if (g >= d) incl += v;
   }
   const int32_t off = base + incl - cnt;
   base += __shfl_sync(mask, incl, G - 1, G);
   return off;
}

// The sum over tiles [start, end) of one block row by a group of G lanes (see the notes at
// the top); `vals` points at the packed entry of tile `start`. Every lane of the group
// returns the sum for tile row g % 4. All lanes of the group must call it together.
template <class V, int G, bool Unscale>
__device__ inline typename Arith<V>::Acc group_row_sum(const int32_t* __restrict__ blk_col,
                                                       const uint16_t* __restrict__ blk_map,
                                                       const typename Arith<V>::Bits* __restrict__ vals,
                                                       int32_t start, int32_t end,
                                                       const double* __restrict__ x,
                                                       const double* __restrict__ us, int g,
                                                       unsigned mask)
{
   using S   = typename Arith<V>::Bits;
   using Acc = typename Arith<V>::Acc;
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
         const uint32_t mq   = __shfl_sync(mask, map, q, G);
         const int32_t  colq = __shfl_sync(mask, col, q, G);
         const int32_t  offq = __shfl_sync(mask, off, q, G);
         const uint32_t nib  = (mq >> (4 * r)) & 0xFu;
         const S*       pv   = vals + offq + __popc(mq & ((1u << (4 * r)) - 1u));
         s = row_product<V, Unscale>(nib, pv, x, us, 4 * static_cast<int64_t>(colq), s);
      }
   }
#pragma unroll
   for (int d = G / 2; d >= 4; d >>= 1) s += __shfl_xor_sync(mask, s, d, G);
   return s;
}

// cuda_core (and the short rows of cuda_core_balanced): G lanes per block row. Rows of more
// than long_row_tiles tiles are left to the chunk kernels. Unscale: us is read (else it is
// not touched; nullptr then).
template <class V, int G, bool Unscale>
__global__ void __launch_bounds__(kThreads)
spmv_rows_kernel(const int32_t* __restrict__ blk_ptr, const int32_t* __restrict__ blk_col,
                 const uint16_t* __restrict__ blk_map, const typename Arith<V>::Bits* __restrict__ packed,
                 const int64_t* __restrict__ row_val, int32_t block_rows, int32_t nrows,
                 int32_t long_row_tiles, double alpha, const double* __restrict__ x,
                 const double* __restrict__ us, double beta, double* __restrict__ y)
{
   static_assert(G == 4 || G == 8 || G == 16 || G == 32, "a group is 4..32 lanes of one warp");
   const int64_t b = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) / G;
   if (b >= block_rows) return; // a whole group leaves: the group masks below stay valid
   const int      g     = static_cast<int>(threadIdx.x & (G - 1));
   const unsigned mask  = G == 32 ? kFull : ((1u << G) - 1u) << ((threadIdx.x & 31) & ~(G - 1));
   const int32_t  start = __ldg(blk_ptr + b);
   const int32_t  end   = __ldg(blk_ptr + b + 1);
   if (end - start > long_row_tiles) return; // uniform in the group
   const auto* vals = start < end ? packed + __ldg(row_val + b) : packed;
   const auto  s    = group_row_sum<V, G, Unscale>(blk_col, blk_map, vals, start, end, x, us, g, mask);
   if (g < 4)
   {
      const int64_t i = 4 * b + g;
      if (i < nrows) y[i] = combine(alpha, row_of<Unscale>(static_cast<double>(s), us, i), beta, y + i);
   }
}

// cuda_core_tiles: the sum over tiles [start, end) of one block row by a group of G lanes,
// one tile per lane and step (see the notes at the top). Lane g returns in s[r] its partial
// sums of tile rows r = 0..3; the caller reduces them across the group.
template <class V, int G, bool Unscale>
__device__ inline void group_tile_sums(const int32_t* __restrict__ blk_col,
                                       const uint16_t* __restrict__ blk_map,
                                       const typename Arith<V>::Bits* __restrict__ vals, int32_t start,
                                       int32_t end, const double* __restrict__ x,
                                       const double* __restrict__ us, int g, unsigned mask,
                                       typename Arith<V>::Acc (&s)[4])
{
   using A   = Arith<V>;
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
      // predicated loads before the FMAs was measured slower: 59-63 registers, and 16 load
      // instructions per tile at ~2-4 entries: laplace27 n=100 A 225 against 170 us, fp64.)
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
#pragma unroll
   for (int r = 0; r < 4; ++r)
   {
#pragma unroll
      for (int d = G / 2; d >= 1; d >>= 1) s[r] += __shfl_xor_sync(mask, s[r], d, G);
   }
}

// cuda_core_tiles: G lanes per block row, one tile per lane and step.
template <class V, int G, bool Unscale>
__global__ void __launch_bounds__(kThreads)
spmv_tiles_kernel(const int32_t* __restrict__ blk_ptr, const int32_t* __restrict__ blk_col,
                  const uint16_t* __restrict__ blk_map, const typename Arith<V>::Bits* __restrict__ packed,
                  const int64_t* __restrict__ row_val, int32_t block_rows, int32_t nrows,
                  double alpha, const double* __restrict__ x, const double* __restrict__ us,
                  double beta, double* __restrict__ y)
{
   static_assert(G == 4 || G == 8 || G == 16 || G == 32, "a group is 4..32 lanes of one warp");
   using Acc       = typename Arith<V>::Acc;
   const int64_t b = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) / G;
   if (b >= block_rows) return; // a whole group leaves: the group masks below stay valid
   const int      g     = static_cast<int>(threadIdx.x & (G - 1));
   const unsigned mask  = G == 32 ? kFull : ((1u << G) - 1u) << ((threadIdx.x & 31) & ~(G - 1));
   const int32_t  start = __ldg(blk_ptr + b);
   const int32_t  end   = __ldg(blk_ptr + b + 1);
   const auto*    vals  = start < end ? packed + __ldg(row_val + b) : packed;
   Acc            s[4]  = {Acc(0), Acc(0), Acc(0), Acc(0)};
   group_tile_sums<V, G, Unscale>(blk_col, blk_map, vals, start, end, x, us, g, mask, s);
   if (g < 4)
   {
      Acc v = s[0];
#pragma unroll
      for (int r = 1; r < 4; ++r)
         if (g == r) v = s[r];
      const int64_t i = 4 * b + g;
      if (i < nrows) y[i] = combine(alpha, row_of<Unscale>(static_cast<double>(v), us, i), beta, y + i);
   }
}

// cuda_core_entries, plan: entry_meta[k] for packed entry k = (tile index inside its block
// row) << 4 | bit position r*4+c. One warp per block row, lanes stride over its tiles.
__global__ void entry_meta_kernel(const int32_t* __restrict__ blk_ptr, const uint16_t* __restrict__ blk_map,
                                  const int64_t* __restrict__ tile_off, int32_t block_rows,
                                  uint16_t* __restrict__ meta)
{
   const int64_t b = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) >> 5;
   if (b >= block_rows) return;
   const int     lane  = static_cast<int>(threadIdx.x & 31);
   const int32_t start = blk_ptr[b], end = blk_ptr[b + 1];
   for (int32_t t = start + lane; t < end; t += 32)
   {
      uint32_t m = blk_map[t];
      int64_t  k = tile_off[t];
      const uint32_t rel = static_cast<uint32_t>(t - start) << 4;
      while (m)
      {
         const uint32_t e = static_cast<uint32_t>(__ffs(static_cast<int>(m)) - 1);
         meta[k++]        = static_cast<uint16_t>(rel | e);
         m &= m - 1u;
      }
   }
}

// cuda_core_entries: G lanes per block row, one stored entry per lane and step (see the notes
// at the top): the value and its 2-byte decode are coalesced loads, the tile's column comes
// from blk_col (the block row's tiles are contiguous, so it is an L1 hit after the first),
// x_j is gathered; each lane keeps the 4 row sums of the block row and the group reduces them
// once at the end.
template <class V, int G, bool Unscale>
__global__ void __launch_bounds__(kThreads)
spmv_entries_kernel(const int32_t* __restrict__ blk_ptr, const int32_t* __restrict__ blk_col,
                    const typename Arith<V>::Bits* __restrict__ packed, const uint16_t* __restrict__ meta,
                    const int64_t* __restrict__ row_val, int32_t block_rows, int32_t nrows,
                    double alpha, const double* __restrict__ x, const double* __restrict__ us,
                    double beta, double* __restrict__ y)
{
   static_assert(G == 4 || G == 8 || G == 16 || G == 32, "a group is 4..32 lanes of one warp");
   using A         = Arith<V>;
   using Acc       = typename A::Acc;
   const int64_t b = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) / G;
   if (b >= block_rows) return; // a whole group leaves: the group masks below stay valid
   const int      g     = static_cast<int>(threadIdx.x & (G - 1));
   const unsigned mask  = G == 32 ? kFull : ((1u << G) - 1u) << ((threadIdx.x & 31) & ~(G - 1));
   const int32_t  start = __ldg(blk_ptr + b);
   const int64_t  k0    = __ldg(row_val + b), k1 = __ldg(row_val + b + 1);
   Acc            s[4]  = {Acc(0), Acc(0), Acc(0), Acc(0)};
   // kUnroll entries per lane and pass, each stage (decode, tile column, x, value) loaded for
   // all of them before the next stage needs it: kUnroll independent chains in flight.
   constexpr int kUnroll = 4;
   for (int64_t kb = k0 + g; kb < k1; kb += int64_t{kUnroll} * G)
   {
      uint32_t m[kUnroll];
      bool     in[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
      {
         const int64_t k = kb + int64_t{u} * G;
         in[u]           = k < k1;
         m[u]            = in[u] ? __ldg(meta + k) : 0u;
      }
      int32_t tc[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) tc[u] = in[u] ? __ldg(blk_col + start + static_cast<int32_t>(m[u] >> 4)) : 0;
      Acc xj[kUnroll], p[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
      {
         const int64_t k = kb + int64_t{u} * G;
         xj[u] = in[u] ? A::round_x(x_of<Unscale>(x, us, 4 * static_cast<int64_t>(tc[u]) + (m[u] & 3u))) : Acc(0);
         p[u]  = in[u] ? A::widen(__ldg(packed + k)) : Acc(0);
      }
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
#pragma unroll
   for (int q = 0; q < 4; ++q)
   {
#pragma unroll
      for (int d = G / 2; d >= 1; d >>= 1) s[q] += __shfl_xor_sync(mask, s[q], d, G);
   }
   if (g < 4)
   {
      Acc v = s[0];
#pragma unroll
      for (int q = 1; q < 4; ++q)
         if (g == q) v = s[q];
      const int64_t i = 4 * b + g;
      if (i < nrows) y[i] = combine(alpha, row_of<Unscale>(static_cast<double>(v), us, i), beta, y + i);
   }
}

// cuda_core_balanced: one warp per 64-tile chunk of a long row; its 4 row sums go to
// partial[4c .. 4c+3].
template <class V, bool Unscale>
__global__ void __launch_bounds__(kThreads)
spmv_chunks_kernel(const int32_t* __restrict__ blk_ptr, const int32_t* __restrict__ blk_col,
                   const uint16_t* __restrict__ blk_map, const typename Arith<V>::Bits* __restrict__ packed,
                   const int32_t* __restrict__ chunk_row, const int32_t* __restrict__ chunk_tile,
                   const int64_t* __restrict__ chunk_val, int64_t num_chunks,
                   const double* __restrict__ x, const double* __restrict__ us,
                   typename Arith<V>::Acc* __restrict__ partial)
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
                      double beta, double* __restrict__ y)
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
   for (int d = 4; d < 32; d <<= 1) acc += __shfl_xor_sync(kFull, acc, d);
   if (lane < 4)
   {
      const int64_t i = 4 * static_cast<int64_t>(b) + r;
      if (i < nrows) y[i] = combine(alpha, row_of<Unscale>(static_cast<double>(acc), us, i), beta, y + i);
   }
}

// D = A * B + C for one 8x8x4 fp64 fragment (layouts in the notes at the top).
__device__ inline void mma_8x8x4(double& d0, double& d1, double a, double b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
   double c0 = d0, c1 = d1;
   asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%4, %5};\n"
                : "=d"(d0), "=d"(d1)
                : "d"(a), "d"(b), "d"(c0), "d"(c1));
#else
   // The same fragments on CUDA cores: A[i][k] is held by lane 4i+k, B[k][j] by lane 4j+k.
   const int lane = static_cast<int>(threadIdx.x & 31);
   const int i    = lane >> 2;
   const int j0   = 2 * (lane & 3);
#pragma unroll
   for (int k = 0; k < 4; ++k)
   {
      const double aik = __shfl_sync(kFull, a, 4 * i + k);
      const double b0  = __shfl_sync(kFull, b, 4 * j0 + k);
      const double b1  = __shfl_sync(kFull, b, 4 * (j0 + 1) + k);
      d0               = __fma_rn(aik, b0, d0);
      d1               = __fma_rn(aik, b1, d1);
   }
#endif
}

// tensor_core (fp64): a warp owns 2R consecutive block rows as R pairs; pair p is one mma
// chain (lanes 0-15: block row 2p, lanes 16-31: block row 2p+1), U tiles of each row per step.
template <int R, int U, bool Unscale>
__global__ void __launch_bounds__(kThreads)
spmv_tensor_kernel(const int32_t* __restrict__ blk_ptr, const int32_t* __restrict__ blk_col,
                   const double* __restrict__ blk_val, int32_t block_rows, int32_t nrows,
                   int32_t ncols, double alpha, const double* __restrict__ x,
                   const double* __restrict__ us, double beta, double* __restrict__ y)
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
      steps[p] = max(len[p], __shfl_xor_sync(kFull, len[p], 16)); // same in the whole warp
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
         if (i < nrows) y[i] = combine(alpha, row_of<Unscale>(d0[p], us, i), beta, y + i);
      }
   }
}

// D = A * B (+ zero C) for one m16n8k16 fragment set, f16 inputs, f32 accumulation (layouts in
// the notes at the top). a/b: .f16x2 registers, the lower-indexed element in the low 16 bits.
__device__ inline void mma_16x8x16_f16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
   const float z = 0.0f;
   asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                "{%8, %9}, {%10, %11, %12, %13};\n"
                : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(z), "f"(z), "f"(z),
                  "f"(z));
#else
   // The same fragments on CUDA cores. A[r][k] is held by lane 4(r%8) + (k%8)/2, register
   // (r >= 8) + 2(k >= 8), half k%2; B[k][n] by lane 4n + (k%8)/2, register k >= 8, half k%2.
   const int lane = static_cast<int>(threadIdx.x & 31);
   const int grp  = lane >> 2;
   const int n0   = 2 * (lane & 3);
   d[0] = d[1] = d[2] = d[3] = 0.0f;
#pragma unroll
   for (int k = 0; k < 16; k += 2)
   {
      const int      src = (k & 7) >> 1;
      const uint32_t alo = __shfl_sync(kFull, a[k >= 8 ? 2 : 0], 4 * grp + src); // row grp
      const uint32_t ahi = __shfl_sync(kFull, a[k >= 8 ? 3 : 1], 4 * grp + src); // row grp + 8
      const uint32_t b0  = __shfl_sync(kFull, b[k >= 8 ? 1 : 0], 4 * n0 + src);
      const uint32_t b1  = __shfl_sync(kFull, b[k >= 8 ? 1 : 0], 4 * (n0 + 1) + src);
#pragma unroll
      for (int h = 0; h < 2; ++h)
      {
         const float al = __half2float(__ushort_as_half(static_cast<unsigned short>(alo >> (16 * h))));
         const float ah = __half2float(__ushort_as_half(static_cast<unsigned short>(ahi >> (16 * h))));
         const float x0 = __half2float(__ushort_as_half(static_cast<unsigned short>(b0 >> (16 * h))));
         const float x1 = __half2float(__ushort_as_half(static_cast<unsigned short>(b1 >> (16 * h))));
         d[0] = __fmaf_rn(al, x0, d[0]);
         d[1] = __fmaf_rn(al, x1, d[1]);
         d[2] = __fmaf_rn(ah, x0, d[2]);
         d[3] = __fmaf_rn(ah, x1, d[3]);
      }
   }
#endif
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
                     const double* __restrict__ us, double beta, double* __restrict__ y)
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
   for (int d = 16; d > 0; d >>= 1) most = max(most, __shfl_xor_sync(kFull, most, d));
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
         m        = fmax(m, __shfl_xor_sync(kFull, m, 1));
         m        = fmax(m, __shfl_xor_sync(kFull, m, 2));
         e[u]     = (m > 0.0 && m <= 1.7976931348623157e308) ? min(10 - ilogb(m), 1023) : 0;
         const double sc = pow2(e[u]);
#pragma unroll
         for (int q2 = 0; q2 < 2; ++q2)
         {
            const unsigned short lo = __half_as_ushort(__double2half(__dmul_rn(xv[q2][0], sc)));
            const unsigned short hi = __half_as_ushort(__double2half(__dmul_rn(xv[q2][1], sc)));
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
            const int   eo = __shfl_sync(kFull, e[u], 4 * (tig < 2 ? gOut : 0));
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
         y[i] = combine(alpha, row_of<Unscale>(static_cast<double>(acc), us, i), beta, y + i);
      }
   }
}

// ---- host side -------------------------------------------------------------------------

template <class V>
SpmvStats measure(const DeviceMbsr<V>& A, Stream s, const Allocator& alloc)
{
   SpmvStats st;
   st.tiles = A.num_tiles;
   if (A.block_rows > 0) st.mean_tiles_per_block_row = static_cast<double>(A.num_tiles) / A.block_rows;
   if (A.summary.known) // counted by the conversion: no pass, no synchronisation
   {
      st.nnz                     = A.summary.nnz;
      st.dense_tiles             = A.summary.dense_tiles;
      st.max_tiles_per_block_row = A.summary.max_tiles_per_block_row;
      return st;
   }
   const int64_t n = std::max<int64_t>(A.num_tiles, A.block_rows);
   if (n == 0) return st;
   Buffer<unsigned long long> out(3, alloc);
   AMGT_DEVICE_CHECK(cudaMemsetAsync(out.get(), 0, 3 * sizeof(unsigned long long), s));
   const unsigned blocks = std::min(blocks_for(n), 4096u);
   measure_kernel<<<blocks, kThreads, 0, s>>>(A.blk_map.get(), A.num_tiles, A.blk_ptr.get(),
                                              A.block_rows, out.get());
   AMGT_DEVICE_CHECK_LAUNCH("measure_kernel");
   unsigned long long h[3] = {0, 0, 0};
   AMGT_DEVICE_CHECK(cudaMemcpyAsync(h, out.get(), sizeof h, cudaMemcpyDeviceToHost, s));
   AMGT_DEVICE_CHECK(cudaStreamSynchronize(s));
   st.nnz                     = static_cast<int64_t>(h[0]);
   st.dense_tiles             = static_cast<int64_t>(h[1]);
   st.max_tiles_per_block_row = static_cast<int32_t>(h[2]);
   return st;
}

// Exclusive sum of n int32 counts (device), returning the total (synchronises).
int32_t exclusive_sum(const int32_t* in, int32_t* out, int64_t n, Stream s, const Allocator& alloc)
{
   size_t bytes = 0;
   AMGT_DEVICE_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n, s));
   Buffer<char> temp(bytes, alloc);
   AMGT_DEVICE_CHECK(cub::DeviceScan::ExclusiveSum(temp.get(), bytes, in, out, n, s));
   int32_t total = 0;
   AMGT_DEVICE_CHECK(cudaMemcpyAsync(&total, out + n - 1, sizeof total, cudaMemcpyDeviceToHost, s));
   AMGT_DEVICE_CHECK(cudaStreamSynchronize(s)); // also before temp is freed
   return total;
}

// The packed layout a plan's kernels read: the plan's own arrays, else the matrix's.
template <class V>
const V* packed_values(const DeviceMbsr<V>& A, const SpmvPlan<V>& plan)
{
   return plan.packed_val.size() ? plan.packed_val.get() : A.packed_val.get();
}
template <class V>
const int64_t* packed_rows(const DeviceMbsr<V>& A, const SpmvPlan<V>& plan)
{
   return plan.row_val.size() ? plan.row_val.get() : A.packed_row.get();
}
template <class V>
const uint16_t* packed_decode(const DeviceMbsr<V>& A, const SpmvPlan<V>& plan)
{
   return plan.entry_meta.size() ? plan.entry_meta.get() : A.packed_meta.get();
}

// Calls f(std::integral_constant<int, G>{}) for the plan's group width G (4, 8, 16 or 32).
template <class F>
void with_group_lanes(int32_t lanes, F&& f)
{
   switch (lanes)
   {
   case 4: return f(std::integral_constant<int, 4>{});
   case 8: return f(std::integral_constant<int, 8>{});
   case 16: return f(std::integral_constant<int, 16>{});
   case 32: return f(std::integral_constant<int, 32>{});
   default: AMGT_THROW("spmv: invalid group size in the plan");
   }
}

template <class V, bool Unscale>
void launch_rows(const DeviceMbsr<V>& A, const SpmvPlan<V>& plan, int32_t long_row_tiles,
                 double alpha, const double* x, const double* us, double beta, double* y, Stream s)
{
   with_group_lanes(plan.group_lanes, [&](auto g) {
      constexpr int G = decltype(g)::value;
      spmv_rows_kernel<V, G, Unscale><<<blocks_for(static_cast<int64_t>(A.block_rows) * G), kThreads, 0, s>>>(
         A.blk_ptr.get(), A.blk_col.get(), A.blk_map.get(), as_bits(packed_values(A, plan)),
         packed_rows(A, plan), A.block_rows, A.nrows, long_row_tiles, alpha, x, us, beta, y);
      AMGT_DEVICE_CHECK_LAUNCH("spmv_rows_kernel");
   });
}

template <class V, bool Unscale>
void launch_tiles(const DeviceMbsr<V>& A, const SpmvPlan<V>& plan, double alpha, const double* x,
                  const double* us, double beta, double* y, Stream s)
{
   with_group_lanes(plan.group_lanes, [&](auto g) {
      constexpr int G = decltype(g)::value;
      spmv_tiles_kernel<V, G, Unscale><<<blocks_for(static_cast<int64_t>(A.block_rows) * G), kThreads, 0, s>>>(
         A.blk_ptr.get(), A.blk_col.get(), A.blk_map.get(), as_bits(packed_values(A, plan)),
         packed_rows(A, plan), A.block_rows, A.nrows, alpha, x, us, beta, y);
      AMGT_DEVICE_CHECK_LAUNCH("spmv_tiles_kernel");
   });
}

template <class V, bool Unscale>
void launch_entries(const DeviceMbsr<V>& A, const SpmvPlan<V>& plan, double alpha, const double* x,
                    const double* us, double beta, double* y, Stream s)
{
   with_group_lanes(plan.group_lanes, [&](auto g) {
      constexpr int G = decltype(g)::value;
      spmv_entries_kernel<V, G, Unscale><<<blocks_for(static_cast<int64_t>(A.block_rows) * G), kThreads, 0, s>>>(
         A.blk_ptr.get(), A.blk_col.get(), as_bits(packed_values(A, plan)), packed_decode(A, plan),
         packed_rows(A, plan), A.block_rows, A.nrows, alpha, x, us, beta, y);
      AMGT_DEVICE_CHECK_LAUNCH("spmv_entries_kernel");
   });
}

// The path's kernels, with (Unscale) or without the unscale vector us; false instantiates
// kernels that never read it.
template <class V, bool Unscale>
void run_spmv(const DeviceMbsr<V>& A, const SpmvPlan<V>& plan, double alpha, const double* x,
              const double* us, double beta, double* y, Stream s)
{
   using Acc = typename StorageTraits<V>::acc_t;
   switch (plan.path)
   {
   case SpmvPath::cuda_core:
      launch_rows<V, Unscale>(A, plan, std::numeric_limits<int32_t>::max(), alpha, x, us, beta, y, s);
      return;
   case SpmvPath::cuda_core_tiles:
      launch_tiles<V, Unscale>(A, plan, alpha, x, us, beta, y, s);
      return;
   case SpmvPath::cuda_core_entries:
      launch_entries<V, Unscale>(A, plan, alpha, x, us, beta, y, s);
      return;
   case SpmvPath::cuda_core_balanced:
      // Short rows (and empty ones) straight to y; long rows by chunks, then combined.
      launch_rows<V, Unscale>(A, plan, kSpmvBalancedTiles, alpha, x, us, beta, y, s);
      if (plan.num_chunks > 0)
      {
         spmv_chunks_kernel<V, Unscale><<<blocks_for(plan.num_chunks * 32), kThreads, 0, s>>>(
            A.blk_ptr.get(), A.blk_col.get(), A.blk_map.get(), as_bits(packed_values(A, plan)),
            plan.chunk_row.get(), plan.chunk_tile.get(), plan.chunk_val.get(), plan.num_chunks, x, us,
            plan.partial.get());
         AMGT_DEVICE_CHECK_LAUNCH("spmv_chunks_kernel");
         spmv_long_rows_kernel<Acc, Unscale><<<blocks_for(int64_t{plan.num_long_rows} * 32), kThreads, 0, s>>>(
            A.blk_ptr.get(), plan.long_row.get(), plan.long_chunk.get(), plan.num_long_rows, A.nrows,
            plan.partial.get(), alpha, us, beta, y);
         AMGT_DEVICE_CHECK_LAUNCH("spmv_long_rows_kernel");
      }
      return;
   case SpmvPath::tensor_core:
      if constexpr (std::is_same_v<V, double>)
      {
         constexpr int64_t rows_per_warp = 2 * kTensorPairs;
         spmv_tensor_kernel<kTensorPairs, 4 / kTensorPairs, Unscale>
            <<<blocks_for((int64_t{A.block_rows} + rows_per_warp - 1) / rows_per_warp * 32), kThreads, 0, s>>>(
               A.blk_ptr.get(), A.blk_col.get(), A.blk_val.get(), A.block_rows, A.nrows, A.ncols,
               alpha, x, us, beta, y);
         AMGT_DEVICE_CHECK_LAUNCH("spmv_tensor_kernel");
         return;
      }
      else if constexpr (std::is_same_v<V, half_t>)
      {
         spmv_tensor_h_kernel<kTensorHalfSteps, Unscale>
            <<<blocks_for((int64_t{A.block_rows} + 3) / 4 * 32), kThreads, 0, s>>>(
               A.blk_ptr.get(), A.blk_col.get(), as_bits(A.blk_val.get()), A.block_rows, A.nrows,
               A.ncols, alpha, x, us, beta, y);
         AMGT_DEVICE_CHECK_LAUNCH("spmv_tensor_h_kernel");
         return;
      }
      break;
   case SpmvPath::automatic:
      break;
   }
   AMGT_THROW(std::string("spmv: the plan holds no runnable path (") + to_string(plan.path) + ")");
}

} // namespace

const char* to_string(SpmvPath p)
{
   switch (p)
   {
   case SpmvPath::automatic:
      return "automatic";
   case SpmvPath::cuda_core:
      return "cuda_core";
   case SpmvPath::cuda_core_balanced:
      return "cuda_core_balanced";
   case SpmvPath::cuda_core_tiles:
      return "cuda_core_tiles";
   case SpmvPath::cuda_core_entries:
      return "cuda_core_entries";
   case SpmvPath::tensor_core:
      return "tensor_core";
   }
   return "?";
}

int32_t spmv_group_lanes(double mean_tiles_per_block_row)
{
   // Measured on an H100 (fp64; fp32/fp16 alike): block tridiagonal, 3 tiles per block row:
   // G = 4 / 8 / 16 / 32 took 161 / 186 / 233 / 326 us; 7-point 160^3, 7.1 tiles: 175 / 226 /
   // 314 / 468 us; 27-point 100^3, 26 tiles: 153-170 / 155 / 168 / 173-194 us. Narrow groups
   // win on short rows; from about 16 tiles per block row 8 lanes are as fast or faster.
   if (mean_tiles_per_block_row <= 16) return 4;
   if (mean_tiles_per_block_row <= 48) return 8;
   if (mean_tiles_per_block_row <= 96) return 16;
   return 32;
}

int32_t spmv_tile_lanes(double mean_tiles_per_block_row)
{
   // One tile per lane and step: the narrowest group that takes a mean block row in one or
   // two steps. Measured on an H100 (fp64, amgt-kernel-bench --tile-lanes): 32 lanes
   // everywhere took 631 against 165 us on the 7-point 160^3 fine level (7 tiles per block
   // row); 8 lanes everywhere 2-3x longer than this rule on coarse levels of long rows.
   if (mean_tiles_per_block_row <= 8) return 4;
   if (mean_tiles_per_block_row <= 16) return 8;
   if (mean_tiles_per_block_row <= 32) return 16;
   return 32;
}

int32_t spmv_entry_lanes(double mean_entries_per_block_row, int64_t block_rows)
{
   // Measured on an H100 (kernel benchmark, the matrices of three AMG setups): about 16 entries
   // per lane (four passes of four) beat one pass of 32 lanes on long fine-level rows (27-point
   // 100^3 A, 106 entries per block row: 8 lanes 136 us, 32 lanes 181 us, fp64); but a matrix
   // of few block rows needs wider groups to fill the device (a coarse level of 5k block rows:
   // 8 lanes 38 us, 32 lanes 12 us). So: the narrowest group with <= 16 entries per lane, then
   // wider until the launch has 2^19 threads (about two waves of an H100).
   int32_t g = 4;
   while (g < 32 && mean_entries_per_block_row > 16.0 * g) g *= 2;
   while (g < 32 && block_rows * g < (int64_t{1} << 19)) g *= 2;
   return g;
}

SpmvPath choose_spmv_path(Precision p, const SpmvStats& st)
{
   if (st.tiles == 0) return SpmvPath::cuda_core;
   const double fill           = static_cast<double>(st.nnz) / static_cast<double>(st.tiles);
   const double dense_fraction = static_cast<double>(st.dense_tiles) / static_cast<double>(st.tiles);
   if (kSpmvAutoTensorCore && (p == Precision::fp64 || p == Precision::fp16) && fill >= kDenseTileNnz &&
       dense_fraction >= 0.5)
   {
      return SpmvPath::tensor_core;
   }
   if (st.max_tiles_per_block_row > kSpmvBalancedTiles &&
       st.max_tiles_per_block_row >= 4.0 * st.mean_tiles_per_block_row)
   {
      return SpmvPath::cuda_core_balanced;
   }
   // Short block rows of well-filled tiles (7-point fine levels): one tile per lane; of dense
   // tiles: a group of lanes per block row, one lane per tile row (measured on an H100, fp64,
   // 7 tiles per block row: 7-point 160^3, fill 4.0: tiles 166 us, cuda_core 182 us; block4
   // 64^3, every tile full: tiles 161 us, cuda_core 105 us, tensor_core 112 us, cuSPARSE 162 us)
   if (fill >= kSpmvTileMinFill && st.mean_tiles_per_block_row <= kSpmvTileMaxMeanTiles)
   {
      return fill >= kDenseTileNnz ? SpmvPath::cuda_core : SpmvPath::cuda_core_tiles;
   }
   if (st.max_tiles_per_block_row <= kSpmvEntryMaxTiles) return SpmvPath::cuda_core_entries;
   return st.mean_tiles_per_block_row <= 16.0 ? SpmvPath::cuda_core_tiles : SpmvPath::cuda_core;
}

template <class V>
SpmvPlan<V> make_spmv_plan(const DeviceMbsr<V>& A, Stream s, const Allocator& alloc, SpmvPath forced)
{
   using Acc = typename StorageTraits<V>::acc_t;
   AMGT_REQUIRE(A.nrows >= 0 && A.ncols >= 0, "spmv plan: negative dimensions");
   AMGT_REQUIRE(A.block_rows == A.nrows / kTileDim + (A.nrows % kTileDim != 0) &&
                    A.block_cols == A.ncols / kTileDim + (A.ncols % kTileDim != 0),
                "spmv plan: block dimensions do not match nrows/ncols");
   AMGT_REQUIRE(A.num_tiles >= 0 && A.num_tiles <= std::numeric_limits<int32_t>::max(),
                "spmv plan: tile count out of range");

   SpmvPlan<V> plan;
   plan.nrows      = A.nrows;
   plan.ncols      = A.ncols;
   plan.block_rows = A.block_rows;
   plan.num_tiles  = A.num_tiles;
   plan.stats      = measure(A, s, alloc);
   plan.fill       = plan.stats.tiles > 0
                         ? static_cast<double>(plan.stats.nnz) / static_cast<double>(plan.stats.tiles)
                         : 0.0;
   SpmvPath path = forced == SpmvPath::automatic
                       ? choose_spmv_path(StorageTraits<V>::precision, plan.stats)
                       : forced;
   // fp32 has no tensor-core form of its rounding contract (tf32 inputs): CUDA cores instead.
   if (path == SpmvPath::tensor_core && std::is_same_v<V, float>) path = SpmvPath::cuda_core;
   // cuda_core_entries indexes a tile inside its block row with 12 bits.
   if (path == SpmvPath::cuda_core_entries && plan.stats.max_tiles_per_block_row > kSpmvEntryMaxTiles)
      path = choose_spmv_path(StorageTraits<V>::precision, plan.stats);
   plan.path = path;
   if (path == SpmvPath::tensor_core)
   {
      AMGT_REQUIRE(A.has_dense(), "spmv plan: the tensor_core path needs the dense layout (blk_val), "
                                  "and this matrix was converted without it");
      return plan; // reads A.blk_val directly
   }
   if (A.nrows == 0) return plan;

   // Offsets inside one block row are int32: 16 * tiles must fit.
   AMGT_REQUIRE(plan.stats.max_tiles_per_block_row < (int32_t{1} << 27),
                "spmv plan: a block row holds too many tiles for int32 offsets");

   const int64_t ntiles = A.num_tiles;
   // Balanced: the group kernel only sees rows of <= 64 tiles, so the narrowest group.
   plan.group_lanes     = path == SpmvPath::cuda_core         ? spmv_group_lanes(plan.stats.mean_tiles_per_block_row)
                          : path == SpmvPath::cuda_core_tiles ? spmv_tile_lanes(plan.stats.mean_tiles_per_block_row)
                          : path == SpmvPath::cuda_core_entries
                              ? spmv_entry_lanes(A.block_rows > 0 ? static_cast<double>(plan.stats.nnz) / A.block_rows : 0.0,
                                                 A.block_rows)
                              : 4;
   // The packed layout: the matrix's own (csr_to_mbsr built it) or the plan's, packed here
   // from the dense values. The same for the entry decode of cuda_core_entries.
   const bool own_packed = !A.has_packed();
   const bool own_meta   = path == SpmvPath::cuda_core_entries && plan.stats.nnz > 0 &&
                         A.packed_meta.size() != static_cast<size_t>(plan.stats.nnz);
   AMGT_REQUIRE(!own_packed || A.has_dense(), "spmv plan: the matrix holds neither value layout");
   if (own_packed)
   {
      plan.row_val = Buffer<int64_t>(static_cast<size_t>(A.block_rows) + 1, alloc);
      if (ntiles == 0)
      {
         AMGT_DEVICE_CHECK(cudaMemsetAsync(plan.row_val.get(), 0, plan.row_val.size() * sizeof(int64_t), s));
         AMGT_DEVICE_CHECK(cudaStreamSynchronize(s));
         return plan;
      }
   }
   if (ntiles == 0) return plan;
   if (!own_packed && !own_meta && path != SpmvPath::cuda_core_balanced)
   {
      return plan; // everything it reads is in the matrix: no pass, no synchronisation
   }

   // Per-tile offsets into the packed values: exclusive scan of the tile popcounts (int64:
   // nnz may pass 2^31).
   Buffer<int64_t> cnt(ntiles + 1, alloc), tile_off(ntiles + 1, alloc);
   tile_counts_kernel<<<blocks_for(ntiles + 1), kThreads, 0, s>>>(A.blk_map.get(), ntiles, cnt.get());
   AMGT_DEVICE_CHECK_LAUNCH("tile_counts_kernel");
   size_t bytes = 0;
   AMGT_DEVICE_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, cnt.get(), tile_off.get(), ntiles + 1, s));
   Buffer<char> temp(bytes, alloc);
   AMGT_DEVICE_CHECK(cub::DeviceScan::ExclusiveSum(temp.get(), bytes, cnt.get(), tile_off.get(), ntiles + 1, s));
   if (own_packed)
   {
      plan.packed_val = Buffer<V>(static_cast<size_t>(plan.stats.nnz), alloc);
      pack_kernel<V><<<blocks_for(16 * ntiles), kThreads, 0, s>>>(A.blk_map.get(), A.blk_val.get(),
                                                                 tile_off.get(), ntiles, plan.packed_val.get());
      AMGT_DEVICE_CHECK_LAUNCH("pack_kernel");
      row_val_kernel<<<blocks_for(int64_t{A.block_rows} + 1), kThreads, 0, s>>>(
         A.blk_ptr.get(), tile_off.get(), A.block_rows, plan.row_val.get());
      AMGT_DEVICE_CHECK_LAUNCH("row_val_kernel");
   }
   if (own_meta)
   {
      plan.entry_meta = Buffer<uint16_t>(static_cast<size_t>(plan.stats.nnz), alloc);
      entry_meta_kernel<<<blocks_for(int64_t{A.block_rows} * 32), kThreads, 0, s>>>(
         A.blk_ptr.get(), A.blk_map.get(), tile_off.get(), A.block_rows, plan.entry_meta.get());
      AMGT_DEVICE_CHECK_LAUNCH("entry_meta_kernel");
   }
   if (path == SpmvPath::cuda_core_balanced)
   {
      const int64_t   n = int64_t{A.block_rows} + 1;
      Buffer<int32_t> nchunks(n, alloc), is_long(n, alloc), chunk_first(n, alloc), long_index(n, alloc);
      chunk_count_kernel<<<blocks_for(n), kThreads, 0, s>>>(A.blk_ptr.get(), A.block_rows,
                                                            nchunks.get(), is_long.get());
      AMGT_DEVICE_CHECK_LAUNCH("chunk_count_kernel");
      plan.num_chunks    = exclusive_sum(nchunks.get(), chunk_first.get(), n, s, alloc);
      plan.num_long_rows = exclusive_sum(is_long.get(), long_index.get(), n, s, alloc);
      if (plan.num_chunks > 0)
      {
         plan.chunk_row  = Buffer<int32_t>(plan.num_chunks, alloc);
         plan.chunk_tile = Buffer<int32_t>(plan.num_chunks, alloc);
         plan.chunk_val  = Buffer<int64_t>(plan.num_chunks, alloc);
         plan.long_row   = Buffer<int32_t>(plan.num_long_rows, alloc);
         plan.long_chunk = Buffer<int32_t>(plan.num_long_rows, alloc);
         plan.partial    = Buffer<Acc>(4 * static_cast<size_t>(plan.num_chunks), alloc);
         chunk_fill_kernel<<<blocks_for(A.block_rows), kThreads, 0, s>>>(
            A.blk_ptr.get(), tile_off.get(), chunk_first.get(), long_index.get(), A.block_rows,
            plan.chunk_row.get(), plan.chunk_tile.get(), plan.chunk_val.get(), plan.long_row.get(),
            plan.long_chunk.get());
         AMGT_DEVICE_CHECK_LAUNCH("chunk_fill_kernel");
      }
      AMGT_DEVICE_CHECK(cudaStreamSynchronize(s)); // before the counts are freed
   }
   AMGT_DEVICE_CHECK(cudaStreamSynchronize(s)); // before cnt, tile_off and temp are freed
   return plan;
}

template <class V>
void spmv(const DeviceMbsr<V>& A, const SpmvPlan<V>& plan, double alpha, const double* x,
          double beta, double* y, Stream s, const double* unscale)
{
   AMGT_REQUIRE(plan.nrows == A.nrows && plan.ncols == A.ncols && plan.block_rows == A.block_rows &&
                    plan.num_tiles == A.num_tiles,
                "spmv: the plan was made for a matrix of another shape");
   AMGT_REQUIRE(unscale == nullptr || A.nrows == A.ncols, "spmv: unscale needs a square matrix");
   if (A.nrows == 0) return;
   AMGT_REQUIRE(y != nullptr, "spmv: y is null");
   if (alpha == 0.0)
   {
      scale_kernel<<<blocks_for(A.nrows), kThreads, 0, s>>>(A.nrows, beta, y);
      AMGT_DEVICE_CHECK_LAUNCH("scale_kernel");
      return;
   }
   AMGT_REQUIRE(x != nullptr || A.ncols == 0, "spmv: x is null");
   if (unscale != nullptr) run_spmv<V, true>(A, plan, alpha, x, unscale, beta, y, s);
   else run_spmv<V, false>(A, plan, alpha, x, nullptr, beta, y, s);
}

#define AMGT_INSTANTIATE(V)                                                                        \
   template SpmvPlan<V> make_spmv_plan<V>(const DeviceMbsr<V>&, Stream, const Allocator&, SpmvPath); \
   template void spmv<V>(const DeviceMbsr<V>&, const SpmvPlan<V>&, double, const double*, double,   \
                         double*, Stream, const double*);
AMGT_INSTANTIATE(double)
AMGT_INSTANTIATE(float)
AMGT_INSTANTIATE(half_t)
#undef AMGT_INSTANTIATE

} // namespace amgt::device
