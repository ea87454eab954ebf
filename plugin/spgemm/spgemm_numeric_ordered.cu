// SpGEMM phase 3, the ordered kernel (the overview is in spgemm_device.cu): C's values with
// every term added in spgemm_ref's order, on CUDA cores or, for dense A tiles, on tensor cores.
//
// numeric_kernel: one warp per block row, rows binned by C's tiles per row (<= 32, <= 128,
// longer); the pairs kernel (spgemm_numeric_pairs.cu) uses the same bins and the same column
// restriction per window, with windows bounded by C's stored entries as well.
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
// CUDA-core result bit-identical to spgemm_ref. device::sync_warp() separates A tiles and chunks.
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
#include "spgemm/spgemm_internal.cuh"
#include "device/warp.cuh"
#include "spgemm/spgemm_mma.cuh"

#include "device/arith.cuh"
#include "mbsr/bitmap.h"

#include <string>
#include <type_traits>

namespace amgt::device::spgemm_detail {
namespace {

struct Stage
{
   int32_t  tb;   // B tile
   int32_t  pos;  // output tile, relative to the window
   uint32_t maps; // B bitmap << 16 | bitmap product
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
         device::sync_warp();
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
               const unsigned vmask = device::ballot(valid);
               const unsigned imask = device::ballot(in);
               if (valid) stage[__popc(vmask & lanes_below)] = Stage{tb, pos, maps};
               device::sync_warp();
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
                     device::sync_warp();
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
               device::sync_warp(); // stage and accumulators are reused by the next chunk / A tile
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
         device::sync_warp();
      }
   }
   if (lane == 0 && (tc | cc))
   {
      if (tc) atomicAdd(&args.meta->tc_products, tc);
      if (cc) atomicAdd(&args.meta->cc_products, cc);
   }
}

// Ordered kernel, per numeric bin: window in tiles, warps per block.
struct OrderedBin
{
   int cap, warps;
};
constexpr OrderedBin kOrderedBins[kNumericBins] = {{32, 8}, {128, 4}, {256, 2}};

} // namespace

template <class V>
void launch_ordered(int bin, const NumericArgs<V>& args, int64_t rows, Stream s,
                    const DeviceLimits& lim)
{
   with_numeric_bin(bin, [&](auto b) {
      constexpr OrderedBin c = kOrderedBins[decltype(b)::value];
      launch_numeric_kernel<V>(numeric_kernel<V, c.cap, c.warps>, "numeric_kernel", c.warps,
                               numeric_warp_bytes<V, c.cap>(), args, bin, rows, s, lim);
   });
}

AMGT_SPGEMM_INSTANTIATE_NUMERIC(launch_ordered)

} // namespace amgt::device::spgemm_detail
