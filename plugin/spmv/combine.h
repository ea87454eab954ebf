// The last step every SpMV reference shares (spmv_ref, csr_spmv_ref, rows_spmv_ref), so that
// they differ only in how A * x is formed: hypre's y = alpha * ax + beta * y, where beta == 0
// overwrites y and alpha == 0 scales y without reading A or x.
#pragma once

#include "common/error.h"

#include <cstdint>
#include <string>

namespace amgt::spmv_ref_detail {

inline double combine(double alpha, double ax, double beta, double y)
{
   return beta == 0.0 ? alpha * ax : alpha * ax + beta * y;
}

// What every reference checks and does before A * x (`op` names the caller in messages):
// unscale only with a square A; nothing to do without rows; y must exist; alpha == 0 only scales y (x is not read); x must
// exist unless A has no columns. False when y is already final.
inline bool needs_product(const char* op, int32_t nrows, int32_t ncols, double alpha, const double* x,
                          double beta, double* y, const double* unscale = nullptr)
{
   AMGT_REQUIRE(unscale == nullptr || nrows == ncols, std::string(op) + ": unscale needs a square matrix");
   if (nrows == 0) return false;
   AMGT_REQUIRE(y != nullptr, std::string(op) + ": y is null");
   if (alpha == 0.0)
   {
      for (int32_t i = 0; i < nrows; ++i) y[i] = beta == 0.0 ? 0.0 : beta * y[i];
      return false;
   }
   AMGT_REQUIRE(x != nullptr || ncols == 0, std::string(op) + ": x is null");
   return true;
}

} // namespace amgt::spmv_ref_detail
