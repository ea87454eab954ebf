// The short-row kernels of the row-wise CSR SpGEMM (CsrSpgemmDesign::short_rows, csr_spgemm.h):
// rows of C with at most 128 product terms built without a hash table. Called by the driver in
// csr_spgemm_device.cu for the rows of bins 0..kShortBins-1; the longer rows of the same
// product go to the hash kernels. Experimental and opt-in: never chosen by automatic.
//
// Per row of C a group of G lanes (bin_shape(bin).group: 4, 8, 16 or 32) holds the row's
// terms, kShortTermsPerLane per lane (so 4G >= the bin's max_ub >= the row's ub):
//   1. gather: in rounds of G entries of A (one per lane: column k, value, B row bounds), a
//      group scan of the B row lengths places the round's terms after the previous rounds';
//      each lane finds, for each of its slots e = lane * T + s, the entry of A whose terms
//      cover e (binary search over the scan through shuffles) and loads the term's column and
//      value a_ik * b_kj (rounded on its own: __dmul_rn, never contracted into an FMA);
//   2. a bitonic sort of the 4G (column, value) pairs by column, in registers (distances
//      below T inside a lane, the others by shfl_xor), padding columns INT32_MAX (never a
//      column: ncols <= 2^31-1);
//   3. heads of equal-column runs counted (symbolic pass: the row's count), or a segmented
//      inclusive scan of the values (numeric pass) whose last element per run holds the run's
//      sum, written at row_ptr[row] + the run's rank: the row's columns come out ascending.
// Values: each term rounded once, the terms of a column added in the order of the sorted
// sequence and the scan's lane tree (not A's-then-B's): within tests/common/tolerances.h's
// spgemm_pairs_tolerance of the oracle, exact on small integers; unlike the atomics of the
// hash kernels, the same inputs give the same bits on every run.
#pragma once

#include "device/runtime.h"

#include <cstdint>

namespace amgt::device {

struct ShortRowsArgs
{
   const int32_t* a_ptr   = nullptr;
   const int32_t* a_col   = nullptr;
   const double*  a_val   = nullptr; // nullptr: all ones
   const int32_t* b_ptr   = nullptr;
   const int32_t* b_col   = nullptr;
   const double*  b_val   = nullptr; // nullptr: all ones
   const int32_t* rows    = nullptr; // the bin's rows (row ids of A), each with 1 <= ub <= max_ub
   int32_t        nrows   = 0;
   int64_t*       counts  = nullptr; // symbolic: counts[row] = distinct columns of row
   const int32_t* row_ptr = nullptr; // numeric: C's row pointer
   int32_t*       out_col = nullptr; // numeric: C's arrays
   double*        out_val = nullptr;
};

// Enqueue on s the symbolic (count) or numeric (write) pass over the rows of shared bin `bin`
// (0..csr_spgemm::kShortBins-1); throws amgt::Error for another bin or a failed launch.
void short_rows_count(int bin, const ShortRowsArgs& args, Stream s);
void short_rows_numeric(int bin, const ShortRowsArgs& args, Stream s);

} // namespace amgt::device
