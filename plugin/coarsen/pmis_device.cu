// The per-sweep kernels of hypre's PMIS coarsening on the GPU (coarsen/pmis_device.h): a group
// of G lanes a graph row instead of hypre's warp, so that rows of 5-26 strong connections keep
// most lanes busy; the group's verdicts meet in a shuffle. Results as hypre's (pmis.h: order-free).
#include "coarsen/pmis_device.h"

#include "common/error.h"
#include "device/launch.h"
#include "device/warp.cuh"

namespace amgt::device {
namespace {

// the group's minimum (the verdicts are 0 / 1 / a row's marker)
template <int G>
__device__ __forceinline__ int32_t group_min(int32_t v, LaneMask group)
{
#pragma unroll
   for (int x = G / 2; x > 0; x >>= 1)
   {
      const int32_t o = shfl_xor(v, x, G, group);
      v               = o < v ? o : v;
   }
   return v;
}

template <int G>
__global__ void __launch_bounds__(kThreads)
indep_set_kernel(PmisGraph g, const double* __restrict__ measure_diag, const double* __restrict__ measure_offd,
                 int32_t* is_diag, int32_t* is_offd, int32_t temp_mark)
{
   const int64_t  t      = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   const int64_t  w      = t / G;
   const int      lane   = static_cast<int>(threadIdx.x & (G - 1));
   const LaneMask group  = group_lanes<G>();
   const bool     active = w < g.graph_size; // a whole group is in or out
   const int32_t  row    = active ? g.graph[w] : 0;
   const double   mrow   = active ? measure_diag[row] : 0.0;
   int32_t        keep   = 1;
   const int32_t  db = active && g.s_diag_nnz > 0 ? g.s_diag_i[row] : 0;
   const int32_t  de = active && g.s_diag_nnz > 0 ? g.s_diag_i[row + 1] : 0;
   for (int32_t k = db + lane; k < de; k += G)
   {
      const int32_t j = g.s_diag_j[k];
      const double  v = measure_diag[j];
      if (!(v > 1.0)) continue;
      if (mrow > v) is_diag[j] = 0;
      else if (v > mrow) keep = 0;
   }
   const int32_t ob = active && g.s_offd_nnz > 0 ? g.s_offd_i[row] : 0;
   const int32_t oe = active && g.s_offd_nnz > 0 ? g.s_offd_i[row + 1] : 0;
   for (int32_t k = ob + lane; k < oe; k += G)
   {
      const int32_t j = g.s_offd_j[k];
      const double  v = measure_offd[j];
      if (!(v > 1.0)) continue;
      if (mrow > v) is_offd[j] = temp_mark;
      else if (v > mrow) keep = 0;
   }
   keep = group_min<G>(keep, group);
   if (active && lane == 0 && keep == 0) is_diag[row] = 0;
}

template <int G>
__global__ void __launch_bounds__(kThreads)
update_cf_kernel(PmisGraph g, double* measure_diag, int32_t* cf_diag, const int32_t* __restrict__ cf_offd)
{
   const int64_t  t      = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   const int64_t  w      = t / G;
   const int      lane   = static_cast<int>(threadIdx.x & (G - 1));
   const LaneMask group  = group_lanes<G>();
   const bool     active = w < g.graph_size;
   const int32_t  row    = active ? g.graph[w] : 0;
   // cf_diag is written by this kernel (0 -> -1): plain loads
   const int32_t  marker = active ? cf_diag[row] : 1;
   if (marker > 0)
   {
      if (active && lane == 0) measure_diag[row] = 0.0;
      return; // the whole group: marker is the group's
   }
   int32_t       m  = marker;
   const int32_t db = g.s_diag_nnz > 0 ? g.s_diag_i[row] : 0, de = g.s_diag_nnz > 0 ? g.s_diag_i[row + 1] : 0;
   for (int32_t k = db + lane; k < de; k += G)
   {
      if (cf_diag[g.s_diag_j[k]] > 0)
      {
         m = -1 < m ? -1 : m;
         break;
      }
   }
   m = group_min<G>(m, group);
   if (m == 0)
   {
      const int32_t ob = g.s_offd_nnz > 0 ? g.s_offd_i[row] : 0, oe = g.s_offd_nnz > 0 ? g.s_offd_i[row + 1] : 0;
      for (int32_t k = ob + lane; k < oe; k += G)
      {
         if (cf_offd[g.s_offd_j[k]] > 0)
         {
            m = -1;
            break;
         }
      }
      m = group_min<G>(m, group);
   }
   if (lane == 0 && m == -1)
   {
      cf_diag[row]      = -1; // F_PT
      measure_diag[row] = 0.0;
   }
}

int32_t lanes_of(const PmisGraph& g)
{
   return g.nrows > 0 ? lanes_per_entry(g.s_diag_nnz + g.s_offd_nnz, g.nrows) : 4;
}

} // namespace

void indep_set_main(const PmisGraph& g, const double* measure_diag, const double* measure_offd,
                    int32_t* is_diag, int32_t* is_offd, int32_t temp_mark, Stream s)
{
   check_pmis_graph(g);
   if (g.graph_size == 0) return;
   AMGT_REQUIRE(measure_diag && is_diag && (g.s_offd_nnz == 0 || (measure_offd && is_offd)),
                "pmis: a measure or marker array is null");
   with_lanes<4>(lanes_of(g), [&](auto l) {
      constexpr int G = decltype(l)::value;
      indep_set_kernel<G><<<blocks_for(static_cast<int64_t>(g.graph_size) * G), kThreads, 0, s>>>(
         g, measure_diag, measure_offd, is_diag, is_offd, temp_mark);
   });
   AMGT_DEVICE_CHECK_LAUNCH("indep_set_kernel");
}

void pmis_update_cf(const PmisGraph& g, double* measure_diag, int32_t* cf_diag, const int32_t* cf_offd, Stream s)
{
   check_pmis_graph(g);
   if (g.graph_size == 0) return;
   AMGT_REQUIRE(measure_diag && cf_diag && (g.s_offd_nnz == 0 || cf_offd), "pmis: a measure or marker array is null");
   with_lanes<4>(lanes_of(g), [&](auto l) {
      constexpr int G = decltype(l)::value;
      update_cf_kernel<G><<<blocks_for(static_cast<int64_t>(g.graph_size) * G), kThreads, 0, s>>>(
         g, measure_diag, cf_diag, cf_offd);
   });
   AMGT_DEVICE_CHECK_LAUNCH("update_cf_kernel");
}

} // namespace amgt::device
