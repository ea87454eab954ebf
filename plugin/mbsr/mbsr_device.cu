// CSR <-> mBSR on the GPU.
//
// csr_to_mbsr has two ways of grouping a block row's entries into tiles.
//
// Hashed (the usual one; no sort, one read-back). A block row (4 CSR rows) is one group of
// threads with an open-addressing hash table in shared memory, keyed by block column:
//   pass 1: every entry inserts its block column (CAS on an empty slot) and ORs its bit into
//     the slot's bitmap; the successful inserts count the block row's tiles. A bit that was
//     already set is a duplicate entry (the sorted conversion sums duplicates in input
//     order, so such a matrix goes there), a column outside [0, ncols) is refused. The same
//     pass counts dense tiles and the longest block row (the SpMV plan's statistics).
//   scan of the counts straight into blk_ptr; the one read-back (tile count, flags);
//   pass 2: the table is built again, its keys are compacted with their slots, bitonic-sorted
//     (so a tile's rank is its position among the block row's sorted block columns), and
//     every entry finds its slot, hence its tile, and writes its value where it belongs: in
//     the dense layout (the block row's tiles zeroed first) and/or the packed layout (offset =
//     the block row's first entry + the popcounts of the tiles before it + the bits before it
//     in its tile). Without duplicates every position is written by exactly one entry: no
//     atomics on values, results reproducible and equal to the reference bit for bit.
//   Block rows are served by four tiers by entry count E (the table keeps T >= 2E slots):
//   E <= 32 one warp and 64 slots, E <= 128 one warp and 256, E <= 512 one warp and 1024,
//   E <= 4096 one block of 256 threads and 8192 slots. Longer block rows (and duplicates) take
//   the sorted conversion. A classification pass (one thread per block row) puts each block
//   row on its tier's list, and each tier's kernel walks only its list: tiers that walked all
//   block rows and skipped the others' cost ~1 us of latency per block row and group, which
//   on the 8192-slot tier (one group per SM) came to milliseconds on a million block rows.
//   Without duplicates, block row b's packed entries start at row_ptr[4b] (a permutation of the
//   CSR entries inside each block row), so packed_row needs no scan.
//   Tier 0 (E <= 32: the 7-point fine levels, every P) runs in registers instead
//   (tier0_kernel): one entry per lane, several block rows in flight per warp, tiles found by
//   __match_any_sync on the block column. The table kernel walks one block row at a time per
//   group, and for these short block rows that bound it on the H100 (figures, and which
//   version they were taken with, in bench/RESULTS.md, 2026-11-25). (An
//   earlier register version with an O(E^2) shuffle loop per block row was slower than the
//   table; this one loops over the D tiles only, in pass 2, and counts with one match. Tier 0
//   finds duplicate entries in pass 2: the conversion then discards its output and runs the
//   sorted one.)
//
// Sorted (the fallback). Every entry gets a key (block row, block column) and a payload (entry
// index, position inside the tile); a stable radix sort groups the entries of each tile, in
// CSR order, so duplicate entries are summed in the same order as the CPU reference. One
// thread per tile then builds the bitmap and the 16 values. (A stable segmented sort per block
// row with 32-bit keys was tried: on an H100, 6.1 against 8.7 ms (conversion and SpMV plan)
// on the 27-point 100^3 fine level, but 27.9 against 13.3 ms on the 7-point 160^3 level-1
// operator and slower on most coarse operators; the radix sort stayed as the fallback.)
//
// Both: the structure is exact; values are rounded once, from the fp64 sum, to the storage
// type.
#include "mbsr/mbsr_device.h"

#include "common/error.h"
#include "device/arith.cuh"
#include "device/group_ops.cuh"
#include "device/launch.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_fp16.h>

#include <algorithm>
#include <type_traits>

namespace amgt::device {
namespace {

// What a conversion found wrong in its input (bits of `bad`, read back once with the tile count).
constexpr int kBadColumn = 1, kBadRowPtr = 2, kDuplicate = 4, kTooLong = 8;

// kBadRowPtr unless row_ptr starts at 0, ends at nnz and never decreases. make_keys only
// binary-searches row_ptr, so a bad row pointer gives wrong keys, never an out-of-bounds
// access, and the conversion refuses it at its one read-back (with the tile count).
__global__ void check_row_ptr(const int32_t* __restrict__ row_ptr, int32_t nrows, int64_t nnz, int* bad)
{
   const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (i > nrows) return;
   const bool ok = i == 0 ? row_ptr[0] == 0
                          : row_ptr[i] >= row_ptr[i - 1] && (i < nrows || row_ptr[i] == nnz);
   if (!ok) atomicOr(bad, kBadRowPtr);
}

// Row of entry k: the last row whose start is <= k (rows may be empty).
__device__ inline int32_t row_of(const int32_t* row_ptr, int32_t nrows, int64_t k)
{
   int32_t lo = 0, hi = nrows; // answer in [0, nrows)
   while (hi - lo > 1)
   {
      int32_t mid = lo + (hi - lo) / 2;
      if (row_ptr[mid] <= k) lo = mid;
      else hi = mid;
   }
   return lo;
}

__global__ void make_keys(const int32_t* row_ptr, const int32_t* col, int32_t nrows, int32_t ncols,
                          int64_t nnz, uint64_t* keys, uint64_t* payload, int* bad)
{
   int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (k >= nnz) return;
   int32_t r = row_of(row_ptr, nrows, k);
   int32_t c = col[k];
   if (c < 0 || c >= ncols)
   {
      atomicOr(bad, kBadColumn);
      c = 0; // keep the sort well defined; the conversion is rejected afterwards
   }
   keys[k]    = (static_cast<uint64_t>(r >> 2) << 32) | static_cast<uint32_t>(c >> 2);
   payload[k] = (static_cast<uint64_t>(k) << 4) | static_cast<uint64_t>((r & 3) * 4 + (c & 3));
}

__global__ void head_flags(const uint64_t* keys, int64_t nnz, int32_t* heads)
{
   int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (k >= nnz) return;
   heads[k] = (k == 0 || keys[k] != keys[k - 1]) ? 1 : 0;
}

__global__ void tile_starts(const int32_t* tile_of, int64_t nnz, int32_t* start)
{
   int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (k >= nnz) return;
   if (k == 0 || tile_of[k] != tile_of[k - 1]) start[tile_of[k] - 1] = static_cast<int32_t>(k);
   if (k == nnz - 1) start[tile_of[k]] = static_cast<int32_t>(nnz);
}

template <class V>
__global__ void fill_tiles(const uint64_t* keys, const uint64_t* payload, const int32_t* start,
                           const double* val, int64_t ntiles, int32_t* blk_col, uint16_t* blk_map,
                           V* blk_val, int32_t* tile_row)
{
   int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (t >= ntiles) return;
   double   acc[16];
   uint32_t map = 0;
#pragma unroll
   for (int p = 0; p < 16; ++p) acc[p] = 0.0;
   for (int32_t k = start[t]; k < start[t + 1]; ++k)
   {
      uint64_t pl = payload[k];
      int      p  = static_cast<int>(pl & 15u);
      int64_t  e  = static_cast<int64_t>(pl >> 4);
      double   v  = val ? val[e] : 1.0;
      // unrolled select keeps acc in registers (a run-time index would spill it)
#pragma unroll
      for (int q = 0; q < 16; ++q)
         if (q == p) acc[q] += v;
      map |= 1u << p;
   }
   uint64_t key = keys[start[t]];
   blk_col[t]   = static_cast<int32_t>(key & 0xffffffffu);
   tile_row[t]  = static_cast<int32_t>(key >> 32);
   blk_map[t]   = static_cast<uint16_t>(map);
#pragma unroll
   for (int p = 0; p < 16; ++p) blk_val[t * 16 + p] = Arith<V>::from_double(acc[p]);
}

// blk_ptr[b] = first tile of block row b (tiles are sorted by block row).
__global__ void block_row_ptr(const int32_t* tile_row, int64_t ntiles, int32_t block_rows,
                              int32_t* blk_ptr)
{
   int32_t b = blockIdx.x * blockDim.x + threadIdx.x;
   if (b > block_rows) return;
   int64_t lo = 0, hi = ntiles; // first t with tile_row[t] >= b
   while (lo < hi)
   {
      int64_t mid = (lo + hi) / 2;
      if (tile_row[mid] < b) lo = mid + 1;
      else hi = mid;
   }
   blk_ptr[b] = static_cast<int32_t>(lo);
}

__global__ void tile_popcounts(const uint16_t* map, int64_t ntiles, int64_t* out)
{
   int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (t < ntiles) out[t] = __popc(static_cast<unsigned>(map[t]));
}

// mBSR -> CSR, one warp per block row (grid-stride). A thread per row (the first version) read
// every tile of its block row four times over (once per row of the block row) and wrote its
// row alone, so the stores of a warp landed in 32 rows far apart; measured on an H100 it took
// 12.7 ms to write back the 101M-entry product laplace7 n=160 A*A. Here the warp takes the
// block row's tiles 32 at a time (lane = tile, one load of bitmap and column), and for each of
// the four rows an exclusive scan of the lanes' nibble popcounts gives every lane its place in
// that row: the row's entries are written by consecutive lanes to consecutive positions.
constexpr int kWarpsPerBlock = kThreads / 32;

__global__ void csr_row_counts(const int32_t* blk_ptr, const uint16_t* blk_map, int32_t nrows,
                               int32_t block_rows, int32_t* counts)
{
   const int     lane  = group::lane_id();
   const int64_t warp0 = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
   const int64_t warps = static_cast<int64_t>(gridDim.x) * blockDim.x / 32;
   if (warp0 == 0 && lane == 0) counts[nrows] = 0; // the scan's last entry becomes nnz
   for (int64_t b = warp0; b < block_rows; b += warps)
   {
      int n[4] = {0, 0, 0, 0};
      for (int32_t t = blk_ptr[b] + lane; t < blk_ptr[b + 1]; t += 32)
      {
         const unsigned map = blk_map[t];
#pragma unroll
         for (int r = 0; r < 4; ++r) n[r] += __popc((map >> (4 * r)) & 0xFu);
      }
#pragma unroll
      for (int r = 0; r < 4; ++r)
      {
         const int total = group::warp_sum(n[r]);
         const int64_t i = 4 * b + r;
         if (lane == 0 && i < nrows) counts[i] = total;
      }
   }
}

template <class V>
__global__ void csr_fill(const int32_t* blk_ptr, const int32_t* blk_col, const uint16_t* blk_map,
                         const V* blk_val, int32_t nrows, int32_t block_rows,
                         const int32_t* row_ptr, int32_t* col, double* val)
{
   const int     lane  = group::lane_id();
   const int64_t warp0 = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
   const int64_t warps = static_cast<int64_t>(gridDim.x) * blockDim.x / 32;
   for (int64_t b = warp0; b < block_rows; b += warps)
   {
      // next free position of each row of the block row (rows past n: never written, since
      // their bits are clear in every tile)
      int32_t pos[4];
#pragma unroll
      for (int r = 0; r < 4; ++r)
      {
         const int64_t i = 4 * b + r;
         pos[r]          = i < nrows ? row_ptr[i] : 0;
      }
      const int32_t te = blk_ptr[b + 1];
      for (int32_t t0 = blk_ptr[b]; t0 < te; t0 += 32)
      {
         const int32_t  t    = t0 + lane;
         const bool     have = t < te;
         const unsigned map  = have ? blk_map[t] : 0u;
         const int32_t  c0   = have ? blk_col[t] * 4 : 0;
#pragma unroll
         for (int r = 0; r < 4; ++r)
         {
            const unsigned nib   = (map >> (4 * r)) & 0xFu;
            const int      cnt   = __popc(nib);
            const int      incl  = group::warp_inclusive_scan(cnt);
            int32_t        p     = pos[r] + incl - cnt;
            const V*       src   = blk_val + static_cast<int64_t>(t) * 16 + 4 * r;
#pragma unroll
            for (int c = 0; c < 4; ++c)
            {
               if (nib & (1u << c))
               {
                  col[p] = c0 + c;
                  val[p] = Arith<V>::to_double(src[c]);
                  ++p;
               }
            }
            pos[r] += __shfl_sync(group::kFullMask, incl, 31);
         }
      }
   }
}

// Enough warps to cover the block rows, capped at a few waves (the kernels stride).
inline unsigned warp_blocks_for(int64_t block_rows)
{
   const int64_t blocks = (block_rows + kWarpsPerBlock - 1) / kWarpsPerBlock;
   return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(blocks, 65535)));
}

int end_bit_for(int32_t block_rows)
{
   int bits = 1;
   while (bits < 31 && (int64_t{1} << bits) <= block_rows) ++bits;
   return 32 + bits;
}

template <class V>
DeviceMbsr<V> csr_to_mbsr_sorted(const CsrView& a, Stream stream, const Allocator& alloc)
{
   AMGT_REQUIRE(a.nrows >= 0 && a.ncols >= 0 && a.nnz >= 0, "csr_to_mbsr: negative dimensions");
   AMGT_REQUIRE(a.nnz == 0 || (a.row_ptr && a.col), "csr_to_mbsr: missing CSR arrays");
   DeviceMbsr<V> m;
   m.nrows      = a.nrows;
   m.ncols      = a.ncols;
   m.block_rows = (a.nrows + 3) / 4;
   m.block_cols = (a.ncols + 3) / 4;
   m.blk_ptr    = Buffer<int32_t>(static_cast<size_t>(m.block_rows) + 1, alloc);
   const int64_t nnz = a.nnz;
   if (nnz == 0)
   {
      AMGT_DEVICE_CHECK(cudaMemsetAsync(m.blk_ptr.get(), 0, m.blk_ptr.size() * sizeof(int32_t), stream));
      return m;
   }

   Buffer<uint64_t> keys(nnz, alloc), keys_sorted(nnz, alloc);
   Buffer<uint64_t> payload(nnz, alloc), payload_sorted(nnz, alloc);
   Buffer<int32_t>  heads(nnz, alloc), tile_of(nnz, alloc);
   Buffer<int>      bad(1, alloc);
   AMGT_DEVICE_CHECK(cudaMemsetAsync(bad.get(), 0, sizeof(int), stream));

   check_row_ptr<<<blocks_for(int64_t{a.nrows} + 1), kThreads, 0, stream>>>(a.row_ptr, a.nrows, nnz, bad.get());
   AMGT_DEVICE_CHECK_LAUNCH("check_row_ptr");
   make_keys<<<blocks_for(nnz), kThreads, 0, stream>>>(a.row_ptr, a.col, a.nrows, a.ncols, nnz,
                                                        keys.get(), payload.get(), bad.get());
   AMGT_DEVICE_CHECK_LAUNCH("make_keys");

   size_t temp_bytes = 0;
   AMGT_DEVICE_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys.get(), keys_sorted.get(),
                                                     payload.get(), payload_sorted.get(), nnz, 0,
                                                     end_bit_for(m.block_rows), stream));
   size_t scan_bytes = 0;
   AMGT_DEVICE_CHECK(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, heads.get(), tile_of.get(),
                                                   nnz, stream));
   Buffer<char> temp(std::max(temp_bytes, scan_bytes), alloc);
   AMGT_DEVICE_CHECK(cub::DeviceRadixSort::SortPairs(temp.get(), temp_bytes, keys.get(),
                                                     keys_sorted.get(), payload.get(),
                                                     payload_sorted.get(), nnz, 0,
                                                     end_bit_for(m.block_rows), stream));
   head_flags<<<blocks_for(nnz), kThreads, 0, stream>>>(keys_sorted.get(), nnz, heads.get());
   AMGT_DEVICE_CHECK_LAUNCH("head_flags");
   AMGT_DEVICE_CHECK(cub::DeviceScan::InclusiveSum(temp.get(), scan_bytes, heads.get(), tile_of.get(),
                                                   nnz, stream));

   int32_t ntiles = 0;
   int     is_bad = 0;
   AMGT_DEVICE_CHECK(cudaMemcpyAsync(&ntiles, tile_of.get() + nnz - 1, sizeof(int32_t),
                                     cudaMemcpyDeviceToHost, stream));
   AMGT_DEVICE_CHECK(cudaMemcpyAsync(&is_bad, bad.get(), sizeof(int), cudaMemcpyDeviceToHost, stream));
   AMGT_DEVICE_CHECK(cudaStreamSynchronize(stream));
   AMGT_REQUIRE(!(is_bad & kBadRowPtr), "csr_to_mbsr: row_ptr is not a CSR row pointer (0 .. nnz, nondecreasing)");
   AMGT_REQUIRE(!(is_bad & kBadColumn), "csr_to_mbsr: column index out of range");

   m.num_tiles = ntiles;
   m.blk_col   = Buffer<int32_t>(ntiles, alloc);
   m.blk_map   = Buffer<uint16_t>(ntiles, alloc);
   m.blk_val   = Buffer<V>(static_cast<size_t>(ntiles) * 16, alloc);
   Buffer<int32_t> start(static_cast<size_t>(ntiles) + 1, alloc), tile_row(ntiles, alloc);

   tile_starts<<<blocks_for(nnz), kThreads, 0, stream>>>(tile_of.get(), nnz, start.get());
   AMGT_DEVICE_CHECK_LAUNCH("tile_starts");
   fill_tiles<V><<<blocks_for(ntiles), kThreads, 0, stream>>>(
      keys_sorted.get(), payload_sorted.get(), start.get(), a.val, ntiles, m.blk_col.get(),
      m.blk_map.get(), m.blk_val.get(), tile_row.get());
   AMGT_DEVICE_CHECK_LAUNCH("fill_tiles");
   block_row_ptr<<<blocks_for(int64_t{m.block_rows} + 1), kThreads, 0, stream>>>(
      tile_row.get(), ntiles, m.block_rows, m.blk_ptr.get());
   AMGT_DEVICE_CHECK_LAUNCH("block_row_ptr");
   // the temporaries are freed when this returns: finish the work that reads them first
   AMGT_DEVICE_CHECK(cudaStreamSynchronize(stream));
   return m;
}

// ---- hashed conversion ----------------------------------------------------------------------

constexpr int32_t kEmptyKey = -1; // block columns are >= 0

// Device-side results of the classification and pass 1, read back once with the tile count.
struct HashMeta
{
   int                flags; // kBad*, kDuplicate, kTooLong
   int32_t            max_tiles;
   unsigned long long dense_tiles;       // tiers 1-3, pass 1
   unsigned long long dense_tiles_tier0; // tier 0, pass 2
   int32_t            tier_rows[kConversionTiers]; // block rows in each tier's list
};

// Tier k serves block rows of E entries with lo < E <= hi: G threads per block row (a warp or
// the whole block), kRows block rows per block, a hash table of 2^log2t >= 2 hi slots.
struct HashTier
{
   int     group, log2t, rows;
   int32_t lo, hi;
};
constexpr HashTier kTiers[kConversionTiers] = {
   {32, 6, 8, 0, 32}, {32, 8, 8, 32, 128}, {32, 10, 4, 128, 512}, {256, 13, 1, 512, 4096}};
static_assert(kTiers[kConversionTiers - 1].hi == kHashedMaxEntries, "the last tier takes the longest hashed rows");

__host__ __device__ constexpr int tier_of(int32_t E)
{
   return E <= kTiers[0].hi ? 0 : E <= kTiers[1].hi ? 1 : E <= kTiers[2].hi ? 2 : 3;
}

// Shared memory of one group. Pass 1: keys (T) | maps (T) | count + red (34 ints). Pass 2:
// comp (u64, T/2) | keys | maps | rank (T) | toff (T/2) | count + red. Multiples of 8 bytes.
constexpr size_t hash_group_bytes(int log2t, bool pass2)
{
   const size_t T = size_t{1} << log2t;
   return pass2 ? 8 * (T / 2) + 4 * T * 3 + 4 * (T / 2) + 4 * 34 : 4 * T * 2 + 4 * 34;
}

template <class V>
struct HashArgs
{
   const int32_t* row_ptr;
   const int32_t* col;
   const double*  val; // nullptr: every value is 1.0
   int32_t        nrows, ncols, block_rows;
   int64_t        nnz;
   const int32_t* lists;  // tier k's block rows at lists + k * block_rows
   int32_t*       counts; // pass 1: tiles per block row
   HashMeta*      meta;
   // pass 2
   const int32_t* blk_ptr;
   int32_t*       blk_col;
   uint16_t*      blk_map;
   V*             blk_val;     // nullptr: no dense layout
   V*             packed_val;  // nullptr: no packed layout
   uint16_t*      packed_meta; // nullptr: no decode
};

// Block row b's five row pointers (the rows past nrows repeat the last one); false if they
// are not a valid piece of a CSR row pointer.
__device__ __forceinline__ bool block_row_ptrs(const int32_t* row_ptr, int32_t nrows, int64_t nnz, int64_t b,
                                               int32_t (&rp)[5])
{
#pragma unroll
   for (int q = 0; q < 5; ++q) rp[q] = __ldg(row_ptr + min(4 * b + q, static_cast<int64_t>(nrows)));
   bool ok = rp[0] >= 0 && rp[4] <= nnz;
#pragma unroll
   for (int q = 0; q < 4; ++q) ok = ok && rp[q] <= rp[q + 1];
   return ok;
}

// One thread per block row: its tier by entry count, appended to that tier's list (ranks from
// shared atomics, one global atomic per tier and block), packed_row[b] = row_ptr[4b] (without
// duplicates a block row's packed entries are a permutation of its CSR entries). Flags bad
// row pointers and block rows past the last tier.
__global__ void classify_rows(const int32_t* row_ptr, int32_t nrows, int64_t nnz, int32_t block_rows,
                              int32_t* lists, int64_t* packed_row, HashMeta* meta)
{
   __shared__ int local[kConversionTiers], base[kConversionTiers];
   if (threadIdx.x < kConversionTiers) local[threadIdx.x] = 0;
   __syncthreads();
   const int64_t b    = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
   int           tier = -1, rank = 0, flags = 0;
   if (b < block_rows)
   {
      int32_t rp[5];
      if (!block_row_ptrs(row_ptr, nrows, nnz, b, rp)) { flags |= kBadRowPtr; }
      else
      {
         const int32_t E = rp[4] - rp[0];
         if (E > kHashedMaxEntries) { flags |= kTooLong; }
         else if (E > 0)
         {
            tier = tier_of(E);
            rank = atomicAdd(&local[tier], 1);
         }
         if (packed_row) packed_row[b] = rp[0];
      }
   }
   if (flags) atomicOr(&meta->flags, flags);
   __syncthreads();
   if (threadIdx.x < kConversionTiers && local[threadIdx.x] > 0)
      base[threadIdx.x] = atomicAdd(&meta->tier_rows[threadIdx.x], local[threadIdx.x]);
   __syncthreads();
   if (tier >= 0) lists[static_cast<int64_t>(tier) * block_rows + base[tier] + rank] = static_cast<int32_t>(b);
   if (packed_row && b == 0) packed_row[block_rows] = nnz;
}

// Slot of key, inserting it if absent; fresh = this call inserted it. The table is at most
// half full (E <= T/2), so probing ends.
template <int kLog2T>
__device__ __forceinline__ int hash_insert(int32_t* keys, int32_t key, bool& fresh)
{
   constexpr uint32_t kMask = (1u << kLog2T) - 1;
   uint32_t           h     = group::hash_slot<kLog2T>(key);
   while (true)
   {
      const int32_t cur = *reinterpret_cast<volatile int32_t*>(&keys[h]);
      if (cur == key)
      {
         fresh = false;
         return static_cast<int>(h);
      }
      if (cur == kEmptyKey)
      {
         const int32_t prev = atomicCAS(&keys[h], kEmptyKey, key);
         if (prev == kEmptyKey || prev == key)
         {
            fresh = prev == kEmptyKey;
            return static_cast<int>(h);
         }
      }
      h = (h + 1) & kMask;
   }
}

// Slot of a key known to be in the table (after a barrier).
template <int kLog2T>
__device__ __forceinline__ int hash_find(const int32_t* keys, int32_t key)
{
   constexpr uint32_t kMask = (1u << kLog2T) - 1;
   uint32_t           h     = group::hash_slot<kLog2T>(key);
   while (keys[h] != key) h = (h + 1) & kMask;
   return static_cast<int>(h);
}

// The block rows of one tier's list (classify_rows), one group each.
template <int G, int kLog2T, int kRows, bool kPass2, class V>
__global__ void __launch_bounds__(G * kRows) hashed_kernel(HashArgs<V> args, int tier)
{
   static_assert(G == group::kWarpSize || kRows == 1, "block-wide groups hold one row per block");
   constexpr int T = 1 << kLog2T;
   extern __shared__ unsigned long long smem_u64[];
   const int g = static_cast<int>(threadIdx.x) / G, t = static_cast<int>(threadIdx.x) % G;
   unsigned char* base = reinterpret_cast<unsigned char*>(smem_u64) +
                         static_cast<size_t>(g) * hash_group_bytes(kLog2T, kPass2);
   auto* comp  = reinterpret_cast<unsigned long long*>(base); // pass 2 only
   auto* keys  = reinterpret_cast<int32_t*>(kPass2 ? base + 8 * (T / 2) : base);
   auto* maps  = reinterpret_cast<uint32_t*>(keys + T);
   auto* rank  = reinterpret_cast<int32_t*>(maps + T);         // pass 2 only
   auto* toff  = rank + T;                                     // pass 2 only
   auto* count = kPass2 ? toff + T / 2 : rank;
   int*  red   = count + 2;

   const int32_t  nlist = args.meta->tier_rows[tier];
   const int32_t* list  = args.lists + static_cast<int64_t>(tier) * args.block_rows;
   // pass 1 totals of this group, flushed once at the end (no atomics per block row)
   int      flags = 0, max_tiles = 0;
   uint64_t dense_total = 0;

   // The next block row's list entry and row pointers are loaded while this one is worked
   // on: otherwise every block row starts with two dependent global loads (list, then row
   // pointers) that nothing hides, and at one block row per group that latency bounds the
   // kernel.
   const int64_t stride = static_cast<int64_t>(gridDim.x) * kRows;
   int32_t       b_next = 0, rp_next[5] = {0, 0, 0, 0, 0};
   {
      const int64_t i = static_cast<int64_t>(blockIdx.x) * kRows + g;
      if (i < nlist)
      {
         b_next = list[i];
         block_row_ptrs(args.row_ptr, args.nrows, args.nnz, b_next, rp_next);
      }
   }
   for (int64_t i0 = static_cast<int64_t>(blockIdx.x) * kRows; i0 < nlist; i0 += stride)
   {
      const int64_t i = i0 + g;
      if (i >= nlist) continue; // uniform over the group
      const int32_t b = b_next;
      int32_t       rp[5];
#pragma unroll
      for (int q = 0; q < 5; ++q) rp[q] = rp_next[q]; // valid: classify_rows checked
      if (i + stride < nlist)
      {
         b_next = list[i + stride];
         block_row_ptrs(args.row_ptr, args.nrows, args.nnz, b_next, rp_next);
      }

      for (int k = t; k < T; k += G)
      {
         keys[k] = kEmptyKey;
         maps[k] = 0u;
      }
      if (t == 0) *count = 0;
      group::sync<G>();

      int  fresh = 0;
      bool dup = false, bad_col = false;
      for (int64_t e = rp[0] + t; e < rp[4]; e += G)
      {
         const int32_t c = __ldg(args.col + e);
         if (c < 0 || c >= args.ncols)
         {
            bad_col = true;
            continue;
         }
         const int  r     = (e >= rp[1]) + (e >= rp[2]) + (e >= rp[3]);
         const int  bit   = 4 * r + (c & 3);
         bool       isnew = false;
         const int  slot  = hash_insert<kLog2T>(keys, c >> 2, isnew);
         const auto old   = atomicOr(&maps[slot], 1u << bit);
         fresh += isnew;
         dup = dup || ((old >> bit) & 1u);
      }
      group::sync<G>();

      if constexpr (!kPass2)
      {
         int dense = 0;
         for (int k = t; k < T; k += G)
            if (keys[k] != kEmptyKey && __popc(maps[k]) >= kDenseTileNnz) ++dense;
         const int tiles = group::sum<G>(fresh, red);
         dense           = group::sum<G>(dense, red);
         if (bad_col) flags |= kBadColumn;
         if (dup) flags |= kDuplicate;
         if (t == 0)
         {
            args.counts[b] = tiles;
            max_tiles      = max(max_tiles, tiles);
            dense_total += static_cast<uint64_t>(dense);
         }
         group::sync<G>(); // the table is reset by the next block row
      }
      else
      {
         const int32_t out = args.blk_ptr[b];
         const int     D   = args.blk_ptr[b + 1] - out; // == the fresh inserts (pass 1)
         for (int k = t; k < T; k += G)
         {
            const int32_t key = keys[k];
            if (key != kEmptyKey)
            {
               const int p = atomicAdd(count, 1);
               comp[p]     = (static_cast<unsigned long long>(key) << 32) | static_cast<uint32_t>(k);
            }
         }
         group::sync<G>();
         int P = 1;
         while (P < D) P <<= 1;
         for (int k = D + t; k < P; k += G) comp[k] = ~0ull;
         group::sync<G>();
         group::bitonic_sort<G>(comp, P, t);
         for (int p = t; p < D; p += G)
         {
            const unsigned long long v    = comp[p];
            const int                slot = static_cast<int>(v & 0xffffffffu);
            const uint32_t           m    = maps[slot];
            rank[slot]                    = p;
            toff[p]                       = __popc(m);
            args.blk_col[out + p]         = static_cast<int32_t>(v >> 32);
            args.blk_map[out + p]         = static_cast<uint16_t>(m);
         }
         if (args.blk_val)
         {
            V* tiles = args.blk_val + static_cast<int64_t>(out) * 16;
            for (int k = t; k < 16 * D; k += G) tiles[k] = Arith<V>::from_double(0.0);
         }
         group::sync<G>(); // ranks and popcounts complete; the zeros are ordered before the values
         if (args.packed_val)
         {
            int carry = 0;
            for (int c0 = 0; c0 < D; c0 += G)
            {
               const int k = c0 + t;
               const int v = k < D ? toff[k] : 0;
               int       total = 0;
               const int ex    = group::exclusive_scan<G>(v, red, total);
               if (k < D) toff[k] = carry + ex;
               carry += total;
            }
            group::sync<G>();
         }
         for (int64_t e = rp[0] + t; e < rp[4]; e += G)
         {
            const int32_t c    = __ldg(args.col + e);
            const int     r    = (e >= rp[1]) + (e >= rp[2]) + (e >= rp[3]);
            const int     bit  = 4 * r + (c & 3);
            const int     slot = hash_find<kLog2T>(keys, c >> 2);
            const int     p    = rank[slot];
            const V       v    = Arith<V>::from_double(args.val ? __ldg(args.val + e) : 1.0);
            if (args.blk_val) args.blk_val[(static_cast<int64_t>(out) + p) * 16 + bit] = v;
            if (args.packed_val)
            {
               const int64_t q = static_cast<int64_t>(rp[0]) + toff[p] +
                                 __popc(maps[slot] & ((1u << bit) - 1u));
               args.packed_val[q] = v;
               if (args.packed_meta) args.packed_meta[q] = static_cast<uint16_t>((p << 4) | bit);
            }
         }
         group::sync<G>(); // the table is reset by the next block row
      }
   }

   if constexpr (!kPass2)
   {
      // one flush per thread that saw something (flags: any thread; totals: the group's t == 0)
      if (flags) atomicOr(&args.meta->flags, flags);
      if (t == 0 && max_tiles > 0)
      {
         atomicMax(&args.meta->max_tiles, max_tiles);
         if (dense_total) atomicAdd(&args.meta->dense_tiles, static_cast<unsigned long long>(dense_total));
      }
   }
}

// Tier 0 (block rows of 1..32 entries) in registers: one entry per lane, kUnroll block rows
// per warp and trip. The row pointers, then the columns (and values) of all kUnroll block rows
// are loaded before any of them is processed, so a warp keeps kUnroll independent load chains
// in flight: the table kernel above walks one block row at a time through three dependent
// loads (list, row pointers, columns), and on the H100 that latency, not bandwidth, bounded
// it (7-point 250^3: tier-0 pass 1 read columns at ~6% of 3.0 TB/s). No shared memory and no
// table: the block row's tiles are the groups of __match_any_sync on the block column; a loop
// over the D group leaders (D = tiles in the block row) gives each entry its tile's bitmap
// (a warp OR-reduction), its tile's rank (leaders with a smaller block column) and the
// entries of the tiles before it (the packed offset). Structure and values equal the table
// kernel's, which equals the CPU reference, bit for bit. The kernel walks the block rows
// directly (no list) and skips those of other tiers.
constexpr int kUnroll = 4;

template <bool kPass2, class V>
__global__ void __launch_bounds__(kThreads) tier0_kernel(HashArgs<V> args)
{
   const int     lane   = group::lane_id();
   const int64_t warp   = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / group::kWarpSize;
   const int64_t nwarps = static_cast<int64_t>(gridDim.x) * blockDim.x / group::kWarpSize;
   int      flags = 0, max_tiles = 0;
   uint64_t dense_total = 0;

   for (int64_t b0 = warp * kUnroll; b0 < args.block_rows; b0 += nwarps * kUnroll)
   {
      // lanes 0..4 hold the five row pointers of each block row, lane 5 its output offset
      int32_t mine[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
      {
         const int64_t b = b0 + u;
         mine[u]         = 0;
         if (b < args.block_rows)
         {
            if (lane < 5) mine[u] = __ldg(args.row_ptr + min(4 * b + lane, static_cast<int64_t>(args.nrows)));
            else if (kPass2 && lane == 5) mine[u] = args.blk_ptr[b];
         }
      }
      int32_t rp[kUnroll][5], out[kUnroll], c[kUnroll];
      bool    live[kUnroll], mine_row[kUnroll];
      double  v[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
      {
#pragma unroll
         for (int q = 0; q < 5; ++q) rp[u][q] = __shfl_sync(group::kFullMask, mine[u], q);
         out[u]    = kPass2 ? __shfl_sync(group::kFullMask, mine[u], 5) : 0;
         const int32_t E = rp[u][4] - rp[u][0];
         bool ok = b0 + u < args.block_rows && rp[u][0] >= 0 && rp[u][4] <= args.nnz;
#pragma unroll
         for (int q = 0; q < 4; ++q) ok = ok && rp[u][q] <= rp[u][q + 1];
         mine_row[u] = ok && E > 0 && E <= kTiers[0].hi; // uniform over the warp
         const int64_t e = static_cast<int64_t>(rp[u][0]) + lane;
         live[u]         = mine_row[u] && e < rp[u][4];
         c[u]            = live[u] ? __ldg(args.col + e) : 0;
         v[u]            = 0.0;
         if (kPass2 && live[u]) v[u] = args.val ? __ldg(args.val + e) : 1.0;
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
      {
         if (!mine_row[u]) continue; // uniform
         const int64_t b = b0 + u;
         const int64_t e = static_cast<int64_t>(rp[u][0]) + lane;
         bool          in_range = live[u] && c[u] >= 0 && c[u] < args.ncols;
         if (live[u] && !in_range) flags |= kBadColumn;
         const int32_t  key  = in_range ? c[u] >> 2 : -1 - lane; // outside: a group of its own
         const int      r    = (e >= rp[u][1]) + (e >= rp[u][2]) + (e >= rp[u][3]);
         const int      bit  = 4 * r + (c[u] & 3);
         const unsigned grp  = __match_any_sync(group::kFullMask, key);
         const unsigned lead = __ballot_sync(group::kFullMask, in_range && __ffs(grp) - 1 == lane);
         const int      tiles = __popc(lead);
         if (!kPass2)
         {
            // the count needs no loop over the tiles; duplicates are found in pass 2, whose
            // output is then discarded for the sorted conversion
            if (lane == 0)
            {
               args.counts[b] = tiles;
               max_tiles      = max(max_tiles, tiles);
            }
            continue;
         }
         uint32_t map  = 0;
         int      rank = 0, before = 0;
         for (unsigned L = lead; L; L &= L - 1)
         {
            const int      j  = __ffs(L) - 1;
            const int32_t  kj = __shfl_sync(group::kFullMask, key, j);
            const bool     in = in_range && key == kj;
            const uint32_t mj = __reduce_or_sync(group::kFullMask, in ? 1u << bit : 0u);
            dense_total += __popc(mj) >= kDenseTileNnz; // uniform: counted by every lane
            if (__popc(__ballot_sync(group::kFullMask, in)) != __popc(mj)) flags |= kDuplicate;
            if (in) map = mj;
            if (kj < key)
            {
               ++rank;
               before += __popc(mj);
            }
         }
         if (!in_range) continue;
         const bool leader = (lead >> lane) & 1u;
         const V    val    = Arith<V>::from_double(v[u]);
         if (leader)
         {
            args.blk_col[out[u] + rank] = key;
            args.blk_map[out[u] + rank] = static_cast<uint16_t>(map);
         }
         if (args.blk_val)
         {
            V* tile = args.blk_val + (static_cast<int64_t>(out[u]) + rank) * 16;
            tile[bit] = val;
            if (leader)
               for (int z = 0; z < 16; ++z)
                  if (!((map >> z) & 1u)) tile[z] = Arith<V>::from_double(0.0);
         }
         if (args.packed_val)
         {
            const int64_t q = static_cast<int64_t>(rp[u][0]) + before + __popc(map & ((1u << bit) - 1u));
            args.packed_val[q] = val;
            if (args.packed_meta) args.packed_meta[q] = static_cast<uint16_t>((rank << 4) | bit);
         }
      }
   }
   if (!kPass2)
   {
      flags     = __reduce_or_sync(group::kFullMask, static_cast<unsigned>(flags));
      max_tiles = __reduce_max_sync(group::kFullMask, static_cast<unsigned>(max_tiles));
      if (lane == 0)
      {
         if (flags) atomicOr(&args.meta->flags, flags);
         if (max_tiles > 0) atomicMax(&args.meta->max_tiles, max_tiles);
      }
   }
   // pass 2 counts the dense tiles and finds duplicates (its loop visits every tile); both
   // are read back at the end
   else if (lane == 0)
   {
      if (dense_total) atomicAdd(&args.meta->dense_tiles_tier0, static_cast<unsigned long long>(dense_total));
      if (flags) atomicOr(&args.meta->flags, flags);
   }
}

template <bool kPass2, class V>
void launch_tier0(const HashArgs<V>& args, const DeviceLimits& lim, Stream s)
{
   if (args.block_rows <= 0) return;
   constexpr int64_t rows_per_block = (kThreads / group::kWarpSize) * kUnroll;
   const int64_t     work           = (args.block_rows + rows_per_block - 1) / rows_per_block;
   const auto        grid = static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(work, int64_t{lim.sms} * 16)));
   tier0_kernel<kPass2, V><<<grid, kThreads, 0, s>>>(args);
   AMGT_DEVICE_CHECK_LAUNCH("tier0_kernel");
}

// Launches tier k of pass 1 or 2 over its list: rows = the list's length when the host
// knows it (pass 2), else an upper bound (pass 1 reads the length from device memory, the
// grid walks the list). Returns false if the tier's shared memory does not fit the device
// (the dry run checks that before anything is launched).
template <int kTier, bool kPass2, class V>
bool launch_tier(const HashArgs<V>& args, int64_t rows, const DeviceLimits& lim, Stream s, bool dry_run)
{
   constexpr HashTier c      = kTiers[kTier];
   auto               kernel = hashed_kernel<c.group, c.log2t, c.rows, kPass2, V>;
   const size_t       dyn    = static_cast<size_t>(c.rows) * hash_group_bytes(c.log2t, kPass2);
   cudaFuncAttributes attr{};
   AMGT_DEVICE_CHECK(cudaFuncGetAttributes(&attr, kernel));
   if (attr.sharedSizeBytes + dyn > static_cast<size_t>(lim.smem_optin)) return false;
   if (dry_run || rows <= 0) return true;
   const int threads = c.group * c.rows;
   AMGT_DEVICE_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(dyn)));
   int per_sm = 0;
   AMGT_DEVICE_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, dyn));
   const int64_t work = (rows + c.rows - 1) / c.rows;
   const int64_t wave = static_cast<int64_t>(std::max(per_sm, 1)) * lim.sms;
   const auto    grid = static_cast<unsigned>(std::max<int64_t>(1, std::min(work, wave)));
   kernel<<<grid, threads, dyn, s>>>(args, kTier);
   AMGT_DEVICE_CHECK_LAUNCH("hashed_kernel");
   return true;
}

// Every tier of one pass; rows[k]: tier k's length (pass 2) or nullptr (pass 1: the block
// rows bound them all).
template <bool kPass2, class V>
void launch_tiers(const HashArgs<V>& args, const int32_t* rows, const DeviceLimits& lim, Stream s)
{
   auto n = [&](int k) { return rows ? static_cast<int64_t>(rows[k]) : static_cast<int64_t>(args.block_rows); };
   if (!rows || rows[0] > 0) launch_tier0<kPass2>(args, lim, s); // tier 0 walks the block rows itself
   launch_tier<1, kPass2>(args, n(1), lim, s, false);
   launch_tier<2, kPass2>(args, n(2), lim, s, false);
   launch_tier<3, kPass2>(args, n(3), lim, s, false);
}

// Every tier fits the device's shared memory (an H100 or A100 has room for all of them).
bool hashed_fits(const DeviceLimits& lim)
{
   const HashArgs<double> none{};
   return launch_tier<0, true>(none, 0, lim, nullptr, true) && launch_tier<1, true>(none, 0, lim, nullptr, true) &&
          launch_tier<2, true>(none, 0, lim, nullptr, true) && launch_tier<3, true>(none, 0, lim, nullptr, true) &&
          launch_tier<3, false>(none, 0, lim, nullptr, true);
}

// The hashed conversion; returns false (nothing built, the stream idle) when the matrix needs
// the sorted one, with the reason in info.
template <class V>
bool csr_to_mbsr_hashed(const CsrView& a, Stream stream, const Allocator& alloc,
                        const ConvertOptions& opt, DeviceMbsr<V>& m, ConversionInfo& info)
{
   const DeviceLimits lim = device_limits();
   if (!hashed_fits(lim))
   {
      info.reason = "the hashed conversion's shared memory does not fit this device";
      return false;
   }
   const int32_t    brows = m.block_rows;
   Buffer<int32_t>  counts(static_cast<size_t>(brows) + 1, alloc);
   Buffer<int32_t>  lists(static_cast<size_t>(brows) * kConversionTiers, alloc);
   Buffer<HashMeta> meta(1, alloc);
   if (opt.packed) m.packed_row = Buffer<int64_t>(static_cast<size_t>(brows) + 1, alloc);
   AMGT_DEVICE_CHECK(cudaMemsetAsync(counts.get(), 0, counts.size() * sizeof(int32_t), stream));
   AMGT_DEVICE_CHECK(cudaMemsetAsync(meta.get(), 0, sizeof(HashMeta), stream));
   check_row_ptr<<<blocks_for(int64_t{a.nrows} + 1), kThreads, 0, stream>>>(a.row_ptr, a.nrows, a.nnz,
                                                                             &meta.get()->flags);
   AMGT_DEVICE_CHECK_LAUNCH("check_row_ptr");
   classify_rows<<<blocks_for(brows), kThreads, 0, stream>>>(a.row_ptr, a.nrows, a.nnz, brows, lists.get(),
                                                            m.packed_row.get(), meta.get());
   AMGT_DEVICE_CHECK_LAUNCH("classify_rows");

   HashArgs<V> args{};
   args.row_ptr    = a.row_ptr;
   args.col        = a.col;
   args.val        = a.val;
   args.nrows      = a.nrows;
   args.ncols      = a.ncols;
   args.block_rows = brows;
   args.nnz        = a.nnz;
   args.lists      = lists.get();
   args.counts     = counts.get();
   args.meta       = meta.get();
   launch_tiers<false>(args, nullptr, lim, stream);

   size_t scan_bytes = 0;
   AMGT_DEVICE_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts.get(), m.blk_ptr.get(),
                                                   brows + 1, stream));
   Buffer<char> temp(scan_bytes, alloc);
   AMGT_DEVICE_CHECK(cub::DeviceScan::ExclusiveSum(temp.get(), scan_bytes, counts.get(), m.blk_ptr.get(),
                                                   brows + 1, stream));
   HashMeta h{};
   int32_t  ntiles = 0;
   AMGT_DEVICE_CHECK(cudaMemcpyAsync(&h, meta.get(), sizeof h, cudaMemcpyDeviceToHost, stream));
   AMGT_DEVICE_CHECK(cudaMemcpyAsync(&ntiles, m.blk_ptr.get() + brows, sizeof ntiles, cudaMemcpyDeviceToHost, stream));
   AMGT_DEVICE_CHECK(cudaStreamSynchronize(stream)); // the one read-back
   AMGT_REQUIRE(!(h.flags & kBadRowPtr), "csr_to_mbsr: row_ptr is not a CSR row pointer (0 .. nnz, nondecreasing)");
   AMGT_REQUIRE(!(h.flags & kBadColumn), "csr_to_mbsr: column index out of range");
   if (h.flags & kDuplicate)
   {
      info.reason = "duplicate entries (summed in input order by the sorted conversion)";
      return false;
   }
   if (h.flags & kTooLong)
   {
      info.reason = "a block row holds more than 4096 entries";
      return false;
   }

   m.num_tiles = ntiles;
   m.blk_col   = Buffer<int32_t>(static_cast<size_t>(ntiles), alloc);
   m.blk_map   = Buffer<uint16_t>(static_cast<size_t>(ntiles), alloc);
   if (opt.dense) m.blk_val = Buffer<V>(static_cast<size_t>(ntiles) * 16, alloc);
   if (opt.packed)
   {
      m.packed_val  = Buffer<V>(static_cast<size_t>(a.nnz), alloc);
      m.packed_meta = Buffer<uint16_t>(static_cast<size_t>(a.nnz), alloc);
   }
   m.summary.known                   = true;
   m.summary.nnz                     = a.nnz; // no duplicates: one stored entry per CSR entry
   m.summary.dense_tiles             = static_cast<int64_t>(h.dense_tiles);
   m.summary.max_tiles_per_block_row = h.max_tiles;
   info.hashed = true;
   for (int k = 0; k < kConversionTiers; ++k) info.tier_rows[k] = h.tier_rows[k];

   args.blk_ptr     = m.blk_ptr.get();
   args.blk_col     = m.blk_col.get();
   args.blk_map     = m.blk_map.get();
   args.blk_val     = m.blk_val.get();
   args.packed_val  = m.packed_val.get();
   args.packed_meta = m.packed_meta.get();
   launch_tiers<true>(args, h.tier_rows, lim, stream);
   // pass 2 reads the tier lists: they are released when this returns, after it ran (one more
   // synchronisation, but no allocator's reuse rules to rely on); tier 0's dense tiles come
   // back with it
   HashMeta h2{};
   AMGT_DEVICE_CHECK(cudaMemcpyAsync(&h2, meta.get(), sizeof h2, cudaMemcpyDeviceToHost, stream));
   AMGT_DEVICE_CHECK(cudaStreamSynchronize(stream));
   if (h2.flags & kDuplicate)
   {
      // found by tier 0's pass 2 (its pass 1 only counts): what was written is discarded
      info        = ConversionInfo{};
      info.reason = "duplicate entries (summed in input order by the sorted conversion)";
      return false;
   }
   m.summary.dense_tiles += static_cast<int64_t>(h2.dense_tiles_tier0);
   return true;
}

} // namespace

template <class V>
DeviceMbsr<V> csr_to_mbsr(const CsrView& a, Stream stream, const Allocator& alloc,
                          const ConvertOptions& options, ConversionInfo* info)
{
   AMGT_REQUIRE(a.nrows >= 0 && a.ncols >= 0 && a.nnz >= 0, "csr_to_mbsr: negative dimensions");
   AMGT_REQUIRE(a.nnz == 0 || (a.row_ptr && a.col), "csr_to_mbsr: missing CSR arrays");
   ConversionInfo local;
   ConversionInfo& inf = info ? *info : local;
   inf                 = ConversionInfo{};
   DeviceMbsr<V> m;
   m.nrows      = a.nrows;
   m.ncols      = a.ncols;
   m.block_rows = (a.nrows + 3) / 4;
   m.block_cols = (a.ncols + 3) / 4;
   if (a.nnz == 0 || a.nrows == 0)
   {
      // no entries (a row pointer of zeros is checked by the sorted path's rule: row_ptr[nrows]
      // must be nnz = 0, which the caller's view states)
      m              = csr_to_mbsr_sorted<V>(a, stream, alloc);
      m.summary.known = true;
      if (options.packed)
      {
         m.packed_row = Buffer<int64_t>(static_cast<size_t>(m.block_rows) + 1, alloc);
         AMGT_DEVICE_CHECK(cudaMemsetAsync(m.packed_row.get(), 0, m.packed_row.size() * sizeof(int64_t), stream));
      }
      inf.hashed = true; // nothing to group
      return m;
   }
   if (options.path == ConversionPath::automatic)
   {
      m.blk_ptr = Buffer<int32_t>(static_cast<size_t>(m.block_rows) + 1, alloc);
      if (csr_to_mbsr_hashed<V>(a, stream, alloc, options, m, inf)) return m;
   }
   else { inf.reason = "sorted conversion requested"; }
   return csr_to_mbsr_sorted<V>(a, stream, alloc);
}

template <class V>
int64_t mbsr_nnz(const DeviceMbsr<V>& m, Stream stream, const Allocator& alloc)
{
   if (m.num_tiles == 0) return 0;
   if (m.summary.known) return m.summary.nnz;
   Buffer<int64_t> counts(m.num_tiles, alloc), total(1, alloc);
   tile_popcounts<<<blocks_for(m.num_tiles), kThreads, 0, stream>>>(m.blk_map.get(), m.num_tiles,
                                                                      counts.get());
   AMGT_DEVICE_CHECK_LAUNCH("tile_popcounts");
   size_t bytes = 0;
   AMGT_DEVICE_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, counts.get(), total.get(), m.num_tiles, stream));
   Buffer<char> temp(bytes, alloc);
   AMGT_DEVICE_CHECK(cub::DeviceReduce::Sum(temp.get(), bytes, counts.get(), total.get(), m.num_tiles, stream));
   int64_t n = 0;
   AMGT_DEVICE_CHECK(cudaMemcpyAsync(&n, total.get(), sizeof(n), cudaMemcpyDeviceToHost, stream));
   AMGT_DEVICE_CHECK(cudaStreamSynchronize(stream));
   return n;
}

template <class V>
void mbsr_to_csr(const DeviceMbsr<V>& m, int32_t* row_ptr, int32_t* col, double* val, Stream stream,
                 const Allocator& alloc)
{
   Buffer<int32_t> counts(static_cast<size_t>(m.nrows) + 1, alloc);
   csr_row_counts<<<warp_blocks_for(m.block_rows), kThreads, 0, stream>>>(
      m.blk_ptr.get(), m.blk_map.get(), m.nrows, m.block_rows, counts.get());
   AMGT_DEVICE_CHECK_LAUNCH("csr_row_counts");
   size_t bytes = 0;
   AMGT_DEVICE_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, counts.get(), row_ptr, m.nrows + 1, stream));
   Buffer<char> temp(bytes, alloc);
   AMGT_DEVICE_CHECK(cub::DeviceScan::ExclusiveSum(temp.get(), bytes, counts.get(), row_ptr, m.nrows + 1, stream));
   if (m.nrows > 0)
   {
      csr_fill<V><<<warp_blocks_for(m.block_rows), kThreads, 0, stream>>>(
         m.blk_ptr.get(), m.blk_col.get(), m.blk_map.get(), m.blk_val.get(), m.nrows, m.block_rows,
         row_ptr, col, val);
      AMGT_DEVICE_CHECK_LAUNCH("csr_fill");
   }
   AMGT_DEVICE_CHECK(cudaStreamSynchronize(stream)); // before counts/temp are freed
}

template <class V>
Mbsr<V> to_host(const DeviceMbsr<V>& m, Stream stream)
{
   Mbsr<V> h;
   h.nrows = m.nrows;
   h.ncols = m.ncols;
   h.blk_ptr.resize(static_cast<size_t>(m.block_rows) + 1);
   h.blk_col.resize(m.num_tiles);
   h.blk_map.resize(m.num_tiles);
   h.blk_val.resize(static_cast<size_t>(m.num_tiles) * 16);
   auto copy = [&](void* dst, const void* src, size_t bytes) {
      if (bytes) AMGT_DEVICE_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
   };
   copy(h.blk_ptr.data(), m.blk_ptr.get(), h.blk_ptr.size() * sizeof(int32_t));
   copy(h.blk_col.data(), m.blk_col.get(), h.blk_col.size() * sizeof(int32_t));
   copy(h.blk_map.data(), m.blk_map.get(), h.blk_map.size() * sizeof(uint16_t));
   copy(h.blk_val.data(), m.blk_val.get(), h.blk_val.size() * sizeof(V));
   AMGT_DEVICE_CHECK(cudaStreamSynchronize(stream));
   return h;
}

#define AMGT_INSTANTIATE(V)                                                                        \
   template DeviceMbsr<V> csr_to_mbsr<V>(const CsrView&, Stream, const Allocator&,                \
                                         const ConvertOptions&, ConversionInfo*);                 \
   template int64_t       mbsr_nnz<V>(const DeviceMbsr<V>&, Stream, const Allocator&);           \
   template void mbsr_to_csr<V>(const DeviceMbsr<V>&, int32_t*, int32_t*, double*, Stream,         \
                                const Allocator&);                                                 \
   template Mbsr<V> to_host<V>(const DeviceMbsr<V>&, Stream);
AMGT_INSTANTIATE(double)
AMGT_INSTANTIATE(float)
AMGT_INSTANTIATE(half_t)
#undef AMGT_INSTANTIATE

} // namespace amgt::device
