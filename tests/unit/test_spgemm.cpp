// spgemm_ref (mBSR, three precisions) against csr_spgemm_ref (plain scalar fp64 SpGEMM).
#include "common/csr_utils.h"
#include "common/storage_types.h"
#include "common/error.h"
#include "common/random_matrix.h"
#include "common/tolerances.h"
#include "spgemm/spgemm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

namespace {

using amgt::CsrMatrix;
using amgt::half_t;
using amgt::Mbsr;
using namespace amgt::test;

template <class V>
CsrMatrix mbsr_product(const CsrMatrix& a, const CsrMatrix& b)
{
   const Mbsr<V> c =
       amgt::spgemm_ref(amgt::csr_to_mbsr<V>(a.view()), amgt::csr_to_mbsr<V>(b.view()));
   EXPECT_NO_THROW(amgt::validate_mbsr(c));
   EXPECT_EQ(c.nrows, a.nrows);
   EXPECT_EQ(c.ncols, b.ncols);
   // Tile structure: the same tiles and bitmaps as converting the scalar product's pattern.
   const Mbsr<V> expect = amgt::csr_to_mbsr<V>(amgt::csr_spgemm_ref(a.view(), b.view()).view());
   EXPECT_EQ(c.blk_ptr, expect.blk_ptr);
   EXPECT_EQ(c.blk_col, expect.blk_col);
   EXPECT_EQ(c.blk_map, expect.blk_map);
   return amgt::mbsr_to_csr(c);
}

void expect_same_pattern(const CsrMatrix& got, const CsrMatrix& want, const std::string& what)
{
   ASSERT_EQ(got.nrows, want.nrows) << what;
   ASSERT_EQ(got.ncols, want.ncols) << what;
   ASSERT_EQ(got.row_ptr, want.row_ptr) << what;
   ASSERT_EQ(got.col, want.col) << what;
   ASSERT_EQ(got.val.size(), got.col.size()) << what;
}

template <class V>
class SpgemmTyped : public ::testing::Test
{};
TYPED_TEST_SUITE(SpgemmTyped, StorageTypes);

// Exact comparison; valid when every partial sum is an integer of magnitude <= 2048, which
// (|A||B|)_ij bounds. The test checks that precondition instead of assuming it.
template <class V>
void check_exact(const CsrMatrix& a, const CsrMatrix& b, const std::string& what, int& nonzeros)
{
   SCOPED_TRACE(what);
   ASSERT_LE(max_abs_value(amgt::csr_spgemm_ref(abs_values(a).view(), abs_values(b).view())),
             2048.0)
       << "inputs too large for an exact comparison in fp16";
   const CsrMatrix ref = amgt::csr_spgemm_ref(a.view(), b.view());
   const CsrMatrix got = mbsr_product<V>(a, b);
   expect_same_pattern(got, ref, what);
   for (size_t p = 0; p < ref.val.size(); ++p)
   {
      ASSERT_EQ(got.val[p], ref.val[p]) << "entry " << p;
      nonzeros += got.val[p] != 0.0;
   }
}

TYPED_TEST(SpgemmTyped, ExactOnSmallIntegerEdgeCases)
{
   int      nonzeros = 0;
   uint32_t seed     = 900;
   for (const NamedMatrix& e : edge_matrices())
   {
      const CsrMatrix& a = e.a;
      for (int32_t p : {a.ncols, 7, 1})
      {
         const CsrMatrix b = random_csr(a.ncols, p, 0.3, Fill::small_int, ++seed);
         check_exact<TypeParam>(
             a, b, e.name + " * random " + std::to_string(a.ncols) + "x" + std::to_string(p),
             nonzeros);
      }
      if (a.nrows == a.ncols) check_exact<TypeParam>(a, a, e.name + " squared", nonzeros);
      check_exact<TypeParam>(a, transpose(a), e.name + " * its transpose", nonzeros);
   }
   EXPECT_GT(nonzeros, 1000);
}

TYPED_TEST(SpgemmTyped, GalerkinTripleProductShapes)
{
   // A n x n (n = 35: partial tiles), P n x m with m < n, R = P^T: A*P is n x m, R*(A*P) m x m.
   const CsrMatrix a = laplacian_2d(7, 5);
   CsrMatrix       p = random_csr(35, 13, 0.08, Fill::small_int, 77);
   for (double& v : p.val) v = v > 0 ? 1.0 : -1.0; // keeps R*A*P within 2048
   ASSERT_GT(nnz_of(p), 20);
   const CsrMatrix r        = transpose(p);
   int             nonzeros = 0;
   check_exact<TypeParam>(a, p, "A*P", nonzeros);
   const CsrMatrix ap = amgt::csr_spgemm_ref(a.view(), p.view());
   check_exact<TypeParam>(r, ap, "R*(A*P)", nonzeros);

   // The chained product entirely in mBSR<V>, as the GPU setup would run it.
   const auto      ap_m  = amgt::spgemm_ref(amgt::csr_to_mbsr<TypeParam>(a.view()),
                                            amgt::csr_to_mbsr<TypeParam>(p.view()));
   const auto      rap_m = amgt::spgemm_ref(amgt::csr_to_mbsr<TypeParam>(r.view()), ap_m);
   const CsrMatrix rap   = amgt::csr_spgemm_ref(r.view(), ap.view());
   const CsrMatrix got   = amgt::mbsr_to_csr(rap_m);
   EXPECT_EQ(rap_m.nrows, 13);
   EXPECT_EQ(rap_m.ncols, 13);
   expect_same_pattern(got, rap, "R*A*P chained");
   EXPECT_EQ(got.val, rap.val);
   EXPECT_GT(nonzeros, 50);
}

TYPED_TEST(SpgemmTyped, CancellationKeepsStructuralZeros)
{
   // C(0,0) = A(0,1) B(1,0) + A(0,5) B(5,0) = 1*2 + 2*(-1) = 0, the two terms from different
   // A tiles; C(0,1) = 1*3 stays nonzero. C(0,0) must be stored, with value 0.
   const CsrMatrix a   = from_entries(8, 8, {{0, 1, 1.0}, {0, 5, 2.0}, {6, 6, 1.0}});
   const CsrMatrix b   = from_entries(8, 8, {{1, 0, 2.0}, {5, 0, -1.0}, {1, 1, 3.0}, {6, 7, 1.0}});
   const CsrMatrix ref = amgt::csr_spgemm_ref(a.view(), b.view());
   const CsrMatrix got = mbsr_product<TypeParam>(a, b);
   expect_same_pattern(got, ref, "cancellation");
   EXPECT_EQ(ref.col, (std::vector<int32_t>{0, 1, 7}));
   EXPECT_EQ(ref.val, (std::vector<double>{0.0, 3.0, 1.0}));
   EXPECT_EQ(got.val, ref.val);

   // The smallest case: [1 1] * [1; -1].
   const CsrMatrix row  = from_entries(1, 2, {{0, 0, 1.0}, {0, 1, 1.0}});
   const CsrMatrix col  = from_entries(2, 1, {{0, 0, 1.0}, {1, 0, -1.0}});
   const CsrMatrix tiny = mbsr_product<TypeParam>(row, col);
   EXPECT_EQ(tiny.row_ptr, (std::vector<int32_t>{0, 1}));
   EXPECT_EQ(tiny.val, (std::vector<double>{0.0}));
}

TYPED_TEST(SpgemmTyped, EmptyBitmapProductStoresNoTile)
{
   // A(0,1) meets row 1 of B's tile, which is empty: both tiles exist, their product does not.
   const CsrMatrix a = from_entries(4, 4, {{0, 1, 1.0}});
   const CsrMatrix b = from_entries(4, 4, {{0, 0, 1.0}, {2, 3, 1.0}});
   const auto      c = amgt::spgemm_ref(amgt::csr_to_mbsr<TypeParam>(a.view()),
                                        amgt::csr_to_mbsr<TypeParam>(b.view()));
   EXPECT_EQ(c.num_tiles(), 0);
   EXPECT_EQ(c.blk_ptr, (std::vector<int32_t>{0, 0}));
   EXPECT_EQ(nnz_of(amgt::csr_spgemm_ref(a.view(), b.view())), 0);
}

TYPED_TEST(SpgemmTyped, WithinToleranceOnRandomInputs)
{
   const Roundoff r     = roundoff<TypeParam>();
   double         worst = 0.0, max_err = 0.0;
   int64_t        entries = 0;
   uint32_t       seed    = 1300;
   for (auto [n, k, m, da, db] : std::vector<std::tuple<int32_t, int32_t, int32_t, double, double>>{
            {37, 37, 37, 0.15, 0.15},
            {64, 64, 64, 0.1, 0.1},
            {10, 23, 7, 0.4, 0.4},
            {50, 50, 17, 0.1, 0.2},
            {5, 9, 3, 0.7, 0.7},
            {130, 130, 130, 0.04, 0.04}})
   {
      const CsrMatrix a = random_csr(n, k, da, Fill::random, ++seed);
      const CsrMatrix b = random_csr(k, m, db, Fill::random, ++seed);
      SCOPED_TRACE(std::to_string(n) + "x" + std::to_string(k) + " * " + std::to_string(k) + "x" +
                   std::to_string(m));
      const CsrMatrix ref = amgt::csr_spgemm_ref(a.view(), b.view());
      const CsrMatrix ab  = amgt::csr_spgemm_ref(abs_values(a).view(), abs_values(b).view());
      const CsrMatrix got = mbsr_product<TypeParam>(a, b);
      expect_same_pattern(got, ref, "random");
      ASSERT_EQ(ab.col, ref.col);
      ASSERT_GT(nnz_of(ref), 0);
      const int kk = max_row_nnz(a);
      for (size_t p = 0; p < ref.val.size(); ++p)
      {
         const double tol = spgemm_tolerance(r, kk, ab.val[p]);
         const double err = std::fabs(got.val[p] - ref.val[p]);
         ASSERT_LE(err, tol) << "entry " << p << ": " << got.val[p] << " vs " << ref.val[p];
         worst   = std::max(worst, err / tol);
         max_err = std::max(max_err, err);
         ++entries;
      }
   }
   EXPECT_GT(entries, 3000);
   EXPECT_LE(worst, 1.0);
   if (r.store > roundoff<double>().store) { EXPECT_GT(max_err, 0.0); }
}

TYPED_TEST(SpgemmTyped, EmptyOperands)
{
   struct Case
   {
      CsrMatrix a, b;
   };
   auto empty = [](int32_t nr, int32_t nc) {
      CsrMatrix z;
      z.nrows = nr;
      z.ncols = nc;
      z.row_ptr.assign(static_cast<size_t>(nr) + 1, 0);
      return z;
   };
   const std::vector<Case> cases{{empty(0, 0), empty(0, 0)},
                                 {empty(5, 0), empty(0, 7)},
                                 {empty(3, 4), random_csr(4, 6, 0.5, Fill::small_int, 1)},
                                 {random_csr(6, 4, 0.5, Fill::small_int, 2), empty(4, 9)},
                                 {empty(0, 6), random_csr(6, 6, 0.5, Fill::small_int, 3)}};
   for (const Case& c : cases)
   {
      const auto m = amgt::spgemm_ref(amgt::csr_to_mbsr<TypeParam>(c.a.view()),
                                      amgt::csr_to_mbsr<TypeParam>(c.b.view()));
      EXPECT_EQ(m.nrows, c.a.nrows);
      EXPECT_EQ(m.ncols, c.b.ncols);
      EXPECT_EQ(m.num_tiles(), 0);
      EXPECT_NO_THROW(amgt::validate_mbsr(m));
      const CsrMatrix ref = amgt::csr_spgemm_ref(c.a.view(), c.b.view());
      EXPECT_EQ(nnz_of(ref), 0);
      EXPECT_EQ(amgt::mbsr_to_csr(m).row_ptr, ref.row_ptr);
   }
}

TYPED_TEST(SpgemmTyped, DimensionMismatchThrows)
{
   const CsrMatrix a = random_csr(6, 5, 0.5, Fill::small_int, 4);
   const CsrMatrix b = random_csr(6, 6, 0.5, Fill::small_int, 5);
   EXPECT_THROW(amgt::spgemm_ref(amgt::csr_to_mbsr<TypeParam>(a.view()),
                                 amgt::csr_to_mbsr<TypeParam>(b.view())),
                amgt::Error);
   EXPECT_THROW(amgt::csr_spgemm_ref(a.view(), b.view()), amgt::Error);
   // Same block counts, different sizes (5 vs 6 both give two block rows): still a mismatch.
   try
   {
      (void)amgt::spgemm_ref(amgt::csr_to_mbsr<TypeParam>(a.view()),
                             amgt::csr_to_mbsr<TypeParam>(b.view()));
      FAIL() << "no exception";
   }
   catch (const amgt::Error& e)
   {
      EXPECT_NE(e.message().find("6 x 5"), std::string::npos) << e.what();
   }
}

TEST(Spgemm, Fp16AccumulatesInFloatAndRoundsOnce)
{
   // 2048 + 1 + 1 + 1 = 2051 in float, stored as half 2052 (tie to even). A half accumulator
   // would be stuck at 2048.
   const CsrMatrix a = from_entries(1, 4, {{0, 0, 2048.0}, {0, 1, 1.0}, {0, 2, 1.0}, {0, 3, 1.0}});
   const CsrMatrix b = from_entries(4, 1, {{0, 0, 1.0}, {1, 0, 1.0}, {2, 0, 1.0}, {3, 0, 1.0}});
   EXPECT_EQ(mbsr_product<half_t>(a, b).val, (std::vector<double>{2052.0}));
   EXPECT_EQ(mbsr_product<float>(a, b).val, (std::vector<double>{2051.0}));
}

TEST(Spgemm, Fp32UsesFusedMultiplyAdd)
{
   const double    av = 1.0 + std::ldexp(1.0, -12);
   const CsrMatrix a  = from_entries(1, 2, {{0, 0, 1.0}, {0, 1, av}});
   const CsrMatrix b  = from_entries(2, 1, {{0, 0, -(1.0 + std::ldexp(1.0, -11))}, {1, 0, av}});
   EXPECT_EQ(mbsr_product<float>(a, b).val, (std::vector<double>{std::ldexp(1.0, -24)}));
}

TEST(Spgemm, CsrOracleByHand)
{
   // [1 2; 0 3] * [4 0; 5 6] = [14 12; 15 18], input columns unsorted.
   const CsrMatrix a = from_entries(2, 2, {{0, 1, 2.0}, {0, 0, 1.0}, {1, 1, 3.0}});
   const CsrMatrix b = from_entries(2, 2, {{1, 1, 6.0}, {0, 0, 4.0}, {1, 0, 5.0}});
   const CsrMatrix c = amgt::csr_spgemm_ref(a.view(), b.view());
   EXPECT_EQ(c.row_ptr, (std::vector<int32_t>{0, 2, 4}));
   EXPECT_EQ(c.col, (std::vector<int32_t>{0, 1, 0, 1}));
   EXPECT_EQ(c.val, (std::vector<double>{14.0, 12.0, 15.0, 18.0}));
}

} // namespace
