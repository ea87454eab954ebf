// Row sums of a CSR block as BoomerAMG's GPU setup takes them: hypre's
// hypre_CSRMatrixComputeRowSumDevice (seq_mv/csr_matop_device.c), behind extended+i's
// rsFC (set on the diagonal block, add on the off-diagonal one) and the l1 norms of the
// smoothers (|a_ij| over a row's entries of its own C/F kind). hypre gives a row a warp: rows
// of 5-27 entries leave most lanes idle, and a block without entries (the off-diagonal block on
// one rank) still costs a warp a row reading its row pointers; 18-19 launches a setup at
// 0.13-0.25 of their bytes' roofline (bench/RESULTS.md, "Setup: hypre's own kernels").
//
// Per row i:  s_i = sum of t(a_ij) over its entries j with cf_i[i] == cf_j[ja[j]] (both given;
// all entries when neither), t = identity (type 0) or |.| (type 1);  out[i] = scal * s_i (set)
// or fma(scal, s_i, out[i]) (add: hypre's `+=` of a product, contracted as nvcc and hipcc do;
// with scal = 1, BoomerAMG's only value, the two roundings agree anyway). s_i is formed in
// hypre's order: each lane of its warp (search_chunk = 32 with CUDA, 64 with HIP) adds the
// entries k = p + lane + W*m in turn, and the lanes meet in a tree (lane L adds lane L + d, d =
// W/2 .. 1). The device kernel (row_sums_device.h) follows the same order, so it equals this
// reference, and hypre, bit for bit. hypre's type 2 (squares) is not taken (hypre's kernel).
#pragma once

#include "common/setup_kernels.h"

#include <cstdint>

namespace amgt {

// the arguments (common/setup_kernels.h, shared with the C side of the glue)
using RowSums = ::amgt_row_sums;

// Throws amgt::Error unless: nrows, ncols, nnz >= 0, out given (rows > 0), ia given where
// ncols > 0, ja and a where nnz > 0, cf_i and cf_j both given or both null, type 0 or 1, set 0 or 1, search_chunk
// a power of two from 1 to 64.
void check_row_sums(const RowSums& m, int search_chunk);

// The reference on host arrays.
void row_sums_ref(const RowSums& m, int search_chunk);

// Extended+i's weak row sums, hypre's hypreGPUKernel_compute_weak_rowsums
// (parcsr_ls/par_lr_interp_device.c; 0.28-0.53 of its bytes' roofline): per row i with
// cf_marker[i] < flag, each of its warp's lanes forms rl = fma(a_k, w_k, rl) over the
// diagonal block's entries k = p + lane + W*m, then the off-diagonal block's (has_offd), with
// w_k = 1 where soc_j[k] < 0 (weak) and 0 otherwise (hypre's `rl += a * (soc < 0)`: a product
// and a sum, contracted or not the same values), and the lanes meet in the tree; rs[i] = the
// sum. Rows with cf_marker[i] >= flag keep their rs.
using WeakRowSums = ::amgt_weak_row_sums;

// Throws amgt::Error unless: nrows, nnz >= 0; cf_marker, diag_i, rs given (rows > 0), diag_a
// and soc_diag_j where nnz > 0, offd_i, offd_a and soc_offd_j where has_offd; search_chunk a
// power of two from 1 to 64.
void check_weak_row_sums(const WeakRowSums& m, int search_chunk);

// The reference on host arrays.
void weak_row_sums_ref(const WeakRowSums& m, int search_chunk);

} // namespace amgt
