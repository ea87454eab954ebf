// spmv_ref (mBSR, three precisions) against csr_spmv_ref (plain fp64 CSR).
#include "common/csr_utils.h"
#include "common/storage_types.h"
#include "common/error.h"
#include "common/random_matrix.h"
#include "common/tolerances.h"
#include "spmv/spmv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using amgt::CsrMatrix;
using amgt::half_t;
using amgt::Mbsr;
using namespace amgt::test;

const double kNaN = std::numeric_limits<double>::quiet_NaN();

struct AlphaBeta
{
   double alpha;
   double beta;
};

// Small binary fractions and integers: alpha*s + beta*y0 stays exact for integer s and y0.
const std::vector<AlphaBeta> kExactCombos{{1.0, 0.0}, {2.0, -1.0}, {-0.5, 0.5}, {1.0, 1.0},
                                          {0.0, 3.0}, {0.0, 0.0},  {-3.0, 0.0}};

// alpha * ax + beta * y0 as the references combine it (beta == 0: y0 not used).
double ab_combine(double alpha, double ax, double beta, double y0)
{
   return beta == 0.0 ? alpha * ax : alpha * ax + beta * y0;
}

// y0 for a call: NaN where beta == 0, since the result must not depend on it.
std::vector<double> initial_y(int32_t n, double beta, Fill fill, uint32_t seed)
{
   return beta == 0.0 ? std::vector<double>(static_cast<size_t>(n), kNaN)
                      : random_vector(n, fill, seed);
}

template <class V>
class SpmvTyped : public ::testing::Test
{};
TYPED_TEST_SUITE(SpmvTyped, StorageTypes);

// Small-integer inputs: every product and partial sum is an integer far below 2^11, so each
// precision is exact and the results must be equal, not close.
TYPED_TEST(SpmvTyped, ExactOnSmallIntegerInputs)
{
   std::vector<NamedMatrix> cases = edge_matrices();
   cases.push_back({"random_60x45", random_csr(60, 45, 0.2, Fill::small_int, 31)});
   cases.push_back({"random_130", random_csr(130, 130, 0.08, Fill::small_int, 32)});
   cases.push_back({"laplacian_13x11", laplacian_2d(13, 11)});

   int nonzero_results = 0;
   for (const NamedMatrix& c : cases)
   {
      const CsrMatrix&      a = c.a;
      const Mbsr<TypeParam> m = amgt::csr_to_mbsr<TypeParam>(a.view());
      ASSERT_LE(max_row_nnz(a) * 9, 2048) << c.name << ": exactness argument needs small sums";
      // Exactly sized: any access past n is an ASan error (and reads garbage otherwise).
      const std::vector<double> x = random_vector(a.ncols, Fill::small_int, 41);
      for (const AlphaBeta& ab : kExactCombos)
      {
         SCOPED_TRACE(c.name + " alpha=" + std::to_string(ab.alpha) +
                      " beta=" + std::to_string(ab.beta));
         const std::vector<double> y0  = initial_y(a.nrows, ab.beta, Fill::small_int, 42);
         std::vector<double>       ref = y0, y = y0;
         amgt::csr_spmv_ref(a.view(), ab.alpha, x.data(), ab.beta, ref.data());
         amgt::spmv_ref(m, ab.alpha, x.data(), ab.beta, y.data());
         bool any_nonzero = false;
         for (int32_t i = 0; i < a.nrows; ++i)
         {
            ASSERT_TRUE(std::isfinite(y[i])) << "row " << i;
            ASSERT_EQ(y[i], ref[i]) << "row " << i;
            any_nonzero = any_nonzero || y[i] != 0.0;
         }
         if (ab.alpha != 0.0 && ab.beta == 0.0 && max_abs_value(a) > 0 && a.ncols > 0)
         {
            EXPECT_TRUE(any_nonzero) << "A*x came out all zero";
         }
         nonzero_results += any_nonzero;
      }
   }
   EXPECT_GT(nonzero_results, 80);
}

// Random inputs: within the bound derived in tests/common/tolerances.h, entry by entry.
TYPED_TEST(SpmvTyped, WithinToleranceOnRandomInputs)
{
   const Roundoff r          = roundoff<TypeParam>();
   double         worst      = 0.0; // max |y - ref| / tol
   double         max_err    = 0.0;
   int            rows_total = 0;
   uint32_t       seed       = 500;
   for (auto [nr, nc, density] : std::vector<std::tuple<int32_t, int32_t, double>>{{1, 1, 1.0},
                                                                                   {3, 7, 0.6},
                                                                                   {37, 37, 0.2},
                                                                                   {130, 130, 0.05},
                                                                                   {50, 77, 0.1},
                                                                                   {77, 50, 0.3},
                                                                                   {256, 256, 0.03},
                                                                                   {9, 9, 1.0}})
   {
      const CsrMatrix a = random_csr(nr, nc, density, Fill::random, ++seed);
      ASSERT_GT(nnz_of(a), 0);
      const Mbsr<TypeParam>     m = amgt::csr_to_mbsr<TypeParam>(a.view());
      const int                 k = max_row_nnz(a);
      const std::vector<double> x = random_vector(nc, Fill::random, ++seed);
      std::vector<double>       ax(static_cast<size_t>(nr)), absx(x.size());
      for (size_t j = 0; j < x.size(); ++j) absx[j] = std::fabs(x[j]);
      amgt::csr_spmv_ref(abs_values(a).view(), 1.0, absx.data(), 0.0, ax.data());

      for (const AlphaBeta& ab : {AlphaBeta{1.0, 0.0}, AlphaBeta{1.5, -0.7}, AlphaBeta{-1.0, 1.0}})
      {
         const std::vector<double> y0  = initial_y(nr, ab.beta, Fill::random, ++seed);
         std::vector<double>       ref = y0, y = y0;
         amgt::csr_spmv_ref(a.view(), ab.alpha, x.data(), ab.beta, ref.data());
         amgt::spmv_ref(m, ab.alpha, x.data(), ab.beta, y.data());
         for (int32_t i = 0; i < nr; ++i)
         {
            const double tol =
                spmv_tolerance(r, k, ab.alpha, ax[i], ab.beta, ab.beta == 0.0 ? 0.0 : y0[i]);
            const double err = std::fabs(y[i] - ref[i]);
            ASSERT_LE(err, tol) << nr << "x" << nc << " row " << i << ": " << y[i] << " vs "
                                << ref[i];
            ASSERT_GT(tol, 0.0);
            worst   = std::max(worst, err / tol);
            max_err = std::max(max_err, err);
            ++rows_total;
         }
      }
   }
   EXPECT_GT(rows_total, 1500);
   EXPECT_LE(worst, 1.0);
   if (r.store > roundoff<double>().store)
   {
      // Reduced precision must actually show: a bit-identical fp64 result would mean the
      // values or x were not rounded.
      EXPECT_GT(max_err, 0.0);
   }
}

TYPED_TEST(SpmvTyped, NeverTouchesPastTheVectors)
{
   // Partial last tile in both directions; sentinels after x and y would show any overrun
   // even without AddressSanitizer (a NaN read from x poisons a row; y's sentinels change).
   for (auto [nr, nc] :
        std::vector<std::pair<int32_t, int32_t>>{{5, 5}, {37, 37}, {13, 6}, {6, 13}, {1, 3}})
   {
      const CsrMatrix a =
          random_csr(nr, nc, 1.0, Fill::small_int, static_cast<uint32_t>(nr * 100 + nc));
      const auto          m = amgt::csr_to_mbsr<TypeParam>(a.view());
      std::vector<double> x = random_vector(nc, Fill::small_int, 3);
      std::vector<double> ref(static_cast<size_t>(nr), 1.0);
      amgt::csr_spmv_ref(a.view(), 1.0, x.data(), 2.0, ref.data());
      x.insert(x.end(), 4, kNaN);
      std::vector<double> y(static_cast<size_t>(nr), 1.0);
      y.insert(y.end(), 4, -12345.0);
      amgt::spmv_ref(m, 1.0, x.data(), 2.0, y.data());
      for (int32_t i = 0; i < nr; ++i) ASSERT_EQ(y[i], ref[i]) << nr << "x" << nc << " row " << i;
      for (int32_t i = nr; i < nr + 4; ++i) ASSERT_EQ(y[i], -12345.0) << "wrote past y";
   }
}

TYPED_TEST(SpmvTyped, AlphaZeroDoesNotReadX)
{
   const CsrMatrix           a = random_csr(10, 10, 0.5, Fill::small_int, 8);
   const auto                m = amgt::csr_to_mbsr<TypeParam>(a.view());
   const std::vector<double> x(10, std::numeric_limits<double>::infinity());
   std::vector<double>       y = random_vector(10, Fill::small_int, 9), y0 = y;
   amgt::spmv_ref(m, 0.0, x.data(), 2.0, y.data());
   for (int i = 0; i < 10; ++i) EXPECT_EQ(y[i], 2.0 * y0[i]);
   std::vector<double> z(10, kNaN);
   amgt::spmv_ref(m, 0.0, x.data(), 0.0, z.data());
   for (int i = 0; i < 10; ++i) EXPECT_EQ(z[i], 0.0);
}

TYPED_TEST(SpmvTyped, EmptyMatricesAcceptNullVectors)
{
   const auto m = amgt::csr_to_mbsr<TypeParam>(amgt::CsrView{0, 0, 0, nullptr, nullptr, nullptr});
   EXPECT_NO_THROW(amgt::spmv_ref(m, 1.0, nullptr, 0.0, nullptr));
   EXPECT_NO_THROW(amgt::csr_spmv_ref(amgt::CsrView{0, 0, 0, nullptr, nullptr, nullptr}, 1.0,
                                      nullptr, 0.0, nullptr));
}

// The rounding points of common/precision.h, each shown by an input where it decides the
// result.
TEST(Spmv, Fp16AndFp32RoundTheValuesNotX)
{
   // x = 2049 is not a half (it would be 2048): x is not rounded at all.
   const CsrMatrix a = from_entries(1, 1, {{0, 0, 1.0}});
   double          x = 2049.0, y = 0.0;
   amgt::spmv_ref(amgt::csr_to_mbsr<half_t>(a.view()), 1.0, &x, 0.0, &y);
   EXPECT_EQ(y, 2049.0);
   amgt::spmv_ref(amgt::csr_to_mbsr<float>(a.view()), 1.0, &x, 0.0, &y);
   EXPECT_EQ(y, 2049.0);
   // x = 1 + 2^-30 is not a float either: kept.
   x = 1.0 + std::ldexp(1.0, -30);
   amgt::spmv_ref(amgt::csr_to_mbsr<half_t>(a.view()), 1.0, &x, 0.0, &y);
   EXPECT_EQ(y, x);
   amgt::spmv_ref(amgt::csr_to_mbsr<float>(a.view()), 1.0, &x, 0.0, &y);
   EXPECT_EQ(y, x);
   // The value is rounded: 1/3 is stored as 1365/4096 in half; times 3 exactly 4095/4096.
   const CsrMatrix third = from_entries(1, 1, {{0, 0, 1.0 / 3.0}});
   x                     = 3.0;
   amgt::spmv_ref(amgt::csr_to_mbsr<half_t>(third.view()), 1.0, &x, 0.0, &y);
   EXPECT_EQ(y, 4095.0 / 4096.0);
}

// Coarse-level residuals near convergence lie below half's smallest subnormal (2^-24) and
// below float's precision relative to nothing at all: x is taken as hypre holds it, so the
// product is the double product of the stored values.
TEST(Spmv, Fp16TinyXDoesNotUnderflow)
{
   const double tiny = 1.0e-9;
   ASSERT_EQ(amgt::half_to_double(amgt::half_from_double(tiny)), 0.0) << "1e-9 is 0 in half";
   const CsrMatrix     a = from_entries(2, 2, {{0, 0, 1.0}, {1, 0, 3.0}, {1, 1, -0.5}});
   std::vector<double> x{tiny, -4.0 * tiny}, y{0.0, 0.0};
   amgt::spmv_ref(amgt::csr_to_mbsr<half_t>(a.view()), 1.0, x.data(), 0.0, y.data());
   EXPECT_EQ(y[0], tiny);
   EXPECT_EQ(y[1], std::fma(-0.5, x[1], std::fma(3.0, x[0], 0.0)));
   // And far below float's range: 1e-300 survives.
   x = {1.0e-300, 0.0};
   amgt::spmv_ref(amgt::csr_to_mbsr<half_t>(a.view()), 1.0, x.data(), 0.0, y.data());
   EXPECT_EQ(y[0], 1.0e-300);
}

// The V-cycle must be a linear operator (common/precision.h): the SpMV of a stored matrix is
// additive in x up to fp64 rounding, in every storage precision.
TEST(Spmv, LinearInXInEveryPrecision)
{
   const CsrMatrix           a  = random_csr(64, 64, 0.2, Fill::random, 5);
   const std::vector<double> x1 = random_vector(64, Fill::random, 6), x2 = random_vector(64, Fill::random, 7);
   std::vector<double>       xs(64);
   for (int j = 0; j < 64; ++j) xs[j] = x1[j] + 1e-7 * x2[j]; // the second far below float's ulp of the first
   auto check = [&](auto tag) {
      using V = decltype(tag);
      const Mbsr<V>       m = amgt::csr_to_mbsr<V>(a.view());
      std::vector<double> y1(64), y2(64), ys(64);
      amgt::spmv_ref(m, 1.0, x1.data(), 0.0, y1.data());
      amgt::spmv_ref(m, 1.0, x2.data(), 0.0, y2.data());
      amgt::spmv_ref(m, 1.0, xs.data(), 0.0, ys.data());
      for (int i = 0; i < 64; ++i)
      {
         const double lin = y1[i] + 1e-7 * y2[i];
         ASSERT_NEAR(ys[i], lin, 64 * 0x1p-52 * (std::fabs(y1[i]) + 1.0)) << "row " << i;
      }
   };
   check(double{});
   check(float{});
   check(half_t{});
}

TEST(Spmv, Fp16SumsAreNotRoundedToHalf)
{
   // 2048 + 1 + 1: a half accumulator would stay at 2048 (ties to even), float gives 2050.
   const CsrMatrix     a = from_entries(1, 3, {{0, 0, 2048.0}, {0, 1, 1.0}, {0, 2, 1.0}});
   std::vector<double> x{1.0, 1.0, 1.0};
   double              y = 0.0;
   amgt::spmv_ref(amgt::csr_to_mbsr<half_t>(a.view()), 1.0, x.data(), 0.0, &y);
   EXPECT_EQ(y, 2050.0);
}

TEST(Spmv, Fp32UsesDoubleFusedMultiplyAdd)
{
   // Row [1, v] times [c, x] with v = 1 + 2^-12 (a float), x = 1 + 2^-41, c = -(1 + 2^-12 +
   // 2^-41): v x = 1 + 2^-12 + 2^-41 + 2^-53, so one double FMA gives 2^-53 exactly, while
   // rounding v x to double first (half an ulp, ties to even: down) would give 0, and float
   // arithmetic would lose 2^-41 as well.
   const double    v = 1.0 + std::ldexp(1.0, -12);
   const CsrMatrix a = from_entries(1, 2, {{0, 0, 1.0}, {0, 1, v}});
   const std::vector<double> x{-(1.0 + std::ldexp(1.0, -12) + std::ldexp(1.0, -41)), 1.0 + std::ldexp(1.0, -41)};
   double                    y = 0.0;
   amgt::spmv_ref(amgt::csr_to_mbsr<float>(a.view()), 1.0, x.data(), 0.0, &y);
   EXPECT_EQ(y, std::ldexp(1.0, -53));
}

TEST(Spmv, Fp32FinalCombinationIsInDouble)
{
   // alpha * sum + beta * y in double: y0 = 1e16 + 2 is not a float, and survives.
   const CsrMatrix a = from_entries(1, 1, {{0, 0, 1.0}});
   double          x = 1.0;
   double          y = 1.0e16 + 2.0;
   amgt::spmv_ref(amgt::csr_to_mbsr<float>(a.view()), 1.0, &x, 1.0, &y);
   EXPECT_EQ(y, 1.0e16 + 4.0); // 1e16 + 3 rounds to even in double
   y = 0.1;
   amgt::spmv_ref(amgt::csr_to_mbsr<half_t>(a.view()), 1.0, &x, 1.0, &y);
   EXPECT_EQ(y, 1.0 + 0.1); // 0.1 itself never went through half or float
}

TEST(Spmv, CsrOracleHandlesUnsortedAndPatternOnly)
{
   // Row 0: 2*x2 + 1*x0 (unsorted); row 1 empty; row 2: pattern-only values would be 1.0.
   const CsrMatrix     a = from_entries(3, 3, {{0, 2, 2.0}, {0, 0, 1.0}, {2, 1, -1.0}});
   std::vector<double> x{1.0, 10.0, 100.0}, y{7.0, 7.0, 7.0};
   amgt::csr_spmv_ref(a.view(), 1.0, x.data(), 1.0, y.data());
   EXPECT_EQ(y, (std::vector<double>{208.0, 7.0, -3.0}));
   CsrMatrix p = a;
   p.val.clear();
   y = {0.0, 0.0, 0.0};
   amgt::csr_spmv_ref(p.view(), 1.0, x.data(), 0.0, y.data());
   EXPECT_EQ(y, (std::vector<double>{101.0, 0.0, 10.0}));
}

// ---- optional symmetric unscaling: y = alpha diag(u) A diag(u) x + beta y ----------------

// The fp64 oracle of an unscaled product: x_j u_j in double, fp64 CSR product, times u_i in
// double, then alpha and beta as csr_spmv_ref combines them.
std::vector<double> unscaled_oracle(const CsrMatrix& a, double alpha, const std::vector<double>& x,
                                    double beta, const std::vector<double>& y0,
                                    const std::vector<double>& u)
{
   std::vector<double> xs(x.size()), t(static_cast<size_t>(a.nrows), 0.0), y = y0;
   for (size_t j = 0; j < x.size(); ++j) xs[j] = x[j] * u[j];
   amgt::csr_spmv_ref(a.view(), 1.0, xs.data(), 0.0, t.data());
   for (int32_t i = 0; i < a.nrows; ++i)
   {
      const double ax = t[static_cast<size_t>(i)] * u[static_cast<size_t>(i)];
      y[static_cast<size_t>(i)] =
          ab_combine(alpha, ax, beta, beta == 0.0 ? 0.0 : y0[static_cast<size_t>(i)]);
   }
   return y;
}

// Powers of two 2^-2..2^2: with small-integer A and x every partial sum stays exact.
std::vector<double> pow2_vector(int32_t n, uint32_t seed)
{
   std::vector<double> u(static_cast<size_t>(n));
   for (int32_t i = 0; i < n; ++i) u[static_cast<size_t>(i)] = std::ldexp(1.0, static_cast<int>((seed + 7u * i) % 5) - 2);
   return u;
}

TYPED_TEST(SpmvTyped, UnscaleExactOnSmallIntegerInputs)
{
   std::vector<NamedMatrix> cases;
   for (const NamedMatrix& c : edge_matrices())
      if (c.a.nrows == c.a.ncols) cases.push_back(c);
   cases.push_back({"random_130", random_csr(130, 130, 0.08, Fill::small_int, 32)});
   cases.push_back({"random_61", random_csr(61, 61, 0.3, Fill::small_int, 33)});   // 61 % 4 = 1
   cases.push_back({"laplacian_13x11", laplacian_2d(13, 11)});                     // 143 % 4 = 3
   cases.push_back({"dense_66", random_csr(66, 66, 1.0, Fill::small_int, 34)});      // 66 % 4 = 2
   int nonzero_results = 0;
   for (const NamedMatrix& c : cases)
   {
      const CsrMatrix&          a = c.a;
      const Mbsr<TypeParam>     m = amgt::csr_to_mbsr<TypeParam>(a.view());
      const std::vector<double> x = random_vector(a.ncols, Fill::small_int, 41);
      const std::vector<double> u = pow2_vector(a.nrows, 5);
      for (const AlphaBeta& ab : kExactCombos)
      {
         SCOPED_TRACE(c.name + " alpha=" + std::to_string(ab.alpha) + " beta=" + std::to_string(ab.beta));
         const std::vector<double> y0  = initial_y(a.nrows, ab.beta, Fill::small_int, 42);
         const std::vector<double> ref = unscaled_oracle(a, ab.alpha, x, ab.beta, y0, u);
         std::vector<double>       y   = y0;
         amgt::spmv_ref(m, ab.alpha, x.data(), ab.beta, y.data(), u.data());
         bool any_nonzero = false;
         for (int32_t i = 0; i < a.nrows; ++i)
         {
            ASSERT_EQ(y[i], ref[i]) << "row " << i;
            any_nonzero = any_nonzero || y[i] != 0.0;
         }
         nonzero_results += any_nonzero;
      }
   }
   EXPECT_GT(nonzero_results, 60);
}

TYPED_TEST(SpmvTyped, UnscaleWithinToleranceOnRandomInputs)
{
   const Roundoff r     = roundoff<TypeParam>();
   double         worst = 0.0;
   int            rows  = 0;
   uint32_t       seed  = 700;
   for (auto [n, density] : std::vector<std::pair<int32_t, double>>{{1, 1.0}, {7, 0.6}, {37, 0.2}, {130, 0.05}, {258, 0.03}})
   {
      const CsrMatrix a = random_csr(n, n, density, Fill::random, ++seed);
      const auto      m = amgt::csr_to_mbsr<TypeParam>(a.view());
      const int       k = max_row_nnz(a);
      const std::vector<double> x = random_vector(n, Fill::random, ++seed);
      std::vector<double>       u = random_vector(n, Fill::random, ++seed);
      for (double& v : u) v = std::fabs(v);
      std::vector<double> absxu(x.size()), s(static_cast<size_t>(n));
      for (size_t j = 0; j < x.size(); ++j) absxu[j] = std::fabs(x[j] * u[j]);
      amgt::csr_spmv_ref(abs_values(a).view(), 1.0, absxu.data(), 0.0, s.data());
      for (int32_t i = 0; i < n; ++i) s[static_cast<size_t>(i)] *= u[static_cast<size_t>(i)];
      for (const AlphaBeta& ab : {AlphaBeta{1.0, 0.0}, AlphaBeta{1.5, -0.7}})
      {
         const std::vector<double> y0  = initial_y(n, ab.beta, Fill::random, ++seed);
         const std::vector<double> ref = unscaled_oracle(a, ab.alpha, x, ab.beta, y0, u);
         std::vector<double>       y   = y0;
         amgt::spmv_ref(m, ab.alpha, x.data(), ab.beta, y.data(), u.data());
         for (int32_t i = 0; i < n; ++i)
         {
            const double y0i = ab.beta == 0.0 ? 0.0 : y0[i];
            const double tol = spmv_tolerance(r, k, ab.alpha, s[i], ab.beta, y0i) + spmv_unscale_extra(ab.alpha, s[i]);
            const double err = std::fabs(y[i] - ref[i]);
            ASSERT_LE(err, tol) << n << " row " << i << ": " << y[i] << " vs " << ref[i];
            worst = std::max(worst, err / tol);
            ++rows;
         }
      }
   }
   EXPECT_GT(rows, 800);
   EXPECT_LE(worst, 1.0);
}

TYPED_TEST(SpmvTyped, UnscaleNeedsSquareAndSkipsXWhenAlphaIsZero)
{
   const CsrMatrix     rect = random_csr(6, 9, 0.5, Fill::small_int, 1);
   const auto          mr   = amgt::csr_to_mbsr<TypeParam>(rect.view());
   std::vector<double> x(9, 1.0), y(6, 0.0), u(9, 1.0);
   EXPECT_THROW(amgt::spmv_ref(mr, 1.0, x.data(), 0.0, y.data(), u.data()), amgt::Error);
   EXPECT_NO_THROW(amgt::spmv_ref(mr, 1.0, x.data(), 0.0, y.data())); // without unscale: fine

   const CsrMatrix           a = random_csr(10, 10, 0.5, Fill::small_int, 8);
   const auto                m = amgt::csr_to_mbsr<TypeParam>(a.view());
   const std::vector<double> xi(10, std::numeric_limits<double>::infinity());
   const std::vector<double> us(10, 0.25);
   std::vector<double>       z = random_vector(10, Fill::small_int, 9), z0 = z;
   amgt::spmv_ref(m, 0.0, xi.data(), 2.0, z.data(), us.data());
   for (int i = 0; i < 10; ++i) EXPECT_EQ(z[i], 2.0 * z0[i]);
}

// x_j u_j is formed in double and rounded once: x = 1 + 2^-24 (a tie, 1 in float) times
// u = 1 + 2^-30 is 1 + 2^-24 + 2^-30 (+2^-54, lost in double), which rounds up to 1 + 2^-23
// in float; rounding x first would give 1 * u = 1 + 2^-30 -> 1.
TEST(Spmv, UnscaleFormsTheProductInDouble)
{
   const CsrMatrix           a = from_entries(2, 2, {{0, 1, 1.0}});
   const std::vector<double> x{0.0, 1.0 + std::ldexp(1.0, -24)};
   const std::vector<double> u{1.0, 1.0 + std::ldexp(1.0, -30)};
   std::vector<double>       y{0.0, 0.0};
   // x_j u_j in double, not rounded further, in every precision
   amgt::spmv_ref(amgt::csr_to_mbsr<float>(a.view()), 1.0, x.data(), 0.0, y.data(), u.data());
   EXPECT_EQ(y[0], x[1] * u[1]);
   amgt::spmv_ref(amgt::csr_to_mbsr<half_t>(a.view()), 1.0, x.data(), 0.0, y.data(), u.data());
   EXPECT_EQ(y[0], x[1] * u[1]);
   amgt::spmv_ref(amgt::csr_to_mbsr<double>(a.view()), 1.0, x.data(), 0.0, y.data(), u.data());
   EXPECT_EQ(y[0], x[1] * u[1]);
   // Row sum times u_i in double: u_0 = 1 + 2^-40 keeps the 2^-40.
   const std::vector<double> u2{1.0 + std::ldexp(1.0, -40), 1.0};
   const std::vector<double> x2{0.0, 1.0};
   amgt::spmv_ref(amgt::csr_to_mbsr<float>(a.view()), 1.0, x2.data(), 0.0, y.data(), u2.data());
   EXPECT_EQ(y[0], u2[0]);
}

} // namespace
