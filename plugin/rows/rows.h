// The row-wise layout ("rows"): the CSR matrix itself with its values in the level's
// precision and, where every entry lies within kNarrowSpan of its row's index, 16-bit column
// offsets (col - row) instead of 32-bit columns. It serves the matrices whose 4x4 tiles are
// nearly empty (docs/architecture.md, "Layouts"): there a tile's column index and bitmap (6 bytes)
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

// The largest |col - row| over a's entries (0 without entries), and whether it is at most
// kNarrowSpan: every entry then has a 16-bit offset.
int64_t max_span(const CsrView& a);
bool    fits_narrow(const CsrView& a);

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
   double rows_speed      = 1.0; // rows_relative_speed(row_length, fill, precision)
   double mbsr_speed      = 1.0; // kMbsrTileLowSpeed for the tile kernels in fp32/fp16, else 1
   bool   tile_kernels    = false; // mBSR's SpMV would run its tile kernels (else the entries kernel)
   // mBSR for the entries kernel in fp64: the copy in entry order (mbsr_device.h: hypre's values
   // lent, the tiles unranked). In fp32/fp16 the values are copied either way and the copy is in
   // bitmap order with its tiles ranked: a tile's entries in neighbouring lanes and neighbouring
   // block columns in neighbouring tiles gather x from few sectors; the SpMV was 1-13% faster
   // than on the entry-order copy (laplace7 n=250's level 1 in fp32: 562 against 645 us;
   // bench/RESULTS.md, record 2026-11-27b; in fp64 3%, where the entry-order copy lends hypre's
   // values and converts 1.3x faster)
   bool   entry_order     = false;
};

// Bytes per stored entry one SpMV reads, by the kernel the mBSR plan would run
// (spmv/spmv_device.h, choose_spmv_path): where tiles are well filled (fill >=
// kLayoutTileMinFill) in short block rows (<= kLayoutTileMaxMeanTiles tiles on average) its
// tile kernels read sizeof(V) + 6/fill (column index and bitmap per tile); elsewhere the
// entries kernel reads sizeof(V) + 2 (each entry's 2-byte decode) + 4/fill (the tile's
// column; not the bitmap). Both add 12 per block row (blk_ptr and the packed offset). rows
// reads sizeof(V) + 2 or 4 + 4 per row.
//
// Bytes are not the whole story: per byte, the row-wise kernel (one group of lanes per row)
// runs as fast as the mBSR kernels where the tiles are well filled and slower where they are
// not. Where four consecutive rows share their columns (fill near 4), the row-wise kernel's
// neighbouring rows gather the same x together; where a tile holds one or two entries (coarse
// operators, P^T), mBSR's block row still reads each tile's x once for its four rows and the
// row-wise rows read theirs apart. Measured on the H100 after both kernels load b first
// (bench/RESULTS.md, record 2026-11-26d; fraction of 3.0 TB/s of the row-wise layout's bytes over
// that of mBSR's, fp32, lanes as rows_lanes picks them): 1.06 on laplace27's fine A (27 a row,
// fill 4.04; 1.00 in fp64), 1.04 on systems3's (15, 4.40; 1.00 in fp64), 1.09 on its level-1
// A (79, 4.26), 0.86 on its level-2 A (204, 2.77), 0.87 on laplace7 n=250's level-1 A (30,
// 2.36, four lanes), 0.76 on its level 2 (70, 1.55). On rows of at most 8 entries the bytes
// model undercounts mBSR's (the 7-point fine A in fp32, 32-bit columns: 8.57 bytes an entry
// for rows against 7.72 for the entries kernel, yet rows took 439.5 us against 464.6 and is
// cheaper to build): kRowsShortSpeed keeps them row-wise, as it did before the re-fit (at 1.0
// that matrix tied at the 10% margin and went to mBSR: record 2026-11-26d/call9). In fp64 the entries kernel gains more than the row-wise one: 0.95 on
// systems3's level-1 A, 0.83 on its level 2, 0.76-0.80 on laplace7 n=250's levels 1-2.
// rows_relative_speed gives that ratio: kRowsShortSpeed up to kRowsShortRow entries a row;
// from kRowsLongRow on, kRowsLowFillSpeed at kRowsLowFill entries a tile rising linearly to
// kRowsHighFillSpeed (fp64: kRowsHighFillSpeedFp64) at kRowsHighFill (flat outside); linear in
// the row length between. The rule compares the time the bytes take, mBSR's bytes /
// its speed against rows' bytes / theirs. mBSR's tile kernels in fp32/fp16 (values widened to
// double per the SpMV contract of common/precision.h) ran at 0.50-0.57 of 3.0 TB/s where the
// row-wise kernel reached 0.71-0.75 on the same fine operator (7-point, 4.1 entries per
// tile): kMbsrTileLowSpeed; the entries kernel and fp64 count 1.
//
// mBSR is chosen only where it takes at least kMbsrMinSaving less time: its conversion
// groups entries into tiles (one or two hashed passes, 0.04-0.12 of 3.0 TB/s), the row-wise
// one is a single streaming pass or nothing, so a near tie goes to the layout that is cheaper
// to build.
constexpr double kLayoutTileMinFill      = 3.5;
constexpr double kLayoutTileMaxMeanTiles = 8.0;
constexpr double kRowsShortRow           = 8.0;
constexpr double kRowsLongRow            = 16.0;
constexpr double kRowsShortSpeed         = 1.05;
constexpr double kRowsLowFill            = 1.5;
constexpr double kRowsHighFill           = 4.0;
constexpr double kRowsLowFillSpeed       = 0.76;
constexpr double kRowsHighFillSpeed      = 1.05;
constexpr double kRowsHighFillSpeedFp64  = 0.98;
constexpr double kMbsrTileLowSpeed       = 0.75;
constexpr double kMbsrMinSaving          = 0.10;
double       rows_relative_speed(double row_length, double fill, Precision p);
LayoutChoice choose_layout(const LayoutInputs& in);

// Whether the choice hangs on the 16-bit offsets: in.narrow (from a sample, whose span is a
// lower bound) makes the row-wise layout win where 32-bit columns would lose to mBSR. Only
// there is the exact span worth its pass (rows_device.h max_span).
bool layout_needs_exact_span(const LayoutInputs& in);

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
