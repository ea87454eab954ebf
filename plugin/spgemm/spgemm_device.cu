// GPU SpGEMM C = A * B on mBSR (4x4 tiles with a 16-bit occupancy bitmap), BRIEF section 2.
//
// Design notes
// ============
// Phases (all on `stream`; one host round trip, after the symbolic count):
//   1. Analysis: one thread per block row I of C computes the bound
//        ub(I) = sum over A's tiles (I,K) of len(B block row K)            (int64)
//      i.e. the number of intermediate tile products, and puts I into bin
//        b = 0 for ub < 128, ..., 6 for ub < 8192, 7 for ub >= 8192 (powers of two),
//      no bin for ub == 0. A block-local histogram plus one scatter pass (per-block ranks from
//      shared atomics, one global atomic per bin and block to reserve a range) groups the rows
//      of each bin into one list. Rows are independent, so the order inside a bin does not
//      matter for the result (it is not deterministic, the output is). The same kernel counts
//      A's dense tiles (popcount >= kDenseTileNnz) for SpgemmPath::automatic's choice of
//      numeric kernel; the count travels with the bin counts in the one round trip below.
//   2. Symbolic pass 1 counts the distinct output tiles of every row; exclusive scan (int64)
//      gives C's block-row offsets; the numeric phase's bins are built from those counts; then
//      the single host round trip reads C's tile count (to allocate C) and the bin counts.
//      Symbolic pass 2 writes the sorted block columns and the OR-ed bitmaps. Its rows are
//      binned again, by their count: the table of pass 2 must hold the row's nc distinct keys
//      only (nc < T/2), and nc is often several times below the bound ub that sized pass 1's
//      table (fine AMG products: ub ~500, nc ~45). Pass 2 clears, scans and sorts its table,
//      so its cost follows T: with tables sized by ub it took twice pass 1's time (ncu, H100,
//      laplace7 n=160 setup products: 51 against 23 ms); the new lists reuse pass 1's buffer.
//      Pass 1 runs before the host knows how many rows each bin holds: every bin kernel is a
//      grid-stride loop over its row list whose length it reads from device memory, launched
//      with at most one wave of blocks (an empty bin costs one short launch, not a round trip).
//   3. Numeric: one warp per block row of C, by one of two kernels for the whole product:
//      the ordered kernel (numeric_kernel; tensor cores for dense A tiles, bit-identical to
//      spgemm_ref on CUDA cores) or the pairs kernel (numeric_pairs_kernel; low-fill operands,
//      atomics, order not fixed). SpgemmPath::automatic takes the pairs kernel when A's mean
//      tile fill is below 5.5 (spgemm_device.h, kPairsFillLimitTimes2, with the measurements
//      behind it). The ordered kernel's cost per A tile (sequential A tiles, ballots, 16 lanes
//      per pair) is what low fill exposes; its tensor-core path is what high fill needs (fp32
//      has no tensor-core path: there the limit only stands for "fill high enough for 16
//      lanes per pair to be busy").
//
// Symbolic, bins 0..6: per-row open-addressing hash table in shared memory, T = 2^(8+b) slots of
// 64 bits, key (block column J) in the high word, OR of the tile bitmaps in the low word;
// EMPTY = ~0 (no valid J has all high bits set). ub < 2^(7+b) = T/2 bounds the number of
// distinct keys, so the load factor stays below 1/2 and probing always ends. Hash = the top
// log2(T) bits of J * 2654435769 (Fibonacci hashing): the low bits of J * odd depend only on
// the low bits of J, so masking them would send every J of one residue class mod T to the same
// slot. Insert = CAS of EMPTY -> (J<<32 | map); a slot's key never changes after that, only its
// low word (atomicOr), so a plain read that sees a key is final and a stale EMPTY is caught by
// the CAS. Bins 0-2 use one warp per row (several rows per block), bins 3-6 one block per row
// (256, 512, 1024, 1024 threads). Pass 2 compacts the occupied slots into a second array of
// T/2 slots, pads it to the next power of two with EMPTY and bitonic-sorts it; sorting the
// packed 64-bit words sorts by J because keys are unique. Shared memory per row is 12 T bytes
// (pass 2), so bin 6 needs 204 KB: it fits an H100 (227 KB opt-in) but not an A100; bins whose
// table does not fit the device are routed to bin 7 by the analysis kernel.
// Pair enumeration: a group (warp or block) takes its row's A tiles G at a time, scans their B
// block-row lengths (exclusive prefix pre[]) and hands flat product index f to thread f mod G;
// the A tile of f is the last i with pre[i] <= f (binary search in shared memory), the B tile
// is bstart[i] + f - pre[i]. Short B rows (4-8 tiles on fine AMG levels) therefore still fill
// the warp. Pairs whose bitmap_product is 0 are skipped before the table is touched.
//
// Symbolic, bin 7 (ub >= 8192, unbounded): a global hash table would need a size known on the
// host before pass 1, i.e. a second round trip, or a worst-case allocation. Instead one block
// per row slides a dense window of W block columns (2 columns per 32-bit word, W = 32768 by
// default, 64 KB of shared memory) over the row: the window starts at the smallest block column
// any of the row's B rows still has; each warp takes an A tile, finds the window start in its
// (sorted) B row by binary search and walks the B row until it leaves the window, atomicOr-ing
// bitmap products into the window; the first column past the window, minimised over the block,
// is the next window's start. A scan of the window yields the count (pass 1) or the sorted
// columns directly (pass 2, block-wide exclusive scan over the words in order). The cost is the
// row's products plus one binary search per A tile and window; windows jump over empty column
// ranges, so rows with local support (PDE problems) need one or two windows.
//
// Numeric, ordered kernel (numeric_kernel): one warp per block row, rows binned by C's tiles
// per row (<= 32, <= 128, longer); the pairs kernel below uses the same bins and the same
// column restriction per window, with windows bounded by C's stored entries as well.
// The warp accumulates in shared memory (acc_t[16] per output tile) for a window of at most
// kCap consecutive output tiles of the row (32/128/256 by bin; longer rows take several
// windows: each window restricts every B row to the window's block-column range with a binary
// search), so no row is too long and no global scratch is needed. Per A tile (in ascending
// block-column order, sequentially) lanes take 32 B tiles at a time: lane j tests B tile j
// (bitmap_product != 0; block column inside the window), finds its output position by binary
// search in the window's sorted block columns (staged in shared memory), and the warp compacts
// the valid pairs with a ballot into a 32-entry stage. All B tiles of one B row have distinct
// block columns, so the pairs of one A tile hit distinct accumulator tiles: no two lanes ever
// update the same accumulator entry in one step, and every entry receives its terms in the
// reference's order (A tiles ascending, then k inside the tile), one FMA each, which makes the
// CUDA-core result bit-identical to spgemm_ref. __syncwarp() separates A tiles and chunks.
//   Which A tiles are "dense" (tensor cores): popcount >= NumericArgs::tc_min_nnz, i.e.
//   kDenseTileNnz for SpgemmPath::automatic, 0 for tensor_core, 17 (none) for cuda_core; fp32
//   never (see below).
//   CUDA cores (A tile not dense, and always for fp32): 16 lanes per pair,
//   two pairs per step; lane e = 4r+c owns entry (r,c), skips it unless the pair's bitmap
//   product has bit e, and adds a(r,k)*b(k,c) for k = 0..3 where both bits are set.
//   Tensor cores, fp64 (dense A tile): mma.m8n8k4 f64 with
//     A operand (8x4, row) = [A tile; A tile]  lane l holds A(g, t) = Atile(g&3, t),
//                                              g = l>>2 (groupID), t = l&3 (thread in group)
//     B operand (4x8, col) = [B_p | B_q]       lane l holds B(k=t, n=g) = B_p(t, g) for g < 4,
//                                              B_q(t, g-4) for g >= 4
//     C/D (8x8)                                lane l holds (g, 2t) and (g, 2t+1)
//   D rows 0-3 and 4-7 are the same products (two copies of A); the useful half is the
//   diagonal: D[0:4,0:4] = A*B_p, taken by lanes 0-15 with t < 2, and D[4:8,4:8] = A*B_q, taken
//   by lanes 16-31 with t >= 2 (16 entries each, two per lane). Those lanes load the running
//   sums into C (zero elsewhere) and store D back, entries outside the pair's bitmap product
//   untouched. A missing second pair (odd count) gets a zero B_q. Products of the zero fill
//   inside tiles are exact zeros, so only the summation order differs from the reference.
//   Without sm_80 the same fragment semantics run on CUDA cores through shuffles.
//   Tensor cores, fp16 (dense A tile): mma.m16n8k16.row.col.f32.f16.f16.f32 (the sm_80/sm_90
//   shape; sm_70's m8n8k4 f16 runs at a fraction of the rate on sm_90); g = lane>>2, t = lane&3:
//     A operand (16x16, row) = diag(T, T, T, T), the warp's one A tile T four times on the
//       diagonal. Lane l holds a0 = A(g, 2t..2t+1), a1 = A(g+8, 2t..), a2 = A(g, 8+2t..),
//       a3 = A(g+8, 8+2t..): a1 and a2 are off the diagonal (0); a0 and a3 both equal
//       T(g&3, 2(t&1)..2(t&1)+1) when diagonal block t>>1 == g>>2, else 0: one aligned 32-bit
//       load of two adjacent halves per lane and A tile (selecting them from arow by the
//       lane-dependent t made the compiler move arow to local memory).
//     B operand (16x8, col): rows 4q..4q+3 (q = 0..3) hold pair 2q's B tile in columns 0-3 and
//       pair 2q+1's in columns 4-7. Lane l holds b0 = B(2t..2t+1, g), b1 = B(8+2t..9+2t, g):
//       B_p(2(t&1)..2(t&1)+1, g&3) of pair p = 2(t>>1) + (g>>2) and of pair p + 4.
//     C/D (16x8, f32): rows 4q+r, columns 4h+c = (T * B_{2q+h})(r, c) + C: all 128 entries
//       are useful, 8 tile products per mma (the fp64 m8n8k4 keeps 32 of its 64: 2 products).
//       Lane l holds d0,d1 = D(g, 2t..2t+1) and d2,d3 = D(g+8, 2t..):
//       entries e0 = 4(g&3) + 2(t&1), e0+1 of pair 2(g>>2) + (t>>1) and of that pair + 4.
//   Why this packing and not 4 different A tiles on the diagonal: the warp walks A's tiles one
//   at a time in block-column order and relies on "the pairs of one A tile hit distinct
//   accumulator tiles" to update them without atomics; 4 different A tiles in one mma would
//   put up to 4 products of the same output tile into one D, i.e. a reduction across the
//   block diagonal, and break that order. Repeating T costs nothing (a0 == a3 is one register).
//   The running sums go in as C (fp32, from the shared accumulator) and come out as D, only the
//   entries in the pair's bitmap product are loaded (the others enter as 0) and stored back;
//   pairs past the stage's count get a zero B and are not stored.
//   Rounding: half x half products are exact in fp32 (11 x 11 significand bits); the mma adds
//   the 4 products of a tile row and C in an order and with a rounding (truncation is allowed)
//   of its own, so the result differs from spgemm_ref by summation rounding only (bounded in
//   tests/common/tolerances.h, spgemm_tensor_fp16_tolerance) and equals it bit for bit when
//   every partial sum is exact (small integers). Zero fill of a tile (bit clear) enters as an
//   exact 0 product; a non-finite A or B value meets that fill (Inf * 0 = NaN) where the
//   reference skips it, as in fp64: inputs must be finite (the fp16 range check guarantees it).
//   fp32 gets no tensor-core path: the only float-operand mma is tf32 (10-bit significand),
//   below the contract's float products; fp32 tiles stay on the CUDA cores, bit-identical.
//   The density rule is fp64's (>= kDenseTileNnz): the fp16 mma step costs the same at any
//   fill and serves 8 products against the CUDA cores' 2 per step, so it may pay below 10;
//   SpgemmPath::tensor_core lets the benchmark measure that before the rule moves.
//
// Numeric, pairs kernel (numeric_pairs_kernel). On AMG setup products tiles hold 1.3-2.5
// nonzeros: per A tile the ordered kernel's lanes see one short B row (4-10 tiles, most of the
// warp idle) and each pair carries ~1 scalar product for 16 lanes. Instead the pairs kernel
// flattens the row's pairs as the symbolic phase does ("Pair enumeration"): same bins and scol
// as the ordered kernel, a packed accumulator (below), and per window the row's A tiles 32 at a
// time, lane t holding A tile a0 + t: its B row restricted to the window's block-column range
// by two binary searches (exact bounds: the flat index needs the slice's length; a
// single-window row takes the whole B row), len_t = the slice's length. A warp inclusive scan
// gives the chunk's total and pre[t] = exclusive prefix, staged with bstart[t] and the A bitmap
// in a per-warp shared array (3 x 32 int32). Lane l then takes flat pairs
// f = l, l + 32, ... < total: A tile = the last t with pre[t] <= f (binary search, <= 5 steps),
// B tile = bstart[t] + f - pre[t]. A pair with an empty bitmap product is dropped; otherwise
// its output tile is found by binary search in scol (missing: flag_error) and for every set A
// bit (r, k) and every set B bit (k, c) the lane adds fl(a(r,k) * b(k,c)) to C entry
// (pos, 4r + c) of the packed accumulator with a shared-memory atomicAdd (atom.shared.add.f64 /
// .f32). Only stored values are read (A: a_val + ta*16 + e, B: b_val + tb*16 + 4k + c, the
// dense layouts). Several lanes may hit one accumulator entry (different A tiles of the row),
// so the order of the additions is the hardware's: each term is rounded once as a product and
// once as an addition, in no fixed order, which is the contract change of this kernel
// (spgemm_device.h): bit-identical to spgemm_ref only when every partial sum is exact (small
// integers), else within spgemm_pairs_tolerance (tests/common/tolerances.h), and not
// bit-reproducible from run to run. half operands are converted to float as Arith<V>::load does;
// half x half products are exact in float. __syncwarp() separates chunks (pre/bstart/amap are
// rewritten) and precedes the write-out (every atomic of the window is visible). Each lane
// counts its pairs with a nonempty bitmap product; a warp reduction adds them to
// Meta::cc_products (tc_products stays 0).
//   Packed accumulator: C's tiles hold 1.6-4 of their 16 entries on AMG levels, and a dense
//   acc_t[16] per tile (17-34 KB per warp in fp64) held the kernel to 6-12 resident warps,
//   where it is latency bound (dependent loads of B, binary searches). So acc holds only the
//   window's stored entries: per window the warp stages cinfo[pos] = coff << 16 | cmap, C's
//   tile bitmap (c_map, known from the symbolic phase) and the exclusive prefix of the
//   bitmaps' popcounts, and entry (pos, e) lives at acc[coff + popc(cmap & ((1 << e) - 1))].
//   A product bit outside cmap cannot happen (cmap is the OR of the bitmap products), so it
//   is an internal error (flag_error), never a write into another entry's slot.
//   Windows: consecutive output tiles p0..p1-1 with p1 - p0 <= kCap tiles AND at most kEntries
//   stored entries, both per bin (launch_numeric: (32, 256), (128, 512), (512, 1024)); p1 comes
//   from a warp scan of the popcounts, 32 tiles at a time (a tile has <= 16 entries, so any
//   window admits one). Each window re-walks the row's A tiles (two binary searches per A tile
//   into its B row), so the budgets are sized to hold typical AMG rows (20-200 tiles of fill
//   1.6-4) in one window; they put the fp64 per-warp shared memory at 2.7/5.5/12.7 KB instead
//   of 4.6/17.3/34.2 KB (table with resident warps at launch_numeric).
//   Write-out: every one of the window's tiles gets all 16 positions of C's dense blk_val, the
//   stored ones from acc rounded once to V, the others exact zeros.
// Shared memory per warp: kEntries * sizeof(acc_t) + 8 kCap + 384 bytes.
//
// Output (both kernels): positions whose bit in C's bitmap is clear are written as exact
// zeros; the others get acc_t rounded once to V. Partial tiles (n % 4 != 0) need no guard: the
// bits of rows and columns past n are clear in A and B, so they are clear in C and nothing is
// read past a tile.
//
// Index arithmetic: block rows and tile positions are int32 (C is refused beyond 2^31-1
// tiles); bounds, counts and offsets of the analysis and the scan are int64; value offsets are
// (int64)tile * 16. The pair count of one chunk of G A tiles (symbolic pair enumeration, pairs
// kernel) is an int: it stays below 2^31 unless B block rows average 2^31 / G tiles.
// Memory: all device memory from the Allocator (Buffer<T>); the stream is drained before any
// temporary is released, on the error path too (StreamDrain below).
//
// Not done yet (candidates once profiles say so): several short block rows per warp in the
// numeric phase (fine 7-point levels have ~22 output tiles per block row; the pairs kernel
// leaves lanes idle when a row has fewer than 32 pairs); a per-product binary search in C's
// columns could become a lookup in the symbolic phase's hash table; the fp16 density
// threshold (see above), measured with amgt-kernel-bench --precision fp16; the automatic
// rule's fill limit between 4.4 and 6.5, where nothing was measured (a per-row choice between
// the kernels is possible but needs both in one launch or per-kernel row lists).
#include "spgemm/spgemm_device.h"

#include "common/error.h"
#include "common/precision.h"
#include "device/arith.cuh"
#include "device/group_ops.cuh"
#include "device/launch.h"
#include "mbsr/bitmap.h"

#include <cub/device/device_scan.cuh>
#include <cuda_fp16.h>

#include <algorithm>
#include <climits>
#include <string>
#include <type_traits>

namespace amgt::device {
namespace {

constexpr unsigned kFullMask  = group::kFullMask;
constexpr int      kWarpSize  = group::kWarpSize;
constexpr uint8_t  kNoBin     = 0xff;
constexpr int      kWindowBin = kSymbolicBins - 1;
constexpr unsigned long long kEmptySlot = ~0ull;

// ---------------------------------------------------------------------------------------------
// Device-side counters: read back once after pass 1 and once at the end.
struct Meta
{
   int32_t            sym_count[kSymbolicBins];
   int32_t            sym_cursor[kSymbolicBins];
   int32_t            sym2_count[kSymbolicBins];  // pass 2's bins, by C's tiles per row
   int32_t            sym2_cursor[kSymbolicBins];
   int32_t            num_count[kNumericBins];
   int32_t            num_cursor[kNumericBins];
   unsigned long long intermediate;
   unsigned long long tc_products;
   unsigned long long cc_products;
   unsigned long long dense_a_tiles; // A tiles with popcount >= kDenseTileNnz (analysis)
   unsigned long long a_entries;     // A's stored entries (analysis)
   int32_t            error; // an internal inconsistency (a bug), never an input property
};

struct TilesView
{
   const int32_t*  ptr;
   const int32_t*  col;
   const uint16_t* map;
};

// ---------------------------------------------------------------------------------------------
// Small device helpers.

using group::block_exclusive_scan;
using group::block_min;
using group::block_sum;
using group::lane_id;
using group::warp_inclusive_scan;

// First index in a[0, n) whose value is >= key (a ascending).
__device__ __forceinline__ int lower_bound(const int32_t* a, int n, int32_t key)
{
   int lo = 0, hi = n;
   while (lo < hi)
   {
      const int mid = (lo + hi) >> 1;
      if (a[mid] < key) lo = mid + 1;
      else hi = mid;
   }
   return lo;
}

// Per-group scratch of the pair enumeration, in 32-bit words:
//   pre[G+1] | bstart[G] | amap[G] | count[1] | red[32]
constexpr size_t scratch_words(int G)
{
   return 3 * static_cast<size_t>(G) + 34; // even for even G: the group stays 8-byte aligned
}

template <int G>
struct Scratch
{
   int32_t* pre;
   int32_t* bstart;
   int32_t* amap;
   int32_t* count;
   int32_t* red;
   __device__ explicit Scratch(int32_t* base)
       : pre(base), bstart(base + G + 1), amap(base + 2 * G + 1), count(base + 3 * G + 1),
         red(base + 3 * G + 2)
   {}
};

// Calls f(amap, tb) for every (A tile, B tile) pair of block row [as, ae) of A, spread over the
// group (see the design notes). Every thread of the group must call it.
template <int G, class F>
__device__ void for_each_pair(const Scratch<G>& s, int t, int32_t as, int32_t ae, TilesView A,
                              TilesView B, F&& f)
{
   for (int32_t a0 = as; a0 < ae; a0 += G)
   {
      const int n   = min(G, ae - a0);
      int       len = 0;
      if (t < n)
      {
         const int32_t ta = a0 + t;
         const int32_t k  = A.col[ta];
         const int32_t bs = B.ptr[k];
         len              = B.ptr[k + 1] - bs;
         s.bstart[t]      = bs;
         s.amap[t]        = A.map[ta];
      }
      int       total = 0;
      const int excl  = group::exclusive_scan<G>(len, s.red, total);
      if (t < n) s.pre[t] = excl;
      if (t == 0) s.pre[n] = total;
      group::sync<G>();
      for (int idx = t; idx < total; idx += G)
      {
         // last i in [0, n) with pre[i] <= idx (pre[0] = 0 <= idx, pre[n] = total > idx)
         int lo = 0, hi = n;
         while (hi - lo > 1)
         {
            const int mid = (lo + hi) >> 1;
            if (s.pre[mid] <= idx) lo = mid;
            else hi = mid;
         }
         f(static_cast<uint16_t>(s.amap[lo]), s.bstart[lo] + (idx - s.pre[lo]));
      }
      group::sync<G>();
   }
}

// Inserts key with bitmap `map` (0 in pass 1). Returns true if this call created the slot.
template <int kLog2T>
__device__ __forceinline__ bool hash_insert(unsigned long long* table, int32_t key, uint32_t map)
{
   constexpr uint32_t kMask = (1u << kLog2T) - 1;
   const unsigned long long mine =
       (static_cast<unsigned long long>(static_cast<uint32_t>(key)) << 32) | map;
   uint32_t h = group::hash_slot<kLog2T>(key);
   while (true)
   {
      unsigned long long cur = *reinterpret_cast<volatile unsigned long long*>(&table[h]);
      if (cur == kEmptySlot)
      {
         cur = atomicCAS(&table[h], kEmptySlot, mine);
         if (cur == kEmptySlot) return true;
      }
      if (static_cast<uint32_t>(cur >> 32) == static_cast<uint32_t>(key))
      {
         if (map) atomicOr(&table[h], static_cast<unsigned long long>(map));
         return false;
      }
      h = (h + 1) & kMask;
   }
}

__device__ __forceinline__ void flag_error(int32_t* error)
{
   atomicExch(error, 1);
}

// Start of bin `bin` in the grouped row list: the counts of the bins before it.
__device__ __forceinline__ int32_t bin_start(const int32_t* bin_count, int bin)
{
   int32_t s = 0;
   for (int b = 0; b < bin; ++b) s += bin_count[b];
   return s;
}

// ---------------------------------------------------------------------------------------------
// Analysis and binning.

__device__ __forceinline__ uint8_t symbolic_bin_of(int64_t ub, int shared_bins)
{
   if (ub >= (int64_t{128} << (kWindowBin - 1))) return kWindowBin; // >= 8192
   const int lg = 63 - __clzll(static_cast<long long>(ub));        // ub >= 1
   const int b  = max(0, lg - 6);                                    // ub < 128 * 2^b
   return static_cast<uint8_t>(b < shared_bins ? b : kWindowBin);
}

__global__ void analyze_rows(TilesView A, const int32_t* b_ptr, int32_t brows, int shared_bins,
                             uint8_t* row_bin, Meta* meta)
{
   __shared__ int                hist[kSymbolicBins];
   __shared__ unsigned long long sum;
   __shared__ unsigned long long dense;
   __shared__ unsigned long long entries;
   if (threadIdx.x < kSymbolicBins) hist[threadIdx.x] = 0;
   if (threadIdx.x == 0)
   {
      sum     = 0;
      dense   = 0;
      entries = 0;
   }
   __syncthreads();
   const int32_t i = static_cast<int32_t>(blockIdx.x * blockDim.x + threadIdx.x);
   if (i < brows)
   {
      int64_t ub = 0;
      int64_t nd = 0; // dense A tiles of the row (statistics)
      int64_t ne = 0; // A's entries in the row: SpgemmPath::automatic's choice of kernel
      for (int32_t ta = A.ptr[i]; ta < A.ptr[i + 1]; ++ta)
      {
         const int32_t k = A.col[ta];
         ub += b_ptr[k + 1] - b_ptr[k];
         const int pc = tile_popcount(A.map[ta]);
         nd += pc >= kDenseTileNnz;
         ne += pc;
      }
      if (nd) atomicAdd(&dense, static_cast<unsigned long long>(nd));
      if (ne) atomicAdd(&entries, static_cast<unsigned long long>(ne));
      uint8_t b = kNoBin;
      if (ub > 0)
      {
         b = symbolic_bin_of(ub, shared_bins);
         atomicAdd(&hist[b], 1);
         atomicAdd(&sum, static_cast<unsigned long long>(ub));
      }
      row_bin[i] = b;
   }
   __syncthreads();
   if (threadIdx.x < kSymbolicBins && hist[threadIdx.x] > 0)
      atomicAdd(&meta->sym_count[threadIdx.x], hist[threadIdx.x]);
   if (threadIdx.x == 0 && sum > 0) atomicAdd(&meta->intermediate, sum);
   if (threadIdx.x == 0 && dense > 0) atomicAdd(&meta->dense_a_tiles, dense);
   if (threadIdx.x == 0 && entries > 0) atomicAdd(&meta->a_entries, entries);
}

// After pass 1 C's tiles per row (nc) are known: the numeric bins, and the bins of symbolic pass
// 2, whose table needs only nc < T/2 (the distinct keys it will hold) instead of pass 1's bound
// ub on the products, often several times larger (fine AMG products: ub ~500 tile pairs for
// nc ~45 output tiles, a 1024-slot table where 128 slots do).
__global__ void output_bins(const int64_t* offsets, int32_t brows, int shared_bins,
                            uint8_t* row_bin, uint8_t* row_bin2, Meta* meta)
{
   __shared__ int hist[kNumericBins];
   __shared__ int hist2[kSymbolicBins];
   if (threadIdx.x < kNumericBins) hist[threadIdx.x] = 0;
   if (threadIdx.x < kSymbolicBins) hist2[threadIdx.x] = 0;
   __syncthreads();
   const int32_t i = static_cast<int32_t>(blockIdx.x * blockDim.x + threadIdx.x);
   if (i < brows)
   {
      const int64_t nc = offsets[i + 1] - offsets[i];
      uint8_t       b  = kNoBin;
      uint8_t       b2 = kNoBin;
      if (nc > 0)
      {
         b = nc <= 32 ? 0 : (nc <= 128 ? 1 : 2);
         atomicAdd(&hist[b], 1);
         b2 = symbolic_bin_of(nc, shared_bins);
         atomicAdd(&hist2[b2], 1);
      }
      row_bin[i]  = b;
      row_bin2[i] = b2;
   }
   __syncthreads();
   if (threadIdx.x < kNumericBins && hist[threadIdx.x] > 0)
      atomicAdd(&meta->num_count[threadIdx.x], hist[threadIdx.x]);
   if (threadIdx.x < kSymbolicBins && hist2[threadIdx.x] > 0)
      atomicAdd(&meta->sym2_count[threadIdx.x], hist2[threadIdx.x]);
}

// Groups the rows by bin: list[start(bin) + rank] = row. The per-block ranks come from shared
// atomics and one global atomic per bin and block reserves the block's range.
__global__ void scatter_rows(const uint8_t* row_bin, int32_t n, int nbins, const int32_t* bin_count,
                             int32_t* cursor, int32_t* list)
{
   __shared__ int local[kSymbolicBins];
   __shared__ int base[kSymbolicBins];
   if (threadIdx.x < kSymbolicBins) local[threadIdx.x] = 0;
   __syncthreads();
   const int32_t i    = static_cast<int32_t>(blockIdx.x * blockDim.x + threadIdx.x);
   const int     b    = i < n ? row_bin[i] : kNoBin;
   int           rank = 0;
   if (b < nbins) rank = atomicAdd(&local[b], 1);
   __syncthreads();
   if (static_cast<int>(threadIdx.x) < nbins && local[threadIdx.x] > 0)
      base[threadIdx.x] = atomicAdd(&cursor[threadIdx.x], local[threadIdx.x]);
   __syncthreads();
   if (b < nbins) list[bin_start(bin_count, b) + base[b] + rank] = i;
}

__global__ void offsets_to_ptr(const int64_t* offsets, int32_t n, int32_t* ptr)
{
   const int32_t i = static_cast<int32_t>(blockIdx.x * blockDim.x + threadIdx.x);
   if (i <= n) ptr[i] = static_cast<int32_t>(offsets[i]);
}

// ---------------------------------------------------------------------------------------------
// Symbolic phase.

struct SymbolicArgs
{
   TilesView      A, B;
   const int32_t* rows;      // rows grouped by bin
   const int32_t* bin_count; // Meta::sym_count (device)
   int64_t*       counts;    // pass 1: distinct output tiles per block row
   const int32_t* c_ptr;     // pass 2: C.blk_ptr
   int32_t*       c_col;
   uint16_t*      c_map;
   int32_t*       error;
};

constexpr size_t hash_group_bytes(int log2t, int G, bool pass2)
{
   const size_t T = size_t{1} << log2t;
   return T * 8 + (pass2 ? T / 2 * 8 : 0) + scratch_words(G) * 4;
}

// Bins 0..6. G threads per row (a warp, or the whole block when kRows == 1).
template <int kLog2T, int G, int kRows, bool kPass2>
__global__ void __launch_bounds__(G * kRows, 1)
    symbolic_hash_kernel(SymbolicArgs args, int bin)
{
   static_assert(G == kWarpSize || kRows == 1, "block-wide groups hold one row per block");
   constexpr int T = 1 << kLog2T;
   extern __shared__ unsigned long long smem_u64[];

   const int g = static_cast<int>(threadIdx.x) / G;
   const int t = static_cast<int>(threadIdx.x) % G;
   unsigned long long* table =
       smem_u64 + static_cast<size_t>(g) * (hash_group_bytes(kLog2T, G, kPass2) / 8);
   unsigned long long* comp = table + T; // pass 2 only: T/2 slots
   const Scratch<G>    s(reinterpret_cast<int32_t*>(table + T + (kPass2 ? T / 2 : 0)));

   const int32_t  start = bin_start(args.bin_count, bin);
   const int32_t  count = args.bin_count[bin];
   const int32_t* rows  = args.rows + start;

   for (int64_t base = static_cast<int64_t>(blockIdx.x) * kRows; base < count;
        base += static_cast<int64_t>(gridDim.x) * kRows)
   {
      const int64_t idx = base + g;
      if (idx >= count) continue; // uniform over the group
      const int32_t i   = rows[idx];
      int32_t       off = 0, nc = 0;
      if constexpr (kPass2)
      {
         off = args.c_ptr[i];
         nc  = args.c_ptr[i + 1] - off;
         if (nc == 0) continue; // every product of the row has an empty bitmap
      }
      for (int k = t; k < T; k += G) table[k] = kEmptySlot;
      if (t == 0) *s.count = 0;
      group::sync<G>();

      int inserted = 0;
      for_each_pair<G>(s, t, args.A.ptr[i], args.A.ptr[i + 1], args.A, args.B,
                       [&](uint16_t amap, int32_t tb) {
                          const uint16_t cm = bitmap_product(amap, args.B.map[tb]);
                          if (cm == 0) return;
                          inserted += hash_insert<kLog2T>(table, args.B.col[tb], kPass2 ? cm : 0u);
                       });
      // for_each_pair ends with a group barrier: the table is complete here.

      if constexpr (!kPass2)
      {
         if (inserted) atomicAdd(s.count, inserted);
         group::sync<G>();
         if (t == 0) args.counts[i] = *s.count;
         group::sync<G>(); // s.count is reset by the next row
      }
      else
      {
         for (int k = t; k < T; k += G)
         {
            const unsigned long long v = table[k];
            if (v != kEmptySlot)
            {
               const int p = atomicAdd(s.count, 1);
               if (p < T / 2) comp[p] = v;
            }
         }
         group::sync<G>();
         const int n = *s.count;
         if (n != nc || n > T / 2)
         {
            if (t == 0) flag_error(args.error);
         }
         const int m = min(min(n, nc), T / 2);
         int       P = 1;
         while (P < m) P <<= 1;
         for (int k = m + t; k < P; k += G) comp[k] = kEmptySlot;
         group::sync<G>();
         group::bitonic_sort<G>(comp, P, t);
         for (int k = t; k < m; k += G)
         {
            const unsigned long long v = comp[k];
            args.c_col[off + k]        = static_cast<int32_t>(v >> 32);
            args.c_map[off + k]        = static_cast<uint16_t>(v & 0xffffu);
         }
         group::sync<G>();
      }
   }
}

// Bin 7: sliding dense window, one block per row (see the design notes). window_words 32-bit
// words of dynamic shared memory hold the bitmaps of 2 * window_words block columns.
template <bool kPass2>
__global__ void __launch_bounds__(1024, 1)
    symbolic_window_kernel(SymbolicArgs args, int bin, int window_words)
{
   extern __shared__ uint32_t win[];
   __shared__ int red[kWarpSize];

   const int t = static_cast<int>(threadIdx.x), lane = lane_id();
   const int warp = t / kWarpSize, nwarps = static_cast<int>(blockDim.x) / kWarpSize;
   const int bd   = static_cast<int>(blockDim.x);
   const int wcols = 2 * window_words;

   for (int k = t; k < window_words; k += bd) win[k] = 0;
   __syncthreads();

   const int32_t  start = bin_start(args.bin_count, bin);
   const int32_t  count = args.bin_count[bin];
   const int32_t* rows  = args.rows + start;

   for (int64_t idx = blockIdx.x; idx < count; idx += gridDim.x)
   {
      const int32_t i  = rows[idx];
      const int32_t as = args.A.ptr[i], ae = args.A.ptr[i + 1];
      int32_t       off = 0, nc = 0;
      if constexpr (kPass2)
      {
         off = args.c_ptr[i];
         nc  = args.c_ptr[i + 1] - off;
         if (nc == 0) continue; // uniform over the block
      }

      int first = INT_MAX;
      for (int32_t ta = as + t; ta < ae; ta += bd)
      {
         const int32_t k = args.A.col[ta];
         const int32_t b0 = args.B.ptr[k];
         if (b0 < args.B.ptr[k + 1]) first = min(first, args.B.col[b0]);
      }
      int     lo      = block_min(first, red);
      int64_t found   = 0; // pass 1: distinct tiles; pass 2: tiles written
      while (lo != INT_MAX)
      {
         // block columns are < 2^29 (ncols is int32), so lo + wcols cannot overflow
         const int hi   = lo + wcols;
         int       next = INT_MAX;
         for (int32_t ta = as + warp; ta < ae; ta += nwarps)
         {
            const uint16_t amap = args.A.map[ta];
            const int32_t  k    = args.A.col[ta];
            const int32_t  bs   = args.B.ptr[k];
            const int32_t  be   = args.B.ptr[k + 1];
            const int32_t  s0   = bs + lower_bound(args.B.col + bs, be - bs, lo);
            for (int32_t c0 = s0; c0 < be; c0 += kWarpSize)
            {
               const int32_t tb = c0 + lane;
               bool          in = false;
               if (tb < be)
               {
                  const int32_t j = args.B.col[tb];
                  if (j < hi)
                  {
                     in                = true;
                     const uint16_t cm = bitmap_product(amap, args.B.map[tb]);
                     if (cm)
                     {
                        const int d = j - lo;
                        atomicOr(&win[d >> 1], static_cast<uint32_t>(cm) << ((d & 1) * 16));
                     }
                  }
                  else { next = min(next, j); }
               }
               if (__ballot_sync(kFullMask, in) != kFullMask) break;
            }
         }
         const int lo_next = block_min(next, red); // also: the window is complete

         if constexpr (!kPass2)
         {
            int local = 0;
            for (int k = t; k < window_words; k += bd)
            {
               const uint32_t w = win[k];
               if (w)
               {
                  local += ((w & 0xffffu) != 0) + ((w >> 16) != 0);
                  win[k] = 0;
               }
            }
            found += block_sum(local, red);
         }
         else
         {
            for (int base = 0; base < window_words; base += bd)
            {
               const int      k  = base + t;
               const uint32_t w  = k < window_words ? win[k] : 0u;
               const int      f0 = (w & 0xffffu) != 0, f1 = (w >> 16) != 0;
               int            total = 0;
               const int      excl  = block_exclusive_scan(f0 + f1, red, total);
               int64_t        pos   = found + excl;
               if (pos + f0 + f1 > nc)
               {
                  flag_error(args.error);
               }
               else
               {
                  if (f0)
                  {
                     args.c_col[off + pos] = lo + 2 * k;
                     args.c_map[off + pos] = static_cast<uint16_t>(w & 0xffffu);
                     ++pos;
                  }
                  if (f1)
                  {
                     args.c_col[off + pos] = lo + 2 * k + 1;
                     args.c_map[off + pos] = static_cast<uint16_t>(w >> 16);
                  }
               }
               if (w) win[k] = 0;
               found += total;
            }
         }
         __syncthreads(); // the window is clear before the next one fills it
         lo = lo_next;
      }
      if (t == 0)
      {
         if constexpr (!kPass2) { args.counts[i] = found; }
         else if (found != nc) { flag_error(args.error); }
      }
   }
}

// ---------------------------------------------------------------------------------------------
// Numeric phase.

// D = A * B + C for one m8n8k4 fp64 fragment set (layouts in the design notes).
__device__ __forceinline__ void mma_m8n8k4_f64(double a, double b, double c0, double c1,
                                               double& d0, double& d1)
{
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800)
   asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%4, %5};\n"
                : "=d"(d0), "=d"(d1)
                : "d"(a), "d"(b), "d"(c0), "d"(c1));
#else
   // Same semantics on CUDA cores: A(g,k) sits in lane 4g+k, B(k,n) in lane 4n+k.
   const int lane = lane_id(), g = lane >> 2, t = lane & 3;
   double    x0 = c0, x1 = c1;
#pragma unroll
   for (int k = 0; k < 4; ++k)
   {
      const double ak = __shfl_sync(kFullMask, a, 4 * g + k);
      const double b0 = __shfl_sync(kFullMask, b, 4 * (2 * t) + k);
      const double b1 = __shfl_sync(kFullMask, b, 4 * (2 * t + 1) + k);
      x0              = __fma_rn(ak, b0, x0);
      x1              = __fma_rn(ak, b1, x1);
   }
   d0 = x0;
   d1 = x1;
#endif
}

// D = A * B + C for one m16n8k16 fragment set, half operands, fp32 accumulation (layouts in
// the design notes; a[1], a[2] are always 0 here but the instruction takes them).
__device__ __forceinline__ void mma_m16n8k16_f16f32(const uint32_t (&a)[4], const uint32_t (&b)[2],
                                                    const float (&c)[4], float (&d)[4])
{
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800)
   asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
                : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]),
                  "f"(c[1]), "f"(c[2]), "f"(c[3]));
#else
   // Same semantics on CUDA cores. A(m, k) sits in lane 4(m%8) + (k%8)/2, register
   // (m >= 8) + 2(k >= 8), half k%2; B(k, n) in lane 4n + (k%8)/2, register k >= 8, half k%2.
   const int lane = lane_id(), g = lane >> 2, n0 = 2 * (lane & 3);
   float     x[4] = {c[0], c[1], c[2], c[3]};
   const auto f = [](uint32_t w, int h) {
      return __half2float(__ushort_as_half(static_cast<unsigned short>(w >> (16 * h))));
   };
#pragma unroll
   for (int k = 0; k < 16; k += 2)
   {
      const int      src = (k & 7) >> 1;
      const uint32_t alo = __shfl_sync(kFullMask, a[k >= 8 ? 2 : 0], 4 * g + src);
      const uint32_t ahi = __shfl_sync(kFullMask, a[k >= 8 ? 3 : 1], 4 * g + src);
      const uint32_t b0  = __shfl_sync(kFullMask, b[k >= 8 ? 1 : 0], 4 * n0 + src);
      const uint32_t b1  = __shfl_sync(kFullMask, b[k >= 8 ? 1 : 0], 4 * (n0 + 1) + src);
#pragma unroll
      for (int h = 0; h < 2; ++h)
      {
         x[0] = __fmaf_rn(f(alo, h), f(b0, h), x[0]);
         x[1] = __fmaf_rn(f(alo, h), f(b1, h), x[1]);
         x[2] = __fmaf_rn(f(ahi, h), f(b0, h), x[2]);
         x[3] = __fmaf_rn(f(ahi, h), f(b1, h), x[3]);
      }
   }
#pragma unroll
   for (int q = 0; q < 4; ++q) d[q] = x[q];
#endif
}

// Two halves (raw bits) as one f16x2 register, lo in the low 16 bits (the lower k index).
__device__ __forceinline__ uint32_t pack_halves(uint16_t lo, uint16_t hi)
{
   return static_cast<uint32_t>(lo) | (static_cast<uint32_t>(hi) << 16);
}

struct Stage
{
   int32_t  tb;   // B tile
   int32_t  pos;  // output tile, relative to the window
   uint32_t maps; // B bitmap << 16 | bitmap product
};

template <class V>
struct NumericArgs
{
   TilesView       A, B;
   const V*        a_val;
   const V*        b_val;
   const int32_t*  c_ptr;
   const int32_t*  c_col;
   const uint16_t* c_map;
   V*              c_val;
   const int32_t*  rows;      // rows grouped by numeric bin
   const int32_t*  bin_count; // Meta::num_count (device)
   Meta*           meta;
   int             tc_min_nnz; // A tiles with at least this popcount use the tensor cores
};

template <class V, int kCap>
constexpr size_t numeric_warp_bytes()
{
   return static_cast<size_t>(kCap) * 16 * sizeof(typename Arith<V>::Acc) +
          static_cast<size_t>(kCap) * sizeof(int32_t) + kWarpSize * sizeof(Stage);
}

template <class V, int kCap, int kWarps>
__global__ void __launch_bounds__(kWarps * kWarpSize, 1)
    numeric_kernel(NumericArgs<V> args, int bin)
{
   using D   = Arith<V>;
   using Acc = typename D::Acc;
   static_assert(kCap % 2 == 0, "keeps the per-warp areas 8-byte aligned");
   constexpr bool kTensorCores = std::is_same_v<V, double> || std::is_same_v<V, half_t>;
   extern __shared__ unsigned long long smem_u64[];

   const int lane = lane_id(), warp = static_cast<int>(threadIdx.x) / kWarpSize;
   unsigned char* mine = reinterpret_cast<unsigned char*>(smem_u64) +
                         static_cast<size_t>(warp) * numeric_warp_bytes<V, kCap>();
   Acc*     acc   = reinterpret_cast<Acc*>(mine);
   int32_t* scol  = reinterpret_cast<int32_t*>(acc + kCap * 16);
   Stage*   stage = reinterpret_cast<Stage*>(scol + kCap);

   const int32_t  start = bin_start(args.bin_count, bin);
   const int32_t  count = args.bin_count[bin];
   const int32_t* rows  = args.rows + start;

   // CUDA-core lane roles: entry e = 4r + c of pair (s + half).
   const int e = lane & 15, r = e >> 2, c = e & 3, half = lane >> 4;
   const unsigned lanes_below = (1u << lane) - 1u;
   unsigned long long tc = 0, cc = 0;

   for (int64_t idx = static_cast<int64_t>(blockIdx.x) * kWarps + warp; idx < count;
        idx += static_cast<int64_t>(gridDim.x) * kWarps)
   {
      const int32_t i   = rows[idx];
      const int32_t off = args.c_ptr[i];
      const int32_t nc  = args.c_ptr[i + 1] - off;
      const int32_t as = args.A.ptr[i], ae = args.A.ptr[i + 1];
      const bool    single = nc <= kCap;

      for (int32_t p0 = 0; p0 < nc; p0 += kCap)
      {
         const int nw = min(kCap, nc - p0);
         for (int k = lane; k < nw; k += kWarpSize) scol[k] = args.c_col[off + p0 + k];
         for (int k = lane; k < nw * 16; k += kWarpSize) acc[k] = Acc(0);
         __syncwarp();
         const int32_t col_lo = scol[0], col_hi = scol[nw - 1];

         for (int32_t ta = as; ta < ae; ++ta)
         {
            const uint16_t amap = args.A.map[ta];
            const int32_t  kb   = args.A.col[ta];
            const int32_t  bs   = args.B.ptr[kb];
            const int32_t  be   = args.B.ptr[kb + 1];
            if (bs == be) continue;
            const int32_t s0 = single ? bs : bs + lower_bound(args.B.col + bs, be - bs, col_lo);
            const V*      av = args.a_val + static_cast<int64_t>(ta) * 16;

            bool dense = false;
            if constexpr (kTensorCores) dense = tile_popcount(amap) >= args.tc_min_nnz;
            // A operand: tensor cores want A(g&3, t) with g = lane>>2, t = lane&3; CUDA cores
            // want row r = (lane>>2)&3 of the tile: the same row, so one layout serves both.
            Acc      arow[4];
            unsigned abits = (amap >> (4 * r)) & 0xfu;
#pragma unroll
            for (int k = 0; k < 4; ++k) arow[k] = D::load(av + 4 * r + k);

            for (int32_t c0 = s0; c0 < be; c0 += kWarpSize)
            {
               const int32_t tb    = c0 + lane;
               bool          in    = false, valid = false;
               int           pos   = 0;
               uint32_t      maps  = 0;
               if (tb < be)
               {
                  const int32_t j = args.B.col[tb];
                  if (j <= col_hi)
                  {
                     in                  = true;
                     const uint16_t bmap = args.B.map[tb];
                     const uint16_t cm   = bitmap_product(amap, bmap);
                     if (cm)
                     {
                        pos = lower_bound(scol, nw, j);
                        if (pos < nw && scol[pos] == j)
                        {
                           valid = true;
                           maps  = (static_cast<uint32_t>(bmap) << 16) | cm;
                        }
                        else { flag_error(&args.meta->error); } // symbolic/numeric disagree
                     }
                  }
               }
               const unsigned vmask = __ballot_sync(kFullMask, valid);
               const unsigned imask = __ballot_sync(kFullMask, in);
               if (valid) stage[__popc(vmask & lanes_below)] = Stage{tb, pos, maps};
               __syncwarp();
               const int cnt = __popc(vmask);

               if (dense)
               {
                  if constexpr (std::is_same_v<V, double>)
                  {
                     tc += cnt;
                     const int    g = lane >> 2, tq = lane & 3;
                     // A(g&3, tq) = arow[tq] (r == g & 3), picked without a dynamic index
                     // so that arow stays in registers
                     double a_frag = 0.0;
#pragma unroll
                     for (int k = 0; k < 4; ++k)
                        if (k == tq) a_frag = arow[k];
                     const int    cq = 2 * tq;       // D columns cq, cq + 1
                     const bool   diag = (g >> 2) == (cq >> 2);
                     const int    e0 = (g & 3) * 4 + (cq & 3);
                     __syncwarp();
                     for (int sp = 0; sp < cnt; sp += 2)
                     {
                        // B operand: B(k = tq, n = g) from pair sp + (g >> 2), column g & 3
                        const int ib     = sp + (g >> 2);
                        double    b_frag = 0.0;
                        if (ib < cnt)
                           b_frag = D::load(args.b_val + static_cast<int64_t>(stage[ib].tb) * 16 +
                                            4 * tq + (g & 3));
                        const int  ic     = sp + (g >> 2);
                        const bool useful = diag && ic < cnt;
                        double     c0v = 0.0, c1v = 0.0;
                        uint32_t   cm  = 0;
                        Acc*       dst = acc;
                        if (useful)
                        {
                           const Stage st = stage[ic];
                           cm             = st.maps & 0xffffu;
                           dst            = acc + st.pos * 16 + e0;
                           if ((cm >> e0) & 1u) c0v = dst[0];
                           if ((cm >> (e0 + 1)) & 1u) c1v = dst[1];
                        }
                        double d0 = 0.0, d1 = 0.0;
                        mma_m8n8k4_f64(a_frag, b_frag, c0v, c1v, d0, d1);
                        if (useful)
                        {
                           if ((cm >> e0) & 1u) dst[0] = d0;
                           if ((cm >> (e0 + 1)) & 1u) dst[1] = d1;
                        }
                     }
                  }
                  else if constexpr (std::is_same_v<V, half_t>)
                  {
                     tc += cnt;
                     const int g = lane >> 2, tq = lane & 3;
                     const int k0 = 2 * (tq & 1); // the lane's k pair in A and B
                     // A: T(g&3, k0..k0+1), two adjacent halves of row r == g & 3, read as
                     // one 32-bit word (the tile starts 32-byte aligned, 4r + k0 is even)
                     // rather than picked from arow: selecting arow[k0] by a lane-dependent
                     // k0 made the compiler move arow to local memory.
                     uint32_t a_pair = 0;
                     if ((tq >> 1) == (g >> 2))
                     {
                        const auto* words = reinterpret_cast<const unsigned int*>(av);
                        a_pair            = __ldg(words + (4 * r + k0) / 2);
                     }
                     const uint32_t a_frag[4] = {a_pair, 0u, 0u, a_pair};
                     const int      pb   = 2 * (tq >> 1) + (g >> 2); // B pair of b0 (b1: +4)
                     const int      boff = 4 * k0 + (g & 3);          // B_p(k0, g&3) in its tile
                     const int      pd   = 2 * (g >> 2) + (tq >> 1); // D pair of d0,d1 (d2,d3: +4)
                     const int      e0   = 4 * (g & 3) + k0;          // their entries e0, e0+1
                     for (int sp = 0; sp < cnt; sp += 8)
                     {
                        uint32_t b_frag[2];
#pragma unroll
                        for (int h = 0; h < 2; ++h)
                        {
                           const int ib = sp + pb + 4 * h;
                           b_frag[h]    = 0u;
                           if (ib < cnt)
                           {
                              const half_t* bp =
                                  args.b_val + static_cast<int64_t>(stage[ib].tb) * 16 + boff;
                              b_frag[h] = pack_halves(__ldg(&bp[0].bits), __ldg(&bp[4].bits));
                           }
                        }
                        // Scalars, not arrays indexed by h: keeps them out of local memory.
                        const int ic0 = sp + pd, ic1 = sp + pd + 4;
                        uint32_t  cm0 = 0u, cm1 = 0u;
                        int       o0 = 0, o1 = 0; // accumulator offsets of entry e0
                        if (ic0 < cnt)
                        {
                           const Stage st = stage[ic0];
                           cm0            = (st.maps & 0xffffu) >> e0;
                           o0             = st.pos * 16 + e0;
                        }
                        if (ic1 < cnt)
                        {
                           const Stage st = stage[ic1];
                           cm1            = (st.maps & 0xffffu) >> e0;
                           o1             = st.pos * 16 + e0;
                        }
                        // cm0/cm1 are 0 for pairs past cnt: nothing is loaded or stored for them
                        const float cin[4] = {(cm0 & 1u) ? acc[o0] : 0.0f,
                                              (cm0 & 2u) ? acc[o0 + 1] : 0.0f,
                                              (cm1 & 1u) ? acc[o1] : 0.0f,
                                              (cm1 & 2u) ? acc[o1 + 1] : 0.0f};
                        float       d[4];
                        mma_m16n8k16_f16f32(a_frag, b_frag, cin, d);
                        if (cm0 & 1u) acc[o0] = d[0];
                        if (cm0 & 2u) acc[o0 + 1] = d[1];
                        if (cm1 & 1u) acc[o1] = d[2];
                        if (cm1 & 2u) acc[o1 + 1] = d[3];
                     }
                  }
               }
               else
               {
                  cc += cnt;
                  for (int sp = 0; sp < cnt; sp += 2)
                  {
                     const int item = sp + half;
                     if (item < cnt)
                     {
                        const Stage    st   = stage[item];
                        const uint32_t cm   = st.maps & 0xffffu;
                        const uint32_t bmap = st.maps >> 16;
                        if ((cm >> e) & 1u)
                        {
                           Acc*     dst = acc + st.pos * 16 + e;
                           Acc      v   = *dst;
                           const V* bv  = args.b_val + static_cast<int64_t>(st.tb) * 16 + c;
#pragma unroll
                           for (int k = 0; k < 4; ++k)
                           {
                              if (((abits >> k) & 1u) && ((bmap >> (4 * k + c)) & 1u))
                                 v = D::madd(arow[k], D::load(bv + 4 * k), v);
                           }
                           *dst = v;
                        }
                     }
                  }
               }
               __syncwarp(); // stage and accumulators are reused by the next chunk / A tile
               if (imask != kFullMask) break;
            }
         }

         for (int k = lane; k < nw * 16; k += kWarpSize)
         {
            const int32_t  tile = off + p0 + (k >> 4);
            const int      bit  = k & 15;
            const uint16_t cmap = args.c_map[tile];
            args.c_val[static_cast<int64_t>(tile) * 16 + bit] =
                ((cmap >> bit) & 1u) ? D::store(acc[k]) : D::zero();
         }
         __syncwarp();
      }
   }
   if (lane == 0 && (tc | cc))
   {
      if (tc) atomicAdd(&args.meta->tc_products, tc);
      if (cc) atomicAdd(&args.meta->cc_products, cc);
   }
}

// acc += x in shared memory: one addition rounded to nearest even (atom.shared.add.f32/.f64;
// the double one needs sm_60, below which atomicAdd(double*) does not exist and the build
// fails instead of running something else).
template <class Acc>
__device__ __forceinline__ void shared_add(Acc* p, Acc x)
{
   atomicAdd(p, x);
}

// Per-warp shared memory of the pairs kernel: acc[kEntries] (the window's stored entries of C,
// packed) | scol[kCap] (block columns) | cinfo[kCap] (coff << 16 | c_map, one 32-bit word so
// that a product finds its tile's offset and bitmap with one load) | pre[32] | bstart[32] |
// amap[32] (int32, one entry per A tile of the current chunk).
template <class V, int kCap, int kEntries>
constexpr size_t pairs_warp_bytes()
{
   return static_cast<size_t>(kEntries) * sizeof(typename Arith<V>::Acc) +
          2 * static_cast<size_t>(kCap) * sizeof(int32_t) + 3 * kWarpSize * sizeof(int32_t);
}

// Resident blocks per SM that __launch_bounds__ asks the register allocator to allow for the
// pairs kernel: what shared memory allows on an H100 (228 KB per SM, 1 KB reserved per
// block), but at most kPairsMinWarps warps. Without it ptxas takes ~50 registers (fp64), which
// rounds to 56 and caps 8-warp blocks at 4 per SM (32 warps) where shared memory admits 40-64;
// 40 warps means <= 48 registers, which the kernel meets without spills. Asking for more
// (48 warps: 40 registers) is left to measurement.
constexpr int kPairsMinWarps = 40;

template <class V, int kCap, int kEntries, int kWarps>
constexpr int pairs_min_blocks()
{
   constexpr size_t kSmPerSm = 228 * 1024, kReserved = 1024;
   const size_t     by_smem =
       kSmPerSm / (kWarps * pairs_warp_bytes<V, kCap, kEntries>() + kReserved);
   const size_t     by_warps = kPairsMinWarps / kWarps;
   return static_cast<int>(std::max<size_t>(1, std::min(by_smem, by_warps)));
}

// The pairs kernel (design notes, "Numeric, pairs kernel"): one warp per block row of C, the
// row's (A tile, B tile) pairs spread over the lanes 32 A tiles at a time, each lane adding
// its pair's scalar products with atomics into a packed accumulator that holds only the
// window's stored entries of C.
template <class V, int kCap, int kEntries, int kWarps>
__global__ void
    __launch_bounds__(kWarps * kWarpSize, (pairs_min_blocks<V, kCap, kEntries, kWarps>()))
    numeric_pairs_kernel(NumericArgs<V> args, int bin)
{
   using D   = Arith<V>;
   using Acc = typename D::Acc;
   static_assert(kCap % 2 == 0 && kEntries % 2 == 0, "keeps the per-warp areas 8-byte aligned");
   static_assert(kEntries >= 16, "a window must admit any single tile");
   static_assert(kEntries < (1 << 16), "tile offsets are stored in 16 bits");
   extern __shared__ unsigned long long smem_u64[];

   const int lane = lane_id(), warp = static_cast<int>(threadIdx.x) / kWarpSize;
   unsigned char* mine = reinterpret_cast<unsigned char*>(smem_u64) +
                         static_cast<size_t>(warp) * pairs_warp_bytes<V, kCap, kEntries>();
   Acc*      acc    = reinterpret_cast<Acc*>(mine);
   int32_t*  scol   = reinterpret_cast<int32_t*>(acc + kEntries);
   uint32_t* cinfo  = reinterpret_cast<uint32_t*>(scol + kCap);
   int32_t*  pre    = reinterpret_cast<int32_t*>(cinfo + kCap); // exclusive prefix of pair counts
   int32_t*  bstart = pre + kWarpSize;    // first B tile of each A tile's slice
   int32_t*  amaps  = bstart + kWarpSize; // the A tiles' bitmaps

   const int32_t  start = bin_start(args.bin_count, bin);
   const int32_t  count = args.bin_count[bin];
   const int32_t* rows  = args.rows + start;
   unsigned long long cc = 0; // this lane's pairs with a nonempty bitmap product

   for (int64_t idx = static_cast<int64_t>(blockIdx.x) * kWarps + warp; idx < count;
        idx += static_cast<int64_t>(gridDim.x) * kWarps)
   {
      const int32_t i   = rows[idx];
      const int32_t off = args.c_ptr[i];
      const int32_t nc  = args.c_ptr[i + 1] - off;
      const int32_t as = args.A.ptr[i], ae = args.A.ptr[i + 1];

      for (int32_t p0 = 0, nw = 0; p0 < nc; p0 += nw)
      {
         // Window = the longest run of tiles from p0 with at most kCap tiles and kEntries
         // entries, grown 32 tiles at a time. "fits" is a prefix of the lanes (the inclusive
         // scan only grows), so its ballot's popcount is the number of tiles taken.
         int used = 0; // entries of the window so far
         nw       = 0;
         for (;;)
         {
            const int  k  = nw + lane;
            const bool in = k < kCap && p0 + k < nc;
            uint32_t   cm = 0;
            int32_t    cj = 0;
            if (in)
            {
               cm = args.c_map[off + p0 + k];
               cj = args.c_col[off + p0 + k];
            }
            const int  cnt  = __popc(cm);
            const int  incl = warp_inclusive_scan(cnt);
            const bool fits = in && used + incl <= kEntries;
            if (fits)
            {
               scol[k]  = cj;
               cinfo[k] = (static_cast<uint32_t>(used + incl - cnt) << 16) | cm;
            }
            const int taken = __popc(__ballot_sync(kFullMask, fits));
            if (taken > 0) used += __shfl_sync(kFullMask, incl, taken - 1);
            nw += taken;
            if (taken < kWarpSize || nw == kCap || p0 + nw == nc) break; // uniform
         }
         for (int k = lane; k < used; k += kWarpSize) acc[k] = Acc(0);
         __syncwarp();
         const int32_t col_lo = scol[0], col_hi = scol[nw - 1];
         const bool    single = nw == nc; // the whole row: B rows need no restriction

         for (int32_t a0 = as; a0 < ae; a0 += kWarpSize)
         {
            const int n   = min(kWarpSize, ae - a0);
            int       len = 0;
            int32_t   bs  = 0;
            uint32_t  am  = 0;
            if (lane < n)
            {
               const int32_t kb = args.A.col[a0 + lane];
               int32_t       be = args.B.ptr[kb + 1];
               bs               = args.B.ptr[kb];
               if (!single && bs < be)
               {
                  // The window's slice of the B row, exactly (the flat index needs its
                  // length): block columns in [col_lo, col_hi]; col_hi + 1 cannot overflow
                  // (block columns are < 2^29).
                  bs = bs + lower_bound(args.B.col + bs, be - bs, col_lo);
                  be = bs + lower_bound(args.B.col + bs, be - bs, col_hi + 1);
               }
               len = be - bs;
               am  = args.A.map[a0 + lane];
            }
            const int incl  = warp_inclusive_scan(len);
            const int total = __shfl_sync(kFullMask, incl, kWarpSize - 1);
            if (total == 0) continue; // uniform over the warp
            if (lane < n)
            {
               pre[lane]    = incl - len;
               bstart[lane] = bs;
               amaps[lane]  = static_cast<int32_t>(am);
            }
            __syncwarp();
            for (int f = lane; f < total; f += kWarpSize)
            {
               // A tile of pair f: the last t in [0, n) with pre[t] <= f (pre[0] = 0 <= f;
               // A tiles with an empty slice share their pre with the next one and lose).
               int lo = 0, hi = n;
               while (hi - lo > 1)
               {
                  const int mid = (lo + hi) >> 1;
                  if (pre[mid] <= f) lo = mid;
                  else hi = mid;
               }
               const int32_t  tb   = bstart[lo] + (f - pre[lo]);
               const uint32_t amap = static_cast<uint32_t>(amaps[lo]);
               const uint32_t bmap = args.B.map[tb];
               const uint32_t prod =
                   bitmap_product(static_cast<uint16_t>(amap), static_cast<uint16_t>(bmap));
               if (prod == 0) continue;
               const int32_t j   = args.B.col[tb];
               const int     pos = lower_bound(scol, nw, j);
               const uint32_t info = pos < nw && scol[pos] == j ? cinfo[pos] : 0u;
               const uint32_t cm   = info & 0xffffu;
               // C's bitmap is the OR of the bitmap products: a product bit outside it (or a
               // column missing from the window, info 0) means symbolic and numeric disagree,
               // and its packed slot would belong to another entry or lie past the window's.
               if ((prod & ~cm) != 0)
               {
                  flag_error(&args.meta->error);
                  continue;
               }
               ++cc;
               const V* av  = args.a_val + static_cast<int64_t>(a0 + lo) * 16;
               const V* bv  = args.b_val + static_cast<int64_t>(tb) * 16;
               Acc*     dst = acc + (info >> 16);
               // Bit e = 4r + k of A meets row k of B: C(r, c) += A(r, k) B(k, c) for every c
               // set in that row, at packed slot popc(cm below bit 4r + c). Only stored entries
               // are read; each product is rounded to Acc on its own and added once (no FMA:
               // the atomic is the addition).
               for (uint32_t abits = amap; abits; abits &= abits - 1u)
               {
                  const int      e    = __ffs(static_cast<int>(abits)) - 1;
                  const int      k    = e & 3;
                  const uint32_t brow = (bmap >> (4 * k)) & 0xfu;
                  if (brow == 0) continue;
                  const Acc a = D::load(av + e);
                  for (uint32_t bbits = brow; bbits; bbits &= bbits - 1u)
                  {
                     const int c    = __ffs(static_cast<int>(bbits)) - 1;
                     const int slot = __popc(cm & ((1u << ((e & ~3) + c)) - 1u));
                     shared_add(dst + slot, D::mul(a, D::load(bv + 4 * k + c)));
                  }
               }
            }
            __syncwarp(); // pre/bstart/amaps are rewritten by the next chunk
         }
         __syncwarp(); // every atomic of the window is done and visible

         // All 16 positions of each tile: C's values are stored dense.
         for (int k = lane; k < nw * 16; k += kWarpSize)
         {
            const int32_t  tile = off + p0 + (k >> 4);
            const int      bit  = k & 15;
            const uint32_t info = cinfo[k >> 4];
            const uint32_t cm   = info & 0xffffu;
            args.c_val[static_cast<int64_t>(tile) * 16 + bit] =
                ((cm >> bit) & 1u) ? D::store(acc[(info >> 16) + __popc(cm & ((1u << bit) - 1u))])
                                   : D::zero();
         }
         __syncwarp(); // scol/cinfo/acc are rewritten by the next window
      }
   }
#pragma unroll
   for (int o = kWarpSize / 2; o > 0; o >>= 1) cc += __shfl_xor_sync(kFullMask, cc, o);
   if (lane == 0 && cc) atomicAdd(&args.meta->cc_products, cc);
}

// ---------------------------------------------------------------------------------------------
// Host side.

// Allows `dyn` bytes of dynamic shared memory (opt-in above 48 KB); false if it cannot fit.
template <class Kernel>
bool fits_shared(Kernel kernel, size_t dyn, const DeviceLimits& lim)
{
   cudaFuncAttributes attr{};
   AMGT_DEVICE_CHECK(cudaFuncGetAttributes(&attr, kernel));
   return attr.sharedSizeBytes + dyn <= static_cast<size_t>(lim.smem_optin);
}

template <class Kernel>
unsigned prepare_launch(Kernel kernel, int threads, size_t dyn, int64_t work_blocks,
                        const DeviceLimits& lim)
{
   AMGT_DEVICE_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(dyn)));
   int per_sm = 0;
   AMGT_DEVICE_CHECK(
       cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, dyn));
   const int64_t wave = static_cast<int64_t>(std::max(per_sm, 1)) * lim.sms;
   return static_cast<unsigned>(std::max<int64_t>(1, std::min(work_blocks, wave)));
}

// Symbolic bins 0..6: (log2 of the table size, threads per row, rows per block).
struct HashBinConfig
{
   int log2t, group, rows;
};
constexpr HashBinConfig kHashBins[kWindowBin] = {{8, 32, 8},    {9, 32, 8},     {10, 32, 4},
                                                 {11, 256, 1},  {12, 512, 1},   {13, 1024, 1},
                                                 {14, 1024, 1}};

constexpr size_t hash_block_bytes(int bin, bool pass2)
{
   return kHashBins[bin].rows * hash_group_bytes(kHashBins[bin].log2t, kHashBins[bin].group, pass2);
}

template <int kBin, bool kPass2>
auto hash_kernel()
{
   constexpr HashBinConfig c = kHashBins[kBin];
   return symbolic_hash_kernel<c.log2t, c.group, c.rows, kPass2>;
}

template <int kBin, bool kPass2>
void launch_hash_bin(const SymbolicArgs& args, int64_t rows_hint, Stream s, const DeviceLimits& lim)
{
   constexpr HashBinConfig c      = kHashBins[kBin];
   auto                    kernel = hash_kernel<kBin, kPass2>();
   const size_t            dyn    = hash_block_bytes(kBin, kPass2);
   const int               thr    = c.group * c.rows;
   const unsigned grid = prepare_launch(kernel, thr, dyn, (rows_hint + c.rows - 1) / c.rows, lim);
   kernel<<<grid, thr, dyn, s>>>(args, kBin);
   AMGT_DEVICE_CHECK_LAUNCH("symbolic_hash_kernel");
}

template <bool kPass2>
void launch_hash(int bin, const SymbolicArgs& args, int64_t rows_hint, Stream s,
                 const DeviceLimits& lim)
{
   switch (bin)
   {
   case 0: launch_hash_bin<0, kPass2>(args, rows_hint, s, lim); break;
   case 1: launch_hash_bin<1, kPass2>(args, rows_hint, s, lim); break;
   case 2: launch_hash_bin<2, kPass2>(args, rows_hint, s, lim); break;
   case 3: launch_hash_bin<3, kPass2>(args, rows_hint, s, lim); break;
   case 4: launch_hash_bin<4, kPass2>(args, rows_hint, s, lim); break;
   case 5: launch_hash_bin<5, kPass2>(args, rows_hint, s, lim); break;
   case 6: launch_hash_bin<6, kPass2>(args, rows_hint, s, lim); break;
   default: AMGT_THROW("spgemm: no hash bin " + std::to_string(bin));
   }
}

// Number of leading hash bins whose pass-2 kernel fits the device's shared memory.
template <int kBin>
bool hash_bin_fits(const DeviceLimits& lim)
{
   return fits_shared(hash_kernel<kBin, true>(), hash_block_bytes(kBin, true), lim) &&
          fits_shared(hash_kernel<kBin, false>(), hash_block_bytes(kBin, false), lim);
}

int shared_hash_bins(const DeviceLimits& lim)
{
   bool (*const fits[kWindowBin])(const DeviceLimits&) = {
       hash_bin_fits<0>, hash_bin_fits<1>, hash_bin_fits<2>, hash_bin_fits<3>,
       hash_bin_fits<4>, hash_bin_fits<5>, hash_bin_fits<6>};
   int n = 0;
   while (n < kWindowBin && fits[n](lim)) ++n;
   return n;
}

constexpr int kWindowThreads = 1024;
constexpr int kWindowWords   = 16384; // 32768 block columns, 64 KB

template <bool kPass2>
void launch_window(const SymbolicArgs& args, int64_t rows_hint, Stream s, const DeviceLimits& lim)
{
   auto               kernel = symbolic_window_kernel<kPass2>;
   cudaFuncAttributes attr{};
   AMGT_DEVICE_CHECK(cudaFuncGetAttributes(&attr, kernel));
   // Largest multiple of the block size that fits, at most kWindowWords.
   const int64_t room =
       (static_cast<int64_t>(lim.smem_optin) - static_cast<int64_t>(attr.sharedSizeBytes)) / 4;
   const int     words = static_cast<int>(
       std::min<int64_t>(kWindowWords, room / kWindowThreads * kWindowThreads));
   AMGT_REQUIRE(words >= kWindowThreads, "spgemm: the device has too little shared memory");
   const size_t   dyn  = static_cast<size_t>(words) * 4;
   const unsigned grid = prepare_launch(kernel, kWindowThreads, dyn, rows_hint, lim);
   kernel<<<grid, kWindowThreads, dyn, s>>>(args, kWindowBin, words);
   AMGT_DEVICE_CHECK_LAUNCH("symbolic_window_kernel");
}

// One numeric launch: kWarps rows per block, `per_warp` bytes of dynamic shared memory each.
template <class V>
void launch_numeric_kernel(void (*kernel)(NumericArgs<V>, int), const char* name, int kWarps,
                           size_t per_warp, const NumericArgs<V>& args, int bin, int64_t rows,
                           Stream s, const DeviceLimits& lim)
{
   const size_t dyn = static_cast<size_t>(kWarps) * per_warp;
   AMGT_REQUIRE(fits_shared(kernel, dyn, lim),
                "spgemm: the device has too little shared memory for the numeric phase");
   const unsigned grid =
       prepare_launch(kernel, kWarps * kWarpSize, dyn, (rows + kWarps - 1) / kWarps, lim);
   kernel<<<grid, kWarps * kWarpSize, dyn, s>>>(args, bin);
   AMGT_DEVICE_CHECK_LAUNCH(name);
}

// Ordered kernel, per bin: (window in tiles, warps per block).
template <class V, int kCap, int kWarps>
void launch_ordered_bin(const NumericArgs<V>& args, int bin, int64_t rows, Stream s,
                        const DeviceLimits& lim)
{
   launch_numeric_kernel<V>(numeric_kernel<V, kCap, kWarps>, "numeric_kernel", kWarps,
                            numeric_warp_bytes<V, kCap>(), args, bin, rows, s, lim);
}

// Pairs kernel, per bin: (window in tiles, window in stored entries, warps per block).
template <class V, int kCap, int kEntries, int kWarps>
void launch_pairs_bin(const NumericArgs<V>& args, int bin, int64_t rows, Stream s,
                      const DeviceLimits& lim)
{
   launch_numeric_kernel<V>(numeric_pairs_kernel<V, kCap, kEntries, kWarps>,
                            "numeric_pairs_kernel", kWarps, pairs_warp_bytes<V, kCap, kEntries>(),
                            args, bin, rows, s, lim);
}

// Pairs kernel windows (design notes, "Numeric, pairs kernel"): the entry budget is what
// sizes the shared memory; kCap only has to let low-fill rows use it (kEntries / kCap = 2
// in bin 2, so a window reaches its budget from fill 2 up). The budgets hold typical AMG rows
// in one window (bin 0: 32 tiles up to fill 8; bin 1: 128 tiles up to fill 4; bin 2: 256
// tiles up to fill 4; while no tile holds more than 4 entries a bin-2 window takes >= 256
// tiles, so no more windows than the old 256-tile accumulator), because every further window
// re-walks the row's A tiles with two binary searches each.
// Bytes per warp (acc | scol, cinfo | pre, bstart, amap) and resident warps per SM on an
// H100 (228 KB per SM, 1 KB reserved per block, 64 warps, 65536 registers); "smem" is the
// shared-memory limit alone, "regs" with the registers of the sm_90 build (fp64/fp32 48/48,
// 48/48, 58/48 per thread with pairs_min_blocks; allocated in units of 8 per thread):
//   bin 0 (32, 256, 8 warps):   fp64 2048+256+384  =  2688 B: smem 64, regs 40 warps
//                               fp32 1024+256+384  =  1664 B: smem 64, regs 40 warps
//   bin 1 (128, 512, 8 warps):  fp64 4096+1024+384 =  5504 B: smem 40 (5 blocks), regs 40
//                               fp32 2048+1024+384 =  3456 B: smem 64, regs 40 warps
//   bin 2 (512, 1024, 4 warps): fp64 8192+4096+384 = 12672 B: smem 16 (4 blocks), regs 16
//                               fp32 4096+4096+384 =  8576 B: smem 24 (6 blocks), regs 24
// fp16 levels accumulate in float: fp32's bytes. Before (dense acc_t[16] per tile, kCap
// 32/128/256, 8/4/2 warps per block) fp64 had 4608/17280/34176 B per warp: 40, 12 and 6
// resident warps. 8 warps per block in bin 1 (4: 36 warps, 16: 32) and 4 in bin 2 (2: the
// same 16) leave the least of the 228 KB unused. Registers now bound bins 0 and 1 (48 per thread: 40
// warps); more would need <= 40 registers, which spills in fp64 (see kPairsMinWarps).
template <class V, bool kPairs>
void launch_numeric(int bin, const NumericArgs<V>& args, int64_t rows, Stream s,
                    const DeviceLimits& lim)
{
   if constexpr (kPairs)
   {
      switch (bin)
      {
      case 0: launch_pairs_bin<V, 32, 256, 8>(args, bin, rows, s, lim); return;
      case 1: launch_pairs_bin<V, 128, 512, 8>(args, bin, rows, s, lim); return;
      case 2: launch_pairs_bin<V, 512, 1024, 4>(args, bin, rows, s, lim); return;
      default: break;
      }
   }
   else
   {
      switch (bin)
      {
      case 0: launch_ordered_bin<V, 32, 8>(args, bin, rows, s, lim); return;
      case 1: launch_ordered_bin<V, 128, 4>(args, bin, rows, s, lim); return;
      case 2: launch_ordered_bin<V, 256, 2>(args, bin, rows, s, lim); return;
      default: break;
      }
   }
   AMGT_THROW("spgemm: no numeric bin " + std::to_string(bin));
}

// Drains the stream when it goes out of scope. Declared after the temporaries, it is destroyed
// before them: no temporary is released while queued work may still read it, exceptions
// included. The normal path synchronises (checked) before this runs, making it a no-op.
struct StreamDrain
{
   Stream s;
   ~StreamDrain()
   {
      if (cudaStreamSynchronize(s) != cudaSuccess) cudaGetLastError();
   }
};

template <class V>
void check_operand(const DeviceMbsr<V>& m, const char* name)
{
   const auto blocks = [](int32_t n) { return n / kTileDim + (n % kTileDim != 0); };
   AMGT_REQUIRE(m.nrows >= 0 && m.ncols >= 0 && m.block_rows == blocks(m.nrows) &&
                    m.block_cols == blocks(m.ncols),
                std::string("spgemm: operand ") + name + " has inconsistent block dimensions");
   AMGT_REQUIRE(m.blk_ptr.size() == static_cast<size_t>(m.block_rows) + 1 &&
                    m.blk_col.size() == static_cast<size_t>(m.num_tiles) &&
                    m.blk_map.size() == static_cast<size_t>(m.num_tiles) &&
                    m.blk_val.size() == static_cast<size_t>(m.num_tiles) * 16,
                std::string("spgemm: operand ") + name + " has arrays of the wrong size");
}

// A tile popcount is at most 16: 17 sends no tile to the tensor cores. (The pairs kernel
// never uses them; cuda_core_pairs gets 17 for completeness.)
int tc_min_nnz(SpgemmPath path)
{
   switch (path)
   {
   case SpgemmPath::automatic: return kDenseTileNnz;
   case SpgemmPath::cuda_core: return 17;
   case SpgemmPath::tensor_core: return 0;
   case SpgemmPath::cuda_core_pairs: return 17;
   }
   AMGT_THROW("spgemm: unknown path " + std::to_string(static_cast<int>(path)));
}

} // namespace

const char* to_string(SpgemmPath p)
{
   switch (p)
   {
   case SpgemmPath::automatic: return "automatic";
   case SpgemmPath::cuda_core: return "cuda_core";
   case SpgemmPath::tensor_core: return "tensor_core";
   case SpgemmPath::cuda_core_pairs: return "cuda_core_pairs";
   }
   return "?";
}

template <class V>
DeviceMbsr<V> spgemm(const DeviceMbsr<V>& A, const DeviceMbsr<V>& B, Stream s,
                     const Allocator& alloc, SpgemmStats* stats, SpgemmPath path)
{
   const int min_nnz = tc_min_nnz(path);
   AMGT_REQUIRE(A.ncols == B.nrows, "spgemm: dimension mismatch, A is " + std::to_string(A.nrows) +
                                        " x " + std::to_string(A.ncols) + ", B is " +
                                        std::to_string(B.nrows) + " x " +
                                        std::to_string(B.ncols));
   check_operand(A, "A");
   check_operand(B, "B");

   SpgemmStats st;
   DeviceMbsr<V> C;
   C.nrows             = A.nrows;
   C.ncols             = B.ncols;
   C.block_rows        = A.block_rows;
   C.block_cols        = B.block_cols;
   const int32_t brows = C.block_rows;
   C.blk_ptr           = Buffer<int32_t>(static_cast<size_t>(brows) + 1, alloc);

   const DeviceLimits lim   = device_limits();
   const int          nhash = shared_hash_bins(lim);
   st.shared_symbolic_bins  = nhash;

   if (brows == 0 || A.num_tiles == 0 || B.num_tiles == 0)
   {
      AMGT_DEVICE_CHECK(cudaMemsetAsync(C.blk_ptr.get(), 0, C.blk_ptr.size() * sizeof(int32_t), s));
      if (stats) *stats = st;
      return C;
   }

   Buffer<Meta>    meta(1, alloc);
   Buffer<uint8_t> row_bin(brows, alloc), row_bin2(brows, alloc);
   Buffer<int32_t> sym_rows(brows, alloc), num_rows(brows, alloc);
   Buffer<int64_t> counts(static_cast<size_t>(brows) + 1, alloc);
   Buffer<int64_t> offsets(static_cast<size_t>(brows) + 1, alloc);
   Buffer<char>    scan_temp;
   StreamDrain     drain{s};

   AMGT_DEVICE_CHECK(cudaMemsetAsync(meta.get(), 0, sizeof(Meta), s));
   AMGT_DEVICE_CHECK(cudaMemsetAsync(counts.get(), 0, counts.size() * sizeof(int64_t), s));

   const TilesView av{A.blk_ptr.get(), A.blk_col.get(), A.blk_map.get()};
   const TilesView bv{B.blk_ptr.get(), B.blk_col.get(), B.blk_map.get()};
   Meta* const     dm = meta.get();

   // 1. Analysis and symbolic bins.
   analyze_rows<<<blocks_for(brows), kThreads, 0, s>>>(av, bv.ptr, brows, nhash, row_bin.get(), dm);
   AMGT_DEVICE_CHECK_LAUNCH("analyze_rows");
   scatter_rows<<<blocks_for(brows), kThreads, 0, s>>>(row_bin.get(), brows, kSymbolicBins,
                                                       dm->sym_count, dm->sym_cursor,
                                                       sym_rows.get());
   AMGT_DEVICE_CHECK_LAUNCH("scatter_rows");

   // 2. Symbolic pass 1 (bin sizes unknown on the host: grid-stride over the device counts).
   SymbolicArgs sa{av, bv, sym_rows.get(), dm->sym_count, counts.get(), nullptr, nullptr, nullptr,
                   &dm->error};
   for (int b = 0; b < nhash; ++b) launch_hash<false>(b, sa, brows, s, lim);
   launch_window<false>(sa, brows, s, lim);

   size_t scan_bytes = 0;
   AMGT_DEVICE_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts.get(), offsets.get(),
                                                   brows + 1, s));
   scan_temp = Buffer<char>(scan_bytes, alloc);
   AMGT_DEVICE_CHECK(cub::DeviceScan::ExclusiveSum(scan_temp.get(), scan_bytes, counts.get(),
                                                   offsets.get(), brows + 1, s));

   output_bins<<<blocks_for(brows), kThreads, 0, s>>>(offsets.get(), brows, nhash, row_bin.get(),
                                                      row_bin2.get(), dm);
   AMGT_DEVICE_CHECK_LAUNCH("output_bins");
   scatter_rows<<<blocks_for(brows), kThreads, 0, s>>>(row_bin.get(), brows, kNumericBins,
                                                       dm->num_count, dm->num_cursor,
                                                       num_rows.get());
   AMGT_DEVICE_CHECK_LAUNCH("scatter_rows");
   // pass 2's row lists go where pass 1's were: pass 1 has read them by now (stream order)
   scatter_rows<<<blocks_for(brows), kThreads, 0, s>>>(row_bin2.get(), brows, kSymbolicBins,
                                                       dm->sym2_count, dm->sym2_cursor,
                                                       sym_rows.get());
   AMGT_DEVICE_CHECK_LAUNCH("scatter_rows");

   // The one round trip: C's size and the bin counts.
   Meta    h{};
   int64_t total = 0;
   AMGT_DEVICE_CHECK(cudaMemcpyAsync(&h, dm, sizeof(Meta), cudaMemcpyDeviceToHost, s));
   AMGT_DEVICE_CHECK(cudaMemcpyAsync(&total, offsets.get() + brows, sizeof(int64_t),
                                     cudaMemcpyDeviceToHost, s));
   AMGT_DEVICE_CHECK(cudaStreamSynchronize(s));
   AMGT_REQUIRE(h.error == 0, "spgemm: internal error in the symbolic phase");
   AMGT_REQUIRE(total <= INT32_MAX, "spgemm: the product has " + std::to_string(total) +
                                        " tiles, more than 2^31-1");

   // Numeric kernel: A's dense-tile count came back with C's size (no extra round trip).
   st.dense_a_tiles = static_cast<int64_t>(h.dense_a_tiles);
   st.a_entries     = static_cast<int64_t>(h.a_entries);
   st.pairs_kernel  = path == SpgemmPath::cuda_core_pairs ||
                     (path == SpgemmPath::automatic &&
                      2 * st.a_entries < kPairsFillLimitTimes2 * static_cast<int64_t>(A.num_tiles));

   C.num_tiles = total;
   C.blk_col   = Buffer<int32_t>(static_cast<size_t>(total), alloc);
   C.blk_map   = Buffer<uint16_t>(static_cast<size_t>(total), alloc);
   C.blk_val   = Buffer<V>(static_cast<size_t>(total) * 16, alloc);
   offsets_to_ptr<<<blocks_for(int64_t{brows} + 1), kThreads, 0, s>>>(offsets.get(), brows,
                                                                        C.blk_ptr.get());
   AMGT_DEVICE_CHECK_LAUNCH("offsets_to_ptr");

   if (total > 0)
   {
      // 2'. Symbolic pass 2: sorted block columns and bitmaps.
      sa.c_ptr = C.blk_ptr.get();
      sa.c_col = C.blk_col.get();
      sa.c_map     = C.blk_map.get();
      sa.bin_count = dm->sym2_count;
      for (int b = 0; b < nhash; ++b)
         if (h.sym2_count[b] > 0) launch_hash<true>(b, sa, h.sym2_count[b], s, lim);
      if (h.sym2_count[kWindowBin] > 0) launch_window<true>(sa, h.sym2_count[kWindowBin], s, lim);

      // 3. Numeric.
      NumericArgs<V> na{av,           bv,           A.blk_val.get(), B.blk_val.get(),
                        C.blk_ptr.get(), C.blk_col.get(), C.blk_map.get(), C.blk_val.get(),
                        num_rows.get(), dm->num_count, dm, min_nnz};
      for (int b = 0; b < kNumericBins; ++b)
      {
         if (h.num_count[b] == 0) continue;
         if (st.pairs_kernel) launch_numeric<V, true>(b, na, h.num_count[b], s, lim);
         else launch_numeric<V, false>(b, na, h.num_count[b], s, lim);
      }
   }

   Meta h2{};
   AMGT_DEVICE_CHECK(cudaMemcpyAsync(&h2, dm, sizeof(Meta), cudaMemcpyDeviceToHost, s));
   AMGT_DEVICE_CHECK(cudaStreamSynchronize(s)); // before the temporaries are released
   AMGT_REQUIRE(h2.error == 0, "spgemm: internal error (symbolic and numeric phases disagree)");

   st.intermediate_tiles = static_cast<int64_t>(h2.intermediate);
   st.output_tiles       = total;
   st.tc_tile_products   = static_cast<int64_t>(h2.tc_products);
   st.cc_tile_products   = static_cast<int64_t>(h2.cc_products);
   for (int b = 0; b < kSymbolicBins; ++b) st.symbolic_bin_rows[b] = h2.sym_count[b];
   for (int b = 0; b < kNumericBins; ++b) st.numeric_bin_rows[b] = h2.num_count[b];
   if (stats) *stats = st;
   return C;
}

#define AMGT_INSTANTIATE(V)                                                                        \
   template DeviceMbsr<V> spgemm<V>(const DeviceMbsr<V>&, const DeviceMbsr<V>&, Stream,           \
                                    const Allocator&, SpgemmStats*, SpgemmPath);
AMGT_INSTANTIATE(double)
AMGT_INSTANTIATE(float)
AMGT_INSTANTIATE(half_t)
#undef AMGT_INSTANTIATE

} // namespace amgt::device
