// The diagonal of a CSR block on the GPU (csr/diag_device.h).
#include "csr/diag_device.h"

#include "common/error.h"
#include "device/launch.h"
#include "device/warp.cuh"

namespace amgt::device {
namespace {

template <int Op>
__device__ __forceinline__ double diag_value(double v)
{
   if constexpr (Op == 0) return v;
   else if constexpr (Op == 1) return fabs(v);
   else if constexpr (Op == 2) return v == 0.0 ? 0.0 : 1.0 / v;
   else if constexpr (Op == 3) return v == 0.0 ? 0.0 : 1.0 / sqrt(v);
   else return v == 0.0 ? 0.0 : 1.0 / sqrt(fabs(v));
}

// A group of G lanes a row: chunk by chunk of G entries, a ballot over the group finds the
// first column equal to the row; the group's lane 0 writes (d, or the swap of op 5).
template <int G, int Op>
__global__ void __launch_bounds__(kThreads) csr_diag_kernel(CsrDiag m)
{
   const int64_t  t      = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   const int64_t  r      = t / G;
   const int      lane   = static_cast<int>(threadIdx.x & (G - 1));
   const unsigned first  = (threadIdx.x & (kWarpSize - 1)) & ~static_cast<unsigned>(G - 1);
   const LaneMask group  = group_lanes<G>();
   // a group past the last row: an empty range, and it still meets its ballot
   const bool     active = r < m.nrows;
   const int32_t  row    = active ? static_cast<int32_t>(r) : 0;
   const int32_t  p      = active ? m.ia[row] : 0;
   const int32_t  q      = active ? m.ia[row + 1] : 0;
   int32_t        at     = -1;
   for (int32_t base = p;; base += G)
   {
      const int32_t  k    = base + lane;
      const bool     hit  = k < q && m.ja[k] == row;
      const LaneMask bits = (ballot(hit, group) >> first) & (G == 32 ? kAllLanes : ((LaneMask{1} << G) - 1));
      if (bits != 0)
      {
         at = base + __ffs(static_cast<int>(bits)) - 1;
         break;
      }
      if (base + G >= q) break;
   }
   if (!active || lane != 0) return;
   if constexpr (Op == kCsrDiagMoveFirst)
   {
      if (at > p)
      {
         const int32_t c = m.ja[at];
         const double  v = m.a[at];
         m.ja[at]        = m.ja[p];
         m.a[at]         = m.a[p];
         m.ja[p]         = c;
         m.a[p]          = v;
      }
   }
   else
   {
      m.d[row] = at >= 0 ? diag_value<Op>(m.a[at]) : 0.0;
   }
}

template <int G>
void launch(const CsrDiag& m, Stream s)
{
   const unsigned blocks = blocks_for(static_cast<int64_t>(m.nrows) * G);
   switch (m.op)
   {
   case 0: csr_diag_kernel<G, 0><<<blocks, kThreads, 0, s>>>(m); break;
   case 1: csr_diag_kernel<G, 1><<<blocks, kThreads, 0, s>>>(m); break;
   case 2: csr_diag_kernel<G, 2><<<blocks, kThreads, 0, s>>>(m); break;
   case 3: csr_diag_kernel<G, 3><<<blocks, kThreads, 0, s>>>(m); break;
   case 4: csr_diag_kernel<G, 4><<<blocks, kThreads, 0, s>>>(m); break;
   default: csr_diag_kernel<G, kCsrDiagMoveFirst><<<blocks, kThreads, 0, s>>>(m); break;
   }
}

} // namespace

void csr_diag(const CsrDiag& m, Stream s)
{
   check_csr_diag(m);
   if (m.nrows == 0) return;
   // the extraction mostly reads a row's first chunk only (the diagonal first): 4 lanes; the
   // move searches whole rows (a product's diagonal anywhere): a lane an entry of a mean row
   const int32_t lanes = m.op == kCsrDiagMoveFirst ? lanes_per_entry(m.nnz, m.nrows) : 4;
   with_lanes<4>(lanes, [&](auto g) { launch<decltype(g)::value>(m, s); });
   AMGT_DEVICE_CHECK_LAUNCH("csr_diag_kernel");
}

} // namespace amgt::device
