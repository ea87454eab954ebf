// y = alpha * A * x + beta * y on the host: the oracle for the GPU SpMV kernels.
//
// hypre's semantics: beta == 0 overwrites y (a NaN already in y does not survive), and
// alpha == 0 gives y = beta * y without reading A or x (so an Inf in x does not turn into
// NaN). x has A.ncols entries and y has A.nrows entries; neither is touched past its end,
// partial tiles included.
#pragma once

#include "mbsr/mbsr.h"

namespace amgt {

// Rounding as in common/precision.h. Each row accumulates in acc_t in ascending column order
// (tiles by block column, then column inside the tile); GPU kernels sum in other orders and
// agree with this only within the tolerance of tests/common/tolerances.h, except on inputs
// whose partial sums are all exact (small integers), where they must agree bit for bit.
template <class V>
void spmv_ref(const Mbsr<V>& A, double alpha, const double* x, double beta, double* y);

// Plain fp64 CSR loop in the stored order of each row: an oracle independent of mBSR.
void csr_spmv_ref(const CsrView& A, double alpha, const double* x, double beta, double* y);

extern template void spmv_ref<double>(const Mbsr<double>&, double, const double*, double, double*);
extern template void spmv_ref<float>(const Mbsr<float>&, double, const double*, double, double*);
extern template void spmv_ref<half_t>(const Mbsr<half_t>&, double, const double*, double, double*);

} // namespace amgt
