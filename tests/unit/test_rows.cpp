// The row-wise layout's reference (rows/rows.h) against csr_spmv_ref, and the layout rule.
#include "common/csr_utils.h"
#include "common/storage_types.h"
#include "common/error.h"
#include "common/random_matrix.h"
#include "common/spmv_inputs.h"
#include "common/tolerances.h"
#include "precision/policy.h"
#include "rows/rows.h"
#include "spmv/spmv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace {

using namespace amgt;
using namespace amgt::test;

const double kNaN = std::numeric_limits<double>::quiet_NaN();




std::vector<NamedMatrix> cases(Fill fill)
{
   std::vector<NamedMatrix> c = edge_matrices();
   c.push_back({"random_300", random_csr(300, 300, 0.02, fill, 31)});
   c.push_back({"rect_211x97", random_csr(211, 97, 0.05, fill, 32)});
   c.push_back({"band_32767", band(40000, kNarrowSpan, fill, 33)});
   c.push_back({"band_32768", band(40000, kNarrowSpan + 1, fill, 34)});
   return c;
}

template <class V>
class RowsRef : public ::testing::Test
{
};
TYPED_TEST_SUITE(RowsRef, StorageTypes);

// Small integers are exact in every precision and order: rows_spmv_ref equals the fp64 CSR
// oracle bit for bit, with 16-bit offsets and without. beta == 0 runs with NaN in y, alpha ==
// 0 with NaN in x.
TYPED_TEST(RowsRef, ExactOnSmallIntegerInputs)
{
   using V  = TypeParam;
   int runs = 0;
   for (const NamedMatrix& c : cases(Fill::small_int))
   {
      const CsrMatrix& a = c.a;
      for (bool narrow : {false, true})
      {
         const Rows<V> r = rows_from_csr<V>(a.view(), narrow);
         EXPECT_EQ(r.narrow, narrow && fits_narrow(a.view())) << c.name;
         EXPECT_EQ(r.col16.size(), r.narrow ? static_cast<size_t>(nnz_of(a)) : 0u);
         EXPECT_EQ(r.col.size(), r.narrow ? 0u : static_cast<size_t>(nnz_of(a)));
         const std::vector<double> x  = random_vector(a.ncols, Fill::small_int, 7);
         const std::vector<double> xn(x.size(), kNaN);
         for (const AlphaBeta& ab : kExactCombos)
         {
            SCOPED_TRACE(c.name + " narrow=" + std::to_string(narrow) + " alpha=" + std::to_string(ab.alpha));
            const std::vector<double>& xs = ab.alpha == 0.0 ? xn : x;
            std::vector<double> y0 = ab.beta == 0.0 ? std::vector<double>(static_cast<size_t>(a.nrows), kNaN)
                                                    : random_vector(a.nrows, Fill::small_int, 8);
            std::vector<double> got = y0, want = y0;
            rows_spmv_ref(r, ab.alpha, xs.data(), ab.beta, got.data());
            csr_spmv_ref(a.view(), ab.alpha, xs.data(), ab.beta, want.data());
            for (size_t i = 0; i < got.size(); ++i)
            {
               ASSERT_EQ(bits_of(got[i]), bits_of(want[i])) << "row " << i;
            }
            ++runs;
         }
      }
   }
   EXPECT_GT(runs, 100);
}

TEST(Rows, NarrowOffsetsReachExactlyTheirSpan)
{
   EXPECT_TRUE(fits_narrow(band(40000, kNarrowSpan, Fill::small_int, 1).view()));
   EXPECT_FALSE(fits_narrow(band(40000, kNarrowSpan + 1, Fill::small_int, 1).view()));
   EXPECT_EQ(max_span(band(40000, 17, Fill::small_int, 1).view()), 17);
   EXPECT_EQ(max_span(from_entries(5, 9, {{4, 0, 1.0}, {1, 8, 1.0}}).view()), 7); // |8 - 1| over |0 - 4|
   EXPECT_EQ(max_span(from_entries(3, 3, {}).view()), 0);
   const Rows<float> r = rows_from_csr<float>(band(40000, kNarrowSpan, Fill::small_int, 1).view(), true);
   ASSERT_TRUE(r.narrow);
   bool reached = false;
   for (int16_t d : r.col16) reached = reached || d == kNarrowSpan || d == -kNarrowSpan;
   EXPECT_TRUE(reached);
}

// Random values: within the SpMV bound of the fp64 oracle (tests/common/tolerances.h), and
// reduced precision visibly rounded.
TYPED_TEST(RowsRef, WithinToleranceOnRandomInputs)
{
   using V          = TypeParam;
   const Roundoff r = roundoff<V>();
   double         max_err = 0.0;
   for (const NamedMatrix& c : cases(Fill::random))
   {
      const CsrMatrix& a = c.a;
      if (nnz_of(a) == 0) continue;
      const Rows<V>             m = rows_from_csr<V>(a.view(), true);
      const std::vector<double> x = random_vector(a.ncols, Fill::random, 9);
      std::vector<double>       absx(x.size()), ax(static_cast<size_t>(a.nrows));
      for (size_t j = 0; j < x.size(); ++j) absx[j] = std::fabs(x[j]);
      csr_spmv_ref(abs_values(a).view(), 1.0, absx.data(), 0.0, ax.data());
      std::vector<double> got(static_cast<size_t>(a.nrows)), want(got.size());
      rows_spmv_ref(m, 1.5, x.data(), 0.0, got.data());
      csr_spmv_ref(a.view(), 1.5, x.data(), 0.0, want.data());
      const int k = max_row_nnz(a);
      for (size_t i = 0; i < got.size(); ++i)
      {
         ASSERT_LE(std::fabs(got[i] - want[i]), spmv_tolerance(r, k, 1.5, ax[i], 0.0, 0.0)) << c.name << " row " << i;
         max_err = std::max(max_err, std::fabs(got[i] - want[i]));
      }
   }
   if (r.store > roundoff<double>().store) { EXPECT_GT(max_err, 0.0); }
}

// Scaled storage with the unscale vector gives A x again (to the precision's bound).
TYPED_TEST(RowsRef, UnscaleRestoresTheOperator)
{
   using V          = TypeParam;
   const CsrMatrix a = laplacian_2d(23, 19);
   const std::vector<double> u = scaling_vector(a.view());
   const Rows<V>             m = rows_from_csr<V>(a.view(), true, &u);
   const std::vector<double> x = random_vector(a.ncols, Fill::random, 10);
   std::vector<double>       got(static_cast<size_t>(a.nrows)), want(got.size());
   rows_spmv_ref(m, 1.0, x.data(), 0.0, got.data(), u.data());
   csr_spmv_ref(a.view(), 1.0, x.data(), 0.0, want.data());
   const double bound = 20 * roundoff<V>().store * 8.0 * 2.0; // |A||x| <= 8 * 2 per row
   for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], bound) << "row " << i;
}

TEST(Rows, BadInputIsRefused)
{
   const CsrMatrix a = random_csr(5, 7, 0.5, Fill::small_int, 3);
   const std::vector<double> u(5, 1.0);
   EXPECT_THROW(rows_from_csr<double>(a.view(), false, &u), amgt::Error); // not square
   CsrMatrix bad = random_csr(5, 5, 0.5, Fill::small_int, 4);
   ASSERT_FALSE(bad.col.empty());
   bad.col[0] = 9; // past ncols
   EXPECT_THROW(rows_from_csr<float>(bad.view(), true), amgt::Error);
   const Rows<double> r = rows_from_csr<double>(random_csr(5, 7, 0.5, Fill::small_int, 3).view(), false);
   std::vector<double> y(5, 0.0);
   EXPECT_THROW(rows_spmv_ref(r, 1.0, nullptr, 0.0, y.data()), amgt::Error);
}

// The rule: bytes per stored entry as documented in rows/rows.h, the row-wise kernel's
// relative speed by row length and fill, mBSR only with a 10% saving.
TEST(Layout, RowWiseSpeedByRowLengthAndFill)
{
   constexpr Precision kS = Precision::fp32;
   // short rows: one speed whatever the fill
   EXPECT_DOUBLE_EQ(rows_relative_speed(3.0, 1.2, kS), kRowsShortSpeed);
   EXPECT_DOUBLE_EQ(rows_relative_speed(kRowsShortRow, 4.0, kS), kRowsShortSpeed);
   // long rows: by the fill, flat outside [kRowsLowFill, kRowsHighFill]
   EXPECT_DOUBLE_EQ(rows_relative_speed(kRowsLongRow, kRowsLowFill, kS), kRowsLowFillSpeed);
   EXPECT_DOUBLE_EQ(rows_relative_speed(300.0, 1.0, kS), kRowsLowFillSpeed);
   EXPECT_DOUBLE_EQ(rows_relative_speed(300.0, kRowsHighFill, kS), kRowsHighFillSpeed);
   EXPECT_DOUBLE_EQ(rows_relative_speed(27.0, 16.0, kS), kRowsHighFillSpeed);
   const double mid = 0.5 * (kRowsLowFill + kRowsHighFill);
   EXPECT_NEAR(rows_relative_speed(40.0, mid, kS), 0.5 * (kRowsLowFillSpeed + kRowsHighFillSpeed), 1e-12);
   // between short and long rows: linear in the row length towards the long rows' speed
   EXPECT_NEAR(rows_relative_speed(12.0, kRowsLowFill, kS), 0.5 * (kRowsShortSpeed + kRowsLowFillSpeed), 1e-12);
   EXPECT_NEAR(rows_relative_speed(12.0, kRowsHighFill, kS), 0.5 * (kRowsShortSpeed + kRowsHighFillSpeed), 1e-12);
   // the measured points it was fitted to (rows/rows.h): within 0.05 of each
   EXPECT_NEAR(rows_relative_speed(29.6, 2.36, kS), 0.87, 0.05); // 7-point level 1
   EXPECT_NEAR(rows_relative_speed(70.0, 1.55, kS), 0.76, 0.05); // 7-point level 2
   EXPECT_NEAR(rows_relative_speed(27.0, 4.04, kS), 1.06, 0.05); // 27-point fine
   EXPECT_NEAR(rows_relative_speed(79.0, 4.26, kS), 1.09, 0.05); // systems3 level 1
   EXPECT_NEAR(rows_relative_speed(204.0, 2.77, kS), 0.86, 0.05); // systems3 level 2
   // fp64: the same shape, a lower top
   constexpr Precision kD = Precision::fp64;
   EXPECT_DOUBLE_EQ(rows_relative_speed(3.0, 4.0, kD), kRowsShortSpeed);
   EXPECT_DOUBLE_EQ(rows_relative_speed(300.0, 1.0, kD), kRowsLowFillSpeed);
   EXPECT_DOUBLE_EQ(rows_relative_speed(300.0, 5.0, kD), kRowsHighFillSpeedFp64);
   EXPECT_NEAR(rows_relative_speed(79.0, 4.26, kD), 0.95, 0.05); // systems3 level 1
   EXPECT_NEAR(rows_relative_speed(29.6, 2.36, kD), 0.80, 0.05); // 7-point levels 1-2: 0.76-0.80
}

TEST(Layout, ChosenByTheTimeItsBytesTake)
{

   LayoutInputs in;
   in.precision  = Precision::fp64;
   in.row_length = 7.0;
   in.fill       = 3.1; // 7-point fine level, entries kernel: 8 + 2 + 4/3.1 + 12/28 = 11.72 vs (8 + 4 + 4/7) / 1.05 = 11.97
   LayoutChoice c = choose_layout(in);
   EXPECT_EQ(c.layout, Layout::rows);
   EXPECT_NEAR(c.mbsr_bytes, 8.0 + 2.0 + 4.0 / 3.1 + 12.0 / 28.0, 1e-12);
   EXPECT_NEAR(c.rows_bytes, 8.0 + 4.0 + 4.0 / 7.0, 1e-12);
   EXPECT_DOUBLE_EQ(c.rows_speed, kRowsShortSpeed);
   in.fill = 4.0; // tile kernels (7 tiles per block row): 8 + 6/4 + 12/28 = 9.93 vs 11.97
   c       = choose_layout(in);
   EXPECT_EQ(c.layout, Layout::mbsr);
   EXPECT_TRUE(c.tile_kernels); // converted in bitmap order
   EXPECT_FALSE(c.entry_order);
   EXPECT_NEAR(c.mbsr_bytes, 8.0 + 6.0 / 4.0 + 12.0 / 28.0, 1e-12);
   in.narrow = true; // against (8 + 2 + 4/7) / 1.05 = 10.07
   EXPECT_EQ(choose_layout(in).layout, Layout::rows);
   in.narrow     = false;
   in.row_length = 29.0; // 7-point level 1: entries kernel 8 + 2 + 4/2.36 + 0.1 = 11.8 vs 12.14 / 0.86 = 14.1
   in.fill       = 2.36;
   c             = choose_layout(in);
   EXPECT_NEAR(c.mbsr_bytes, 8.0 + 2.0 + 4.0 / 2.36 + 12.0 / 116.0, 1e-12);
   EXPECT_DOUBLE_EQ(c.rows_speed, rows_relative_speed(29.0, 2.36, Precision::fp64));
   EXPECT_EQ(c.layout, Layout::mbsr);
   EXPECT_FALSE(c.tile_kernels); // the entries kernel: in fp64 converted in entry order
   EXPECT_TRUE(c.entry_order);
   for (const Precision p : {Precision::fp32, Precision::fp16})
   {
      in.precision            = p;
      const LayoutChoice lower = choose_layout(in);
      EXPECT_EQ(lower.layout, Layout::mbsr) << to_string(p);
      EXPECT_FALSE(lower.tile_kernels) << to_string(p);
      EXPECT_FALSE(lower.entry_order) << to_string(p) << ": values copied anyway, bitmap order";
   }
   in.precision = Precision::fp64;
   EXPECT_FALSE(layout_needs_exact_span(in)); // 32-bit columns: nothing hangs on the span
   // fp32, the same level with 16-bit offsets: rows with them ((4 + 2 + 0.14) / 0.86 = 7.14
   // against mBSR's 7.79), mBSR without them (8.14 / 0.86 = 9.47): the exact span decides
   in.precision = Precision::fp32;
   in.narrow    = true;
   EXPECT_EQ(choose_layout(in).layout, Layout::rows);
   EXPECT_TRUE(layout_needs_exact_span(in));
   in.narrow = false;
   EXPECT_EQ(choose_layout(in).layout, Layout::mbsr);
   EXPECT_FALSE(layout_needs_exact_span(in));
   in.precision = Precision::fp64;
   in.row_length = 7.0;
   in.fill       = 1.3; // interpolation: tiles of one or two entries
   EXPECT_EQ(choose_layout(in).layout, Layout::rows);
   in.precision  = Precision::fp16; // coarse level in fp16 with narrow offsets: 6.54 vs 4.06 / 0.77
   in.fill       = 1.6;
   in.row_length = 70.0;
   in.narrow     = true;
   EXPECT_EQ(choose_layout(in).layout, Layout::rows);
   in.narrow = false; // 6.54 vs 6.06 / 0.77 = 7.85: a 17% saving
   EXPECT_EQ(choose_layout(in).layout, Layout::mbsr);
   in.fill = 0.0; // nothing known (no entries): the free layout
   EXPECT_EQ(choose_layout(in).layout, Layout::rows);
   EXPECT_FALSE(layout_needs_exact_span(in));
   // the tile kernels in fp16 on a 7-point fine level (4.1 per tile, 7 per row): 2 + 6/4.1 +
   // 0.43 = 3.89 bytes at 0.75 against rows16's (2 + 2 + 0.57) / 1.05 = 4.35: rows
   in.fill       = 4.1;
   in.row_length = 7.0;
   in.narrow     = true;
   c             = choose_layout(in);
   EXPECT_TRUE(c.tile_kernels);
   EXPECT_DOUBLE_EQ(c.mbsr_speed, kMbsrTileLowSpeed);
   EXPECT_EQ(c.layout, Layout::rows);
   in.precision = Precision::fp64; // fp64 tile kernels count at full speed
   EXPECT_DOUBLE_EQ(choose_layout(in).mbsr_speed, 1.0);
   // the 7-point fine level in fp32 with 32-bit columns: entries kernel 4 + 2 + 4/3.11 + 0.43 =
   // 7.72 against (4 + 4 + 0.57) / 1.05 = 8.17: rows (measured 439.5 against 464.6 us)
   in.precision  = Precision::fp32;
   in.narrow     = false;
   in.row_length = 6.976;
   in.fill       = 3.11;
   EXPECT_EQ(choose_layout(in).layout, Layout::rows);
   // well-filled long rows (27-point fine level: 27 a row, 4.04 a tile, 32-bit columns): the
   // entries kernel's 4 + 2 + 4/4.04 + 0.11 = 7.1 against (4 + 4 + 0.15) / 1.05 = 7.76 in fp32,
   // an 8.5% saving: rows (measured 741 against 765 us); fp64 11.1 against 12.15 / 0.98 =
   // 12.4, a 10.5% saving: mBSR (measured 1009 against 1032 us)
   in.precision  = Precision::fp32;
   in.narrow     = false;
   in.row_length = 27.0;
   in.fill       = 4.04;
   c             = choose_layout(in);
   EXPECT_FALSE(c.tile_kernels); // 26.7 tiles a block row
   EXPECT_DOUBLE_EQ(c.rows_speed, kRowsHighFillSpeed);
   EXPECT_EQ(c.layout, Layout::rows);
   in.precision = Precision::fp64;
   EXPECT_EQ(choose_layout(in).layout, Layout::mbsr);
   // fp32 with poorly filled tiles (a coarse operator at 1.6 a tile): mBSR
   in.precision = Precision::fp32;
   in.fill      = 1.6;
   EXPECT_EQ(choose_layout(in).layout, Layout::mbsr);
   EXPECT_STREQ(to_string(Layout::rows), "rows");
   EXPECT_STREQ(to_string(Layout::mbsr), "mbsr");
}

} // namespace
