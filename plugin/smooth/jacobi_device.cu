// The l1-Jacobi sweep from u = 0 on the GPU (smooth/jacobi_device.h). One thread per entry:
// 32 bytes per entry (f, l1 read; u, vtemp written) against hypre's 64 over three kernels.
#include "smooth/jacobi_device.h"

#include "common/error.h"
#include "device/launch.h"

namespace amgt::device {
namespace {

__global__ void __launch_bounds__(kThreads)
jacobi_from_zero_kernel(int64_t n, double w, const double* __restrict__ f,
                        const double* __restrict__ l1, double* __restrict__ u,
                        double* __restrict__ vtemp)
{
   const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (i >= n) return;
   // the reference's three operations in its order; none of them can contract into an FMA
   const double v = w * f[i];
   vtemp[i]       = v;
   u[i]           = 0.0 + v / l1[i];
}

} // namespace

void jacobi_from_zero(int64_t n, double w, const double* f, const double* l1, double* u,
                      double* vtemp, Stream s)
{
   AMGT_REQUIRE(n >= 0, "jacobi_from_zero: negative length");
   if (n == 0) return;
   AMGT_REQUIRE(f != nullptr && l1 != nullptr && u != nullptr && vtemp != nullptr,
                "jacobi_from_zero: a vector is null");
   jacobi_from_zero_kernel<<<blocks_for(n), kThreads, 0, s>>>(n, w, f, l1, u, vtemp);
   AMGT_DEVICE_CHECK_LAUNCH("jacobi_from_zero_kernel");
}

} // namespace amgt::device
