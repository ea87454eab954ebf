// Extended+i interpolation's weights of the F-F block: hypre's hypreGPUKernel_compute_twiaff_w
// (parcsr_ls/par_lr_interp_device.c), the largest of hypre's own setup kernels after the
// products (0.04-0.07 of its bytes' roofline, 8-30 ms a setup at 6-16M rows on an H200:
// bench/RESULTS.md, "Setup: hypre's own kernels"). Per F-row i of A_FF (the diagonal block,
// the off-diagonal block, and the other ranks' rows of A_FF in `ext`):
//
//   an entry (i, j) with j != i:  vji = A_FF's entry (j, i) (0 without one), rsj = rsFC_j + vji;
//     rsj != 0:  a_ij <- a_ij / rsj,  theta_i <- fma(vji, a_ij, theta_i)
//     rsj == 0:  a_ij <- 0,           theta_i <- theta_i + old a_ij (diagonal block) or + 0
//                (off-diagonal block: hypre adds back the value it has just set to zero)
//   the diagonal block's entry (i, i) <- 1 (not summed)
//   theta_i <- theta_i + rsW_i;  theta_i <- theta_i != 0 ? -1 / theta_i : -1;  row i scaled by theta_i
//
// in hypre's order: the diagonal block's entries in storage order, then the off-diagonal
// block's, one at a time (hypre's kernel sums in one lane; `theta += vji * vij` is compiled to
// a fused multiply-add, which the reference writes out as std::fma). The device kernel
// (twiaff_device.h) keeps that order and those operations, so its results equal the
// reference's, and hypre's, bit for bit.
//
// The entry (j, i): hypre's warp scans row j in chunks of its warp's width (search_chunk: 32
// with CUDA, 64 with HIP) and takes the last match within the first chunk that holds one. With
// one entry per column (every matrix hypre builds here) that is the entry; the rule is kept
// for the rows with repeated columns.
#pragma once

#include "common/setup_kernels.h"

#include <cstdint>

namespace amgt {

// the arguments (common/setup_kernels.h, shared with the C side of the glue)
using TwiaffRows = ::amgt_twiaff_rows;

// What a caller must hold (throws amgt::Error otherwise): nrows >= 0, offd_nnz >= 0, both row
// pointers, the diagonal block's arrays, rsW and rsFC, and, when offd_nnz > 0, the off-diagonal
// block's, ext's and rsFC_offd; search_chunk a power of two from 1 to 64.
void check_twiaff_rows(const TwiaffRows& m, int search_chunk);

// The reference on host arrays (rewrites diag_a and offd_a).
void twiaff_ref(const TwiaffRows& m, int search_chunk);

} // namespace amgt
