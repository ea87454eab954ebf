// Row sums of a CSR block on the GPU (csr/row_sums_device.h).
#include "csr/row_sums_device.h"

#include "common/error.h"
#include "device/launch.h"
#include "device/warp.cuh"

namespace amgt::device {
namespace {

constexpr int kHypreWarp = kWavefrontSize; // HYPRE_WARP_SIZE

// s_i into out: scal * s_i, or added to out_i as fma(scal, s_i, out_i)
__device__ __forceinline__ void put_row_sum(const RowSums& m, int32_t row, double s)
{
   m.out[row] = m.set ? m.scal * s : fma(m.scal, s, m.out[row]);
}

// One row by a group of G lanes (`lane` of `group`), lane l standing for hypre's lanes l + G*j
// (j < V); a group without a row (active false) sees an empty range and still meets its
// shuffles. Lane 0 writes the row's sum.
template <int G, int Type>
__device__ __forceinline__ void row_sums_row(const RowSums& m, const bool active, const int32_t row,
                                             const int lane, const LaneMask group)
{
   constexpr int V      = kHypreWarp / G; // hypre lanes a lane stands for
   const int32_t p      = active ? m.ia[row] : 0;
   const int32_t q      = active ? m.ia[row + 1] : 0;
   const int32_t cf_row = active && m.cf_i ? m.cf_i[row] : 0;
   double        v[V];
   if (q - p <= kHypreWarp)
   {
      // a row of at most a warp's entries (hypre lane h holds entry p + h or none): the V
      // entries of a lane loaded at once, as straight-line code
#pragma unroll
      for (int j = 0; j < V; ++j)
      {
         const int32_t k = p + lane + G * j;
         double        s = 0.0;
         if (k < q && (!m.cf_i || cf_row == m.cf_j[m.ja[k]]))
         {
            const double a = m.a[k];
            s += Type == 1 ? fabs(a) : a; // 0.0 + a, as hypre's sum (-0 becomes +0)
         }
         v[j] = s;
      }
   }
   else
   {
#pragma unroll
      for (int j = 0; j < V; ++j)
      {
         double s = 0.0;
         for (int32_t k = p + lane + G * j; k < q; k += kHypreWarp)
         {
            if (m.cf_i && cf_row != m.cf_j[m.ja[k]]) continue;
            const double a = m.a[k];
            s += Type == 1 ? fabs(a) : a;
         }
         v[j] = s;
      }
   }
   const double s = tree_sum<G, V>(v, group);
   if (active && lane == 0) put_row_sum(m, row, s);
}

template <int G, int Type>
__global__ void __launch_bounds__(kThreads) row_sums_kernel(RowSums m)
{
   const int64_t r      = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) / G;
   const bool    active = r < m.nrows; // a group past the last row: an empty range
   row_sums_row<G, Type>(m, active, active ? static_cast<int32_t>(r) : 0,
                         static_cast<int>(threadIdx.x & (G - 1)), group_lanes<G>());
}

// The V slots of a thread's row of n <= V entries (hypre's warp lanes 0..V-1; lanes V and up
// hold +0), each 0.0 + the entry as hypre's lane sums start, 0.0 where the C/F filter drops it.
template <int V, int Type>
__device__ __forceinline__ void short_row_slots(const RowSums& m, int32_t p, int32_t q, int32_t cf_row,
                                                double (&v)[V])
{
#pragma unroll
   for (int j = 0; j < V; ++j)
   {
      const int32_t k = p + j;
      double        s = 0.0;
      if (k < q && (!m.cf_i || cf_row == m.cf_j[m.ja[k]]))
      {
         const double a = m.a[k];
         s += Type == 1 ? fabs(a) : a;
      }
      v[j] = s;
   }
}

// A thread a row, for blocks whose mean row holds at most 8 entries. A row of n <= 8 (16)
// entries leaves hypre's lanes 8 (16) and up at +0; the butterfly's levels above 4 (8) add +0
// to sums that are never -0 (each starts at 0.0), which changes none of them, so the lower
// levels over the thread's 8 (16) slots are hypre's sum bit for bit. Longer rows: the warp
// takes them one after another as the group kernel does with G = 32 (row_sums_row; lane l
// stands for hypre's lanes l, l + 32 with HIP's 64-lane warps).
template <int Type>
__global__ void __launch_bounds__(kThreads) row_sums_thread_kernel(RowSums m)
{
   // a thread past the last row has no row, and still meets its warp's shuffles
   const auto [lane, active, row] = thread_row(m.nrows);
   const int32_t p      = active ? m.ia[row] : 0;
   const int32_t q      = active ? m.ia[row + 1] : 0;
   const int32_t cf_row = active && m.cf_i ? m.cf_i[row] : 0;
   const int32_t n      = q - p;
   if (active && n <= 8)
   {
      double v[8];
      short_row_slots<8, Type>(m, p, q, cf_row, v);
      put_row_sum(m, row, tree_sum<1, 8>(v, group_lanes<1>()));
   }
   else if (active && n <= 16)
   {
      double v[16];
      short_row_slots<16, Type>(m, p, q, cf_row, v);
      put_row_sum(m, row, tree_sum<1, 16>(v, group_lanes<1>()));
   }
   for (LaneMask pending = ballot(active && n > 16); pending != 0; pending &= pending - 1)
   {
      const int src = __ffs(pending) - 1;
      row_sums_row<kWarpSize, Type>(m, true, shfl(row, src), lane, kAllLanes);
   }
}

// a block without entries: every s_i is 0
__global__ void __launch_bounds__(kThreads) row_sums_empty_kernel(RowSums m)
{
   const int64_t row = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (row >= m.nrows) return;
   m.out[row] = m.set ? m.scal * 0.0 : fma(m.scal, 0.0, m.out[row]);
}

template <int G>
__global__ void __launch_bounds__(kThreads) weak_row_sums_kernel(WeakRowSums m)
{
   constexpr int  V      = kHypreWarp / G;
   const int64_t  t      = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   const int64_t  r      = t / G;
   const int      lane   = static_cast<int>(threadIdx.x & (G - 1));
   const LaneMask group  = group_lanes<G>();
   // a group past the last row or of a row left as it is: empty ranges; it meets its shuffles
   const bool     active = r < m.nrows && m.cf_marker[r] < m.flag;
   const int32_t  row    = active ? static_cast<int32_t>(r) : 0;
   const int32_t  pd = active ? m.diag_i[row] : 0, qd = active ? m.diag_i[row + 1] : 0;
   const int32_t  po = active && m.has_offd ? m.offd_i[row] : 0, qo = active && m.has_offd ? m.offd_i[row + 1] : 0;
   double         v[V];
#pragma unroll
   for (int j = 0; j < V; ++j)
   {
      double s = 0.0;
      for (int32_t k = pd + lane + G * j; k < qd; k += kHypreWarp) s = fma(m.diag_a[k], m.soc_diag_j[k] < 0 ? 1.0 : 0.0, s);
      for (int32_t k = po + lane + G * j; k < qo; k += kHypreWarp) s = fma(m.offd_a[k], m.soc_offd_j[k] < 0 ? 1.0 : 0.0, s);
      v[j] = s;
   }
   const double s = tree_sum<G, V>(v, group);
   if (active && lane == 0) m.rs[row] = s;
}

} // namespace

int row_sums_warp() { return kHypreWarp; }

void row_sums(const RowSums& m, Stream s)
{
   check_row_sums(m, kHypreWarp);
   if (m.nrows == 0) return;
   if (m.ncols == 0)
   {
      row_sums_empty_kernel<<<blocks_for(m.nrows), kThreads, 0, s>>>(m);
      AMGT_DEVICE_CHECK_LAUNCH("row_sums_empty_kernel");
      return;
   }
   const int32_t lanes = lanes_per_entry(m.nnz, m.nrows); // nnz: a hint (0: a thread a row)
   if (lanes <= 8)
   {
      const unsigned blocks = blocks_for(m.nrows);
      if (m.type == 1) row_sums_thread_kernel<1><<<blocks, kThreads, 0, s>>>(m);
      else row_sums_thread_kernel<0><<<blocks, kThreads, 0, s>>>(m);
      AMGT_DEVICE_CHECK_LAUNCH("row_sums_thread_kernel");
      return;
   }
   with_lanes<16>(lanes, [&](auto g) {
      constexpr int G = decltype(g)::value;
      const unsigned blocks = blocks_for(static_cast<int64_t>(m.nrows) * G);
      if (m.type == 1) row_sums_kernel<G, 1><<<blocks, kThreads, 0, s>>>(m);
      else row_sums_kernel<G, 0><<<blocks, kThreads, 0, s>>>(m);
   });
   AMGT_DEVICE_CHECK_LAUNCH("row_sums_kernel");
}

void weak_row_sums(const WeakRowSums& m, Stream s)
{
   check_weak_row_sums(m, kHypreWarp);
   if (m.nrows == 0) return;
   with_lanes<4>(lanes_per_entry(m.nnz, m.nrows), [&](auto g) {
      constexpr int G = decltype(g)::value;
      weak_row_sums_kernel<G><<<blocks_for(static_cast<int64_t>(m.nrows) * G), kThreads, 0, s>>>(m);
   });
   AMGT_DEVICE_CHECK_LAUNCH("weak_row_sums_kernel");
}

} // namespace amgt::device
