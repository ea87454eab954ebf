// C = A * B on the GPU, CSR in and CSR out, fp64: the row-wise hash SpGEMM for the products of
// an AMG setup (W = A_FF*A_FC, A*P, P^T*(AP)), on hypre's own device arrays.
//
// Contract: csr_spgemm.h (structure exact and deterministic, columns in any order within a
// row, values summed with atomics in no fixed order, NULL values as ones, amgt::Error for a
// dimension mismatch or more than 2^31-1 nonzeros, std::bad_alloc when memory is refused).
//
// Algorithm (csr_spgemm_device.cu; the planning is csr_spgemm.h's, unit-tested on the host):
//   1. one pass over A's rows: ub(i) = sum over A(i,k) of nnz(B(k,:)), each row's bin
//      (bin_of), a histogram per bin and sum(ub), read back (one host round trip);
//   2. the rows listed per bin (block-aggregated atomics, no sort);
//   3. design A (one_pass): per bin one kernel builds each row in a hash table (shared
//      memory sized to the bin; global memory for the global bin, in batches) and writes its
//      (col, val) pairs to a temporary at scan(ub)[i]; the counts' scan gives C's row_ptr
//      (second round trip: nnz); a compaction copies into C.
//      design B (two_pass): the same kernels count keys only, the scan sizes C (round trip),
//      the numeric kernels write C in place.
//      two_pass_tight: design B whose numeric pass lists the rows again by the bins of their
//      exact counts (one more pass and round trip; the global bin's counts read back).
//      lean (csr_spgemm.h; opt-in, never automatic's choice): pass 1 also lists
//      each row in its bin (by its capped bound), the rows go to a slab at fixed places per
//      bin, bins 0-6 in one launch, a one-block scan, the compaction.
//      short_rows (csr_spgemm.h; experimental, opt-in, never automatic's choice): design B
//      whose rows of bins 0-3 (ub <= 128) run the sort kernels of spgemm_short_rows.h in both
//      passes (no hash table; those rows' columns come out ascending), the others the hash
//      kernels.
//   Everything is enqueued on `s`; the stream is drained before returning (the temporaries
//   come from an Allocator without stream semantics). All device memory comes from `alloc`.
#pragma once

#include "device/runtime.h"
#include "spgemm/csr_spgemm.h"

#include <cstdint>

namespace amgt::device {

// C's arrays, owned until the caller takes them (Buffer::release; the glue hands them to
// hypre). col and val hold nnz entries (nullptr when nnz == 0); row_ptr nrows + 1.
struct DeviceCsrProduct
{
   int32_t          nrows = 0;
   int32_t          ncols = 0;
   int64_t          nnz   = 0;
   Buffer<int32_t>  row_ptr;
   Buffer<int32_t>  col;
   Buffer<double>   val;
};

struct CsrSpgemmStats
{
   CsrSpgemmDesign design      = CsrSpgemmDesign::automatic; // the design that ran
   int64_t         sum_ub      = 0;                          // sum of the rows' upper bounds
   int64_t         bin_rows[csr_spgemm::kBins] = {};        // rows per bin (empty rows: none)
   int32_t         shared_bins = 0;  // bins 0..shared_bins-1 ran in shared memory
   int64_t         global_batches = 0;
   int64_t         tight_bin_rows[csr_spgemm::kBins] = {}; // two_pass_tight: rows per bin of their count
   int64_t         tight_global_batches = 0;
   bool            one_pass_refused = false; // automatic chose one_pass, its temporary was
                                             // refused by the allocator: two_pass ran
   bool            lean_fell_back = false;   // lean asked for, a row beyond bin 8: automatic ran
};

// A and B: device arrays (val may be nullptr: all ones). Throws as the contract says.
DeviceCsrProduct csr_spgemm(const CsrView& A, const CsrView& B, Stream s, const Allocator& alloc,
                            CsrSpgemmStats* stats = nullptr,
                            CsrSpgemmDesign design = CsrSpgemmDesign::automatic);

} // namespace amgt::device
