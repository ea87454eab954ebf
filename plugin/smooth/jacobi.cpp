// CPU reference of the l1-Jacobi sweep from zero (smooth/jacobi.h).
#include "smooth/jacobi.h"

#include "common/error.h"

namespace amgt {

void jacobi_from_zero_ref(int64_t n, double w, const double* f, const double* l1, double* u,
                          double* vtemp)
{
   AMGT_REQUIRE(n >= 0, "jacobi_from_zero: negative length");
   if (n == 0) return;
   AMGT_REQUIRE(f != nullptr && l1 != nullptr && u != nullptr && vtemp != nullptr,
                "jacobi_from_zero: a vector is null");
   for (int64_t i = 0; i < n; ++i)
   {
      const double v = w * f[i];
      vtemp[i]       = v;
      u[i]           = 0.0 + v / l1[i];
   }
}

} // namespace amgt
