// SpGEMM phase 3, the pairs kernel (the overview is in spgemm_device.cu): C's values for
// low-fill operands, with the row's (A tile, B tile) pairs spread over the lanes and atomic
// additions in no fixed order.
//
// Why: on AMG setup products tiles hold 1.3-2.5 nonzeros: per A tile the ordered kernel's
// lanes see one short B row (4-10 tiles, most of the warp idle) and each pair carries ~1
// scalar product for 16 lanes. Instead the pairs kernel
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
// half x half products are exact in float. device::sync_warp() separates chunks (pre/bstart/amap are
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
//   stored entries, both per bin (launch_pairs: (32, 256), (128, 512), (512, 1024)); p1 comes
//   from a warp scan of the popcounts, 32 tiles at a time (a tile has <= 16 entries, so any
//   window admits one). Each window re-walks the row's A tiles (two binary searches per A tile
//   into its B row), so the budgets are sized to hold typical AMG rows (20-200 tiles of fill
//   1.6-4) in one window (bytes per warp and resident warps per bin: the table at
//   launch_pairs).
//   Write-out: every one of the window's tiles gets all 16 positions of C's dense blk_val, the
//   stored ones from acc rounded once to V, the others exact zeros.
// Shared memory per warp: kEntries * sizeof(acc_t) + 8 kCap + 384 bytes.
#include "spgemm/spgemm_internal.cuh"
#include "device/warp.cuh"

#include "device/arith.cuh"
#include "mbsr/bitmap.h"

#include <string>

namespace amgt::device::spgemm_detail {
namespace {

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

// The pairs kernel (the notes at the top of this file): one warp per block row of C, the
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
            const int taken = __popc(device::ballot(fits));
            if (taken > 0) used += device::shfl(incl, taken - 1);
            nw += taken;
            if (taken < kWarpSize || nw == kCap || p0 + nw == nc) break; // uniform
         }
         for (int k = lane; k < used; k += kWarpSize) acc[k] = Acc(0);
         device::sync_warp();
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
            const int total = device::shfl(incl, kWarpSize - 1);
            if (total == 0) continue; // uniform over the warp
            if (lane < n)
            {
               pre[lane]    = incl - len;
               bstart[lane] = bs;
               amaps[lane]  = static_cast<int32_t>(am);
            }
            device::sync_warp();
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
            device::sync_warp(); // pre/bstart/amaps are rewritten by the next chunk
         }
         device::sync_warp(); // every atomic of the window is done and visible

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
         device::sync_warp(); // scol/cinfo/acc are rewritten by the next window
      }
   }
#pragma unroll
   for (int o = kWarpSize / 2; o > 0; o >>= 1) cc += device::shfl_xor(cc, o);
   if (lane == 0 && cc) atomicAdd(&args.meta->cc_products, cc);
}

// Pairs kernel windows (the notes at the top of this file): the entry budget is what
// sizes the shared memory; kCap only has to let low-fill rows use it (kEntries / kCap = 2
// in bin 2, so a window reaches its budget from fill 2 up). The budgets hold typical AMG rows
// in one window (bin 0: 32 tiles up to fill 8; bin 1: 128 tiles up to fill 4; bin 2: 256
// tiles up to fill 4; while no tile holds more than 4 entries a bin-2 window takes >= 256
// tiles), because every further window re-walks the row's A tiles with two binary searches
// each.
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
// fp16 levels accumulate in float: fp32's bytes. 8 warps per block in bin 1 (4: 36 warps,
// 16: 32) and 4 in bin 2 (2: the same 16) leave the least of the 228 KB unused. Registers bound
// bins 0 and 1 (48 per thread: 40 warps); more would need <= 40 registers, which spills in
// fp64 (see kPairsMinWarps).
struct PairsBin
{
   int cap, entries, warps; // window in tiles, window in stored entries, warps per block
};
constexpr PairsBin kPairsBins[kNumericBins] = {{32, 256, 8}, {128, 512, 8}, {512, 1024, 4}};

} // namespace

template <class V>
void launch_pairs(int bin, const NumericArgs<V>& args, int64_t rows, Stream s,
                  const DeviceLimits& lim)
{
   with_numeric_bin(bin, [&](auto b) {
      constexpr PairsBin c = kPairsBins[decltype(b)::value];
      launch_numeric_kernel<V>(numeric_pairs_kernel<V, c.cap, c.entries, c.warps>,
                               "numeric_pairs_kernel", c.warps,
                               pairs_warp_bytes<V, c.cap, c.entries>(), args, bin, rows, s, lim);
   });
}

AMGT_SPGEMM_INSTANTIATE_NUMERIC(launch_pairs)

} // namespace amgt::device::spgemm_detail
