// The counting pass of BoomerAMG's strength of connection on the GPU (coarsen/strength_device.h).
//
// What hypre does (hypre_BoomerAMGCreateS_rowcount): a warp of W lanes a row; lane L walks the
// row's entries L, L + W, L + 2W, ... of the diagonal block, then of the off-diagonal block,
// summing them (the diagonal apart) and taking its own off-diagonal maximum and minimum
// (hypre_max / hypre_min from 0, in that order); the lanes' sums meet in its butterfly, their
// maxima and minima in max/min reductions; then each lane walks its entries again for the
// strength test and writes S's marks. Rows of 7-27 entries leave most of its lanes idle, and it
// runs at 0.19-0.37 of its bytes' roofline, SM-bound (bench/RESULTS.md, "Setup: hypre's own
// kernels").
//
// What this does: a group of G lanes a row, lane l standing for hypre's lanes l + G*j (j < V =
// W/G): it keeps their sums, maxima and minima apart (registers, j unrolled), adds the sums in
// hypre's butterfly for the distances d >= G within the lane and shuffles within the group for
// d < G (tree_sum), so every sum is hypre's to the bit. Measured at 0.29 of the roofline this was
// bound by instruction issue (SM 72% busy, DRAM 18%), so the common rows are made cheap:
//  - Held rows. Entry e of a block (e = k - p) is hypre lane e % W's, round e / W; here it is
//    lane e % G's slot h = e / G (h = round * V + j). A row whose blocks each have at most G * S
//    entries (S = max(V, 4) slots a lane: with W = 32, rows of up to 32 entries for G = 4 and 8,
//    64 for G = 16, 128 for G = 32; G is the narrowest whose held rows take the mean row) is
//    held: a lane loads each of its entries once into registers (column, value; the dof_func
//    test as a bit), the first pass takes them from there hypre lane by hypre lane in hypre's
//    order (the diagonal block's rounds, then the off-diagonal block's), and the second pass
//    tests and writes from the same registers, one store an entry: -2 at a hypre lane's (last)
//    diagonal, a bit a slot, where the general loops store -1 and then -2 over it. The loops stop
//    where the group's row does (group-uniform branches): a 7-entry row with G = 8 costs each
//    lane one slot, not V loop set-ups a block and pass and the second pass's reloads. Hypre
//    lanes past the whole group's row fold in their (+0, +0) once (fmax / fmin with +0 twice is
//    once). The counts of a held row are a ballot a slot (__popc of the group's bits), not
//    shuffles. Longer rows take the general loops: hypre's lane walk as it is, not unrolled
//    (registers).
//  - row_scale is row_min where diag > 0, else row_max, so only that one is met across the group,
//    after the diagonal's sum: row_max by fmax shuffles, row_min as minus the fmax of the lanes'
//    negated values. fmin(a, b) and -fmax(-a, -b) are the same number (negation is exact and
//    reverses the order; both drop a NaN operand), apart from the sign of a zero or a NaN's
//    payload, which no output sees: row_scale only enters thresh, which the tests compare with
//    (+0 == -0; a NaN compares false).
//  - num_functions == 1 is a template parameter: the common case has no dof_func loads or tests.
//  - The inputs are read through __ldg: the kernel never writes them (S's column arrays and the
//    counts are hypre's fresh allocations, never A's arrays or dof_func).
// Groups past the last row see empty ranges and still meet every shuffle.
// Blocks whose mean row holds at most 8 entries (laplace7's finest levels) take a thread a row
// instead (strength_thread_kernel below): a group of 4 or 8 lanes spent most of its
// instructions on slots past a 7-entry row's end; the thread runs one slot an entry. Longer
// mean rows take the narrowest group of 8, 16 or 32 lanes whose held slots hold the mean row
// (groups of 8 up to 32 entries, laplace27's 27): a group one lane an entry meets its shuffles
// and its row's set-up for every row.
#include "coarsen/strength_device.h"

#include "common/error.h"
#include "device/launch.h"
#include "device/warp.cuh"

namespace amgt::device {
namespace {

constexpr int kHypreWarp = kWavefrontSize; // HYPRE_WARP_SIZE
constexpr int kHeldSlots = 4;              // a held row's entries a lane keeps a block (V when more)

__device__ __forceinline__ double hypre_max(double a, double b) { return a < b ? b : a; }
__device__ __forceinline__ double hypre_min(double a, double b) { return a < b ? a : b; }

// A row's entries in the two blocks, [pd, qd) and [po, qo): empty without a row (active false)
// and for a block without entries.
struct RowRange
{
   int32_t pd, qd, po, qo;
};

__device__ __forceinline__ RowRange row_range(const StrengthRows& m, const bool active, const int32_t row)
{
   RowRange r;
   r.pd = active ? __ldg(m.diag_i + row) : 0;
   r.qd = active && m.diag_nnz > 0 ? __ldg(m.diag_i + row + 1) : r.pd;
   r.po = active && m.offd_nnz > 0 ? __ldg(m.offd_i + row) : 0;
   r.qo = active && m.offd_nnz > 0 ? __ldg(m.offd_i + row + 1) : r.po;
   return r;
}

// One row by a group of G lanes (`lane` of `group`); a group without a row (active false) sees
// empty ranges and still meets every shuffle.
template <int G, bool One>
__device__ __forceinline__ void strength_row(const StrengthRows& m, const bool active, const int32_t row,
                                             const int lane, const LaneMask group)
{
   constexpr int V = kHypreWarp / G;                  // hypre lanes a lane stands for
   constexpr int S = V > kHeldSlots ? V : kHeldSlots; // slots a lane holds a block: S / V rounds
   static_assert(S % V == 0 && S <= 32, "a held row is whole rounds of hypre's warp, a bit a slot");
   const int32_t* __restrict__ diag_j        = m.diag_j;
   const double* __restrict__  diag_a        = m.diag_a;
   const int32_t* __restrict__ offd_j        = m.offd_j;
   const double* __restrict__  offd_a        = m.offd_a;
   const int32_t* __restrict__ dof_func      = m.dof_func;
   const int32_t* __restrict__ dof_func_offd = m.dof_func_offd;
   int32_t* __restrict__       s_diag_j      = m.s_diag_j;
   int32_t* __restrict__       s_offd_j      = m.s_offd_j;

   const int32_t  fn = One || !active ? 0 : __ldg(dof_func + row);
   const RowRange rr = row_range(m, active, row);
   const int32_t  pd = rr.pd, qd = rr.qd, po = rr.po, qo = rr.qo;
   const int32_t  nd_len = qd - pd, no_len = qo - po;
   // the same for the whole group (its row's)
   const bool held = nd_len <= G * S && no_len <= G * S;

   double  s[V], d[V];
   int32_t  dp[V];       // general rows: hypre lane j's diagonal position (its last), or -1
   uint32_t at_diag = 0; // held rows: bit h where slot h is its hypre lane's (last) diagonal
#pragma unroll
   for (int j = 0; j < V; ++j)
   {
      s[j]  = 0.0;
      d[j]  = 0.0;
      dp[j] = -1;
   }
   double row_max = 0.0, row_min = 0.0; // this lane's, over its hypre lanes
   // a held row's entries: lane's slot h is entry p + lane + G*h of its block, hypre lane h % V's
   int32_t hd_col[S], ho_col[S];
   double  hd_val[S], ho_val[S];
   uint32_t hd_keep = ~0u, ho_keep = ~0u; // bit h: slot h's entry is of the row's function
   if (held)
   {
#pragma unroll
      for (int h = 0; h < S; ++h)
      {
         if (G * h >= nd_len) break;
         const int32_t k = pd + lane + G * h;
         if (k < qd)
         {
            hd_col[h] = __ldg(diag_j + k);
            hd_val[h] = __ldg(diag_a + k);
         }
      }
#pragma unroll
      for (int h = 0; h < S; ++h)
      {
         if (G * h >= no_len) break;
         const int32_t k = po + lane + G * h;
         if (k < qo)
         {
            ho_col[h] = __ldg(offd_j + k);
            ho_val[h] = __ldg(offd_a + k);
         }
      }
      if (!One)
      {
#pragma unroll
         for (int h = 0; h < S; ++h)
         {
            if (G * h >= nd_len) break;
            if (pd + lane + G * h < qd && !(row == hd_col[h] || fn == __ldg(dof_func + hd_col[h])))
               hd_keep &= ~(1u << h);
         }
#pragma unroll
         for (int h = 0; h < S; ++h)
         {
            if (G * h >= no_len) break;
            if (po + lane + G * h < qo && fn != __ldg(dof_func_offd + ho_col[h])) ho_keep &= ~(1u << h);
         }
      }
      // each of hypre's lanes in its order: the diagonal block's rounds, then the off-diagonal's
      // (its maximum and minimum in that order too: hypre_min takes a NaN and drops it again)
      const int32_t held_len = nd_len > no_len ? nd_len : no_len;
#pragma unroll
      for (int j = 0; j < V; ++j)
      {
         if (G * j >= held_len)
         {
            // hypre lanes j.. of the whole group are empty: each would fold in its (+0, +0)
            if (j > 0)
            {
               row_max = fmax(row_max, 0.0);
               row_min = fmin(row_min, 0.0);
            }
            break;
         }
         double  sj = 0.0, dj = 0.0, mx = 0.0, mn = 0.0;
         int32_t pj = -1;
#pragma unroll
         for (int h = j; h < S; h += V)
         {
            if (G * h >= nd_len) break;
            if (pd + lane + G * h < qd && (One || ((hd_keep >> h) & 1u)))
            {
               const double v = hd_val[h];
               sj += v;
               if (row == hd_col[h])
               {
                  dj = v;
                  pj = h;
               }
               else
               {
                  mx = hypre_max(mx, v);
                  mn = hypre_min(mn, v);
               }
            }
         }
#pragma unroll
         for (int h = j; h < S; h += V)
         {
            if (G * h >= no_len) break;
            if (po + lane + G * h < qo && (One || ((ho_keep >> h) & 1u)))
            {
               const double v = ho_val[h];
               sj += v;
               mx = hypre_max(mx, v);
               mn = hypre_min(mn, v);
            }
         }
         s[j] = sj;
         d[j] = dj;
         if (pj >= 0) at_diag |= 1u << pj;
         row_max = j == 0 ? mx : fmax(row_max, mx);
         row_min = j == 0 ? mn : fmin(row_min, mn);
      }
   }
   else
   {
#pragma unroll
      for (int j = 0; j < V; ++j)
      {
         // hypre's lane lane + G*j: its diagonal block's entries, then its off-diagonal block's
         double  sj = 0.0, dj = 0.0, mx = 0.0, mn = 0.0;
         int32_t pj = -1;
#pragma unroll 1
         for (int32_t k = pd + lane + G * j; k < qd; k += kHypreWarp)
         {
            const int32_t col = __ldg(diag_j + k);
            if (!(One || row == col || fn == __ldg(dof_func + col))) continue;
            const double v = __ldg(diag_a + k);
            sj += v;
            if (row == col)
            {
               dj = v;
               pj = k;
            }
            else
            {
               mx = hypre_max(mx, v);
               mn = hypre_min(mn, v);
            }
         }
#pragma unroll 1
         for (int32_t k = po + lane + G * j; k < qo; k += kHypreWarp)
         {
            if (!(One || fn == __ldg(dof_func_offd + __ldg(offd_j + k)))) continue;
            const double v = __ldg(offd_a + k);
            sj += v;
            mx = hypre_max(mx, v);
            mn = hypre_min(mn, v);
         }
         s[j]    = sj;
         d[j]    = dj;
         dp[j]   = pj;
         row_max = j == 0 ? mx : fmax(row_max, mx); // CUDA's max/min of hypre's reductions
         row_min = j == 0 ? mn : fmin(row_min, mn);
      }
   }
   const double diag = tree_sum<G, V>(d, group);
   const bool   pos  = diag > 0.0;
   // row_scale: hypre's row_min (diag > 0) or row_max over the group, only the one it takes:
   // the fmin of the row_mins as minus the fmax of their negations (equal but for a zero's sign
   // or a NaN's payload, which thresh's comparisons do not see)
   double scale = pos ? -row_min : row_max;
#pragma unroll
   for (int x = G / 2; x > 0; x >>= 1) scale = fmax(scale, shfl_xor(scale, x, G, group));
   const double row_scale = pos ? -scale : scale;
   const double row_sum   = tree_sum<G, V>(s, group);
   const int    sdiag    = pos ? 1 : -1;
   const bool   all_weak = m.max_row_sum < 1.0 && fabs(row_sum) > fabs(diag) * m.max_row_sum;
   const double thresh   = sdiag * m.strength_threshold * row_scale;
   int          nd = 0, no = 0; // the row's strong entries (every lane of the group)
   if (held)
   {
      // the group's counts: a ballot a slot (the slot loops stop where the whole group's do)
#pragma unroll
      for (int h = 0; h < S; ++h)
      {
         if (G * h >= nd_len) break;
         const int32_t k    = pd + lane + G * h;
         bool          cond = false;
         if (k < qd)
         {
            const bool diag_here = (at_diag >> h) & 1u;
            cond                 = !all_weak && !diag_here && (One || ((hd_keep >> h) & 1u)) &&
                   sdiag * hd_val[h] < thresh;
            s_diag_j[k]          = diag_here ? -2 : cond ? hd_col[h] : -1;
         }
         nd += __popc(ballot(cond, group) & group);
      }
#pragma unroll
      for (int h = 0; h < S; ++h)
      {
         if (G * h >= no_len) break;
         const int32_t k    = po + lane + G * h;
         bool          cond = false;
         if (k < qo)
         {
            cond        = !all_weak && (One || ((ho_keep >> h) & 1u)) && sdiag * ho_val[h] < thresh;
            s_offd_j[k] = cond ? ho_col[h] : -1;
         }
         no += __popc(ballot(cond, group) & group);
      }
   }
   else
   {
#pragma unroll
      for (int j = 0; j < V; ++j)
      {
#pragma unroll 1
         for (int32_t k = pd + lane + G * j; k < qd; k += kHypreWarp)
         {
            const int32_t col = __ldg(diag_j + k);
            const bool    cond =
               !all_weak && dp[j] != k && (One || fn == __ldg(dof_func + col)) && sdiag * __ldg(diag_a + k) < thresh;
            s_diag_j[k] = cond ? col : -1;
            nd += cond;
         }
         if (dp[j] >= 0) s_diag_j[dp[j]] = -2;
#pragma unroll 1
         for (int32_t k = po + lane + G * j; k < qo; k += kHypreWarp)
         {
            const int32_t col = __ldg(offd_j + k);
            const bool    cond =
               !all_weak && (One || fn == __ldg(dof_func_offd + col)) && sdiag * __ldg(offd_a + k) < thresh;
            s_offd_j[k] = cond ? col : -1;
            no += cond;
         }
      }
#pragma unroll
      for (int x = G / 2; x > 0; x >>= 1)
      {
         nd += shfl_xor(nd, x, G, group);
         no += shfl_xor(no, x, G, group);
      }
   }
   if (active && lane == 0)
   {
      m.js_diag[row] = nd;
      m.js_offd[row] = no;
   }
}

template <int G, bool One>
__global__ void __launch_bounds__(kThreads) strength_kernel(StrengthRows m)
{
   const int64_t r      = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) / G;
   const bool    active = r < m.nrows; // a group past the last row: empty ranges
   strength_row<G, One>(m, active, active ? static_cast<int32_t>(r) : 0,
                        static_cast<int>(threadIdx.x & (G - 1)), group_lanes<G>());
}

// A thread a row, for blocks whose mean row holds at most 8 entries. A row whose two blocks hold
// at most kThreadSlots entries each gives hypre's lane h (h < kThreadSlots) at most its entry h
// of each block, one round: the thread takes slot h as lane h. Its sums: lanes kThreadSlots and
// up are +0 and the lanes' sums start at 0.0, so they are never -0 and the butterfly's levels
// above kThreadSlots / 2 change none of them: the lower levels over the thread's slots are
// hypre's sum bit for bit (the diagonal's may differ from hypre's in the sign of a zero, which
// only its sign test and magnitude read, both blind to it). Its maxima and minima: each slot's
// hypre_max / hypre_min over its entries in hypre's order (the diagonal block's, then the
// off-diagonal block's: hypre_min takes a NaN and drops it again), then fmax / fmin over the
// slots and the empty lanes' +0, as hypre's reductions. A diagonal entry is the only one of its
// lane, so -2 marks each. The diagonal block's entries stay in registers for the second pass;
// the off-diagonal block's (none with one rank) are read again. Longer rows are taken by the
// warp one after another as the group kernel does with G = 32.
constexpr int kThreadSlots = 8;

template <bool One>
__global__ void __launch_bounds__(kThreads, 4) strength_thread_kernel(StrengthRows m)
{
   const int32_t* __restrict__ diag_j        = m.diag_j;
   const double* __restrict__  diag_a        = m.diag_a;
   const int32_t* __restrict__ offd_j        = m.offd_j;
   const double* __restrict__  offd_a        = m.offd_a;
   const int32_t* __restrict__ dof_func      = m.dof_func;
   const int32_t* __restrict__ dof_func_offd = m.dof_func_offd;

   // a thread past the last row still meets the warp's shuffles
   const auto [lane, active, row] = thread_row(m.nrows);
   const RowRange rr              = row_range(m, active, row);
   const int32_t  pd = rr.pd, qd = rr.qd, po = rr.po, qo = rr.qo;
   const int32_t  nd_len = qd - pd, no_len = qo - po;
   const bool     mine   = active && nd_len <= kThreadSlots && no_len <= kThreadSlots;
   if (mine)
   {
      const int32_t fn = One ? 0 : __ldg(dof_func + row);
      int32_t       col[kThreadSlots];
      double        val[kThreadSlots], s[kThreadSlots];
      uint32_t      keep = 0, at_diag = 0;
      double        row_max = 0.0, row_min = 0.0; // the empty lanes' (+0, +0)
#pragma unroll
      for (int h = 0; h < kThreadSlots; ++h)
      {
         double sh = 0.0, mx = 0.0, mn = 0.0;
         if (h < nd_len)
         {
            col[h] = __ldg(diag_j + pd + h);
            val[h] = __ldg(diag_a + pd + h);
            if (One || row == col[h] || fn == __ldg(dof_func + col[h]))
            {
               keep |= 1u << h;
               sh += val[h];
               if (row == col[h])
               {
                  at_diag |= 1u << h;
               }
               else
               {
                  mx = hypre_max(mx, val[h]);
                  mn = hypre_min(mn, val[h]);
               }
            }
         }
         if (h < no_len && (One || fn == __ldg(dof_func_offd + __ldg(offd_j + po + h))))
         {
            const double v = __ldg(offd_a + po + h);
            sh += v;
            mx = hypre_max(mx, v);
            mn = hypre_min(mn, v);
         }
         s[h]    = sh;
         row_max = fmax(row_max, mx);
         row_min = fmin(row_min, mn);
      }
      double d[kThreadSlots]; // hypre lane h's diagonal value (0 where it has none)
#pragma unroll
      for (int h = 0; h < kThreadSlots; ++h) d[h] = (at_diag >> h) & 1u ? val[h] : 0.0;
      const double diag      = tree_sum<1, kThreadSlots>(d, group_lanes<1>());
      const double row_sum   = tree_sum<1, kThreadSlots>(s, group_lanes<1>());
      const bool   pos       = diag > 0.0;
      const double row_scale = pos ? row_min : row_max;
      const int    sdiag     = pos ? 1 : -1;
      const bool   all_weak  = m.max_row_sum < 1.0 && fabs(row_sum) > fabs(diag) * m.max_row_sum;
      const double thresh    = sdiag * m.strength_threshold * row_scale;
      int          nd = 0, no = 0;
#pragma unroll
      for (int h = 0; h < kThreadSlots; ++h)
      {
         if (h >= nd_len) break;
         const bool diag_here = (at_diag >> h) & 1u;
         const bool cond      = !all_weak && !diag_here && ((keep >> h) & 1u) && sdiag * val[h] < thresh;
         m.s_diag_j[pd + h]   = diag_here ? -2 : cond ? col[h] : -1;
         nd += cond;
      }
      for (int32_t k = po; k < qo; ++k)
      {
         const int32_t c    = __ldg(offd_j + k);
         const bool    cond = !all_weak && (One || fn == __ldg(dof_func_offd + c)) && sdiag * __ldg(offd_a + k) < thresh;
         m.s_offd_j[k]      = cond ? c : -1;
         no += cond;
      }
      m.js_diag[row] = nd;
      m.js_offd[row] = no;
   }
   for (LaneMask pending = ballot(active && !mine); pending != 0; pending &= pending - 1)
   {
      const int src = __ffs(pending) - 1;
      strength_row<kWarpSize, One>(m, true, shfl(row, src), lane, kAllLanes);
   }
}

} // namespace

int strength_warp() { return kHypreWarp; }

void strength_rowcount(const StrengthRows& m, Stream s)
{
   check_strength_rows(m, kHypreWarp);
   if (m.nrows == 0) return;
   const int64_t mean = mean_row(static_cast<int64_t>(m.diag_nnz) + m.offd_nnz, m.nrows);
   if (mean <= kThreadSlots)
   {
      const unsigned blocks = blocks_for(m.nrows);
      if (m.num_functions == 1) strength_thread_kernel<true><<<blocks, kThreads, 0, s>>>(m);
      else strength_thread_kernel<false><<<blocks, kThreads, 0, s>>>(m);
      AMGT_DEVICE_CHECK_LAUNCH("strength_thread_kernel");
      return;
   }
   // the narrowest group whose held slots (kHeldSlots a lane) take a mean row: a lane's slots
   // past its row's end cost it instructions, a group's lanes its shuffles
   const int32_t lanes = mean <= 8 * kHeldSlots ? 8 : mean <= 16 * kHeldSlots ? 16 : 32;
   with_lanes<8>(lanes, [&](auto g) {
      constexpr int  G      = decltype(g)::value;
      const unsigned blocks = blocks_for(static_cast<int64_t>(m.nrows) * G);
      if (m.num_functions == 1) strength_kernel<G, true><<<blocks, kThreads, 0, s>>>(m);
      else strength_kernel<G, false><<<blocks, kThreads, 0, s>>>(m);
   });
   AMGT_DEVICE_CHECK_LAUNCH("strength_kernel");
}

} // namespace amgt::device
