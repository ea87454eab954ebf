// The counting pass of BoomerAMG's strength of connection on the GPU (coarsen/strength_device.h).
//
// hypre gives a row a warp; rows of 7-27 entries leave most of its lanes idle, and the kernel
// runs at 0.19-0.37 of its bytes' roofline, SM-bound (bench/RESULTS.md, "Setup: hypre's own
// kernels"). Here a group of G lanes takes a row and lane l stands for hypre's lanes
// l + G*j (j < W/G, W hypre's warp): it keeps their sums apart (registers, j unrolled), adds
// them in hypre's butterfly for the distances d >= G within the lane, then shuffles within the
// group for d < G, so every sum is hypre's to the bit.
#include "coarsen/strength_device.h"

#include "common/error.h"
#include "device/launch.h"
#include "device/warp.cuh"

namespace amgt::device {
namespace {

constexpr int kHypreWarp = kWavefrontSize; // HYPRE_WARP_SIZE

__device__ __forceinline__ double hypre_max(double a, double b) { return a < b ? b : a; }
__device__ __forceinline__ double hypre_min(double a, double b) { return a < b ? a : b; }

template <int G>
__global__ void __launch_bounds__(kThreads) strength_kernel(StrengthRows m)
{
   constexpr int  V    = kHypreWarp / G; // hypre lanes a lane stands for
   const int64_t  t    = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   const int64_t  r    = t / G;
   const int      lane = static_cast<int>(threadIdx.x & (G - 1));
   const LaneMask group = group_lanes<G>();
   // a group past the last row: empty ranges, and it still meets its shuffles (none wait)
   const bool    active = r < m.nrows;
   const int32_t row    = active ? static_cast<int32_t>(r) : 0;
   const bool    one    = m.num_functions == 1;
   const int32_t fn     = one || !active ? 0 : m.dof_func[row];
   const int32_t pd = active ? m.diag_i[row] : 0, qd = active && m.diag_nnz > 0 ? m.diag_i[row + 1] : pd;
   const int32_t po = active && m.offd_nnz > 0 ? m.offd_i[row] : 0, qo = active && m.offd_nnz > 0 ? m.offd_i[row + 1] : po;
   double  s[V], d[V];
   int32_t dp[V];
   double  row_max = 0.0, row_min = 0.0;
#pragma unroll
   for (int j = 0; j < V; ++j)
   {
      // hypre's lane lane + G*j: its diagonal block's entries, then its off-diagonal block's
      double  sj = 0.0, dj = 0.0, mx = 0.0, mn = 0.0;
      int32_t pj = -1;
      for (int32_t k = pd + lane + G * j; k < qd; k += kHypreWarp)
      {
         const int32_t col = m.diag_j[k];
         if (!(one || row == col || fn == m.dof_func[col])) continue;
         const double v = m.diag_a[k];
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
      for (int32_t k = po + lane + G * j; k < qo; k += kHypreWarp)
      {
         if (!(one || fn == m.dof_func_offd[m.offd_j[k]])) continue;
         const double v = m.offd_a[k];
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
#pragma unroll
   for (int x = G / 2; x > 0; x >>= 1)
   {
      row_max = fmax(row_max, shfl_xor(row_max, x, G, group));
      row_min = fmin(row_min, shfl_xor(row_min, x, G, group));
   }
   const double diag      = tree_sum<G, V>(d, group);
   const double row_sum   = tree_sum<G, V>(s, group);
   const int    sdiag     = diag > 0.0 ? 1 : -1;
   const double row_scale = diag > 0.0 ? row_min : row_max;
   const bool   all_weak  = m.max_row_sum < 1.0 && fabs(row_sum) > fabs(diag) * m.max_row_sum;
   const double thresh    = sdiag * m.strength_threshold * row_scale;
   int          nd = 0, no = 0;
#pragma unroll
   for (int j = 0; j < V; ++j)
   {
      for (int32_t k = pd + lane + G * j; k < qd; k += kHypreWarp)
      {
         const int32_t col  = m.diag_j[k];
         const bool    cond = !all_weak && dp[j] != k && (one || fn == m.dof_func[col]) && sdiag * m.diag_a[k] < thresh;
         m.s_diag_j[k]      = cond ? col : -1;
         nd += cond;
      }
      if (dp[j] >= 0) m.s_diag_j[dp[j]] = -2;
      for (int32_t k = po + lane + G * j; k < qo; k += kHypreWarp)
      {
         const bool cond = !all_weak && (one || fn == m.dof_func_offd[m.offd_j[k]]) && sdiag * m.offd_a[k] < thresh;
         m.s_offd_j[k]   = cond ? m.offd_j[k] : -1;
         no += cond;
      }
   }
#pragma unroll
   for (int x = G / 2; x > 0; x >>= 1)
   {
      nd += shfl_xor(nd, x, G, group);
      no += shfl_xor(no, x, G, group);
   }
   if (active && lane == 0)
   {
      m.js_diag[row] = nd;
      m.js_offd[row] = no;
   }
}

} // namespace

int strength_warp() { return kHypreWarp; }

void strength_rowcount(const StrengthRows& m, Stream s)
{
   check_strength_rows(m, kHypreWarp);
   if (m.nrows == 0) return;
   const int32_t lanes = lanes_per_entry(m.diag_nnz + m.offd_nnz, m.nrows);
   with_lanes<4>(lanes, [&](auto g) {
      constexpr int G = decltype(g)::value;
      strength_kernel<G><<<blocks_for(static_cast<int64_t>(m.nrows) * G), kThreads, 0, s>>>(m);
   });
   AMGT_DEVICE_CHECK_LAUNCH("strength_kernel");
}

} // namespace amgt::device
