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
//     slots as they are found, the list is bitonic-sorted
//     (so a tile's rank is its position among the block row's sorted block columns), and
//     every entry finds its slot, hence its tile, and writes its value where it belongs: in
//     the dense layout (the block row's tiles zeroed first) and/or the packed layout (offset =
//     the block row's first entry + the popcounts of the tiles before it + the bits before it
//     in its tile). Without duplicates every position is written by exactly one entry: no
//     atomics on values, results reproducible and equal to the reference bit for bit.
//   A group clears its table once; after a block row it clears only the slots that row used
//   (the listed tiles), so a block row's table work is O(E + D log D), not O(T). Measured on
//   the H100 (bench/RESULTS.md, ninth session) this took 1-6% off the conversions' kernel
//   time, less than hoped: pass 2 of the 1024-slot tier still costs about 3.5x its pass 1
//   (systems3's coarse A, 320 entries a block row: 6.6 against 1.9 ms), and the table's
//   clearing and scanning were not what made it so.
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
//   version they were taken with, in bench/RESULTS.md, "tier-0 conversion"). (An
//   earlier register version with an O(E^2) shuffle loop per block row was slower than the
//   table; this one loops over the D tiles only, in pass 2, and counts with one match. Tier 0
//   finds duplicate entries in pass 2: the conversion then discards its output and runs the
//   sorted one.)
#include "mbsr/mbsr_internal.cuh"

#include "device/arith.cuh"
#include "device/group_ops.cuh"
#include "device/launch.h"

#include "device/prim.cuh"

#include <algorithm>
#include <type_traits>

namespace amgt::device::mbsr_detail {
namespace {

constexpr int32_t kEmptyKey = -1; // block columns are >= 0

__host__ __device__ constexpr int tier_of(int32_t E)
{
   return E <= kTiers[0].hi ? 0 : E <= kTiers[1].hi ? 1 : E <= kTiers[2].hi ? 2 : 3;
}

// Shared memory of one group. Pass 1: keys (T) | maps (T) | slots (T/2) | count + red (34
// ints). Pass 2: comp (u64, T/2) | keys | maps | rank (T) | toff (T/2) | count + red. Multiples
// of 8 bytes.
constexpr size_t hash_group_bytes(int log2t, bool pass2)
{
   const size_t T = size_t{1} << log2t;
   return pass2 ? 8 * (T / 2) + 4 * T * 3 + 4 * (T / 2) + 4 * 34 : 4 * T * 2 + 4 * (T / 2) + 4 * 34;
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
   auto* slots = rank;                                         // pass 1 only: T/2 entries
   auto* count = kPass2 ? toff + T / 2 : slots + T / 2;
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
   // The table is cleared once here; after each block row only the slots it used are cleared
   // again (the D fresh inserts, listed as they happen): O(E + D log D) a block row, not O(T).
   for (int k = t; k < T; k += G)
   {
      keys[k] = kEmptyKey;
      maps[k] = 0u;
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
         if (isnew)
         {
            // the block row's tiles, in the order they were found (pass 2 sorts them)
            const int p = atomicAdd(count, 1);
            if constexpr (kPass2) comp[p] = (static_cast<unsigned long long>(c >> 2) << 32) | static_cast<uint32_t>(slot);
            else slots[p] = slot;
         }
      }
      group::sync<G>();
      const int found = *count; // the block row's tiles

      if constexpr (!kPass2)
      {
         int dense = 0;
         for (int p = t; p < found; p += G)
            if (__popc(maps[slots[p]]) >= kDenseTileNnz) ++dense;
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
         const int32_t out = args.blk_ptr[b];
         const int     D   = found; // == blk_ptr[b + 1] - out, the fresh inserts of pass 1
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
         for (int64_t e = rp[0] + t; e < rp[4]; e += G)
         {
            const int32_t c    = __ldg(args.col + e);
            const int     r    = (e >= rp[1]) + (e >= rp[2]) + (e >= rp[3]);
            const int     bit  = 4 * r + (c & 3);
            const int     slot = hash_find<kLog2T>(keys, c >> 2);
            const int     p    = rank[slot];
            const bool    vals = args.blk_val || args.packed_val;
            const V       v    = Arith<V>::from_double(vals && args.val ? __ldg(args.val + e) : 1.0);
            if (args.blk_val) args.blk_val[(static_cast<int64_t>(out) + p) * 16 + bit] = v;
            if (args.packed_val || args.packed_meta)
            {
               // entry order: the entry's own CSR position; else its place in bitmap order
               const int64_t q = args.entry_order ? e
                                                  : static_cast<int64_t>(rp[0]) + toff[p] +
                                                       __popc(maps[slot] & ((1u << bit) - 1u));
               if (args.packed_val) args.packed_val[q] = v;
               if (args.packed_meta) args.packed_meta[q] = static_cast<uint16_t>((p << 4) | bit);
            }
         }
         group::sync<G>(); // every read of the table is done: clear what this block row used
         for (int p = t; p < D; p += G)
         {
            const int slot = static_cast<int>(comp[p] & 0xffffffffu);
            keys[slot]     = kEmptyKey;
            maps[slot]     = 0u;
         }
         if (t == 0) *count = 0;
         group::sync<G>();
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

// Every tier fits the device's shared memory (an H100 or A100 has room for all of them).
bool hashed_fits(const DeviceLimits& lim)
{
   const HashArgs<double> none{};
   return launch_tier<0, true>(none, 0, lim, nullptr, true) && launch_tier<1, true>(none, 0, lim, nullptr, true) &&
          launch_tier<2, true>(none, 0, lim, nullptr, true) && launch_tier<3, true>(none, 0, lim, nullptr, true) &&
          launch_tier<3, false>(none, 0, lim, nullptr, true);
}

} // namespace

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
   launch_tiers<false>(args, nullptr, lim, stream);

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
   // entry order: the decode is what makes the order readable, so it is always built (a block
   // row of the hashed tiers holds at most 4096 entries, so its tiles fit the decode's 12 bits)
   const bool entry_order = opt.packed && opt.entry_order;
   const bool lend        = entry_order && opt.lend_values && std::is_same_v<V, double> && a.val != nullptr;
   if (opt.packed)
   {
      if (!lend) m.packed_val = Buffer<V>(static_cast<size_t>(a.nnz), alloc);
      m.packed_meta = Buffer<uint16_t>(static_cast<size_t>(a.nnz), alloc);
   }
   m.entry_order = entry_order;
   if (lend) m.packed_lent = reinterpret_cast<const V*>(a.val);
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
   args.entry_order = entry_order;
   launch_tiers<true>(args, h.tier_rows, lim, stream);
   // pass 2 reads the tier lists: they are released when this returns, after it ran (one more
   // synchronisation, but no allocator's reuse rules to rely on); tier 0's dense tiles come
   // back with it
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
   m.summary.dense_tiles += static_cast<int64_t>(h2.dense_tiles_tier0);
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
