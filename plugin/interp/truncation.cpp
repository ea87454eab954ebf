// The copy of a truncated interpolation matrix on the host (interp/truncation.h).
#include "interp/truncation.h"

#include "common/error.h"

namespace amgt {

void check_trunc_copy(const TruncCopy& m)
{
   AMGT_REQUIRE(m.nrows >= 0 && m.nnz_new >= 0, "truncation: a negative size");
   if (m.nrows == 0) return;
   AMGT_REQUIRE(m.diag_i && m.offd_i && m.diag_i_new && m.offd_i_new, "truncation: a row pointer is null");
}

namespace {

void copy_block(int32_t nrows, const int32_t* ip, const int32_t* jp, const double* ap, const int32_t* inew,
                int32_t* jnew, double* anew)
{
   for (int32_t i = 0; i < nrows; ++i)
   {
      AMGT_REQUIRE(inew[i + 1] - inew[i] <= ip[i + 1] - ip[i], "truncation: a new row longer than its old one");
      const int32_t shift = ip[i] - inew[i];
      for (int32_t k = inew[i]; k < inew[i + 1]; ++k)
      {
         jnew[k] = jp[k + shift];
         anew[k] = ap[k + shift];
      }
   }
}

} // namespace

void trunc_copy_ref(const TruncCopy& m)
{
   check_trunc_copy(m);
   if (m.nrows == 0) return;
   copy_block(m.nrows, m.diag_i, m.diag_j, m.diag_a, m.diag_i_new, m.diag_j_new, m.diag_a_new);
   copy_block(m.nrows, m.offd_i, m.offd_j, m.offd_a, m.offd_i_new, m.offd_j_new, m.offd_a_new);
}

} // namespace amgt
