#include "spmv/spmv.h"

#include "common/error.h"
#include "spmv/combine.h"

#include <algorithm>
#include <cstddef>
#include <string>

namespace amgt {

using spmv_ref_detail::combine;
using spmv_ref_detail::needs_product;

template <class V>
void spmv_ref(const Mbsr<V>& A, double alpha, const double* x, double beta, double* y,
              const double* unscale)
{
   using T   = SpmvTraits<V>; // common/precision.h: values widened to double, double FMAs
   using Acc = typename T::acc_t;
   if (!needs_product("spmv", A.nrows, A.ncols, alpha, x, beta, y, unscale)) return;
   AMGT_REQUIRE(A.blk_ptr.size() == static_cast<size_t>(A.block_rows()) + 1,
                "spmv: blk_ptr does not match the number of block rows");

   for (int32_t bi = 0; bi < A.block_rows(); ++bi)
   {
      Acc sum[kTileDim] = {};
      for (int32_t t = A.blk_ptr[bi]; t < A.blk_ptr[bi + 1]; ++t)
      {
         const uint16_t map  = A.blk_map[t];
         const V*       vals = &A.blk_val[static_cast<size_t>(t) * 16];
         const int32_t  c0   = A.blk_col[t] * kTileDim;
         for (int r = 0; r < kTileDim; ++r)
         {
            for (int c = 0; c < kTileDim; ++c)
            {
               // Set bits never lie past ncols, so this is the only guard x needs.
               if (!bit_at(map, r, c)) continue;
               // x_j * u_j in double (-ffp-contract=off: no fusion with anything), then
               // rounded once.
               const double xj = unscale ? x[c0 + c] * unscale[c0 + c] : x[c0 + c];
               sum[r]          = T::madd(T::to_acc(vals[bit_index(r, c)]), T::round_x(xj), sum[r]);
            }
         }
      }
      const int rows = std::min(kTileDim, A.nrows - bi * kTileDim);
      for (int r = 0; r < rows; ++r)
      {
         const int32_t i  = bi * kTileDim + r;
         const double  ax = unscale ? static_cast<double>(sum[r]) * unscale[i]
                                    : static_cast<double>(sum[r]);
         y[i]             = combine(alpha, ax, beta, y[i]);
      }
   }
}

void csr_spmv_ref(const CsrView& A, double alpha, const double* x, double beta, double* y)
{
   validate_csr(A);
   if (!needs_product("csr_spmv", A.nrows, A.ncols, alpha, x, beta, y)) return;
   for (int32_t i = 0; i < A.nrows; ++i)
   {
      double sum = 0.0;
      for (int32_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      {
         sum += (A.val ? A.val[p] : 1.0) * x[A.col[p]];
      }
      y[i] = combine(alpha, sum, beta, y[i]);
   }
}

template void spmv_ref<double>(const Mbsr<double>&, double, const double*, double, double*,
                             const double*);
template void spmv_ref<float>(const Mbsr<float>&, double, const double*, double, double*,
                             const double*);
template void spmv_ref<half_t>(const Mbsr<half_t>&, double, const double*, double, double*,
                             const double*);

} // namespace amgt
