// AMGT=auto on the device: the value statistics and the symmetric scaling of a CSR matrix in
// device memory. Their references are the CPU functions of precision/policy.h; the GPU
// results must equal them exactly (maxima and counts are exact; scaling_vector and
// scaled_values evaluate the same IEEE expressions, sqrt and division correctly rounded in
// both), which tests/gpu/test_precision_device.cpp checks.
//
// These run in the setup, never in the solve: value_stats and count_nonfinite read their
// result back (they synchronise the stream).
#pragma once

#include "device/runtime.h"
#include "mbsr/mbsr.h"
#include "precision/policy.h"

#include <cstdint>
#include <vector>

namespace amgt::device {

// value_stats(a) of precision/policy.h for a device CSR (val == nullptr: all ones).
// Does not validate the structure (the caller's CSR is hypre's, already valid).
// with_scaled = false leaves out the scaled form (two of its three passes: the diagonal and
// the scaled values' statistics): scalable is false and scaled_known too. Only an fp16 choice
// reads the scaled form (choose_precision), so a matrix whose floor is fp32 or fp64 needs it
// not. One read-back (synchronises).
// likely_tiny: the caller expects values below fp16's smallest normal (a Galerkin coarse
// operator: every one measured holds some). The plain statistics then take one row-wise pass;
// otherwise a flat pass over the values, and the row-wise underflow counts only if such a value
// exists (two reads of a matrix that has them). The results are the same either way.
ValueStats value_stats(const CsrView& a, Stream stream, const Allocator& alloc, bool with_scaled = true,
                       bool likely_tiny = false);

// The plain statistics (value_stats without the scaled form) of several device matrices at
// once, with one read-back for all of them instead of one each: the end of a setup surveys
// every matrix of the hierarchy this way before it converts them (hypre_glue, the setup
// survey). likely_tiny: one flag per matrix, as for value_stats. Entry i equals
// value_stats(a[i], ..., false, likely_tiny[i]) exactly (the same kernels).
std::vector<ValueStats> plain_value_stats(const std::vector<CsrView>& a, const std::vector<bool>& likely_tiny,
                                          Stream stream, const Allocator& alloc);

// unscale_i = sqrt(|a_ii|) (duplicates summed in CSR order) into u (nrows device doubles).
// A row without a usable diagonal gets NaN: call it only for a matrix value_stats found
// scalable. Enqueues and returns.
void scaling_vector(const CsrView& a, double* u, Stream stream);

// a_ij / (u_i * u_j) into out (nnz device doubles, A's CSR order). Enqueues and returns.
void scaled_values(const CsrView& a, const double* u, double* out, Stream stream);

// Number of NaN/Inf among n device doubles; synchronises.
int64_t count_nonfinite(const double* v, int64_t n, Stream stream, const Allocator& alloc);

} // namespace amgt::device
