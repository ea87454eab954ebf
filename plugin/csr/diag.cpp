// The diagonal of a CSR block on the host (csr/diag.h).
#include "csr/diag.h"

#include "common/error.h"

#include <cmath>
#include <utility>

namespace amgt {

void check_csr_diag(const CsrDiag& m)
{
   AMGT_REQUIRE(m.nrows >= 0 && m.nnz >= 0, "diagonal: a negative size");
   AMGT_REQUIRE(m.op >= 0 && m.op <= kCsrDiagMoveFirst, "diagonal: op is 0-4 (extract) or 5 (diagonal first)");
   if (m.nrows == 0) return;
   AMGT_REQUIRE(m.ia, "diagonal: the row pointers are null");
   AMGT_REQUIRE(m.op == kCsrDiagMoveFirst || m.d, "diagonal: the output is null");
   AMGT_REQUIRE(m.nnz == 0 || (m.ja && m.a), "diagonal: a block with entries without its arrays");
}

namespace {

double diag_value(double v, int32_t op)
{
   switch (op)
   {
   case 0: return v;
   case 1: return std::fabs(v);
   case 2: return v == 0.0 ? 0.0 : 1.0 / v;
   case 3: return v == 0.0 ? 0.0 : 1.0 / std::sqrt(v);
   default: return v == 0.0 ? 0.0 : 1.0 / std::sqrt(std::fabs(v));
   }
}

} // namespace

void csr_diag_ref(const CsrDiag& m)
{
   check_csr_diag(m);
   for (int32_t row = 0; row < m.nrows; ++row)
   {
      const int32_t p = m.ia[row], q = m.ia[row + 1];
      int32_t       k = p;
      while (k < q && m.ja[k] != row) ++k;
      if (m.op == kCsrDiagMoveFirst)
      {
         if (k < q && k != p)
         {
            std::swap(m.ja[k], m.ja[p]);
            std::swap(m.a[k], m.a[p]);
         }
      }
      else
      {
         m.d[row] = k < q ? diag_value(m.a[k], m.op) : 0.0;
      }
   }
}

} // namespace amgt
