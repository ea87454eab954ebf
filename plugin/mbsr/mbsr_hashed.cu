// The hashed conversion CSR -> mBSR, the usual path of csr_to_mbsr: the classification of
// block rows into tiers, the hash-table kernel of tiers 1-3, the launches and the host driver.
//
// Hashed (the usual one; no sort, one read-back). A block row (4 CSR rows) is one group of
// threads with an open-addressing hash table in shared memory, keyed by block column:
//   pass 1: every entry inserts its block column (CAS on an empty slot) and ORs its bit into
//     the slot's bitmap; the successful inserts count the block row's tiles. A bit that was
//     already set is a duplicate entry (the sorted conversion sums duplicates in input
//     order, so such a matrix goes there), a column outside [0, ncols) is refused. The same
//     pass counts dense tiles and the longest block row (the SpMV plan's statistics).
//   scan of the counts straight into blk_ptr; the one read-back (tile count, flags);
//   pass 2: the table is built again, the fresh inserts list the block row's tiles with their
//     slots as they are found, the tiles are ranked by block column (each thread counts the
//     smaller keys of the list for its ceil(D/G) tiles; a bitonic sort of the list where a
//     block row has more than 2 tiles a thread), and every entry, which kept its slot from the
//     insert, finds its tile's rank in the slot and writes its value where it belongs: in
//     the dense layout (the block row's tiles zeroed first) and/or the packed layout (offset =
//     the block row's first entry + the popcounts of the tiles before it + the bits before it
//     in its tile). Without duplicates every position is written by exactly one entry: no
//     atomics on values, results reproducible and equal to the reference bit for bit.
//     A copy without the dense layout may take its tiles in first-seen order instead
//     (ConvertOptions::sorted_tiles = false, the SpMV's copies in the library): each entry
//     records its index in the slot (a shared atomicMin), the entry holding a slot's smallest
//     index leads its tile, and the leaders are ranked by a ballot per step and one scan
//     (rank_first_seen): no counting or sorting of keys, and an order that does not depend on
//     the threads' timing (the CPU reference: reorder_tiles_first_seen, mbsr.h).
//   One pass (no dense layout asked for: the solve's copies): pass 2 runs alone, its tiles
//   go to a scratch at the block row's first CSR entry (a block row has at most E tiles), it
//   does pass 1's bookkeeping itself, and compact_tiles moves the tiles to blk_ptr after the
//   scan (csr_to_mbsr_hashed says when; 1.03-1.36x two passes on the large AMG operators).
//   Both passes load a block row's columns (and values) into registers before the table work.
//   What bounded these kernels was not the loads' latency but instruction issue and occupancy
//   (ncu on the H100, bench/RESULTS.md, record 2026-11-26b): a warp per block row of up to 512
//   entries left 12 warps per SM and a kernel too large for the instruction cache, and the
//   ranking (then 8 tiles a lane in 64-bit compares, before that a bitonic sort of every
//   list) took 40% of pass 2. Still about 0.1 of the bandwidth bound on the large coarse
//   operators.
//   A group clears its table once; after a block row it clears only the slots that row used
//   (the listed tiles; unranked, each entry its own slot), so a block row's table work is
//   O(E + D), not O(T).
//   Block rows are served by four tiers by entry count E (the table keeps T >= 2E slots):
//   E <= 32 one warp and 64 slots, E <= 128 one block of 64 threads and 256, E <= 512 one
//   block of 128 threads and 1024 (one warp per block row there held 3 groups of 14.5 KB per
//   SM, 12 warps, and its 16 entries a lane unrolled into a kernel too large for the
//   instruction cache: ncu on the H100; 128 threads took systems3's level-1 A from 8.2 to
//   4.0 ms, 64 threads for E <= 128 another 3-8% off the operators of that tier),
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
//   version they were taken with, in bench/RESULTS.md, "tier-0 conversion"). (An
//   earlier register version with an O(E^2) shuffle loop per block row was slower than the
//   table; this one loops over the D tiles only, in pass 2, and counts with one match. Tier 0
//   finds duplicate entries in pass 2: the conversion then discards its output and runs the
//   sorted one.)
#include "mbsr/mbsr_internal.cuh"

#include "common/config.h"

#include "device/arith.cuh"
#include "device/group_ops.cuh"
#include "device/launch.h"

#include "device/backend.h"
#include "device/prim.cuh"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <new>
#include <type_traits>

namespace amgt::device::mbsr_detail {
namespace {

constexpr int32_t kEmptyKey = -1; // block columns are >= 0

__host__ __device__ constexpr int tier_of(int32_t E)
{
   return E <= kTiers[0].hi ? 0 : E <= kTiers[1].hi ? 1 : E <= kTiers[2].hi ? 2 : 3;
}

// Shared memory of one group. Pass 1: keys (T) | maps (T) | slots (T/2) | count + red (34
// ints). Pass 2: comp (u64, T/2) | keys | maps | toff (T/2) | count + red | lead (T/64 + 2
// ints, rounded up to 8 bytes). Multiples of 8 bytes. In pass 2 a slot's map holds the tile's
// bitmap in its low 16 bits and, once the tiles are ranked, the tile's rank in the high 16
// (ranks < 4096). Unranked (first-seen order, ConvertOptions::sorted_tiles = false), comp's
// bytes hold first (int32, T): per slot the smallest index of an entry of that tile in the
// block row; lead holds the leaders' counts per warp and step, then their scan.
constexpr size_t lead_bytes(size_t T) { return (4 * (T / 64 + 2) + 7) / 8 * 8; }
constexpr size_t hash_group_bytes(int log2t, bool pass2)
{
   const size_t T = size_t{1} << log2t;
   return pass2 ? 8 * (T / 2) + 4 * T * 2 + 4 * (T / 2) + 4 * 34 + lead_bytes(T)
                : 4 * T * 2 + 4 * (T / 2) + 4 * 34;
}

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

// Ranks of this thread's NT listed tiles (t + k G, k < NT) among all D, by counting the smaller
// keys: 32-bit compares of the block columns (distinct, >= 0), read from the high words of comp
// with broadcast loads; place(entry, rank) for each tile the thread has.
template <int G, int NT, class Place>
__device__ __forceinline__ void count_ranks(const unsigned long long* comp, int D, int t, Place& place)
{
   const int32_t* key = reinterpret_cast<const int32_t*>(comp) + 1; // tile j's key at key[2 j]
   int32_t        mine[NT];
   int            r[NT];
#pragma unroll
   for (int k = 0; k < NT; ++k)
   {
      mine[k] = t + k * G < D ? key[2 * (t + k * G)] : INT32_MAX;
      r[k]    = 0;
   }
#pragma unroll 4
   for (int j = 0; j < D; ++j)
   {
      const int32_t c = key[2 * j];
#pragma unroll
      for (int k = 0; k < NT; ++k) r[k] += c < mine[k] ? 1 : 0;
   }
#pragma unroll
   for (int k = 0; k < NT; ++k)
      if (t + k * G < D) place(comp[t + k * G], r[k]);
}

// count_ranks with the smallest NT in [NT0, kMax] that covers D tiles.
template <int G, int NT0, int kMax, class Place>
__device__ __forceinline__ void count_ranks_upto(const unsigned long long* comp, int D, int t, Place& place)
{
   if constexpr (NT0 >= kMax) { count_ranks<G, kMax>(comp, D, t, place); }
   else
   {
      if (D <= NT0 * G) count_ranks<G, NT0>(comp, D, t, place);
      else count_ranks_upto<G, NT0 + 1, kMax>(comp, D, t, place);
   }
}

// Tile `slot` (block column key) gets rank r: the rank in the high 16 bits of its map, its
// popcount at toff[r], the tile written at out + r; dense counts it if it is dense.
__device__ __forceinline__ void place_tile(uint32_t* maps, int32_t* toff, int32_t* blk_col, uint16_t* blk_map,
                                           int64_t out, int slot, int32_t key, int r, int& dense)
{
   const uint32_t m = maps[slot];
   maps[slot]       = m | (static_cast<uint32_t>(r) << 16);
   toff[r]          = __popc(m);
   dense += __popc(m) >= kDenseTileNnz ? 1 : 0;
   blk_col[out + r] = key;
   blk_map[out + r] = static_cast<uint16_t>(m);
}

// Ranks of the D listed tiles by key (comp[p] = key << 32 | slot, keys distinct) when D <=
// kRankPer * G: each thread takes its ceil(D / G) tiles and counts the smaller keys among all D
// (no barrier inside; ncu on the H100: a fixed 8 tiles a thread in 64-bit compares was 42% of
// pass 2's samples on systems3's coarse A); above that the group bitonic-sorts comp (padded to a
// power of two), so a tile's rank is its position. Either way each listed tile's slot gets its
// rank in the high 16 bits of its map, toff[rank] its popcount, and the tile is written at
// out + rank; dense counts the thread's dense tiles. Ends with a group barrier.
template <int G, int kRankPer>
__device__ __forceinline__ void rank_tiles(unsigned long long* comp, uint32_t* maps, int32_t* toff, int D, int t,
                                           int32_t* blk_col, uint16_t* blk_map, int64_t out, int& dense)
{
   auto place = [&](unsigned long long v, int r) {
      place_tile(maps, toff, blk_col, blk_map, out, static_cast<int>(v & 0xffffffffu), static_cast<int32_t>(v >> 32),
                 r, dense);
   };
   if (D <= kRankPer * G) { count_ranks_upto<G, 1, kRankPer>(comp, D, t, place); }
   else
   {
      int P = 1;
      while (P < D) P <<= 1;
      for (int k = D + t; k < P; k += G) comp[k] = ~0ull;
      group::sync<G>();
      group::bitonic_sort<G>(comp, P, t);
      for (int p = t; p < D; p += G) place(comp[p], p);
   }
   group::sync<G>();
}

// Unranked (ConvertOptions::sorted_tiles = false): the tiles of a block row in the order they
// are first seen in CSR order. first[slot] holds the smallest index (in the block row) of the
// slot's entries; the entry that holds it leads its tile. A leader's rank = the leaders
// before it in CSR order: entry t + j G of thread t comes before entry t' + j' G if j < j' or
// j == j' and t < t', so per step j a warp's ballot gives the leaders before it in the warp,
// and one scan (by the group's first warp) of the counts per (step, warp) the leaders of the
// steps and warps before. Each leader places its tile (place_tile, as rank_tiles); returns D (the
// block row's tiles). Deterministic (no insert order involved); a thread's work is kPer
// ballots and, in the first warp, a scan of T/64 counts (fixed by the tier's table, whatever
// D), where counting is O(D) a thread and the bitonic sort O(D log^2 D / G). Ends with a barrier.
template <int G, int kPer>
__device__ __forceinline__ int rank_first_seen(const int32_t* first, uint32_t* maps, int32_t* toff, int* lead,
                                               const int (&sb)[kPer], const int32_t (&cj)[kPer], int t,
                                               int32_t* blk_col, uint16_t* blk_map, int64_t out, int& dense)
{
   constexpr int W = G / group::kWarpSize; // warps of the group
   constexpr int N = kPer * W;             // counts: step-major, then warp
   const int     w = t / group::kWarpSize, lane = t % group::kWarpSize;
   const device::LaneMask below = (device::LaneMask{1} << lane) - 1u;
   uint32_t leads = 0; // bit j: this thread's entry of step j leads its tile (kPer <= 16)
#pragma unroll
   for (int j = 0; j < kPer; ++j)
   {
      const bool l = sb[j] >= 0 && first[sb[j] & 0xffff] == t + j * G;
      leads |= l ? 1u << j : 0u;
      const device::LaneMask bal = device::ballot(l);
      if (lane == 0) lead[j * W + w] = __popc(bal);
   }
   group::sync<G>();
   if (t < group::kWarpSize)
   {
      // exclusive scan of lead[0, N) by the first warp, the total at lead[N]
      constexpr int per = (N + group::kWarpSize - 1) / group::kWarpSize;
      int           v[per], sum = 0;
#pragma unroll
      for (int q = 0; q < per; ++q)
      {
         const int k = lane * per + q;
         v[q]        = k < N ? lead[k] : 0;
         sum += v[q];
      }
      const int incl = group::warp_inclusive_scan(sum);
      int       ex   = incl - sum;
#pragma unroll
      for (int q = 0; q < per; ++q)
      {
         const int k = lane * per + q;
         if (k < N) lead[k] = ex;
         ex += v[q];
      }
      if (lane == group::kWarpSize - 1) lead[N] = incl;
   }
   group::sync<G>();
   const int D = lead[N];
#pragma unroll
   for (int j = 0; j < kPer; ++j)
   {
      // the ballot again (cheaper than keeping kPer prefix counts in registers)
      const bool             l   = (leads >> j) & 1u;
      const device::LaneMask bal = device::ballot(l);
      if (l)
         place_tile(maps, toff, blk_col, blk_map, out, sb[j] & 0xffff, cj[j] >> 2,
                    lead[j * W + w] + __popc(bal & below), dense);
   }
   group::sync<G>();
   return D;
}

// The block rows of one tier's list (classify_rows), one group each. A block row's columns
// (and, in pass 2, values) are loaded into registers before any table work, kPer = T/(2G) a
// thread (T >= 2E): issued together, their loads overlap, and pass 2 keeps each entry's slot
// from the insert instead of looking it up again.
template <int G, int kLog2T, int kRows, bool kPass2, class V>
__global__ void __launch_bounds__(G * kRows) hashed_kernel(HashArgs<V> args, int tier)
{
   static_assert(G == group::kWarpSize || kRows == 1, "block-wide groups hold one row per block");
   constexpr int T        = 1 << kLog2T;
   constexpr int kPer     = T / (2 * G);
   constexpr int kRankPer = G == group::kWarpSize ? (kPer < 8 ? kPer : 8) : 2; // ranking by counting up to kRankPer G tiles
   static_assert(kPer >= 1, "a tier's table holds at least two slots per thread");
   static_assert(kPer <= 16, "rank_first_seen keeps a thread's leaders in 16 bits");
   extern __shared__ unsigned long long smem_u64[];
   const int g = static_cast<int>(threadIdx.x) / G, t = static_cast<int>(threadIdx.x) % G;
   unsigned char* base = reinterpret_cast<unsigned char*>(smem_u64) +
                         static_cast<size_t>(g) * hash_group_bytes(kLog2T, kPass2);
   auto* comp  = reinterpret_cast<unsigned long long*>(base); // pass 2 only
   auto* keys  = reinterpret_cast<int32_t*>(kPass2 ? base + 8 * (T / 2) : base);
   auto* maps  = reinterpret_cast<uint32_t*>(keys + T);
   auto* toff  = reinterpret_cast<int32_t*>(maps + T); // pass 2: T/2 entries
   auto* slots = toff;                                  // pass 1: T/2 entries
   auto* count = toff + T / 2;
   int*  red   = count + 2;
   int*  lead  = red + 32;                           // pass 2, unranked
   auto* first = reinterpret_cast<int32_t*>(comp);   // pass 2, unranked: T ints in comp's bytes

   const int32_t  nlist = args.meta->tier_rows[tier];
   const int32_t* list  = args.lists + static_cast<int64_t>(tier) * args.block_rows;
   const bool     vals  = kPass2 && (args.blk_val || args.packed_val) && args.val;
   // tiles in first-seen order (uniform over the grid; the host asks it without the dense layout)
   const bool     unranked = kPass2 && !args.sort_tiles;
   // what pass 2 does of pass 1's work when it runs alone (uniform over the grid)
   const bool     tally = !kPass2 || args.one_pass;
   // pass 1 totals of this group, flushed once at the end (no atomics per block row)
   int flags = 0, max_tiles = 0;
   int dense_total = 0; // this thread's dense tiles (< 2^31: a thread's share of one matrix's tiles)

   // The next block row's list entry and row pointers are loaded while this one is worked
   // on: otherwise every block row starts with two dependent global loads (list, then row
   // pointers) that nothing hides.
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
   // The table is cleared once here; after each block row only the slots it used are cleared
   // again (the D fresh inserts, listed as they happen; unranked, each entry clears its own
   // slot): O(E + D) a block row, not O(T).
   for (int k = t; k < T; k += G)
   {
      keys[k] = kEmptyKey;
      maps[k] = 0u;
      if (unranked) first[k] = INT32_MAX;
   }
   if (t == 0) *count = 0;
   group::sync<G>();
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

      // the block row's entries: entry j of this thread is rp[0] + t + j G
      int32_t cj[kPer];
      double  vj[kPer];
#pragma unroll
      for (int j = 0; j < kPer; ++j)
      {
         const int64_t e = rp[0] + t + static_cast<int64_t>(j) * G;
         cj[j]           = e < rp[4] ? __ldg(args.col + e) : 0;
         vj[j]           = vals && e < rp[4] ? __ldg(args.val + e) : 1.0;
      }

      // insert: each valid entry's slot and bit, kept as slot | bit << 16 (slots < 8192)
      bool dup = false, bad_col = false;
      int  sb[kPer];
#pragma unroll
      for (int j = 0; j < kPer; ++j)
      {
         sb[j]           = -1;
         const int64_t e = rp[0] + t + static_cast<int64_t>(j) * G;
         if (e >= rp[4]) continue;
         const int32_t c = cj[j];
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
         dup              = dup || ((old >> bit) & 1u);
         sb[j]            = slot | (bit << 16);
         if (unranked) atomicMin(&first[slot], t + j * G); // comp's bytes: no list below
         else if (isnew)
         {
            // the block row's tiles, in the order they were found (pass 2 ranks them)
            const int p = atomicAdd(count, 1);
            if constexpr (kPass2) comp[p] = (static_cast<unsigned long long>(c >> 2) << 32) | static_cast<uint32_t>(slot);
            else slots[p] = slot;
         }
      }
      group::sync<G>();
      const int found = *count; // the block row's tiles

      if constexpr (!kPass2)
      {
         for (int p = t; p < found; p += G)
            if (__popc(maps[slots[p]]) >= kDenseTileNnz) ++dense_total;
         if (bad_col) flags |= kBadColumn;
         if (dup) flags |= kDuplicate;
         if (t == 0)
         {
            args.counts[b] = found;
            max_tiles      = max(max_tiles, found);
         }
         group::sync<G>(); // every read of the table is done: clear what this block row used
         for (int p = t; p < found; p += G)
         {
            keys[slots[p]] = kEmptyKey;
            maps[slots[p]] = 0u;
         }
         if (t == 0) *count = 0;
         group::sync<G>();
      }
      else
      {
         // two passes: pass 1 found bad columns and duplicates (and refused the matrix); one
         // pass: they are flagged here and what this pass writes is discarded
         if (bad_col) flags |= kBadColumn;
         if (dup) flags |= kDuplicate;
         // one pass: the scratch at the block row's first CSR entry (room for E >= D tiles)
         const int64_t out = args.one_pass ? static_cast<int64_t>(rp[0]) : static_cast<int64_t>(args.blk_ptr[b]);
         int dense_here = 0;
         int D          = found; // two passes: == blk_ptr[b + 1] - out, the fresh inserts of pass 1
         if (unranked)
         {
            D = rank_first_seen<G, kPer>(first, maps, toff, lead, sb, cj, t, args.blk_col, args.blk_map, out,
                                         dense_here);
         }
         else
         {
            if (args.blk_val)
            {
               V* tiles = args.blk_val + static_cast<int64_t>(out) * 16;
               for (int k = t; k < 16 * D; k += G) tiles[k] = Arith<V>::from_double(0.0);
            }
            // ranks and popcounts complete; the zeros are ordered before the values
            rank_tiles<G, kRankPer>(comp, maps, toff, D, t, args.blk_col, args.blk_map, out, dense_here);
         }
         if (args.one_pass && t == 0)
         {
            args.counts[b] = D;
            max_tiles      = max(max_tiles, D);
         }
         if (args.one_pass) dense_total += dense_here;
         if (args.packed_val && !args.entry_order)
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
#pragma unroll
         for (int j = 0; j < kPer; ++j)
         {
            if (sb[j] < 0) continue;
            const int64_t  e    = rp[0] + t + static_cast<int64_t>(j) * G;
            const int      slot = sb[j] & 0xffff, bit = sb[j] >> 16;
            const uint32_t m    = maps[slot];
            const int      p    = static_cast<int>(m >> 16);
            const V        v    = Arith<V>::from_double(vj[j]);
            if (args.blk_val) args.blk_val[(static_cast<int64_t>(out) + p) * 16 + bit] = v;
            if (args.packed_val || args.packed_meta)
            {
               // entry order: the entry's own CSR position; else its place in bitmap order
               const int64_t q = args.entry_order ? e
                                                  : static_cast<int64_t>(rp[0]) + toff[p] +
                                                       __popc(m & ((1u << bit) - 1u));
               if (args.packed_val) args.packed_val[q] = v;
               if (args.packed_meta) args.packed_meta[q] = static_cast<uint16_t>((p << 4) | bit);
            }
         }
         group::sync<G>(); // every read of the table is done: clear what this block row used
         if (unranked)
         {
            // no list of the tiles: each entry clears its own slot (the same values, whoever writes)
#pragma unroll
            for (int j = 0; j < kPer; ++j)
            {
               if (sb[j] < 0) continue;
               const int slot = sb[j] & 0xffff;
               keys[slot]     = kEmptyKey;
               maps[slot]     = 0u;
               first[slot]    = INT32_MAX;
            }
         }
         else
         {
            for (int p = t; p < D; p += G)
            {
               const int slot = static_cast<int>(comp[p] & 0xffffffffu);
               keys[slot]     = kEmptyKey;
               maps[slot]     = 0u;
            }
         }
         if (t == 0) *count = 0;
         group::sync<G>();
      }
   }

   if (tally) // uniform over the grid
   {
      // one flush per thread that saw something (flags: any thread; the longest block row: the
      // group's t == 0), the dense tiles summed over the group once (every thread is here)
      if (flags) atomicOr(&args.meta->flags, flags);
      if (t == 0 && max_tiles > 0) atomicMax(&args.meta->max_tiles, max_tiles);
      const int dense = group::sum<G>(dense_total, red);
      if (t == 0 && dense > 0) atomicAdd(&args.meta->dense_tiles, static_cast<unsigned long long>(dense));
   }
}

// One pass: block row b's counts[b] tiles from the scratch at row_ptr[4b] to blk_ptr[b], G lanes
// per block row (G: the smallest power of two >= the mean tiles a block row, 4..32, so a block
// row's tiles move in one or two coalesced steps). The next block row's three offsets are
// loaded while this one is copied: with 8 lanes and the offsets loaded in turn, the copy of
// laplace7 n=250's level-1 A (60M tiles) took 0.95 ms on the H100, a quarter of its bytes'
// bound, waiting on those dependent loads.
template <int G>
__global__ void __launch_bounds__(kThreads)
compact_tiles(const int32_t* row_ptr, int32_t nrows, int32_t block_rows, const int32_t* counts,
              const int32_t* blk_ptr, const int32_t* tmp_col, const uint16_t* tmp_map, int32_t* blk_col,
              uint16_t* blk_map)
{
   const int     t      = static_cast<int>(threadIdx.x) % G;
   const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x / G;
   auto          offsets = [&](int64_t b, int32_t& from, int32_t& to, int32_t& n) {
      from = b < block_rows ? __ldg(row_ptr + min(4 * b, static_cast<int64_t>(nrows))) : 0;
      to   = b < block_rows ? __ldg(blk_ptr + b) : 0;
      n    = b < block_rows ? __ldg(counts + b) : 0;
   };
   int64_t b = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / G;
   int32_t from, to, n;
   offsets(b, from, to, n);
   for (; b < block_rows; b += stride)
   {
      int32_t nf, nt, nn;
      offsets(b + stride, nf, nt, nn);
      for (int j = t; j < n; j += G)
      {
         blk_col[to + j] = __ldg(tmp_col + from + j);
         blk_map[to + j] = __ldg(tmp_map + from + j);
      }
      from = nf;
      to   = nt;
      n    = nn;
   }
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
   device::FuncAttributes attr{};
   AMGT_DEVICE_CHECK(device::func_attributes(&attr, kernel));
   if (attr.sharedSizeBytes + dyn > static_cast<size_t>(lim.smem_optin)) return false;
   if (dry_run || rows <= 0) return true;
   const int threads = c.group * c.rows;
   AMGT_DEVICE_CHECK(device::set_max_dynamic_smem(kernel, static_cast<int>(dyn)));
   int per_sm = 0;
   AMGT_DEVICE_CHECK(device::occupancy_blocks_per_sm(&per_sm, kernel, threads, dyn));
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

// Every tier fits the device's shared memory (an H100 or A100 has room for all of them). It
// looks up each kernel of the conversion, the compaction's four widths included: with CUDA's
// lazy loading the first conversion of a process (the preload's, AMGT_PRELOAD) loads them all,
// not one of them in a later setup. The answer depends on the device alone: hashed_fits asks
// once per device.
bool hashed_fits_check(const DeviceLimits& lim)
{
   const HashArgs<double> none{};
   device::FuncAttributes attr{};
   AMGT_DEVICE_CHECK(device::func_attributes(&attr, compact_tiles<4>));
   AMGT_DEVICE_CHECK(device::func_attributes(&attr, compact_tiles<8>));
   AMGT_DEVICE_CHECK(device::func_attributes(&attr, compact_tiles<16>));
   AMGT_DEVICE_CHECK(device::func_attributes(&attr, compact_tiles<32>));
   return launch_tier<0, true>(none, 0, lim, nullptr, true) && launch_tier<1, true>(none, 0, lim, nullptr, true) &&
          launch_tier<2, true>(none, 0, lim, nullptr, true) && launch_tier<3, true>(none, 0, lim, nullptr, true) &&
          launch_tier<3, false>(none, 0, lim, nullptr, true);
}

bool hashed_fits(const DeviceLimits& lim)
{
   constexpr int         kDevices = 64;
   static std::once_flag once[kDevices];
   static bool           fits[kDevices];
   const int             dev = current_device_id();
   if (dev < 0 || dev >= kDevices) return hashed_fits_check(lim);
   std::call_once(once[dev], [&] { fits[dev] = hashed_fits_check(lim); });
   return fits[dev];
}

// The scratch of one pass, or none (two passes) when it is not asked for, there is a dense
// layout to write (its tiles' values go straight to blk_ptr), or memory is short (more than
// kScratchFreeFraction of the free device memory, or an allocation that fails).
bool one_pass_scratch(const CsrView& a, const ConvertOptions& opt, const Allocator& alloc, Buffer<int32_t>& col,
                      Buffer<uint16_t>& map)
{
   if (!opt.one_pass || opt.dense || a.nnz == 0) return false;
   size_t free_bytes = 0, total_bytes = 0;
   AMGT_DEVICE_CHECK(device::mem_get_info(&free_bytes, &total_bytes));
   const double need = static_cast<double>(a.nnz) * (sizeof(int32_t) + sizeof(uint16_t));
   if (need > kScratchFreeFraction * static_cast<double>(free_bytes)) return false;
   try
   {
      col = Buffer<int32_t>(static_cast<size_t>(a.nnz), alloc);
      map = Buffer<uint16_t>(static_cast<size_t>(a.nnz), alloc);
   }
   catch (const std::bad_alloc&)
   {
      col = Buffer<int32_t>();
      map = Buffer<uint16_t>();
      return false;
   }
   return true;
}

} // namespace

// The hashed conversion; returns false (nothing built, the stream idle) when the matrix needs
// the sorted one, with the reason in info.
//   Two passes (the dense layout, or no room for the scratch): classify, pass 1 (count), scan
//   into blk_ptr, read-back, pass 2 (write at blk_ptr), read-back.
//   One pass: classify, pass 2 alone (tiles to the scratch at each block row's first CSR
//   entry, packed values and decodes to their places, pass 1's counts and flags), scan,
//   read-back, compact_tiles, read-back. The block rows are grouped once instead of twice;
//   the tiles are written twice and read once more (6 bytes each), fewer bytes than a second
//   read of the columns (4 bytes an entry, 1.5-4 entries a tile in AMG operators).
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
   Buffer<int32_t>  tmp_col;
   Buffer<uint16_t> tmp_map;
   const bool       one_pass = one_pass_scratch(a, opt, alloc, tmp_col, tmp_map);
   if (opt.packed) m.packed_row = Buffer<int64_t>(static_cast<size_t>(brows) + 1, alloc);
   AMGT_DEVICE_CHECK(device::memset_async(counts.get(), 0, counts.size() * sizeof(int32_t), stream));
   AMGT_DEVICE_CHECK(device::memset_async(meta.get(), 0, sizeof(HashMeta), stream));
   launch_check_row_ptr(a.row_ptr, a.nrows, a.nnz, &meta.get()->flags, stream);
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
   args.one_pass   = one_pass;

   // entry order: the decode is what makes the order readable, so it is always built (a block
   // row of the hashed tiers holds at most 4096 entries, so its tiles fit the decode's 12 bits)
   const bool entry_order = opt.packed && opt.entry_order;
   const bool lend        = entry_order && opt.lend_values && std::is_same_v<V, double> && a.val != nullptr;
   // the tiles in first-seen order: the SpMV's copies (no dense layout)
   args.sort_tiles = !(opt.packed && !opt.dense && !opt.sorted_tiles);
   // the packed layout's places do not depend on blk_ptr (a block row's entries start at
   // row_ptr[4b]): one pass writes it directly
   auto packed_arrays = [&] {
      if (opt.packed)
      {
         if (!lend) m.packed_val = Buffer<V>(static_cast<size_t>(a.nnz), alloc);
         m.packed_meta = Buffer<uint16_t>(static_cast<size_t>(a.nnz), alloc);
      }
      m.entry_order  = entry_order;
      m.tiles_sorted = args.sort_tiles;
      if (lend) m.packed_lent = reinterpret_cast<const V*>(a.val);
      args.packed_val  = m.packed_val.get();
      args.packed_meta = m.packed_meta.get();
      args.entry_order = entry_order;
   };
   if (one_pass)
   {
      packed_arrays();
      args.blk_col = tmp_col.get();
      args.blk_map = tmp_map.get();
      launch_tiers<true>(args, nullptr, lim, stream);
   }
   else { launch_tiers<false>(args, nullptr, lim, stream); }

   size_t scan_bytes = 0;
   AMGT_DEVICE_CHECK(device::prim::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts.get(), m.blk_ptr.get(),
                                                   brows + 1, stream));
   Buffer<char> temp(scan_bytes, alloc);
   AMGT_DEVICE_CHECK(device::prim::DeviceScan::ExclusiveSum(temp.get(), scan_bytes, counts.get(), m.blk_ptr.get(),
                                                   brows + 1, stream));
   HashMeta h{};
   int32_t  ntiles = 0;
   AMGT_DEVICE_CHECK(device::memcpy_async(&h, meta.get(), sizeof h, device::Copy::to_host, stream));
   AMGT_DEVICE_CHECK(device::memcpy_async(&ntiles, m.blk_ptr.get() + brows, sizeof ntiles, device::Copy::to_host, stream));
   AMGT_DEVICE_CHECK(device::stream_synchronize(stream)); // the one read-back
   require_valid_input(h.flags);
   auto refuse = [&](const char* why) {
      // one pass: what was written is discarded (the stream is idle)
      m.packed_val    = Buffer<V>();
      m.packed_meta   = Buffer<uint16_t>();
      m.packed_lent   = nullptr;
      m.entry_order   = false;
      m.tiles_sorted  = true;
      info            = ConversionInfo{};
      info.reason     = why;
      return false;
   };
   if (h.flags & kDuplicate) return refuse("duplicate entries (summed in input order by the sorted conversion)");
   if (h.flags & kTooLong) return refuse("a block row holds more than 4096 entries");

   m.num_tiles = ntiles;
   m.blk_col   = Buffer<int32_t>(static_cast<size_t>(ntiles), alloc);
   m.blk_map   = Buffer<uint16_t>(static_cast<size_t>(ntiles), alloc);
   if (opt.dense) m.blk_val = Buffer<V>(static_cast<size_t>(ntiles) * 16, alloc);
   m.summary.known                   = true;
   m.summary.nnz                     = a.nnz; // no duplicates: one stored entry per CSR entry
   m.summary.dense_tiles             = static_cast<int64_t>(h.dense_tiles);
   m.summary.max_tiles_per_block_row = h.max_tiles;
   info.hashed   = true;
   info.one_pass = one_pass;
   for (int k = 0; k < kConversionTiers; ++k) info.tier_rows[k] = h.tier_rows[k];

   if (one_pass)
   {
      if (ntiles > 0)
      {
         // (every width's kernel was looked up by hashed_fits: lazy loading happened there)
         int32_t lanes = 4;
         while (lanes < 32 && static_cast<int64_t>(lanes) * brows < ntiles) lanes *= 2;
         const int64_t groups = static_cast<int64_t>(brows) * lanes;
         const auto    grid   = static_cast<unsigned>(
            std::max<int64_t>(1, std::min<int64_t>((groups + kThreads - 1) / kThreads, int64_t{lim.sms} * 16)));
         with_lanes<4>(lanes, [&](auto g) {
            compact_tiles<decltype(g)::value><<<grid, kThreads, 0, stream>>>(
               a.row_ptr, a.nrows, brows, counts.get(), m.blk_ptr.get(), tmp_col.get(), tmp_map.get(),
               m.blk_col.get(), m.blk_map.get());
         });
         AMGT_DEVICE_CHECK_LAUNCH("compact_tiles");
      }
      // the scratch is released when this returns, after the compaction ran
      AMGT_DEVICE_CHECK(device::stream_synchronize(stream));
      return true;
   }

   packed_arrays();
   args.blk_ptr = m.blk_ptr.get();
   args.blk_col = m.blk_col.get();
   args.blk_map = m.blk_map.get();
   args.blk_val = m.blk_val.get();
   launch_tiers<true>(args, h.tier_rows, lim, stream);
   // pass 2 reads the tier lists: they are released when this returns, after it ran (one more
   // synchronisation, but no allocator's reuse rules to rely on); the dense tiles, tier 0's
   // included, come back with it
   HashMeta h2{};
   AMGT_DEVICE_CHECK(device::memcpy_async(&h2, meta.get(), sizeof h2, device::Copy::to_host, stream));
   AMGT_DEVICE_CHECK(device::stream_synchronize(stream));
   if (h2.flags & kDuplicate)
   {
      // found by tier 0's pass 2 (its pass 1 only counts): what was written is discarded
      info        = ConversionInfo{};
      info.reason = "duplicate entries (summed in input order by the sorted conversion)";
      return false;
   }
   m.summary.dense_tiles = static_cast<int64_t>(h2.dense_tiles);
   return true;
}

#define AMGT_INSTANTIATE(V)                                                                        \
   template bool csr_to_mbsr_hashed<V>(const CsrView&, Stream, const Allocator&,                  \
                                       const ConvertOptions&, DeviceMbsr<V>&, ConversionInfo&);
AMGT_INSTANTIATE(double)
AMGT_INSTANTIATE(float)
AMGT_INSTANTIATE(half_t)
#undef AMGT_INSTANTIATE

} // namespace amgt::device::mbsr_detail
