// The last step every SpMV reference shares (spmv_ref, csr_spmv_ref, rows_spmv_ref), so that
// they differ only in how A * x is formed: hypre's y = alpha * ax + beta * y, where beta == 0
// overwrites y and alpha == 0 scales y without reading A or x.
#pragma once

#include <cstdint>

namespace amgt::spmv_ref_detail {

inline double combine(double alpha, double ax, double beta, double y)
{
   return beta == 0.0 ? alpha * ax : alpha * ax + beta * y;
}

inline void scale_only(int32_t n, double beta, double* y)
{
   for (int32_t i = 0; i < n; ++i) y[i] = beta == 0.0 ? 0.0 : beta * y[i];
}

} // namespace amgt::spmv_ref_detail
