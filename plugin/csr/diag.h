// The diagonal of a CSR block as BoomerAMG's GPU setup takes it: hypre's
// hypre_CSRMatrixExtractDiagonalDevice (the smoothers' l1 norms and diagonal scalings, a re-setup's
// too) and hypre_CSRMatrixMoveDiagFirstDevice (each coarse operator after its Galerkin product),
// both seq_mv/csr_matop_device.c. hypre gives a row a warp that searches the row 32 entries at a
// time; on the fine level of a 7-point problem (15.6M rows of 7) most lanes idle and the pass
// runs at 0.22-0.37 of its bytes' roofline (bench/RESULTS.md, "Setup: hypre's own kernels"),
// 2.9 ms of a 33 ms re-setup.
//
// Per row i, the diagonal entry is the first k in [ia[i], ia[i+1]) with ja[k] == i.
//  - ops 0-4 (extraction, hypre's types): d[i] = a_k, |a_k|, 1/a_k, 1/sqrt(a_k), 1/sqrt(|a_k|),
//    the last three 0 where a_k == 0; d[i] = 0 for a row without its diagonal.
//  - op 5 (diagonal first): when k is not the row's first position p, the entries k and p swap
//    (column and value); a row whose first entry is its diagonal, or without one, is unchanged.
// A row holding its diagonal column twice is the one case where hypre's kernels give no single
// answer (the lanes that find one write at once, and hypre's move searches from p + 1, so it
// swaps a second diagonal into p); here the first occurrence is the diagonal, on the CPU and the
// GPU alike. Everything else equals hypre's bit for bit (the same IEEE operations).
#pragma once

#include "common/setup_kernels.h"

#include <cstdint>

namespace amgt {

// the arguments (common/setup_kernels.h, shared with the C side of the glue)
using CsrDiag = ::amgt_csr_diag;

constexpr int32_t kCsrDiagMoveFirst = 5; // CsrDiag::op of the move; 0-4 extract

// Throws amgt::Error unless: nrows, nnz >= 0; op 0-5; where nrows > 0: ia given, d given (ops
// 0-4), ja and a given where nnz > 0.
void check_csr_diag(const CsrDiag& m);

// The reference on host arrays.
void csr_diag_ref(const CsrDiag& m);

} // namespace amgt
