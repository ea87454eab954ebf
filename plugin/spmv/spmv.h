// y = alpha * A * x + beta * y on the host: the oracle for the GPU SpMV kernels.
//
// hypre's semantics: beta == 0 overwrites y (a NaN already in y does not survive), and
// alpha == 0 gives y = beta * y without reading A or x (so an Inf in x does not turn into
// NaN). x has A.ncols entries and y has A.nrows entries; neither is touched past its end,
// partial tiles included.
//
// Optional symmetric unscaling (unscale != nullptr, A square: nrows == ncols, else
// amgt::Error): y = alpha * diag(u) * (A * (diag(u) * x)) + beta * y, for a level whose stored
// matrix is A-hat = D^-1/2 A D^-1/2 with u = diag(D)^1/2. Each x_j * u_j is formed in double;
// each row sum (double, SpmvTraits) is multiplied by u_i in double before alpha. u has nrows entries and
// is read only where alpha != 0.
#pragma once

#include "mbsr/mbsr.h"

namespace amgt {

// Rounding as in common/precision.h (SpmvTraits: values widened to double, double FMAs). Each
// row accumulates in ascending column order
// (tiles by block column, then column inside the tile); GPU kernels sum in other orders and
// agree with this only within the tolerance of tests/common/tolerances.h, except on inputs
// whose partial sums are all exact (small integers), where they must agree bit for bit.
template <class V>
void spmv_ref(const Mbsr<V>& A, double alpha, const double* x, double beta, double* y,
              const double* unscale = nullptr);

// Plain fp64 CSR loop in the stored order of each row: an oracle independent of mBSR.
void csr_spmv_ref(const CsrView& A, double alpha, const double* x, double beta, double* y);

extern template void spmv_ref<double>(const Mbsr<double>&, double, const double*, double, double*,
                                    const double*);
extern template void spmv_ref<float>(const Mbsr<float>&, double, const double*, double, double*,
                                    const double*);
extern template void spmv_ref<half_t>(const Mbsr<half_t>&, double, const double*, double, double*,
                                    const double*);

} // namespace amgt
