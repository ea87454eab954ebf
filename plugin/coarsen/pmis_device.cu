// The per-sweep kernels of hypre's PMIS coarsening on the GPU (coarsen/pmis_device.h).
//
// hypre gives each graph row a warp. Each load waits on the one before: the row's index, its
// row pointers, then in a loop over its strong connections (32 at a time) a column, then that
// column's measure (independent set) or C/F marker (update); the off-diagonal block follows in
// a second loop (in the update, only while the diagonal block found no C point), and the warp
// meets in a reduction. With 5-26 connections a row most lanes idle, and a warp has one row's
// few bytes in flight per trip: the kernels are latency-bound, far from their bytes' roofline.
//
// Here a group of G lanes takes a row, each lane kSlots connections at a time, so that a warp
// holds 32 / G rows and a lane's loads of one trip go out together:
//   - a row's connections are one list of slots: slot s is the diagonal block's entry s for s
//     below the row's nd diagonal entries, else the off-diagonal block's entry s - nd. Lane l
//     holds the slots l + G * e (e < kSlots; coalesced for each e), and a row longer than
//     G * kSlots takes further chunks. Both blocks' row pointers load in one trip, next to the
//     row's measure or marker, and a few off-diagonal connections cost no extra trip.
//   - in a chunk a lane loads all its columns, then all their measures (markers), then decides:
//     two trips for its kSlots connections together, not two for each in turn.
//   - G is the fewest lanes (1 to 32) whose slots cover the mean row (both blocks): for ~6
//     connections G = 2 and a warp holds 16 rows, against 4 with a lane a connection. The work
//     of a row (its index, pointers, verdict) is done by fewer lanes, and a warp's gathers of
//     neighbouring rows' columns fall on fewer lines.
//   - no lane waits for another: each verdict is a constant store, so every lane that finds it
//     writes it (the same value to the same word; hypre reduces over the warp and lane 0
//     writes). No shuffles, so a group past the end of the graph just returns.
//   - the kernels are instantiated with and without an off-diagonal block (Offd): without one
//     (a single process) a slot needs no block test. Every variant stays within 32 registers,
//     so a multiprocessor holds its 2048 threads.
//   - what a kernel only reads goes through the read-only path (__ldg): the graph, S, and the
//     measures in the independent set (it writes only the is_* markers, distinct arrays). The
//     update writes cf_diag, so it reads cf_diag with plain loads (a read may see a 0 that
//     another row turns into -1: `> 0` cannot tell them apart); cf_offd shares that load
//     through a selected pointer (one load a slot, not two, which keeps 32 registers).
//   - the update needs a row's connections only for an undecided row (marker 0). A C point
//     (> 0) gets measure 0; an F point (-1) is written back as one, with measure 0; a marker
//     below -1 stays (hypre's minimum of the marker and -1 is the marker). An undecided row
//     becomes F if any connection in either block is a C point: hypre's diagonal-first order
//     decides only which reads it skips, so reading the off-diagonal slots with the diagonal
//     ones (valid entries of read-only arrays) changes no result. A lane stops at the chunk
//     where it found a C point (hypre's break).
// Results equal the references exactly (pmis.h: every write stores a constant and no read
// depends on the order of the rows or entries; tests/gpu/test_pmis_device.cpp).
#include "coarsen/pmis_device.h"

#include "common/error.h"
#include "device/launch.h"
#include "device/warp.cuh"

namespace amgt::device {
namespace {

// Connections a lane loads at once (a chunk of a row: G * kSlots slots). 4 keeps both kernels
// at 32 registers; 8 would take the independent set to 56.
constexpr int kSlots = 4;

// A graph row's connections as one list of slots: nd diagonal ones from db, then n - nd
// off-diagonal ones from ob. Offd: S has an off-diagonal block (s_offd_nnz > 0; without one,
// as for an empty diagonal block, its row pointers are not read and every slot is diagonal).
template <bool Offd>
struct RowSlots
{
   int32_t db, nd, ob, n;

   __device__ __forceinline__ RowSlots(const PmisGraph& g, int32_t row) : db(0), nd(0), ob(0), n(0)
   {
      if (g.s_diag_nnz > 0)
      {
         db = __ldg(g.s_diag_i + row);
         nd = __ldg(g.s_diag_i + row + 1) - db;
      }
      n = nd;
      if (Offd)
      {
         ob = __ldg(g.s_offd_i + row);
         n += __ldg(g.s_offd_i + row + 1) - ob;
      }
   }
   // slot s < n in the diagonal block
   __device__ __forceinline__ bool diag(int32_t s) const { return !Offd || s < nd; }
   // the column of slot s < n (in the numbering of its block)
   __device__ __forceinline__ int32_t col(const PmisGraph& g, int32_t s) const
   {
      return __ldg(diag(s) ? g.s_diag_j + (db + s) : g.s_offd_j + (ob + (s - nd)));
   }
};

template <int G, bool Offd>
__global__ void __launch_bounds__(kThreads)
indep_set_kernel(PmisGraph g, const double* __restrict__ measure_diag, const double* __restrict__ measure_offd,
                 int32_t* is_diag, int32_t* is_offd, int32_t temp_mark)
{
   const int64_t w = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) / G;
   if (w >= g.graph_size) return; // the whole group
   const int            lane = static_cast<int>(threadIdx.x & (G - 1));
   const int32_t        row  = __ldg(g.graph + w);
   const double         mrow = __ldg(measure_diag + row); // in the trip of the row pointers
   const RowSlots<Offd> r(g, row);
   bool                 keep = true; // this lane's verdict; any lane's false takes the row out
   for (int32_t base = lane; base < r.n; base += G * kSlots)
   {
      int32_t j[kSlots];
      double  t[kSlots];
#pragma unroll
      for (int e = 0; e < kSlots; ++e)
      {
         const int32_t s = base + e * G;
         j[e]            = s < r.n ? r.col(g, s) : 0;
      }
#pragma unroll
      for (int e = 0; e < kSlots; ++e)
      {
         const int32_t s = base + e * G;
         t[e]            = s < r.n ? __ldg((r.diag(s) ? measure_diag : measure_offd) + j[e]) : 0.0; // 0: skipped
      }
#pragma unroll
      for (int e = 0; e < kSlots; ++e)
      {
         const int32_t s = base + e * G;
         if (!(t[e] > 1.0)) continue;
         if (mrow > t[e])
         {
            if (r.diag(s)) is_diag[j[e]] = 0;
            else is_offd[j[e]] = temp_mark;
         }
         else if (t[e] > mrow) keep = false;
      }
   }
   if (!keep) is_diag[row] = 0;
}

template <int G, bool Offd>
__global__ void __launch_bounds__(kThreads)
update_cf_kernel(PmisGraph g, double* measure_diag, int32_t* cf_diag, const int32_t* __restrict__ cf_offd)
{
   const int64_t w = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) / G;
   if (w >= g.graph_size) return; // the whole group
   const int     lane   = static_cast<int>(threadIdx.x & (G - 1));
   const int32_t row    = __ldg(g.graph + w);
   const int32_t marker = cf_diag[row]; // plain loads of cf_diag: this kernel writes it
   // the row pointers load with the marker (valid for any row: no wait on the marker); only an
   // undecided row reads its connections
   const RowSlots<Offd> r(g, row);
   const int32_t        n    = marker == 0 ? r.n : 0;
   bool                 f_pt = marker == -1; // an F point stays one
   for (int32_t base = lane; base < n; base += G * kSlots)
   {
      int32_t j[kSlots], c[kSlots];
#pragma unroll
      for (int e = 0; e < kSlots; ++e)
      {
         const int32_t s = base + e * G;
         j[e]            = s < n ? r.col(g, s) : 0;
      }
#pragma unroll
      for (int e = 0; e < kSlots; ++e)
      {
         const int32_t s = base + e * G;
         c[e]            = s < n ? (r.diag(s) ? cf_diag : cf_offd)[j[e]] : 0;
      }
#pragma unroll
      for (int e = 0; e < kSlots; ++e) f_pt = f_pt || c[e] > 0; // a C point
      if (f_pt) break;
   }
   if (f_pt) cf_diag[row] = -1; // F_PT (every lane that found a C point: the same store)
   if (f_pt || marker > 0) measure_diag[row] = 0.0;
}

// The fewest lanes (a power of two up to a warp) whose kSlots slots cover a mean row.
int32_t lanes_of(const PmisGraph& g)
{
   const int64_t mean  = g.nrows > 0 ? (g.s_diag_nnz + g.s_offd_nnz + g.nrows - 1) / g.nrows : 0;
   int32_t       lanes = 1;
   while (lanes < kWarpSize && lanes * static_cast<int64_t>(kSlots) < mean) lanes *= 2;
   return lanes;
}

} // namespace

void indep_set_main(const PmisGraph& g, const double* measure_diag, const double* measure_offd,
                    int32_t* is_diag, int32_t* is_offd, int32_t temp_mark, Stream s)
{
   check_pmis_graph(g);
   if (g.graph_size == 0) return;
   AMGT_REQUIRE(measure_diag && is_diag && (g.s_offd_nnz == 0 || (measure_offd && is_offd)),
                "pmis: a measure or marker array is null");
   with_lanes<1>(lanes_of(g), [&](auto l) {
      constexpr int G = decltype(l)::value;
      const unsigned blocks = blocks_for(static_cast<int64_t>(g.graph_size) * G);
      if (g.s_offd_nnz > 0)
         indep_set_kernel<G, true><<<blocks, kThreads, 0, s>>>(g, measure_diag, measure_offd, is_diag, is_offd, temp_mark);
      else indep_set_kernel<G, false><<<blocks, kThreads, 0, s>>>(g, measure_diag, measure_offd, is_diag, is_offd, temp_mark);
   });
   AMGT_DEVICE_CHECK_LAUNCH("indep_set_kernel");
}

void pmis_update_cf(const PmisGraph& g, double* measure_diag, int32_t* cf_diag, const int32_t* cf_offd, Stream s)
{
   check_pmis_graph(g);
   if (g.graph_size == 0) return;
   AMGT_REQUIRE(measure_diag && cf_diag && (g.s_offd_nnz == 0 || cf_offd), "pmis: a measure or marker array is null");
   with_lanes<1>(lanes_of(g), [&](auto l) {
      constexpr int G = decltype(l)::value;
      const unsigned blocks = blocks_for(static_cast<int64_t>(g.graph_size) * G);
      if (g.s_offd_nnz > 0) update_cf_kernel<G, true><<<blocks, kThreads, 0, s>>>(g, measure_diag, cf_diag, cf_offd);
      else update_cf_kernel<G, false><<<blocks, kThreads, 0, s>>>(g, measure_diag, cf_diag, cf_offd);
   });
   AMGT_DEVICE_CHECK_LAUNCH("update_cf_kernel");
}

} // namespace amgt::device
