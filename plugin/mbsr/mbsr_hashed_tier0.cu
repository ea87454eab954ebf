// Tier 0 of the hashed conversion (mbsr_hashed.cu): block rows of 1..32 entries, both passes,
// in registers instead of a hash table.
#include "mbsr/mbsr_internal.cuh"
#include "device/warp.cuh"

#include "device/arith.cuh"
#include "device/group_ops.cuh"
#include "device/launch.h"

#include <algorithm>

namespace amgt::device::mbsr_detail {
namespace {

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
            else if (kPass2 && lane == 5 && !args.one_pass) mine[u] = args.blk_ptr[b];
         }
      }
      int32_t rp[kUnroll][5], out[kUnroll], c[kUnroll];
      bool    live[kUnroll], mine_row[kUnroll];
      double  v[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
      {
#pragma unroll
         for (int q = 0; q < 5; ++q) rp[u][q] = device::shfl(mine[u], q);
         // one pass: the tiles go to the scratch at the block row's first CSR entry
         out[u]    = !kPass2 ? 0 : args.one_pass ? rp[u][0] : device::shfl(mine[u], 5);
         const int32_t E = rp[u][4] - rp[u][0];
         bool ok = b0 + u < args.block_rows && rp[u][0] >= 0 && rp[u][4] <= args.nnz;
#pragma unroll
         for (int q = 0; q < 4; ++q) ok = ok && rp[u][q] <= rp[u][q + 1];
         mine_row[u] = ok && E > 0 && E <= kTiers[0].hi; // uniform over the warp
         const int64_t e = static_cast<int64_t>(rp[u][0]) + lane;
         live[u]         = mine_row[u] && e < rp[u][4];
         c[u]            = live[u] ? __ldg(args.col + e) : 0;
         v[u]            = 0.0;
         if (kPass2 && live[u] && (args.blk_val || args.packed_val)) v[u] = args.val ? __ldg(args.val + e) : 1.0;
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
         const unsigned grp  = device::match_any(key);
         const unsigned lead = device::ballot(in_range && static_cast<int>(__ffs(static_cast<int>(grp))) - 1 == lane);
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
         if (args.one_pass && lane == 0)
         {
            args.counts[b] = tiles;
            max_tiles      = max(max_tiles, tiles);
         }
         uint32_t map  = 0;
         int      rank = 0, before = 0;
         for (unsigned L = lead; L; L &= L - 1)
         {
            const int      j  = __ffs(L) - 1;
            const int32_t  kj = device::shfl(key, j);
            const bool     in = in_range && key == kj;
            const uint32_t mj = device::reduce_or(in ? 1u << bit : 0u);
            dense_total += __popc(mj) >= kDenseTileNnz; // uniform: counted by every lane
            if (__popc(device::ballot(in)) != __popc(mj)) flags |= kDuplicate;
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
         if (args.packed_val || args.packed_meta)
         {
            // entry order: the entry's own CSR position (coalesced); else its place in bitmap order
            const int64_t q = args.entry_order ? e
                                               : static_cast<int64_t>(rp[u][0]) + before + __popc(map & ((1u << bit) - 1u));
            if (args.packed_val) args.packed_val[q] = val;
            if (args.packed_meta) args.packed_meta[q] = static_cast<uint16_t>((rank << 4) | bit);
         }
      }
   }
   if (!kPass2)
   {
      flags     = device::reduce_or(static_cast<unsigned>(flags));
      max_tiles = device::reduce_max(static_cast<unsigned>(max_tiles));
      if (lane == 0)
      {
         if (flags) atomicOr(&args.meta->flags, flags);
         if (max_tiles > 0) atomicMax(&args.meta->max_tiles, max_tiles);
      }
   }
   // pass 2 counts the dense tiles and finds duplicates (its loop visits every tile); both
   // are read back at the end
   else
   {
      // one pass: the longest block row as pass 1 finds it
      if (args.one_pass) max_tiles = device::reduce_max(static_cast<unsigned>(max_tiles));
      if (lane == 0)
      {
         if (dense_total) atomicAdd(&args.meta->dense_tiles, static_cast<unsigned long long>(dense_total));
         if (flags) atomicOr(&args.meta->flags, flags);
         if (args.one_pass && max_tiles > 0) atomicMax(&args.meta->max_tiles, max_tiles);
      }
   }
}

} // namespace

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

#define AMGT_INSTANTIATE(V)                                                                        \
   template void launch_tier0<false, V>(const HashArgs<V>&, const DeviceLimits&, Stream);         \
   template void launch_tier0<true, V>(const HashArgs<V>&, const DeviceLimits&, Stream);
AMGT_INSTANTIATE(double)
AMGT_INSTANTIATE(float)
AMGT_INSTANTIATE(half_t)
#undef AMGT_INSTANTIATE

} // namespace amgt::device::mbsr_detail
