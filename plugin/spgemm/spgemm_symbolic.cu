// SpGEMM phase 2 (the overview is in spgemm_device.cu): C's structure, in two passes over the
// rows binned by the analysis. Pass 1 counts the distinct output tiles of every block row;
// pass 2 writes the sorted block columns and the OR-ed bitmaps. Pass 1 runs before the host
// knows how many rows each bin holds: every bin kernel is a grid-stride loop over its row list
// whose length it reads from device memory, launched with at most one wave of blocks (an empty
// bin costs one short launch, not a round trip).
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
#include "spgemm/spgemm_internal.cuh"
#include "device/warp.cuh"

#include "mbsr/bitmap.h"

#include <climits>
#include <string>

namespace amgt::device::spgemm_detail {
namespace {

constexpr unsigned long long kEmptySlot = ~0ull; // EMPTY of the hash tables

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
// group (see "Pair enumeration" at the top of this file). Every thread of the group must call it.
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

// Bin 7: sliding dense window, one block per row (see "bin 7" at the top of this file). window_words 32-bit
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
               if (device::ballot(in) != kFullMask) break;
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
// Host side.

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

constexpr int kWindowThreads = 1024;
constexpr int kWindowWords   = 16384; // 32768 block columns, 64 KB

template <bool kPass2>
void launch_window(const SymbolicArgs& args, int64_t rows_hint, Stream s, const DeviceLimits& lim)
{
   auto               kernel = symbolic_window_kernel<kPass2>;
   device::FuncAttributes attr{};
   AMGT_DEVICE_CHECK(device::func_attributes(&attr, kernel));
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

} // namespace

int shared_hash_bins(const DeviceLimits& lim)
{
   bool (*const fits[kWindowBin])(const DeviceLimits&) = {
       hash_bin_fits<0>, hash_bin_fits<1>, hash_bin_fits<2>, hash_bin_fits<3>,
       hash_bin_fits<4>, hash_bin_fits<5>, hash_bin_fits<6>};
   int n = 0;
   while (n < kWindowBin && fits[n](lim)) ++n;
   return n;
}

void symbolic_count(const SymbolicArgs& args, int shared_bins, int64_t rows_hint, Stream s,
                    const DeviceLimits& lim)
{
   for (int b = 0; b < shared_bins; ++b) launch_hash<false>(b, args, rows_hint, s, lim);
   launch_window<false>(args, rows_hint, s, lim);
}

void symbolic_fill(const SymbolicArgs& args, int shared_bins, const int32_t* bin_rows, Stream s,
                   const DeviceLimits& lim)
{
   for (int b = 0; b < shared_bins; ++b)
      if (bin_rows[b] > 0) launch_hash<true>(b, args, bin_rows[b], s, lim);
   if (bin_rows[kWindowBin] > 0) launch_window<true>(args, bin_rows[kWindowBin], s, lim);
}

} // namespace amgt::device::spgemm_detail
