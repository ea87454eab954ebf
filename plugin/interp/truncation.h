// The last pass of BoomerAMG's interpolation truncation on the GPU: hypre's
// hypreGPUKernel_InterpTruncationPass2_v1 (parcsr_ls/par_interp_trunc_device.c), which copies
// each row's kept entries (moved to the row's front by the first pass) into the new, compacted
// arrays: a warp a row of at most max_elmts (4) entries, 0.18-0.24 of its bytes' roofline
// (bench/RESULTS.md, "Setup: hypre's own kernels"). Per row i and block:
//   new_j[k] = j[k + shift], new_a[k] = a[k + shift] for k in [i_new[i], i_new[i+1]),
//   shift = i_old[i] - i_new[i].
// A copy: any order gives hypre's arrays.
#pragma once

#include "common/setup_kernels.h"

#include <cstdint>

namespace amgt {

// the arguments (common/setup_kernels.h, shared with the C side of the glue)
using TruncCopy = ::amgt_trunc_copy;

// Throws amgt::Error unless: nrows >= 0, nnz_new >= 0, the four row pointers given (rows > 0);
// and (checked on host arrays only, by trunc_copy_ref) every new row no longer than its old one.
void check_trunc_copy(const TruncCopy& m);

// The reference on host arrays.
void trunc_copy_ref(const TruncCopy& m);

} // namespace amgt
