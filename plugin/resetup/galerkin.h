// Re-setup of a BoomerAMG hierarchy whose fine matrix kept its sparsity structure: the Galerkin
// products A_{l+1} = R_l A_l P_l recomputed on patterns fixed at the first re-setup (the plan),
// with no symbolic phase and no hash table, and the structure fingerprint that tells whether the
// fine matrix still has the structure the hierarchy was built from.
//
// CPU reference here; the GPU kernels (galerkin_device.h) take the same inputs and must give
// the same patterns exactly and the same values up to the order of the additions.
//
// A fixed pattern is an output's own row pointers and columns (in the output's order, which
// hypre leaves unsorted: diagonal first, hash order after) seen through a copy of each row's
// columns in ascending order and, for each sorted entry, its index in the output's arrays: a
// term's place is a binary search in its row, and its value lands at that index.
#pragma once

#include "common/config.h" // AMGT_HD
#include "mbsr/mbsr.h"      // CsrView

#include <cmath>
#include <cstdint>
#include <vector>

namespace amgt::resetup {

// 64-bit fingerprint of a CSR structure: the shape, the row pointers and the columns, in their
// order (values are not read). Equal structures give equal fingerprints; any change of a row
// length, a column or the order of a row's columns changes it but for a 2^-64 chance.
uint64_t structure_fingerprint(const CsrView& a);

// The mixing function of the fingerprint (splitmix64's finaliser). These functions (AMGT_HD)
// are the kernels' too: the host and the device compute the same bits by the same code.
AMGT_HD inline uint64_t mix64(uint64_t x)
{
   x ^= x >> 30;
   x *= 0xbf58476d1ce4e5b9ULL;
   x ^= x >> 27;
   x *= 0x94d049bb133111ebULL;
   x ^= x >> 31;
   return x;
}
// One entry's contribution: entry index k of the column array (or nrows+1+k of the row
// pointers), value v. The fingerprint is the wrapping sum of all contributions plus the shape's:
// a sum is the same in any order, so the GPU reduces it in parallel to the same bits.
AMGT_HD inline uint64_t fingerprint_term(uint64_t k, uint64_t v)
{
   return mix64(k * 0x9e3779b97f4a7c15ULL ^ mix64(v + 0x632be59bd9b4e019ULL));
}
AMGT_HD inline uint64_t fingerprint_shape(int64_t nrows, int64_t ncols, int64_t nnz)
{
   return mix64(static_cast<uint64_t>(nrows) ^ mix64(static_cast<uint64_t>(ncols) + 1) ^
                mix64(static_cast<uint64_t>(nnz) + 2));
}

// AMGT_RESETUP=auto's guard against values that moved too far for the kept hierarchy: |a_ii| of
// every row (0 where a row stores no diagonal entry), and the largest ratio between a row's new
// and old |a_ii|, either way up (1 where both are 0, infinity where only one is).
// A NaN diagonal counts as the worst (infinity): a full setup handles it as hypre does.
std::vector<double> abs_diagonal(const CsrView& a);
double              max_diagonal_ratio(const CsrView& a, const double* old_abs_diagonal);

// Row i's |a_ii| (0 without a stored diagonal; val nullptr: every value 1), and one row's ratio.
AMGT_HD inline double abs_diagonal_at(const int32_t* row_ptr, const int32_t* col, const double* val, int32_t i)
{
   for (int32_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
   {
      if (col[k] == i) { return fabs(val ? val[k] : 1.0); }
   }
   return 0.0;
}
AMGT_HD inline double diagonal_ratio(double now, double then)
{
   if (now == then) { return 1.0; }
   if (now == 0.0 || then == 0.0) { return HUGE_VAL; }
   const double r = now > then ? now / then : then / now;
   return r != r ? HUGE_VAL : r; // NaN
}

struct FixedPattern
{
   int32_t              nrows = 0;
   int32_t              ncols = 0;
   std::vector<int32_t> row_ptr;    // nrows + 1
   std::vector<int32_t> sorted_col; // each row's columns, ascending
   std::vector<int32_t> pos;        // sorted entry -> index in the output's own arrays
};

// The pattern of an existing output (row_ptr, col as the output holds them). Throws amgt::Error
// for a repeated column within a row (no place would be unique).
FixedPattern pattern_of(int32_t nrows, int32_t ncols, const int32_t* row_ptr, const int32_t* col);

// The pattern of A*B (every column a term reaches, structural: cancellations kept), sorted,
// pos the identity: the plan's own intermediate.
FixedPattern product_pattern(const CsrView& A, const CsrView& B);

// out[pos of (i,j)] = sum_k A(i,k) B(k,j) for every (i,j) of the pattern, summed in CSR order
// (A's entries in turn, B's row in turn); out is overwritten on the pattern's entries only.
// Returns false, out unspecified, when a term's column is not in its row of the pattern.
bool numeric_on_pattern(const CsrView& A, const CsrView& B, const FixedPattern& C, double* out);

// The places of a product's terms on a fixed pattern, the plan of the faster numeric form: the
// terms of row i of C = X*B in CSR order (X's entries in turn, B's row in turn), term_ptr[i] the
// first of them, and for each term the index of its entry within row i of the output's own
// arrays (C.pos[...] minus the row's start), kept in `width` bytes (1 for rows of at most 256
// entries, 2 for at most 65536). A numeric product by places reads no column of B and searches
// nothing: each term's value lands at out[row start + place].
struct TermPlaces
{
   int32_t              width = 0;
   std::vector<int64_t> term_ptr; // nrows + 1
   std::vector<uint8_t> place;    // terms x width bytes, little-endian
};

// Bytes a place of a pattern whose longest row has `longest` entries: 1, 2, or 0 (no places).
inline int32_t place_width(int64_t longest) { return longest <= 256 ? 1 : longest <= 65536 ? 2 : 0; }

// The places of X*B's terms on C's pattern. False (out unspecified) when a term's column is not
// in its row of the pattern or C's rows are too long for places (place_width 0).
bool term_places(const CsrView& X, const CsrView& B, const FixedPattern& C, TermPlaces& out);

// out[C's row start + place] = sum of X*B's terms, added in CSR order (numeric_on_pattern's
// order: the same bits); C.row_ptr as given to term_places.
void numeric_by_places(const CsrView& X, const CsrView& B, const FixedPattern& C, const TermPlaces& t,
                       double* out);

// The same terms gathered by output entry, the plan of the form without atomics: count[e] is
// the number of terms of the output's entry e (own order, at most 255), and the terms of row i,
// from term_ptr[i] on, are listed entry by entry in the row's own order, each entry's in CSR
// order, each as a code (((xoff << bits_b) | boff) << 1) | last: the term's entry of X (its
// offset within X's row) and of B (within B's row), and whether it is its output entry's last
// term, in `width` bytes. A product by pulls sums each output entry in the order
// numeric_on_pattern adds it (the same bits) and writes it once; the flags let a group of lanes
// share a row's terms evenly and reduce each entry's run (numeric_by_pulls on the device).
struct TermPulls
{
   int32_t              width  = 0; // 1 or 2 bytes a code; 0: no pulls
   int32_t              bits_b = 0; // bits of a code for the offset within B's row
   std::vector<int64_t> term_ptr;   // nrows + 1 (TermPlaces::term_ptr)
   std::vector<uint8_t> count;      // C's entries
   std::vector<uint8_t> code;       // terms x width bytes, little-endian
};

// Bits for an offset within rows of at most `longest` entries (0 for rows of one entry).
inline int32_t offset_bits(int64_t longest)
{
   int32_t b = 0;
   while ((int64_t{1} << b) < longest) { ++b; }
   return b;
}

// The pulls of X*B's terms from their places (term_places). False (width 0) when the codes
// would need more than 16 bits, an output entry has more than 255 terms or none.
bool term_pulls(const CsrView& X, const CsrView& B, const FixedPattern& C, const TermPlaces& t, TermPulls& out);

// out[C's own entry] = its terms' sum by the pulls (numeric_on_pattern's bits).
void numeric_by_pulls(const CsrView& X, const CsrView& B, const FixedPattern& C, const TermPulls& t,
                      double* out);

// The plan of one level's product C = R*(A*P) on fixed patterns: AP's pattern and values (the
// intermediate, owned here) and C's pattern over the coarse operator's own arrays.
struct GalerkinPlan
{
   FixedPattern        ap;
   std::vector<double> ap_val;
   FixedPattern        c;
};

// Builds the plan from the level's matrices; c_row_ptr/c_col: the coarse operator's arrays.
GalerkinPlan make_galerkin_plan(const CsrView& R, const CsrView& A, const CsrView& P,
                                const int32_t* c_row_ptr, const int32_t* c_col, int32_t c_nrows);

// c_val (the coarse operator's values, its own order) = R*A*P on the plan. False when the
// matrices do not fit the plan (c_val unspecified): the caller runs a full product.
bool galerkin_numeric(GalerkinPlan& plan, const CsrView& R, const CsrView& A, const CsrView& P,
                      double* c_val);

// Sizes the inputs must have for a plan (R: c_nrows x A.nrows, A square, P: A.nrows x c_nrows);
// throws amgt::Error naming the mismatch.
void check_galerkin_shapes(const CsrView& R, const CsrView& A, const CsrView& P, int32_t c_nrows);

} // namespace amgt::resetup
