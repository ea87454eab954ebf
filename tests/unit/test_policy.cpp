// AMGT=auto's per-matrix choice (precision/policy.h): the value statistics on small
// hand-checkable matrices, and every rule of choose_precision.
#include "precision/policy.h"

#include "common/error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace {

using namespace amgt;

// A CSR built from dense rows (zeros are not stored).
struct Dense
{
   CsrMatrix m;
   explicit Dense(const std::vector<std::vector<double>>& rows, int ncols = -1)
   {
      m.nrows = static_cast<int>(rows.size());
      m.ncols = ncols >= 0 ? ncols : m.nrows;
      m.row_ptr.push_back(0);
      for (const auto& r : rows)
      {
         for (int j = 0; j < static_cast<int>(r.size()); ++j)
         {
            if (r[j] != 0.0)
            {
               m.col.push_back(j);
               m.val.push_back(r[j]);
            }
         }
         m.row_ptr.push_back(static_cast<int>(m.col.size()));
      }
   }
   CsrView view() const { return m.view(); }
};

ValueStats fits_everything()
{
   ValueStats s;
   s.plain.max_abs = 4.0;
   s.scalable      = true;
   s.scaled.max_abs = 1.0;
   return s;
}

TEST(PolicyStats, PlainFactsOfASmallMatrix)
{
   // row 1: -3 is the largest; 1e-6 is below 2^-11 * 3 (not significant)
   Dense      a({{4, -1, 0}, {-1, -3, 1e-6}, {0, 2, 1}});
   ValueStats s = value_stats(a.view());
   EXPECT_EQ(s.plain.max_abs, 4.0);
   EXPECT_EQ(s.plain.nonfinite, 0);
   EXPECT_EQ(s.plain.underflow_fp16, 0);
   EXPECT_EQ(s.plain.underflow_fp32, 0);
   ASSERT_TRUE(s.scalable);
   // scaled: diag |4|, |-3|, |1| -> off-diagonals -1/sqrt(12), 2/sqrt(3), 1e-6/sqrt(3)
   EXPECT_DOUBLE_EQ(s.scaled.max_abs, 2.0 / std::sqrt(3.0));
   const std::vector<double> u = scaling_vector(a.view());
   EXPECT_EQ(u, (std::vector<double>{2.0, std::sqrt(3.0), 1.0}));
   const std::vector<double> v = scaled_values(a.view(), u);
   ASSERT_EQ(v.size(), a.m.val.size());
   EXPECT_EQ(v[0], 1.0);                                   // 4 / (2*2)
   EXPECT_EQ(v[1], -1.0 / (2.0 * std::sqrt(3.0)));         // same expression as the kernel
   EXPECT_EQ(v[3], -3.0 / (std::sqrt(3.0) * std::sqrt(3.0))); // the diagonal: -1 up to rounding
}

TEST(PolicyStats, SignificantUnderflowIsRelativeToTheRow)
{
   // row 0: 1e-5 next to 1e-3 is significant (ratio 1e-2 > 2^-11) and below 2^-14: counts.
   // row 1: 1e-5 next to 1 is not significant (ratio 1e-5 < 2^-11): does not count.
   // row 2: 1e-40 next to 1e-39: below fp32's smallest normal, significant: counts twice.
   Dense      a({{1e-3, 1e-5, 0}, {1e-5, 1, 0}, {0, 1e-40, 1e-39}});
   ValueStats s = value_stats(a.view());
   EXPECT_EQ(s.plain.underflow_fp16, 1 + 2);
   EXPECT_EQ(s.plain.underflow_fp32, 2);
}

TEST(PolicyStats, NonFiniteValuesAreCountedAndExcludedFromTheMaximum)
{
   const double inf = std::numeric_limits<double>::infinity();
   Dense        a({{1, 2}, {7, 3}});
   a.m.val[1] = std::nan("");
   a.m.val[2] = -inf;
   ValueStats s = value_stats(a.view());
   EXPECT_EQ(s.plain.nonfinite, 2);
   EXPECT_EQ(s.plain.max_abs, 3.0);
   EXPECT_EQ(choose_precision(s, Precision::fp16).reason, std::string("non-finite"));
}

TEST(PolicyStats, ScalableNeedsASquareMatrixAndEveryDiagonal)
{
   EXPECT_FALSE(value_stats(Dense({{1, 2, 3}, {0, 1, 1}}, 3).view()).scalable); // 2x3
   EXPECT_FALSE(value_stats(Dense({{1, 2}, {2, 0}}).view()).scalable);          // missing
   Dense zero_diag({{1, 2}, {2, 5}});
   zero_diag.m.val[3] = 0.0; // stored explicit zero
   EXPECT_FALSE(value_stats(zero_diag.view()).scalable);
   Dense inf_diag({{1, 2}, {2, 5}});
   inf_diag.m.val[0] = std::numeric_limits<double>::infinity();
   EXPECT_FALSE(value_stats(inf_diag.view()).scalable);
   EXPECT_THROW(scaling_vector(Dense({{1, 2}, {2, 0}}).view()), Error);
   // negative diagonal: |d| is used
   ValueStats neg = value_stats(Dense({{-4, 2}, {2, -1}}).view());
   ASSERT_TRUE(neg.scalable);
   EXPECT_EQ(neg.scaled.max_abs, 1.0);
   // empty matrix and empty rows
   EXPECT_TRUE(value_stats(Dense({}).view()).scalable);
   EXPECT_FALSE(value_stats(Dense({{1, 0}, {0, 0}}).view()).scalable); // row 1 empty
}

TEST(PolicyStats, DuplicateDiagonalEntriesAreSummed)
{
   // row 0 holds (0,0) twice: 3 + 1 = 4 -> unscale 2
   CsrMatrix m;
   m.nrows = m.ncols = 2;
   m.row_ptr         = {0, 3, 4};
   m.col             = {0, 1, 0, 1};
   m.val             = {3, 2, 1, 9};
   EXPECT_EQ(scaling_vector(m.view()), (std::vector<double>{2.0, 3.0}));
   // pattern-only (val == nullptr): all ones
   m.val.clear();
   ValueStats s = value_stats(m.view());
   EXPECT_EQ(s.plain.max_abs, 1.0);
   EXPECT_TRUE(s.scalable);
}

TEST(PolicyChoice, Fp64FloorIsNeverTouched)
{
   ValueStats s  = fits_everything();
   s.plain.nonfinite = 3;
   PrecisionChoice c = choose_precision(s, Precision::fp64);
   EXPECT_EQ(c.precision, Precision::fp64);
   EXPECT_FALSE(c.scaled);
   EXPECT_STREQ(c.reason, "floor");
}

TEST(PolicyChoice, InRangeKeepsTheFloor)
{
   const ValueStats s = fits_everything();
   PrecisionChoice  h = choose_precision(s, Precision::fp16);
   EXPECT_EQ(h.precision, Precision::fp16);
   EXPECT_FALSE(h.scaled);
   EXPECT_STREQ(h.reason, "in-range");
   PrecisionChoice f = choose_precision(s, Precision::fp32);
   EXPECT_EQ(f.precision, Precision::fp32);
   EXPECT_STREQ(f.reason, "in-range");
}

TEST(PolicyChoice, Fp16HeadroomBoundIsInclusive)
{
   ValueStats s    = fits_everything();
   s.plain.max_abs = kFp16MaxAbs;
   EXPECT_EQ(choose_precision(s, Precision::fp16).precision, Precision::fp16);
   s.plain.max_abs = std::nextafter(kFp16MaxAbs, 1e300);
   EXPECT_STREQ(choose_precision(s, Precision::fp16).reason, "scaled");
}

TEST(PolicyChoice, OverflowIsCuredByScalingWhenTheScaledValuesFit)
{
   ValueStats s    = fits_everything();
   s.plain.max_abs = 2.2e9; // bcsstk16's range
   PrecisionChoice c = choose_precision(s, Precision::fp16);
   EXPECT_EQ(c.precision, Precision::fp16);
   EXPECT_TRUE(c.scaled);
   EXPECT_STREQ(c.reason, "scaled");
   // a fp32 floor does not scale: fp32 holds 2.2e9
   PrecisionChoice f = choose_precision(s, Precision::fp32);
   EXPECT_EQ(f.precision, Precision::fp32);
   EXPECT_FALSE(f.scaled);
}

TEST(PolicyChoice, UnderflowIsCuredByScalingToo)
{
   ValueStats s           = fits_everything();
   s.plain.underflow_fp16 = 5;
   PrecisionChoice c      = choose_precision(s, Precision::fp16);
   EXPECT_TRUE(c.scaled);
   EXPECT_EQ(c.precision, Precision::fp16);
}

TEST(PolicyChoice, FallsBackToFp32WithTheReasonFp16WasRefused)
{
   ValueStats s    = fits_everything();
   s.plain.max_abs = 1e15;
   s.scalable      = false;
   PrecisionChoice c = choose_precision(s, Precision::fp16);
   EXPECT_EQ(c.precision, Precision::fp32);
   EXPECT_FALSE(c.scaled);
   EXPECT_STREQ(c.reason, "overflow");

   s                      = fits_everything();
   s.plain.underflow_fp16 = 1;
   s.scaled.underflow_fp16 = 1; // scaling does not help
   c = choose_precision(s, Precision::fp16);
   EXPECT_EQ(c.precision, Precision::fp32);
   EXPECT_STREQ(c.reason, "underflow");

   s                  = fits_everything();
   s.plain.max_abs    = 1e6;
   s.scaled.nonfinite = 1; // a scaled value overflowed double: scaling refused
   c = choose_precision(s, Precision::fp16);
   EXPECT_EQ(c.precision, Precision::fp32);
   EXPECT_STREQ(c.reason, "overflow");
}

TEST(PolicyChoice, FallsBackToFp64WhenFp32DoesNotHoldTheValues)
{
   ValueStats s    = fits_everything();
   s.plain.max_abs = 1e300;
   s.scalable      = false;
   for (Precision floor : {Precision::fp16, Precision::fp32})
   {
      PrecisionChoice c = choose_precision(s, floor);
      EXPECT_EQ(c.precision, Precision::fp64);
      EXPECT_STREQ(c.reason, "overflow");
   }
   s                      = fits_everything();
   s.plain.underflow_fp16 = 2;
   s.plain.underflow_fp32 = 2;
   s.scalable             = false;
   PrecisionChoice c      = choose_precision(s, Precision::fp32);
   EXPECT_EQ(c.precision, Precision::fp64);
   EXPECT_STREQ(c.reason, "underflow");
}

TEST(PolicyChoice, EndToEndOnAnElasticityLikeMatrix)
{
   // values ~1e9 (bcsstk16-like): fp16 only after scaling; the scaled matrix is O(1)
   Dense      a({{4e9, -1e9, 0}, {-1e9, 4e9, -1e9}, {0, -1e9, 4e9}});
   ValueStats s = value_stats(a.view());
   EXPECT_GT(s.plain.max_abs, kFp16MaxAbs);
   EXPECT_NEAR(s.scaled.max_abs, 1.0, 1e-15); // the diagonal, up to rounding of sqrt
   PrecisionChoice c = choose_precision(s, Precision::fp16);
   EXPECT_TRUE(c.scaled);
   EXPECT_EQ(c.precision, Precision::fp16);
}

TEST(PolicyStats, SumsOfSquareMatricesOnly)
{
   ValueStats s = value_stats(Dense({{4, -1, 0}, {-1, -3, 2}, {0, 2, 1}}).view());
   EXPECT_EQ(s.sum, 4.0);
   EXPECT_EQ(s.abs_sum, 14.0);
   ValueStats r = value_stats(Dense({{1, 2, 3}, {0, 1, 1}}, 3).view());
   EXPECT_EQ(r.sum, 0.0);
   EXPECT_EQ(r.abs_sum, 0.0);
   EXPECT_FALSE(near_singular(r, Precision::fp16)); // no information: not near-singular
}

TEST(PolicyChoice, NearSingularOperatorsRunHigher)
{
   // the 1D Neumann Laplacian: every row sums to zero
   Dense      n({{1, -1, 0, 0}, {-1, 2, -1, 0}, {0, -1, 2, -1}, {0, 0, -1, 1}});
   ValueStats s = value_stats(n.view());
   EXPECT_EQ(s.sum, 0.0);
   EXPECT_TRUE(near_singular(s, Precision::fp32));
   EXPECT_TRUE(near_singular(s, Precision::fp16));
   PrecisionChoice c = choose_precision(s, Precision::fp16);
   EXPECT_EQ(c.precision, Precision::fp64);
   EXPECT_STREQ(c.reason, "near-singular");
   EXPECT_EQ(level_floor(s, Precision::fp16), Precision::fp64);
   EXPECT_EQ(level_floor(s, Precision::fp32), Precision::fp64);
   EXPECT_EQ(level_floor(s, Precision::fp64), Precision::fp64);
   EXPECT_STREQ(choose_precision(s, Precision::fp64).reason, "floor");

   // the Dirichlet Laplacian: boundary rows keep a row sum, |1'A1| / 1'|A|1 = 2/14
   ValueStats d = value_stats(Dense({{2, -1, 0, 0}, {-1, 2, -1, 0}, {0, -1, 2, -1}, {0, 0, -1, 2}}).view());
   EXPECT_FALSE(near_singular(d, Precision::fp16));
   EXPECT_EQ(level_floor(d, Precision::fp16), Precision::fp16);
   EXPECT_STREQ(choose_precision(d, Precision::fp16).reason, "in-range");

   // between the two roundoffs: refused fp16 only (fp32 next, reason near-singular)
   ValueStats m = fits_everything();
   m.abs_sum    = 1.0;
   m.sum        = 1e-5; // 2^-24 < 1e-5 < 2^-11
   EXPECT_FALSE(near_singular(m, Precision::fp32));
   EXPECT_TRUE(near_singular(m, Precision::fp16));
   c = choose_precision(m, Precision::fp16);
   EXPECT_EQ(c.precision, Precision::fp32);
   EXPECT_STREQ(c.reason, "near-singular");
   EXPECT_EQ(level_floor(m, Precision::fp16), Precision::fp32);
   EXPECT_EQ(level_floor(m, Precision::fp32), Precision::fp32);
   // the sign of the sum does not matter
   m.sum = -1e-5;
   EXPECT_TRUE(near_singular(m, Precision::fp16));
}

TEST(PolicyProducts, ProductsRunAtLeastInFp32AndFallBackOneStep)
{
   EXPECT_EQ(product_precision(Precision::fp64), Precision::fp64);
   EXPECT_EQ(product_precision(Precision::fp32), Precision::fp32);
   EXPECT_EQ(product_precision(Precision::fp16), Precision::fp32);
   EXPECT_EQ(higher(Precision::fp16), Precision::fp32);
   EXPECT_EQ(higher(Precision::fp32), Precision::fp64);
   EXPECT_EQ(higher(Precision::fp64), Precision::fp64);
   const double v[] = {1.0, std::nan(""), -std::numeric_limits<double>::infinity(), 0.0};
   EXPECT_EQ(count_nonfinite(v, 4), 2);
   EXPECT_EQ(count_nonfinite(v, 0), 0);
}

} // namespace
