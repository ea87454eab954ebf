// The short-row kernels (spgemm_short_rows.h): rows of C with at most 4G product terms,
// gathered into the registers of a group of G lanes, sorted by column, merged. No hash table,
// no shared memory, no atomics.
//
// Layout: lane l of a group holds the row's terms e = l * T + s, s < T (T = kShortTermsPerLane):
// the low log2(T) bits of a term's index are a register, the high bits the lane, so the
// bitonic steps of distance < T swap registers and the others (distance j >= T) exchange with
// lane l ^ (j / T) by shfl_xor. For G = 32, T = 4 (128 terms): 28 compare-exchange steps, 15 of
// them across lanes (T keys and T values each).
//
// Warp uniformity: groups narrower than a warp share it, and every shuffle names all 32
// lanes (device::shfl with width G), so all lanes of the warp run every shuffle: the rounds of
// the gather loop are the warp's maximum (reduce_max), a lane whose group has no row (the last
// block) runs the same steps on padding, and everything else is fully unrolled on G and T.
#include "spgemm/spgemm_short_rows.h"

#include "common/error.h"
#include "device/launch.h"
#include "device/warp.cuh"
#include "spgemm/csr_spgemm.h"

#include <cstdint>
#include <string>

namespace amgt::device {
namespace {

namespace cs = amgt::csr_spgemm;

constexpr int     kT   = cs::kShortTermsPerLane;
constexpr int32_t kPad = 0x7fffffff; // sorts after every column (columns < ncols <= 2^31-1)
constexpr int     kShortBlock = 256; // threads per block: 256 / G rows

static_assert((kT & (kT - 1)) == 0, "terms per lane: a power of two");

// Places the row's terms in the group's registers (key = column, val = a_ik * b_kj), padding
// after them. The round's A entries are read one per lane, all loads independent; the B row
// lengths' group scan gives each entry its first term; slot e's entry is the first j with
// incl_j > e - filled (binary search over the scan by shuffles, log2 G steps), and one shuffle
// of start_j = b0_j - excl_j turns e into B's position.
template <int G, bool kValues>
__device__ __forceinline__ void gather_row(const ShortRowsArgs& a, bool active, int32_t row, int lane,
                                           int32_t (&key)[kT], double (&val)[kT])
{
#pragma unroll
   for (int s = 0; s < kT; ++s)
   {
      key[s] = kPad;
      val[s] = 0.0;
   }
   int32_t a0 = 0, alen = 0;
   if (active)
   {
      a0   = a.a_ptr[row];
      alen = a.a_ptr[row + 1] - a0;
   }
   const int rounds = device::reduce_max(static_cast<int>((alen + G - 1) / G));
   int32_t   filled = 0; // terms placed by the previous rounds
   for (int r = 0; r < rounds; ++r)
   {
      const int32_t idx = r * G + lane;
      int32_t       b0 = 0, len = 0;
      double        av = 1.0;
      if (idx < alen)
      {
         const int32_t p = a0 + idx;
         const int32_t k = a.a_col[p];
         if (kValues && a.a_val) av = a.a_val[p];
         b0  = a.b_ptr[k];
         len = a.b_ptr[k + 1] - b0;
      }
      int32_t incl = len;
#pragma unroll
      for (int d = 1; d < G; d <<= 1)
      {
         const int32_t v = device::shfl_up(incl, d, G);
         if (lane >= d) incl += v;
      }
      const int32_t total = device::shfl(incl, G - 1, G);
      const int32_t start = b0 - (incl - len); // B position of the round's term 0 if in this entry
#pragma unroll
      for (int s = 0; s < kT; ++s)
      {
         const int32_t o = lane * kT + s - filled; // the slot's term within this round
         int           j = 0;
#pragma unroll
         for (int step = G / 2; step > 0; step >>= 1)
         {
            const int32_t v = device::shfl(incl, j + step - 1, G);
            if (v <= o) j += step;
         }
         const int32_t q0 = device::shfl(start, j, G);
         const double  aj = kValues ? device::shfl(av, j, G) : 1.0;
         if (o >= 0 && o < total)
         {
            const int32_t q = q0 + o;
            key[s]          = a.b_col[q];
            // the product rounded on its own (never contracted into a later addition)
            if constexpr (kValues) val[s] = __dmul_rn(aj, a.b_val ? a.b_val[q] : 1.0);
         }
      }
      filled += total;
   }
}

// Ascending bitonic sort of the group's G * kT terms by key (values follow). Ties keep their
// places in every exchange (both lanes of a pair keep their own), so no term is lost or doubled.
template <int G, bool kValues>
__device__ __forceinline__ void sort_terms(int lane, int32_t (&key)[kT], double (&val)[kT])
{
   constexpr int N = G * kT;
#pragma unroll
   for (int k = 2; k <= N; k <<= 1)
   {
#pragma unroll
      for (int j = k >> 1; j > 0; j >>= 1)
      {
         if (j < kT)
         {
#pragma unroll
            for (int s = 0; s < kT; ++s)
            {
               const int t = s ^ j;
               if (t <= s) continue;
               const bool up   = ((lane * kT + s) & k) == 0;
               const bool swap = up ? key[t] < key[s] : key[s] < key[t];
               if (swap)
               {
                  const int32_t kk = key[s];
                  key[s]           = key[t];
                  key[t]           = kk;
                  if constexpr (kValues)
                  {
                     const double vv = val[s];
                     val[s]          = val[t];
                     val[t]          = vv;
                  }
               }
            }
         }
         else
         {
            const int  m     = j / kT; // partner lane: lane ^ m
            const bool lower = (lane & m) == 0;
#pragma unroll
            for (int s = 0; s < kT; ++s)
            {
               const bool    up = ((lane * kT + s) & k) == 0;
               const int32_t pk = device::shfl_xor(key[s], m, G);
               double        pv = 0.0;
               if constexpr (kValues) pv = device::shfl_xor(val[s], m, G);
               // the lower element of the pair keeps the smaller key when the run sorts up
               const bool take = lower == up ? pk < key[s] : key[s] < pk;
               if (take)
               {
                  key[s] = pk;
                  if constexpr (kValues) val[s] = pv;
               }
            }
         }
      }
   }
}

// Exclusive group scan of x; total to every lane.
template <int G>
__device__ __forceinline__ int32_t group_exclusive_scan(int32_t x, int lane, int32_t& total)
{
   int32_t incl = x;
#pragma unroll
   for (int d = 1; d < G; d <<= 1)
   {
      const int32_t v = device::shfl_up(incl, d, G);
      if (lane >= d) incl += v;
   }
   total = device::shfl(incl, G - 1, G);
   return incl - x;
}

// After the sort: a term heads a run when its column differs from the one before. Returns the
// row's distinct columns (every lane). Numeric (out_col != nullptr): a segmented inclusive scan
// of the values (inside the lane, then across lanes on (any head in the lane, the lane's last
// partial sum)) leaves each run's sum on its last term, written at the run's rank.
template <int G, bool kValues>
__device__ __forceinline__ int32_t merge_row(int lane, const int32_t (&key)[kT], const double (&val)[kT],
                                             int32_t* out_col, double* out_val)
{
   const int32_t before = device::shfl_up(key[kT - 1], 1, G); // lane - 1's last column
   const int32_t after  = device::shfl_down(key[0], 1, G);    // lane + 1's first column
   bool          head[kT];
   int32_t       heads = 0;
#pragma unroll
   for (int s = 0; s < kT; ++s)
   {
      const int32_t prev = s > 0 ? key[s - 1] : lane > 0 ? before : -1; // -1: never a column
      head[s]            = key[s] != kPad && key[s] != prev;
      heads += head[s] ? 1 : 0;
   }
   int32_t       total = 0;
   const int32_t rank0 = group_exclusive_scan<G>(heads, lane, total);
   if constexpr (kValues)
   {
      double run[kT];
      run[0] = val[0];
#pragma unroll
      for (int s = 1; s < kT; ++s) run[s] = head[s] ? val[s] : run[s - 1] + val[s];
      // across lanes: (f, sum) combine (f1, s1) then (f2, s2) = (f1 | f2, f2 ? s2 : s1 + s2)
      bool   f   = heads > 0;
      double sum = run[kT - 1];
#pragma unroll
      for (int d = 1; d < G; d <<= 1)
      {
         const double ps = device::shfl_up(sum, d, G);
         const int    pf = device::shfl_up(f ? 1 : 0, d, G);
         if (lane >= d)
         {
            if (!f) sum = ps + sum;
            f = f || pf != 0;
         }
      }
      // the run that enters this lane from the left: lane - 1's inclusive result
      const double carry = device::shfl_up(sum, 1, G);
      bool         open  = lane > 0; // still inside the run that enters from the left
      int32_t      seen  = 0;        // heads of this lane up to s
#pragma unroll
      for (int s = 0; s < kT; ++s)
      {
         open = open && !head[s];
         seen += head[s] ? 1 : 0;
         const double  v    = open ? carry + run[s] : run[s];
         const int32_t next = s + 1 < kT ? key[s + 1] : lane + 1 < G ? after : kPad;
         if (key[s] != kPad && next != key[s])
         {
            const int32_t pos = rank0 + seen - 1; // the run's head is at or before s
            out_col[pos]      = key[s];
            out_val[pos]      = v;
         }
      }
   }
   return total;
}

// One group of G lanes per listed row; kValues false: counts[row] = distinct columns, true:
// the row's sorted pairs at row_ptr[row].
template <int G, bool kValues>
__global__ __launch_bounds__(kShortBlock) void short_rows_kernel(ShortRowsArgs args)
{
   static_assert(G >= 4 && G <= device::kWarpSize && kShortBlock % G == 0, "groups within a warp");
   constexpr int kRows  = kShortBlock / G;
   const int     g      = static_cast<int>(threadIdx.x) / G;
   const int     lane   = static_cast<int>(threadIdx.x) % G;
   const int64_t r      = static_cast<int64_t>(blockIdx.x) * kRows + g;
   const bool    active = r < args.nrows;
   const int32_t row    = active ? args.rows[r] : 0;
   int32_t       key[kT];
   double        val[kT];
   gather_row<G, kValues>(args, active, row, lane, key, val);
   sort_terms<G, kValues>(lane, key, val);
   if constexpr (kValues)
   {
      const int32_t base = active ? args.row_ptr[row] : 0;
      // an inactive group holds only padding: merge_row writes nothing
      merge_row<G, true>(lane, key, val, args.out_col + base, args.out_val + base);
   }
   else
   {
      const int32_t n = merge_row<G, false>(lane, key, val, nullptr, nullptr);
      if (active && lane == 0) args.counts[row] = n;
   }
}

template <int Bin, bool kValues>
void launch(const ShortRowsArgs& args, Stream s)
{
   constexpr int G = cs::bin_shape(Bin).group;
   static_assert(cs::bin_shape(Bin).max_ub <= static_cast<int64_t>(G) * kT, "the bin's rows fit the group");
   if (args.nrows <= 0) return;
   constexpr int kRows = kShortBlock / G;
   const int64_t blocks = (static_cast<int64_t>(args.nrows) + kRows - 1) / kRows;
   short_rows_kernel<G, kValues><<<static_cast<unsigned>(blocks), kShortBlock, 0, s>>>(args);
   AMGT_DEVICE_CHECK_LAUNCH(kValues ? "csr_spgemm short_rows numeric" : "csr_spgemm short_rows count");
}

template <bool kValues>
void launch_bin(int bin, const ShortRowsArgs& args, Stream s)
{
   static_assert(cs::kShortBins == 4, "one case per short bin");
   switch (bin)
   {
   case 0: launch<0, kValues>(args, s); break;
   case 1: launch<1, kValues>(args, s); break;
   case 2: launch<2, kValues>(args, s); break;
   case 3: launch<3, kValues>(args, s); break;
   default: AMGT_THROW("csr_spgemm: no short-row kernel for bin " + std::to_string(bin));
   }
}

} // namespace

void short_rows_count(int bin, const ShortRowsArgs& args, Stream s) { launch_bin<false>(bin, args, s); }
void short_rows_numeric(int bin, const ShortRowsArgs& args, Stream s) { launch_bin<true>(bin, args, s); }

} // namespace amgt::device
