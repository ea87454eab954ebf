// BoomerAMG's strength of connection on the GPU, the counting pass: hypre's
// hypre_BoomerAMGCreateS_rowcount (parcsr_ls/par_strength_device.c; 0.19-0.37 of its bytes'
// roofline, SM-bound: a warp per row of 7-27 entries leaves most lanes idle; bench/RESULTS.md,
// "Setup: hypre's own kernels"). Per row i of A (diagonal block, off-diagonal block), over the
// entries of i's own function (num_functions == 1: all):
//   diag = a_ii, row_sum = the entries' sum, row_max / row_min over the off-diagonal entries
//   (starting from 0), row_scale = diag > 0 ? row_min : row_max, sdiag = diag > 0 ? 1 : -1
//   all_weak = max_row_sum < 1 && |row_sum| > |diag| * max_row_sum
//   an entry (i, j), j != i, is strong iff !all_weak, same function, and
//     sdiag * a_ij < sdiag * strength_threshold * row_scale
//   S_temp_j[k] = j when strong, -1 when weak, -2 at the diagonal; jS = strong entries a row
// with hypre's arithmetic in hypre's order: each of its warp's lanes (search_chunk wide, 32
// with CUDA, 64 with HIP) sums the entries k = p + lane + chunk*m in order (the diagonal block's,
// then the off-diagonal block's), and the lanes' sums meet in its butterfly (lane L adds lane
// L ^ d for d = chunk/2 .. 1). The maximum and minimum are exact whatever the order (apart from
// NaN inside one lane, which the reference also takes in hypre's order). So the device kernel's
// output equals the reference's, and hypre's, exactly.
#pragma once

#include "common/setup_kernels.h"

#include <cstdint>

namespace amgt {

// the arguments (common/setup_kernels.h, shared with the C side of the glue)
using StrengthRows = ::amgt_strength_rows;

// Throws amgt::Error unless: nrows >= 0, the entry counts >= 0, the row pointers, the outputs,
// a non-empty block's arrays, dof_func (and dof_func_offd where the off-diagonal block has
// entries) when num_functions > 1; search_chunk a power of two from 1 to 64.
void check_strength_rows(const StrengthRows& m, int search_chunk);

// The reference on host arrays.
void strength_rowcount_ref(const StrengthRows& m, int search_chunk);

} // namespace amgt
