// The row-wise layout ("rows"): the CSR matrix itself with its values in the level's
// precision and, where every entry lies within kNarrowSpan of its row's index, 16-bit column
// offsets (col - row) instead of 32-bit columns. It serves the matrices whose 4x4 tiles are
// nearly empty (docs/DESIGN.md, "Layouts"): there a tile's column index and bitmap (6 bytes)
// outweigh its one or two values, while the row-wise layout moves sizeof(V) + 2 or 4 bytes
// per entry. It is built from CSR by one streaming pass (no sort); in fp64 without scaling
// and without narrow offsets it is CSR itself and costs nothing to build.
//
// Rounding as in common/precision.h (the same contract as spmv_ref); each row accumulates in
// its stored order.
#pragma once

#include "common/precision.h"
#include "mbsr/mbsr.h"

#include <cstdint>
#include <vector>

namespace amgt {

// Largest |col - row| a 16-bit column offset holds.
constexpr int32_t kNarrowSpan = 32767;

template <class V>
struct Rows
{
   int32_t              nrows = 0, ncols = 0;
   std::vector<int32_t> row_ptr; // nrows + 1
   std::vector<int32_t> col;     // nnz; empty when narrow
   std::vector<int16_t> col16;   // nnz, col - row; empty when not narrow
   std::vector<V>       val;     // nnz, rounded once from double
   bool                 narrow = false;

   int64_t nnz() const { return row_ptr.empty() ? 0 : row_ptr.back(); }
};

// Whether every entry of a lies within kNarrowSpan of its row index.
bool fits_narrow(const CsrView& a);

// a in the row-wise layout, values rounded once to V (scaled: the values of
// D^-1/2 A D^-1/2 given by precision/policy.h's scaled_values, then rounded). narrow: use
// 16-bit offsets if fits_narrow(a). Validates a (amgt::Error on bad input).
template <class V>
Rows<V> rows_from_csr(const CsrView& a, bool narrow, const std::vector<double>* unscale = nullptr);

// y = alpha * A * x + beta * y with the semantics of spmv_ref (spmv/spmv.h), unscale included.
template <class V>
void rows_spmv_ref(const Rows<V>& A, double alpha, const double* x, double beta, double* y,
                   const double* unscale = nullptr);

// Which layout an SpMV of a matrix reads, chosen by the bytes one product moves.
enum class Layout
{
   mbsr, // 4x4 bitmap tiles, packed values (mbsr/mbsr_device.h)
   rows  // this file
};

const char* to_string(Layout l);

struct LayoutInputs
{
   Precision precision   = Precision::fp64;
   double    fill        = 0.0; // stored entries per 4x4 tile (estimated)
   double    row_length  = 0.0; // mean stored entries per row
   bool      narrow      = false; // the row-wise layout would have 16-bit offsets
};

struct LayoutChoice
{
   Layout layout          = Layout::mbsr;
   double mbsr_bytes      = 0.0; // bytes per stored entry an SpMV reads of the matrix
   double rows_bytes      = 0.0;
};

// Bytes per stored entry: mBSR reads sizeof(V) + 6/fill (column index and bitmap per tile)
// + 12 per block row (blk_ptr and the packed offset); rows reads sizeof(V) + 2 or 4 + 4 per
// row. mBSR is chosen only where it moves at least kMbsrMinSaving fewer bytes: its
// conversion groups entries into tiles (several passes), the row-wise one is a single
// streaming pass or nothing, so a near tie goes to the layout that is cheaper to build.
constexpr double kMbsrMinSaving = 0.10;
LayoutChoice choose_layout(const LayoutInputs& in);

extern template Rows<double> rows_from_csr<double>(const CsrView&, bool, const std::vector<double>*);
extern template Rows<float>  rows_from_csr<float>(const CsrView&, bool, const std::vector<double>*);
extern template Rows<half_t> rows_from_csr<half_t>(const CsrView&, bool, const std::vector<double>*);
extern template void rows_spmv_ref<double>(const Rows<double>&, double, const double*, double,
                                           double*, const double*);
extern template void rows_spmv_ref<float>(const Rows<float>&, double, const double*, double,
                                          double*, const double*);
extern template void rows_spmv_ref<half_t>(const Rows<half_t>&, double, const double*, double,
                                           double*, const double*);

} // namespace amgt
