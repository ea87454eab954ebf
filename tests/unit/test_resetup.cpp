// The re-setup's CPU reference (resetup/galerkin.h): the structure fingerprint, fixed patterns
// and the numeric-only Galerkin product on a plan, against the plugin's full product
// (csr_spgemm_ref) on AMG-shaped and random matrices; small-integer values, so every sum is
// exact and the results are compared bit for bit.
#include "common/amg_products.h"
#include "common/csr_utils.h"
#include "common/error.h"
#include "common/random_matrix.h"
#include "resetup/galerkin.h"
#include "spgemm/spgemm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace {

using amgt::CsrMatrix;
using namespace amgt::test;
namespace rs = amgt::resetup;

TEST(Fingerprint, SameStructureSameBitsAnyValues)
{
   CsrMatrix a = stencil_3d(5, 4, 3, 7);
   CsrMatrix b = a;
   for (double& v : b.val) v = v * 3.0 + 1.0;
   EXPECT_EQ(rs::structure_fingerprint(a.view()), rs::structure_fingerprint(b.view()));
}

TEST(Fingerprint, AnyChangeOfStructureChangesIt)
{
   const CsrMatrix a  = stencil_3d(5, 4, 3, 7);
   const uint64_t  fa = rs::structure_fingerprint(a.view());
   CsrMatrix       col = a; // one column moved
   col.col[7] = (col.col[7] + 1) % col.ncols;
   EXPECT_NE(fa, rs::structure_fingerprint(col.view()));
   CsrMatrix order = a; // two entries of a row swapped: hypre's products depend on the order
   std::swap(order.col[a.row_ptr[3]], order.col[a.row_ptr[3] + 1]);
   EXPECT_NE(fa, rs::structure_fingerprint(order.view()));
   CsrMatrix wider = a; // the same arrays, one more column
   wider.ncols += 1;
   EXPECT_NE(fa, rs::structure_fingerprint(wider.view()));
   const CsrMatrix other = stencil_3d(5, 4, 3, 27); // another stencil
   EXPECT_NE(fa, rs::structure_fingerprint(other.view()));
}

TEST(DiagonalGuard, RatiosEitherWayUpByHand)
{
   // rows: diagonal 2 -> 4 (x2), -3 -> 1 (x3, signs ignored), none (0) -> none, 5 -> missing
   const CsrMatrix a = from_entries(4, 4, {{0, 0, 4.0}, {0, 1, 1.0}, {1, 1, 1.0}, {2, 0, 7.0}, {3, 2, 1.0}});
   const std::vector<double> old{2.0, 3.0, 0.0, 5.0};
   EXPECT_EQ(rs::abs_diagonal(a.view()), (std::vector<double>{4.0, 1.0, 0.0, 0.0}));
   EXPECT_EQ(rs::max_diagonal_ratio(a.view(), old.data()), std::numeric_limits<double>::infinity());
   const std::vector<double> same{4.0, 1.0, 0.0, 0.0};
   EXPECT_EQ(rs::max_diagonal_ratio(a.view(), same.data()), 1.0);
   const std::vector<double> close{2.0, 3.0, 0.0, 0.0};
   EXPECT_EQ(rs::max_diagonal_ratio(a.view(), close.data()), 3.0);
   EXPECT_EQ(rs::diagonal_ratio(1.0, 0.5), 2.0);
   EXPECT_EQ(rs::diagonal_ratio(0.5, 1.0), 2.0);
   CsrMatrix nan = a;
   nan.val[0]    = std::nan("");
   EXPECT_EQ(rs::max_diagonal_ratio(nan.view(), same.data()), std::numeric_limits<double>::infinity());
}

TEST(FixedPattern, SortsEachRowAndKeepsTheOutputsPlaces)
{
   const CsrMatrix     c = shuffled_rows(stencil_3d(4, 3, 3, 27), 5);
   const rs::FixedPattern p = rs::pattern_of(c.nrows, c.ncols, c.row_ptr.data(), c.col.data());
   ASSERT_EQ(p.sorted_col.size(), c.col.size());
   for (int32_t i = 0; i < c.nrows; ++i)
   {
      for (int32_t k = c.row_ptr[i]; k < c.row_ptr[i + 1]; ++k)
      {
         if (k > c.row_ptr[i]) { EXPECT_LT(p.sorted_col[k - 1], p.sorted_col[k]); }
         EXPECT_GE(p.pos[k], c.row_ptr[i]);
         EXPECT_LT(p.pos[k], c.row_ptr[i + 1]);
         EXPECT_EQ(c.col[p.pos[k]], p.sorted_col[k]);
      }
   }
}

TEST(FixedPattern, RepeatedColumnIsAnError)
{
   const CsrMatrix c = from_entries(2, 3, {{0, 1, 1.0}, {0, 1, 2.0}, {1, 0, 1.0}});
   EXPECT_THROW(rs::pattern_of(c.nrows, c.ncols, c.row_ptr.data(), c.col.data()), amgt::Error);
}

TEST(FixedPattern, ProductPatternIsTheStructureOfTheProduct)
{
   const CsrMatrix a = random_csr(40, 30, 0.1, Fill::small_int, 3);
   const CsrMatrix b = random_csr(30, 50, 0.1, Fill::small_int, 4);
   const rs::FixedPattern p       = rs::product_pattern(a.view(), b.view());
   const std::vector<char> pattern = dense_pattern(a, b);
   size_t                  count   = 0;
   for (char x : pattern) count += x ? 1 : 0;
   ASSERT_EQ(p.sorted_col.size(), count);
   for (int32_t i = 0; i < p.nrows; ++i)
      for (int32_t k = p.row_ptr[i]; k < p.row_ptr[i + 1]; ++k)
      {
         EXPECT_TRUE(pattern[static_cast<size_t>(i) * b.ncols + p.sorted_col[k]]);
         EXPECT_EQ(p.pos[k], k);
      }
}

TEST(NumericOnPattern, EqualsTheFullProductBitForBit)
{
   const CsrMatrix a = random_csr(60, 45, 0.08, Fill::small_int, 7);
   const CsrMatrix b = random_csr(45, 70, 0.08, Fill::small_int, 8);
   // the full product in an unsorted order, as hypre would hold it
   const CsrMatrix c = shuffled_rows(amgt::csr_spgemm_ref(a.view(), b.view()), 9);
   const rs::FixedPattern p = rs::pattern_of(c.nrows, c.ncols, c.row_ptr.data(), c.col.data());
   std::vector<double>    out(c.col.size(), -12345.0);
   ASSERT_TRUE(rs::numeric_on_pattern(a.view(), b.view(), p, out.data()));
   for (size_t k = 0; k < out.size(); ++k) { EXPECT_EQ(out[k], c.val[k]) << "entry " << k; }
}

TEST(NumericOnPattern, ATermOutsideThePatternIsRefused)
{
   const CsrMatrix a = random_csr(20, 20, 0.2, Fill::small_int, 11);
   CsrMatrix       c = amgt::csr_spgemm_ref(a.view(), a.view());
   // drop the last entry of a nonempty row: one term has no place
   int32_t row = 0;
   while (c.row_ptr[row + 1] == c.row_ptr[row]) ++row;
   CsrMatrix cut;
   cut.nrows = c.nrows;
   cut.ncols = c.ncols;
   cut.row_ptr.push_back(0);
   for (int32_t i = 0; i < c.nrows; ++i)
   {
      for (int32_t k = c.row_ptr[i]; k < c.row_ptr[i + 1] - (i == row ? 1 : 0); ++k) cut.col.push_back(c.col[k]);
      cut.row_ptr.push_back(static_cast<int32_t>(cut.col.size()));
   }
   const rs::FixedPattern p = rs::pattern_of(cut.nrows, cut.ncols, cut.row_ptr.data(), cut.col.data());
   std::vector<double>    out(cut.col.size());
   EXPECT_FALSE(rs::numeric_on_pattern(a.view(), a.view(), p, out.data()));
}

// The places of every term and the product by places against numeric_on_pattern: the same
// additions in the same order, so the same bits (random values, not only small integers).
void expect_places_match(const CsrMatrix& x, const CsrMatrix& b, int32_t width, const char* what)
{
   SCOPED_TRACE(what);
   const CsrMatrix        c = shuffled_rows(amgt::csr_spgemm_ref(x.view(), b.view()), 19);
   const rs::FixedPattern p = rs::pattern_of(c.nrows, c.ncols, c.row_ptr.data(), c.col.data());
   rs::TermPlaces         t;
   ASSERT_TRUE(rs::term_places(x.view(), b.view(), p, t));
   EXPECT_EQ(t.width, width);
   int64_t terms = 0;
   for (int32_t i = 0; i < x.nrows; ++i)
      for (int32_t k = x.row_ptr[i]; k < x.row_ptr[i + 1]; ++k) terms += b.row_ptr[x.col[k] + 1] - b.row_ptr[x.col[k]];
   EXPECT_EQ(t.term_ptr.back(), terms);
   EXPECT_EQ(static_cast<int64_t>(t.place.size()), terms * t.width);
   std::vector<double> ref(c.col.size(), -1.0), got(c.col.size(), -2.0);
   ASSERT_TRUE(rs::numeric_on_pattern(x.view(), b.view(), p, ref.data()));
   rs::numeric_by_places(x.view(), b.view(), p, t, got.data());
   EXPECT_EQ(got, ref);
   // the pulls: the same bits, every term once, each entry's count its terms
   rs::TermPulls pulls;
   ASSERT_TRUE(rs::term_pulls(x.view(), b.view(), p, t, pulls));
   EXPECT_EQ(pulls.term_ptr, t.term_ptr);
   EXPECT_EQ(static_cast<int64_t>(pulls.code.size()), terms * pulls.width);
   int64_t counted = 0;
   for (uint8_t n : pulls.count) counted += n;
   EXPECT_EQ(counted, terms);
   // one flag an entry, on its last term
   int64_t term_of = 0, flags_ok = 0;
   for (uint8_t n : pulls.count)
   {
      for (int32_t q = 0; q < n; ++q, ++term_of)
      {
         const bool last = (pulls.code[term_of * pulls.width] & 1u) != 0;
         flags_ok += last == (q + 1 == n) ? 1 : 0;
      }
   }
   EXPECT_EQ(flags_ok, terms);
   std::vector<double> pulled(c.col.size(), -3.0);
   rs::numeric_by_pulls(x.view(), b.view(), p, pulls, pulled.data());
   EXPECT_EQ(pulled, ref);
   std::printf("[ places  ] %s: %lld terms, places %d byte(s), pulls %d byte(s) (%d bits for B)\n", what,
               static_cast<long long>(terms), t.width, pulls.width, pulls.bits_b);
   // each place names the entry of its term's column in the output's own order
   int64_t term = 0;
   for (int32_t i = 0; i < x.nrows; ++i)
      for (int32_t k = x.row_ptr[i]; k < x.row_ptr[i + 1]; ++k)
         for (int32_t kb = b.row_ptr[x.col[k]]; kb < b.row_ptr[x.col[k] + 1]; ++kb, ++term)
         {
            const uint8_t* q     = t.place.data() + term * t.width;
            const int32_t  place = t.width == 2 ? q[0] | (q[1] << 8) : q[0];
            ASSERT_EQ(c.col[c.row_ptr[i] + place], b.col[kb]) << "row " << i << ", term " << term;
         }
}

TEST(TermPlaces, ProductByPlacesEqualsTheSearchingProductBitForBit)
{
   const CsrMatrix a27 = stencil_3d(9, 8, 7, 27, Fill::random, 3);
   const CsrMatrix P   = interpolation_3d(9, 8, 7, 4);
   expect_places_match(a27, P, 1, "27-point A * P");
   const CsrMatrix ap = amgt::csr_spgemm_ref(a27.view(), P.view());
   expect_places_match(transpose(P), ap, 1, "P^T * (AP)");
   // rows of the product past 256 entries: two bytes a place
   const std::vector<int32_t> la{0, 5, 20, 40, 400}, lb{1, 2, 3, 4, 5};
   const CsrMatrix x = varied_rows(60, 500, la, Fill::random, 5);
   const CsrMatrix b = varied_rows(500, 700, lb, Fill::random, 7);
   expect_places_match(x, b, 2, "rows past 256 entries");
   CsrMatrix ones = b; // B without values (all ones)
   ones.val.clear();
   expect_places_match(x, ones, 2, "B pattern only");
}

TEST(TermPlaces, PlaceWidthAndRefusals)
{
   EXPECT_EQ(rs::place_width(0), 1);
   EXPECT_EQ(rs::place_width(256), 1);
   EXPECT_EQ(rs::place_width(257), 2);
   EXPECT_EQ(rs::place_width(65536), 2);
   EXPECT_EQ(rs::place_width(65537), 0);
   // a term outside the pattern: no places
   const CsrMatrix  a = stencil_3d(5, 5, 5, 7);
   const rs::FixedPattern p = rs::pattern_of(a.nrows, a.ncols, a.row_ptr.data(), a.col.data());
   rs::TermPlaces   t;
   EXPECT_FALSE(rs::term_places(a.view(), a.view(), p, t)); // A*A reaches distance 2
   // a row of 65537 entries: too long for two bytes
   std::vector<Entry> e, d;
   for (int32_t j = 0; j < 65537; ++j)
   {
      e.push_back({0, j, 1.0});
      d.push_back({j, j, 1.0});
   }
   const CsrMatrix  wide = from_entries(1, 65537, e);
   const CsrMatrix  id   = from_entries(65537, 65537, d);
   const rs::FixedPattern pw = rs::pattern_of(wide.nrows, wide.ncols, wide.row_ptr.data(), wide.col.data());
   EXPECT_FALSE(rs::term_places(wide.view(), id.view(), pw, t));
   EXPECT_EQ(t.width, 0);
   // shapes that differ from the pattern's
   EXPECT_FALSE(rs::term_places(wide.view(), wide.view(), pw, t));
}

TEST(TermPulls, Refusals)
{
   EXPECT_EQ(rs::offset_bits(0), 0);
   EXPECT_EQ(rs::offset_bits(1), 0);
   EXPECT_EQ(rs::offset_bits(4), 2);
   EXPECT_EQ(rs::offset_bits(5), 3);
   EXPECT_EQ(rs::offset_bits(256), 8);
   // one output entry with 256 terms: a row of X of 256 entries, each reaching column 0 of B
   std::vector<Entry> xe, be;
   for (int32_t j = 0; j < 256; ++j)
   {
      xe.push_back({0, j, 1.0});
      be.push_back({j, 0, 2.0});
   }
   const CsrMatrix        x = from_entries(1, 256, xe), b = from_entries(256, 1, be);
   const CsrMatrix        c = amgt::csr_spgemm_ref(x.view(), b.view());
   const rs::FixedPattern p = rs::pattern_of(c.nrows, c.ncols, c.row_ptr.data(), c.col.data());
   rs::TermPlaces         t;
   ASSERT_TRUE(rs::term_places(x.view(), b.view(), p, t));
   rs::TermPulls pulls;
   EXPECT_FALSE(rs::term_pulls(x.view(), b.view(), p, t, pulls));
   EXPECT_EQ(pulls.width, 0);
   // 255 terms: taken, and summed right
   const CsrMatrix        x1 = from_entries(1, 256, std::vector<Entry>(xe.begin(), xe.end() - 1));
   const CsrMatrix        c1 = amgt::csr_spgemm_ref(x1.view(), b.view());
   const rs::FixedPattern p1 = rs::pattern_of(c1.nrows, c1.ncols, c1.row_ptr.data(), c1.col.data());
   ASSERT_TRUE(rs::term_places(x1.view(), b.view(), p1, t));
   ASSERT_TRUE(rs::term_pulls(x1.view(), b.view(), p1, t, pulls));
   EXPECT_EQ(pulls.count, std::vector<uint8_t>{255});
   EXPECT_EQ(pulls.width, 2); // 8 bits for X's offsets, 0 for B's, the flag
   double sum = 0.0;
   rs::numeric_by_pulls(x1.view(), b.view(), p1, pulls, &sum);
   EXPECT_EQ(sum, 510.0);
   // an entry of the pattern that no term reaches: refused (the flags need a term an entry)
   const CsrMatrix        c2 = from_entries(1, 2, {{0, 0, 1.0}, {0, 1, 1.0}});
   const rs::FixedPattern p2 = rs::pattern_of(c2.nrows, c2.ncols, c2.row_ptr.data(), c2.col.data());
   const CsrMatrix        b2 = from_entries(256, 2, std::vector<Entry>(be.begin(), be.end() - 1));
   ASSERT_TRUE(rs::term_places(x1.view(), b2.view(), p2, t));
   EXPECT_FALSE(rs::term_pulls(x1.view(), b2.view(), p2, t, pulls));
   // codes past 16 bits: rows of X of 2^9 + 1 entries against rows of B of 2^8 + 1
   std::vector<Entry> xw, bw;
   for (int32_t j = 0; j < 513; ++j) xw.push_back({0, j, 1.0});
   for (int32_t k = 0; k < 513; ++k)
      for (int32_t j = 0; j < (k == 0 ? 257 : 1); ++j) bw.push_back({k, j, 1.0});
   const CsrMatrix        xx = from_entries(1, 513, xw), bb = from_entries(513, 257, bw);
   const CsrMatrix        cw = amgt::csr_spgemm_ref(xx.view(), bb.view());
   const rs::FixedPattern pw = rs::pattern_of(cw.nrows, cw.ncols, cw.row_ptr.data(), cw.col.data());
   ASSERT_TRUE(rs::term_places(xx.view(), bb.view(), pw, t));
   EXPECT_FALSE(rs::term_pulls(xx.view(), bb.view(), pw, t, pulls));
}

TEST(GalerkinPlan, NumericProductsEqualTheFullTripleProductOnNewValues)
{
   const CsrMatrix a0 = stencil_3d(7, 6, 5, 27);
   const CsrMatrix P  = interpolation_3d(7, 6, 5, 4);
   const CsrMatrix R  = transpose(P);
   // the coarse operator of the first setup, in an unsorted order: the plan's pattern
   const CsrMatrix c0 =
      shuffled_rows(amgt::csr_spgemm_ref(R.view(), amgt::csr_spgemm_ref(a0.view(), P.view()).view()), 13);
   rs::GalerkinPlan plan = rs::make_galerkin_plan(R.view(), a0.view(), P.view(), c0.row_ptr.data(),
                                                  c0.col.data(), c0.nrows);
   // new values of the fine matrix, the same structure: every step reuses the plan
   for (uint32_t step = 0; step < 3; ++step)
   {
      SCOPED_TRACE(step);
      CsrMatrix    a = a0;
      std::mt19937 rng(100 + step);
      for (double& v : a.val) v = draw_value(rng, Fill::small_int);
      std::vector<double> c_val(c0.col.size(), -1.0);
      ASSERT_TRUE(rs::galerkin_numeric(plan, R.view(), a.view(), P.view(), c_val.data()));
      const CsrMatrix full = canonical(amgt::csr_spgemm_ref(R.view(), amgt::csr_spgemm_ref(a.view(), P.view()).view()));
      CsrMatrix       got  = c0;
      got.val            = c_val;
      const CsrMatrix g  = canonical(got);
      // the full product may hold fewer entries where a sum cancels to an explicit zero; the
      // plan keeps the first setup's pattern, so compare entry by entry, zeros allowed
      ASSERT_EQ(g.nrows, full.nrows);
      for (int32_t i = 0; i < g.nrows; ++i)
      {
         int32_t f = full.row_ptr[i];
         for (int32_t k = g.row_ptr[i]; k < g.row_ptr[i + 1]; ++k)
         {
            const bool in_full = f < full.row_ptr[i + 1] && full.col[f] == g.col[k];
            EXPECT_EQ(g.val[k], in_full ? full.val[f] : g.val[k]);
            if (in_full) { ++f; }
         }
         EXPECT_EQ(f, full.row_ptr[i + 1]) << "row " << i << ": the plan lost an entry of the product";
      }
   }
}

TEST(GalerkinPlan, ShapesAreChecked)
{
   const CsrMatrix a = stencil_3d(4, 4, 4, 7);
   const CsrMatrix P = interpolation_3d(4, 4, 4, 4);
   const CsrMatrix R = transpose(P);
   const CsrMatrix c = amgt::csr_spgemm_ref(R.view(), amgt::csr_spgemm_ref(a.view(), P.view()).view());
   EXPECT_THROW(rs::make_galerkin_plan(P.view(), a.view(), P.view(), c.row_ptr.data(), c.col.data(), c.nrows),
                amgt::Error);
   EXPECT_THROW(rs::make_galerkin_plan(R.view(), a.view(), R.view(), c.row_ptr.data(), c.col.data(), c.nrows),
                amgt::Error);
}

} // namespace
