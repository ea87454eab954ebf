// The re-setup's GPU side (galerkin.h holds the contract and the CPU reference): the structure
// fingerprint as one reduction with an 8-byte read-back, fixed patterns over device arrays, and
// the numeric-only product on a fixed pattern.
//
// The numeric kernel: a group of G lanes per output row (fixed_pattern_lanes: 4-32 by the rows'
// average length, so short rows share a warp and more rows are in flight). A chunk of G of A's
// row entries is read at once, one a lane; the lengths of the B rows they reach are scanned
// across the group, and the chunk's terms are dealt out one a lane (a lane finds its term's A
// entry by a binary search over the scan, by shuffles), so a row of 7 entries of A reaching 4
// entries of P each keeps 28 lanes busy instead of 7. Each term's column is found by binary
// search in the row's sorted columns and added into the row's accumulator in shared memory
// (rows of up to kFixedRowCap * G / 32 entries), or into the output itself with global atomics
// (longer rows, zeroed first). The sums' order is not fixed (atomics), as in every hash SpGEMM.
//
// The faster forms: the plan also keeps each term's place in its output row (resetup::TermPlaces:
// 1-2 bytes a term), so a product reads no column of its right operand and searches nothing.
// numeric_by_places: each term added at its place (atomics in shared memory), the terms given to
// the lanes by one of two walks (PlacesWalk: a lane an entry of the left operand walking its row
// of the right one, or the terms dealt out one a lane). numeric_by_pulls: the terms listed by
// output entry (resetup::TermPulls: 1-2 bytes a term), a few consecutive terms a lane, each
// entry's sum closed by a segmented scan across the lanes and written once (no atomics). The
// plan takes places wherever they fit (rows of at most 65536 entries, at most
// kMaxPlaceBytesPerEntry bytes of places per operand entry), else that product searches; pulls
// only when asked (PlanForm: slower over a hierarchy where measured, and their plan costs
// several times the places').
//
// No symbolic phase, no hash table, no allocation: the plan's arrays are made once
// (make_galerkin_plan) and every later call only enqueues kernels on the stream.
#pragma once

#include "device/runtime.h"
#include "mbsr/mbsr.h" // CsrView

#include <cstdint>

namespace amgt::device {

// Shared memory a warp of the numeric kernel holds for its rows' accumulators: a row of at most
// kFixedRowCap * G / 32 entries (G lanes a row) accumulates there.
constexpr int32_t kFixedRowCap = 256;

// Lanes a row of the numeric kernel (4, 8, 16 or 32) by the output's average row length: about
// one lane per entry and a half (short rows share a warp: more rows in flight), all 32 past 24.
inline int32_t fixed_pattern_lanes(int32_t nrows, int64_t nnz)
{
   const double avg = nrows > 0 ? static_cast<double>(nnz) / nrows : 0.0;
   return avg <= 6 ? 4 : avg <= 12 ? 8 : avg <= 24 ? 16 : 32;
}

// The fingerprint of resetup::structure_fingerprint, bit for bit, of device arrays. Enqueued on
// s, then waits for s (the 8-byte result is read back).
uint64_t structure_fingerprint(const CsrView& a, Stream s, const Allocator& alloc);

// resetup::abs_diagonal into d (a.nrows doubles, device memory), enqueued on s.
void abs_diagonal(const CsrView& a, double* d, Stream s);
// resetup::max_diagonal_ratio against old_abs_diagonal (device memory); waits for s (an 8-byte
// read-back).
double max_diagonal_ratio(const CsrView& a, const double* old_abs_diagonal, Stream s, const Allocator& alloc);

struct DeviceFixedPattern
{
   int32_t         nrows = 0;
   int32_t         ncols = 0;
   int64_t         nnz   = 0;
   Buffer<int32_t> row_ptr;
   Buffer<int32_t> sorted_col;
   Buffer<int32_t> pos; // empty: the identity (the plan's own intermediate is stored sorted)
};

// The pattern of an output's device arrays (resetup::pattern_of). Throws amgt::Error for a
// repeated column within a row. Waits for s.
DeviceFixedPattern pattern_of(int32_t nrows, int32_t ncols, const int32_t* row_ptr, const int32_t* col,
                              Stream s, const Allocator& alloc);

// The sorted pattern of A*B (resetup::product_pattern), pos empty. Waits for s.
DeviceFixedPattern product_pattern(const CsrView& A, const CsrView& B, Stream s, const Allocator& alloc);

// out[pos of (i,j)] = (A*B)(i,j) on the pattern (resetup::numeric_on_pattern). A term whose
// column is not in its row sets *flag (device memory) to 1; nothing else is read back.
void numeric_on_pattern(const CsrView& A, const CsrView& B, const DeviceFixedPattern& C, double* out,
                        int32_t* flag, Stream s);

// resetup::TermPlaces on the device; width 0: none (the product searches instead).
struct DeviceTermPlaces
{
   int32_t         width = 0;
   int64_t         terms = 0;
   Buffer<int64_t> term_ptr; // nrows + 1
   Buffer<uint8_t> place;    // terms x width bytes
};

// The places of X*B's terms on C's pattern (resetup::term_places, byte for byte). Returns width
// 0 when C's rows are too long for places, when the places would take more than
// kMaxPlaceBytesPerEntry bytes per entry of X, B and C together, or when a term's column is not
// in its row (*flag, device memory, is then set as numeric_on_pattern sets it). Waits for s.
constexpr int64_t kMaxPlaceBytesPerEntry = 8;
DeviceTermPlaces term_places(const CsrView& X, const CsrView& B, const DeviceFixedPattern& C, int32_t* flag,
                             Stream s, const Allocator& alloc);

// How a product by places gives its terms to the lanes of a row's group. lanes: a lane an entry
// of X, which walks its row of B; dealt: the terms of G entries of X dealt out one a lane, as the
// searching kernel deals them (consecutive lanes read consecutive places and values of B, no lane
// waits for another's longer row, a few shuffles a term to find its entry); automatic: lanes
// where the output's rows take at most kPlacesLanesTerms terms on average (a fine level's A*P:
// short rows of X reaching short rows of P), else dealt. Both walks are bound by the L1/shared
// memory pipe (ncu: 83-96% of its throughput, DRAM 14-18%: the compare-and-swap loop of the
// shared-memory fp64 add and the gathers); on an H200 (laplace7 n=250, record 2026-11-29c)
// level 0's A*P (21 terms a row) lanes 3.39 ms, dealt 4.15; its R*(AP) (101) lanes 4.18, dealt
// 3.66; level 1's A*P (106) lanes 5.11, dealt 4.95, R*(AP) lanes 3.28, dealt 2.06.
enum class PlacesWalk
{
   automatic,
   lanes,
   dealt
};
constexpr double kPlacesLanesTerms = 32.0;
PlacesWalk       places_walk(const DeviceTermPlaces& t, int32_t nrows, PlacesWalk walk);

// out = X*B on C's pattern by the places (resetup::numeric_by_places up to the order of the
// additions), enqueued on s: a group of lanes a row of C (PlacesWalk), each term added at its
// place (shared memory for rows of up to kFixedRowCap * G / 32 entries, global atomics past
// that). B's columns are not read.
void numeric_by_places(const CsrView& X, const CsrView& B, const DeviceFixedPattern& C, const DeviceTermPlaces& t,
                       double* out, Stream s, PlacesWalk walk = PlacesWalk::automatic);

// resetup::TermPulls on the device, without the counts (the codes' end flags close each entry);
// width 0: none.
struct DeviceTermPulls
{
   int32_t         width  = 0;
   int32_t         bits_b = 0;
   int64_t         terms  = 0;
   Buffer<int64_t> term_ptr; // nrows + 1
   Buffer<uint8_t> code;     // terms x width bytes
};

// The pulls of X*B's terms from their places (resetup::term_pulls's codes, byte for byte). Width 0 where
// the reference refuses, t then as it was; otherwise the pulls take t's term pointers and t is
// left empty (width 0). Waits for s.
DeviceTermPulls term_pulls(const CsrView& X, const CsrView& B, const DeviceFixedPattern& C, DeviceTermPlaces& t,
                           Stream s, const Allocator& alloc);

// out = X*B on C's pattern by the pulls, enqueued on s: a group of lanes a row of C, X's row
// staged in shared memory (its values and the starts of the B rows it reaches) where it fits, the
// row's terms shared evenly (a few consecutive terms a lane, their operands loaded before any
// sum), each entry's run summed by a segmented scan across the group and written once. No
// atomics, no zeroing pass, the same bits every run (not numeric_on_pattern's order).
void numeric_by_pulls(const CsrView& X, const CsrView& B, const DeviceFixedPattern& C, const DeviceTermPulls& t,
                      double* out, Stream s);

// How the plan's products find their terms' places. automatic: places wherever they fit, else
// search; pulls, search: that form for every product that takes it (pulls, else places, else
// search), for the kernel bench's comparison and the tests. On an H200 (laplace7 n=250, records
// 2026-11-29b and 2026-11-29c), both products of level 0: places 7.0 ms, pulls 9.2, search 9.6;
// level 1: places 7.0 (the dealt walk; 8.4 with a lane an entry of X everywhere), pulls 7.2,
// search 7.9; the pulls' plan costs 108 + 173 ms for the first two levels against the places' 27
// + 19.
enum class PlanForm
{
   automatic,
   pulls,
   search
};

// resetup::GalerkinPlan on the device, with each product's faster form where it fits and pays
// (PlanForm; width 0 in both: that product searches).
struct DeviceGalerkinPlan
{
   DeviceFixedPattern ap;
   Buffer<double>     ap_val;
   DeviceFixedPattern c;
   Buffer<int32_t>    flag;
   DeviceTermPlaces   ap_places;
   DeviceTermPlaces   c_places;
   DeviceTermPulls    ap_pulls;
   DeviceTermPulls    c_pulls;
   bool               checked = false; // the first product read the flag back
   bool               places_refused = false; // the device refused the places' memory: those products search
};

// The plan's two products in turn (places where the plan has them), enqueued on s.
void galerkin_products(DeviceGalerkinPlan& plan, const CsrView& R, const CsrView& A, const CsrView& P,
                       double* c_val, Stream s);

// The plan of C = R*A*P on C's own arrays, built on s (waits for s). Throws std::bad_alloc where
// the device refuses the patterns' memory; where it refuses a product's places, that product
// searches (places_refused).
DeviceGalerkinPlan make_galerkin_plan(const CsrView& R, const CsrView& A, const CsrView& P,
                                      const int32_t* c_row_ptr, const int32_t* c_col, int32_t c_nrows,
                                      Stream s, const Allocator& alloc, PlanForm form = PlanForm::automatic);

// c_val = R*A*P on the plan, enqueued on s. The plan's first product waits for s and reads the
// flag back: false when a term fell outside the plan's patterns (the caller runs a full product);
// later products only enqueue (the structure fingerprint guarantees the same patterns).
bool galerkin_numeric(DeviceGalerkinPlan& plan, const CsrView& R, const CsrView& A, const CsrView& P,
                      double* c_val, Stream s);

} // namespace amgt::device
