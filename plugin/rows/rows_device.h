// The row-wise layout (rows/rows.h) on the device: built from hypre's CSR in one streaming
// pass, or not at all, and its SpMV. Like spmv_device.h, building happens in the setup
// (it allocates); rows_spmv only enqueues kernels (no allocation, copy or synchronisation).
#pragma once

#include "common/precision.h"
#include "device/runtime.h"
#include "mbsr/mbsr.h"
#include "rows/rows.h"

#include <cstdint>
#include <vector>

namespace amgt::device {

// row_ptr and col are the CSR's own arrays (borrowed: the matrix must outlive this, and its
// structure must not change, which the glue's cache key guarantees); val too in fp64 without
// scaling, else own_val. col16 holds col - row where 16-bit offsets were tried and every
// entry fit (narrow); the build's flag is read back once so that the SpMV runs a kernel
// compiled for one column type: with both paths in one kernel its fp32/fp16 instantiations
// took 40 registers instead of 32 (6 blocks of 256 per SM instead of 8; bench/RESULTS.md,
// record 2026-11-25f). When one entry did not fit, col16 is released and the SpMV reads col.
// make_rows either waits for the flag (one synchronisation per matrix) or posts its read-back
// (ReadBack: no host wait) and leaves the copy unsettled until settle_rows, so that a setup's
// builds do not each wait for the GPU.
template <class V>
struct DeviceRows
{
   int32_t          nrows = 0, ncols = 0;
   int64_t          nnz   = 0;
   const int32_t*   row_ptr = nullptr;
   const int32_t*   col     = nullptr;
   const V*         val     = nullptr;
   Buffer<V>        own_val;
   Buffer<int16_t>  col16; // the offsets, held only when narrow
   int32_t          lanes = 1; // per row (rows_lanes)
   bool             scaled = false;
   bool             tried  = false; // 16-bit offsets were written (the build's bytes)
   bool             narrow = false; // ... and every entry fit: the SpMV reads col16 (once settled)
   Buffer<int32_t>  wide;       // the build's flag (an offset did not fit), until settled
   ReadBack         wide_back;  // its read-back, while posted (declared after `wide`: waits first)

   bool tried_narrow() const { return tried; }
   // narrow is known: the flag was read (or never needed)
   bool settled() const { return !wide_back.posted(); }
};

// Lanes per row of the SpMV: the smallest power of two G (1..32) that leaves each lane at most
// E entries of a mean row, E = 16 for rows of more than 16 entries of regular length (their
// coefficient of variation at most kRowsIrregular), else 8. Measured on the H100
// (bench/RESULTS.md): long regular rows (coarse operators, 27-point stencils) ran fastest
// with 8-16 entries per lane, short or irregular rows (fine 7-point stencils, P^T) with 5-8.
// x_beyond_l2 (x, ncols doubles, larger than the L2 cache): rows of more than 16 entries get
// twice the lanes (at most 32). There the gathers of x come from DRAM and more rows in flight
// hide their latency: laplace27 n=200's fine A (27 entries a row, x 64 MB against the H100's
// 50 MB) took 1651 us with 2 lanes and 1275 with 4 in fp64, 2048 and 996 in fp32, where with x
// in L2 (n=100, laplace7 n=250's level 1) 2 lanes were as fast or faster (bench/RESULTS.md,
// record 2026-11-26b). The same holds for a square matrix's rows of more than kRowsBeyondL2MinLength
// entries: laplace7 n=250's fine A (6.9 entries a row, x 125 MB, the diagonal first and the rest
// as hypre left them) took 625 us with one lane and 591 with two in fp64, 494 and 483 in fp32
// (bench/RESULTS.md, record 2026-11-26h's kernel tables).
// wide (ncols >= 2 nrows: a restriction R = P^T, each coarse row gathering from scattered fine
// points of x): twice the lanes, after the rules above. Over laplace7 n=250, laplace27 n=200 and
// systems3 n=126 in fp32, and laplace7 n=250 in fp64 (same tables), twice the lanes was faster on
// 21 of their 24 P^T (e.g. laplace7 n=250 level 1 fp32 144 -> 113 us, laplace27 n=200 level 0
// 161 -> 139, systems3 n=126 level 0 121 -> 111), slower by 0.2-1.6 us on the other three.
constexpr double kRowsIrregular         = 0.5;
constexpr double kRowsBeyondL2MinLength = 4.0;
int32_t rows_lanes(double mean_row_length, double row_length_cv = 0.0, bool x_beyond_l2 = false,
                   bool wide = false);
// A matrix whose SpMV gathers from an x at least twice as long as y (rows_lanes' wide).
inline bool rows_wide(int64_t nrows, int64_t ncols) { return ncols >= 2 * nrows; }
// Whether a vector of ncols doubles is larger than the current device's L2 cache.
bool x_beyond_l2(int64_t ncols);

// Lanes per row of make_rows' build (not of the SpMV): the smallest power of two (1..32) at
// least the mean row length, so a row's entries are read and written in one coalesced step.
// With the SpMV's lanes (2 for 27 entries a row) the build of laplace27 n=200's fine A in fp32
// moved 0.42 of 3.0 TB/s, with twice as many 0.74 (H100, bench/RESULTS.md, record 2026-11-26b).
int32_t rows_build_lanes(double mean_row_length);

// What a sample of A's 4x4 block rows shows (one kernel, one read-back: setup only).
struct FillEstimate
{
   int64_t block_rows = 0; // sampled block rows counted
   int64_t entries    = 0; // their stored entries
   int64_t tiles      = 0; // their distinct 4x4 tiles
   int64_t max_span   = 0; // largest |col - row| among the sampled rows' entries
   int64_t rows       = 0; // sampled rows (all of them, long block rows too)
   double  row_sum = 0.0, row_sq = 0.0; // sums of their lengths and squared lengths
   double  fill() const { return tiles > 0 ? static_cast<double>(entries) / tiles : 0.0; }
   // coefficient of variation of the sampled rows' lengths (0 without rows)
   double row_cv() const;
};

// Samples up to max_samples block rows spread evenly over A (all of them when A has fewer);
// block rows of more than kFillSampleMaxEntries entries are not counted for the fill (their
// span is). Duplicate entries count once per tile, as in mBSR.
constexpr int32_t kFillSampleMaxEntries = 512;
FillEstimate estimate_fill(const CsrView& a, Stream s, const Allocator& alloc,
                           int32_t max_samples = 4096);

// estimate_fill of several matrices with one read-back for all of them (the setup survey of
// hypre_glue); entry i equals estimate_fill(a[i], s, alloc, max_samples) exactly.
std::vector<FillEstimate> estimate_fills(const std::vector<CsrView>& a, Stream s, const Allocator& alloc,
                                         int32_t max_samples = 4096);

// max_span of rows/rows.h on the device: the largest |col - row| over all of a's entries,
// exact (the fill sample's span is a lower bound). One pass over the columns, one read-back
// (synchronises: setup only).
int64_t max_span(const CsrView& a, Stream s, const Allocator& alloc);

// A in the row-wise layout, values rounded once to V (unscale: of D^-1/2 A D^-1/2, the
// values of precision/policy.h's scaled_values, u = unscale on the device, nrows doubles).
// try_narrow: write 16-bit offsets, and keep them if every entry fits (one read-back of the
// build's flag: synchronises s, or with settle_later posts it and returns the copy unsettled:
// settle_rows before its SpMV). Otherwise enqueues its kernels and returns; a is read by them
// and later by every SpMV.
// row_cv: the rows' coefficient of variation (FillEstimate::row_cv) for the lane rule.
template <class V>
DeviceRows<V> make_rows(const CsrView& a, const double* unscale, bool try_narrow, Stream s,
                        const Allocator& alloc, double row_cv = 0.0, bool settle_later = false);

// Reads an unsettled copy's flag (waits for its build, at once where the stream has passed it)
// and keeps or releases the offsets; nothing for a settled copy. Throws amgt::Error.
template <class V>
void settle_rows(DeviceRows<V>& r);

// out[k] = a's value k rounded once to V, in the CSR's order (unscale: of D^-1/2 A D^-1/2, as in
// make_rows): make_rows' build pass for values alone. Enqueues only.
template <class V>
void csr_values_to(const CsrView& a, const double* unscale, V* out, Stream s);

// AMGT_RESETUP: new values of a CSR with the arrays and structure r was made from, in place
// (unscale as in make_rows, the same scaling as r's): the build pass writes the values alone
// (the offsets stay), or a copy that lends the CSR's values (fp64, unscaled) reads them. Equal
// bit for bit to make_rows of the new values. Enqueues only.
template <class V>
void refresh_rows_values(DeviceRows<V>& r, const CsrView& a, const double* unscale, Stream s);

// Whether the SpMV reads the 16-bit offsets (r.narrow; s is not used). r settled.
template <class V>
bool rows_narrow(const DeviceRows<V>& r, Stream s);

// y = alpha * A * x + beta * y, as spmv (spmv_device.h); unscale as there (A.scaled matrices);
// b as there (y = alpha * A * x + beta * b; nullptr: b = y). A settled (an unsettled copy is
// an amgt::Error: its kernel is not known).
template <class V>
void rows_spmv(const DeviceRows<V>& A, double alpha, const double* x, double beta, double* y,
               Stream s, const double* unscale = nullptr, const double* b = nullptr);

// Bytes one rows_spmv reads and writes with narrow offsets or without (x and y each once).
template <class V>
double rows_spmv_bytes(const DeviceRows<V>& A, bool narrow);

} // namespace amgt::device
