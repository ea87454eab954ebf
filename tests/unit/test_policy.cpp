// AMGT=auto's per-matrix choice (precision/policy.h): the value statistics on small
// hand-checkable matrices, and every rule of choose_precision.
#include "precision/policy.h"

#include "common/error.h"
#include "common/half.h"

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

TEST(PolicyStats, InexactFp16CountsTheValuesFp16DoesNotHoldExactly)
{
   // held: 0, 4, -1, 0.375, 2^-14 (fp16's smallest normal), 65504 (its largest), 1 + 2^-10;
   // not held: 0.1 (rounds), 1 + 2^-11 (one bit too many), 65505 and 70000 (beyond 65504 or
   // not on its grid), 2^-15 (an fp16 subnormal: left out on purpose), 1e-300
   Dense      a({{0, 4, -1, 0.375}, {0x1p-14, 65504, 1 + 0x1p-10, 0.1},
                 {1 + 0x1p-11, 65505, 70000, 0x1p-15}, {1e-300, 2, 3, 5}});
   ValueStats s = value_stats(a.view());
   EXPECT_EQ(s.plain.inexact_fp16, 6);
   EXPECT_EQ(value_stats(Dense({{4, -1}, {-1, 4}}).view()).plain.inexact_fp16, 0);
   // the scaled form counts its own values: diag 4 -> off-diagonal -1/4 (exact)
   EXPECT_EQ(value_stats(Dense({{4, -1}, {-1, 4}}).view()).scaled.inexact_fp16, 0);
   // non-finite values are counted as such, not as inexact
   const double inf = std::numeric_limits<double>::infinity();
   EXPECT_EQ(value_stats(Dense({{1, inf}, {2, 3}}).view()).plain.inexact_fp16, 0);
}

TEST(PolicyStats, HalfHoldsExactlyAgreesWithTheRoundTrip)
{
   // every normal half, as a double, is held; its neighbours one double ulp away are not
   for (uint32_t bits = 0x0400; bits < 0x7c00; ++bits)
   {
      const double d = half_to_double(half_t{static_cast<uint16_t>(bits)});
      ASSERT_TRUE(half_holds_exactly(d)) << d;
      ASSERT_TRUE(half_holds_exactly(-d)) << d;
      ASSERT_FALSE(half_holds_exactly(std::nextafter(d, 0.0))) << d;
      ASSERT_FALSE(half_holds_exactly(std::nextafter(d, 1e300))) << d;
      ASSERT_EQ(half_to_double(half_from_double(d)), d);
   }
   EXPECT_TRUE(half_holds_exactly(0.0));
   EXPECT_TRUE(half_holds_exactly(-0.0));
   EXPECT_FALSE(half_holds_exactly(std::numeric_limits<double>::infinity()));
   EXPECT_FALSE(half_holds_exactly(std::numeric_limits<double>::quiet_NaN()));
   EXPECT_FALSE(half_holds_exactly(std::numeric_limits<double>::denorm_min()));
   EXPECT_FALSE(half_holds_exactly(0x1p-24)); // fp16's smallest subnormal: left out
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

// The device computes the scaled form only where choose_precision would read it.
TEST(PolicyChoice, TheScaledFormIsNeededOnlyWherePlainValuesMissAnFp16Floor)
{
   ValueStats s;
   s.scaled_known  = false;
   s.sum           = 1.0;
   s.abs_sum       = 100.0;
   s.plain.max_abs = 14.0;
   EXPECT_FALSE(scaled_form_needed(s, Precision::fp16)) << "fits unscaled";
   s.plain.max_abs = 1e6;
   EXPECT_TRUE(scaled_form_needed(s, Precision::fp16)) << "beyond fp16's range: scaling may bring it in";
   EXPECT_FALSE(scaled_form_needed(s, Precision::fp32)) << "an fp32 floor never reads it";
   EXPECT_FALSE(scaled_form_needed(s, Precision::fp64));
   s.plain.max_abs        = 1.0;
   s.plain.underflow_fp16 = 3;
   EXPECT_TRUE(scaled_form_needed(s, Precision::fp16)) << "significant values below fp16's normals";
   s.scaled_known = true;
   EXPECT_FALSE(scaled_form_needed(s, Precision::fp16)) << "known already";
   s.scaled_known    = false;
   s.plain.nonfinite = 1;
   EXPECT_FALSE(scaled_form_needed(s, Precision::fp16)) << "non-finite: fp64 whatever the scaled form";
   s.plain.nonfinite = 0;
   s.sum             = 1e-9;
   EXPECT_FALSE(scaled_form_needed(s, Precision::fp16)) << "near-singular: refused fp16 anyway";
   // whenever it says no, the choice without the scaled form equals the one with any scaled form
   for (double m : {1.0, 14.0, 1e4, 1e6, 1e40})
   {
      for (Precision f : {Precision::fp16, Precision::fp32, Precision::fp64})
      {
         ValueStats t;
         t.scaled_known  = false;
         t.sum           = 1.0;
         t.abs_sum       = 10.0;
         t.plain.max_abs = m;
         if (scaled_form_needed(t, f)) continue;
         ValueStats with = t;
         with.scaled_known   = true;
         with.scalable       = true;
         with.scaled.max_abs = 1.0;
         const PrecisionChoice a = choose_precision(t, f), b = choose_precision(with, f);
         EXPECT_EQ(a.precision, b.precision) << m;
         EXPECT_EQ(a.scaled, b.scaled) << m;
      }
   }
}

} // namespace

TEST(PolicyChoice, LosslessStorageTakesFp16OnlyWhereEveryValueIsAnFp16Number)
{
   ValueStats s = fits_everything(); // inexact_fp16 == 0
   for (const PrecisionChoice c : {PrecisionChoice{Precision::fp32, false, "floor"},
                                   PrecisionChoice{Precision::fp64, false, "near-singular"}})
   {
      const PrecisionChoice e = lossless_storage(s, c);
      EXPECT_EQ(e.precision, Precision::fp16);
      EXPECT_FALSE(e.scaled);
      EXPECT_TRUE(e.exact);
      EXPECT_STREQ(e.reason, "exact-fp16");
   }
   // an fp16 choice stays what it is (rounded or scaled: not exact)
   const PrecisionChoice h = lossless_storage(s, {Precision::fp16, false, "in-range"});
   EXPECT_FALSE(h.exact);
   EXPECT_STREQ(h.reason, "in-range");
   // a scaled choice stores other values than the matrix's
   EXPECT_FALSE(lossless_storage(s, {Precision::fp32, true, "scaled"}).exact);
   // one value fp16 does not hold, or one non-finite value: the choice stays
   s.plain.inexact_fp16 = 1;
   EXPECT_EQ(lossless_storage(s, {Precision::fp32, false, "floor"}).precision, Precision::fp32);
   s.plain.inexact_fp16 = 0;
   s.plain.nonfinite    = 1;
   EXPECT_EQ(lossless_storage(s, {Precision::fp64, false, "non-finite"}).precision, Precision::fp64);
}
