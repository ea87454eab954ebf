// C = A * B on the host: the oracle for the GPU SpGEMM kernels.
#pragma once

#include "mbsr/mbsr.h"

namespace amgt {

// Structure: C has a tile (I, J) iff the OR over K of bitmap_product(A(I,K), B(K,J)) is
// nonzero, and that OR is its bitmap; tile pairs with an empty bitmap product contribute
// nothing. The pattern is therefore the scalar symbolic product: an entry whose value
// cancels to 0 is kept.
// Values: each entry accumulates in acc_t with one FMA per product term (common/precision.h),
// in ascending inner index (A tiles by block column, then k inside the tile), and is rounded
// once to V at the end. Throws amgt::Error when A.ncols != B.nrows.
template <class V>
Mbsr<V> spgemm_ref(const Mbsr<V>& A, const Mbsr<V>& B);

// Plain scalar fp64 Gustavson product: sorted columns, structural pattern (cancelled entries
// kept as 0.0), each entry summed in the order the rows of A store their entries (fp64 mul
// then add, no FMA). An oracle independent of mBSR and of bitmaps.
CsrMatrix csr_spgemm_ref(const CsrView& A, const CsrView& B);

extern template Mbsr<double> spgemm_ref<double>(const Mbsr<double>&, const Mbsr<double>&);
extern template Mbsr<float>  spgemm_ref<float>(const Mbsr<float>&, const Mbsr<float>&);
extern template Mbsr<half_t> spgemm_ref<half_t>(const Mbsr<half_t>&, const Mbsr<half_t>&);

} // namespace amgt
