// The copy of a truncated interpolation matrix on the GPU (interp/truncation_device.h): a group
// of G lanes a row instead of hypre's warp (rows of at most max_elmts entries), each lane
// copying the entries lane, lane + G, ... of the row's diagonal, then off-diagonal, block.
#include "interp/truncation_device.h"

#include "common/error.h"
#include "device/launch.h"

namespace amgt::device {
namespace {

template <int G>
__global__ void __launch_bounds__(kThreads) trunc_copy_kernel(TruncCopy m)
{
   const int64_t t    = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   const int64_t r    = t / G;
   const int     lane = static_cast<int>(t & (G - 1));
   if (r >= m.nrows) return; // no shuffles: a lane may leave
   const int32_t i = static_cast<int32_t>(r);
   {
      const int32_t p = m.diag_i_new[i], q = m.diag_i_new[i + 1], shift = m.diag_i[i] - p;
      for (int32_t k = p + lane; k < q; k += G)
      {
         m.diag_j_new[k] = m.diag_j[k + shift];
         m.diag_a_new[k] = m.diag_a[k + shift];
      }
   }
   const int32_t p = m.offd_i_new[i], q = m.offd_i_new[i + 1], shift = m.offd_i[i] - p;
   for (int32_t k = p + lane; k < q; k += G)
   {
      m.offd_j_new[k] = m.offd_j[k + shift];
      m.offd_a_new[k] = m.offd_a[k + shift];
   }
}

} // namespace

void trunc_copy(const TruncCopy& m, Stream s)
{
   check_trunc_copy(m);
   if (m.nrows == 0) return;
   with_lanes<4>(lanes_per_entry(m.nnz_new, m.nrows), [&](auto g) {
      constexpr int G = decltype(g)::value;
      trunc_copy_kernel<G><<<blocks_for(static_cast<int64_t>(m.nrows) * G), kThreads, 0, s>>>(m);
   });
   AMGT_DEVICE_CHECK_LAUNCH("trunc_copy_kernel");
}

} // namespace amgt::device
