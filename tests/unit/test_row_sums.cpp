// The CPU reference of the row sums of a CSR block (csr/row_sums.h): against sums formed from
// the definition where the order cannot matter (integers), against hand-computed values where
// it does (hypre's lanes and tree), the set and add forms, the C/F filter, a block without
// columns, and bad input.
#include "csr/row_sums.h"

#include "common/error.h"
#include "common/row_sums_case.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace {

using amgt::RowSums;
using amgt::test::RowSumsCase;

TEST(RowSums, IntegerSumsEqualTheDefinition)
{
   for (unsigned seed = 1; seed <= 24; ++seed)
   {
      RowSumsCase c = amgt::test::make_row_sums_case(300, 120, 1 + static_cast<int32_t>(seed * 5 % 40), seed);
      // integers below 2^53 in every partial sum: every order gives the same sum
      for (double& v : c.a) v = std::round(std::fabs(v) > 1.0 ? v * 1e-12 : v * 1000.0);
      for (int w : {32, 64})
      {
         std::vector<double> got = c.out;
         amgt::row_sums_ref(c.view(got.data()), w);
         for (int32_t i = 0; i < c.nrows; ++i)
         {
            double s = 0.0;
            for (int32_t k = c.ia[i]; k < c.ia[i + 1]; ++k)
            {
               if (c.with_cf && c.cf_i[i] != c.cf_j[c.ja[k]]) continue;
               s += c.type == 1 ? std::fabs(c.a[k]) : c.a[k];
            }
            const double want = c.set ? c.scal * s : c.out[i] + c.scal * s;
            ASSERT_EQ(got[i], want) << "seed " << seed << " width " << w << " row " << i;
         }
      }
   }
}

TEST(RowSums, LanesThenTheTree)
{
   // width 4: lane l adds entries l and l + 4; then lanes 0+2, 1+3, and the two. In row order
   // 1e16 + 1 + 1 + 1 loses the ones (1e16's spacing is 2) and the row would sum to 3.
   RowSumsCase c;
   c.nrows = 1;
   c.ncols = 8;
   c.ja    = {0, 1, 2, 3, 4, 5, 6, 7};
   c.a     = {1e16, 1.0, 1.0, 1.0, -1e16, 1.0, 1.0, 1.0};
   c.ia    = {0, 8};
   c.out   = {0.0};
   std::vector<double> got(1);
   amgt::row_sums_ref(c.view(got.data()), 4);
   EXPECT_EQ(got[0], 6.0);
   // width 8, an entry a lane: the two large ones in lanes 0 and 1 meet last (d = 1), after
   // each has taken ones at d = 4 (lost: 1e16 + 1 rounds to 1e16) and d = 2 (kept)
   c.a = {1e16, -1e16, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0};
   amgt::row_sums_ref(c.view(got.data()), 8);
   // d = 4: (1e16 + 1), (-1e16 + 1), 2, 2 -> 1e16, -1e16, 2, 2; d = 2: 1e16 + 2, -1e16 + 2;
   // d = 1: (1e16 + 2) + (-1e16 + 2) = 4
   EXPECT_EQ(got[0], 4.0);
}

TEST(RowSums, SetAddMagnitudesAndTheFilter)
{
   RowSumsCase c;
   c.nrows   = 2;
   c.ncols   = 3;
   c.ia      = {0, 3, 4};
   c.ja      = {0, 1, 2, 2};
   c.a       = {2.0, -3.0, 0.5, -4.0};
   c.cf_i    = {1, -1};
   c.cf_j    = {1, -1, 1};
   c.out     = {10.0, 20.0};
   c.type    = 1;
   c.set     = 0;
   c.scal    = 2.0;
   c.with_cf = true;
   std::vector<double> got = c.out;
   amgt::row_sums_ref(c.view(got.data()), 32);
   EXPECT_EQ(got[0], 10.0 + 2.0 * (2.0 + 0.5)); // column 1 is of the other kind
   EXPECT_EQ(got[1], 20.0);                     // its one entry is of the other kind
   c.with_cf = false;
   c.type    = 0;
   c.set     = 1;
   amgt::row_sums_ref(c.view(got.data()), 32);
   EXPECT_EQ(got[0], 2.0 * (2.0 - 3.0 + 0.5));
   EXPECT_EQ(got[1], 2.0 * -4.0);
}

TEST(RowSums, BlockWithoutColumns)
{
   // an off-diagonal block on one rank: its row pointers are not read (null here)
   RowSums m{};
   std::vector<double> out = {1.5, -0.0, 3.0};
   m.nrows = 3;
   m.scal  = 1.0;
   m.out   = out.data();
   amgt::row_sums_ref(m, 32);
   EXPECT_EQ(out, (std::vector<double>{1.5, 0.0, 3.0}));
   EXPECT_FALSE(std::signbit(out[1])) << "-0 + 0 is +0, as hypre's add gives";
   m.set = 1;
   amgt::row_sums_ref(m, 32);
   EXPECT_EQ(out, (std::vector<double>{0.0, 0.0, 0.0}));
}

TEST(RowSums, BadInputIsRefused)
{
   const RowSumsCase c = amgt::test::make_row_sums_case(10, 10, 3, 4);
   std::vector<double> out(10);
   RowSums m = c.view(out.data());
   m.type    = 2; // hypre's squares: not the plugin's
   EXPECT_THROW(amgt::row_sums_ref(m, 32), amgt::Error);
   m      = c.view(out.data());
   m.cf_j = nullptr;
   m.cf_i = c.cf_i.data();
   EXPECT_THROW(amgt::row_sums_ref(m, 32), amgt::Error);
   m     = c.view(nullptr);
   EXPECT_THROW(amgt::row_sums_ref(m, 32), amgt::Error);
   m       = c.view(out.data());
   m.ia    = nullptr;
   EXPECT_THROW(amgt::row_sums_ref(m, 32), amgt::Error);
   m       = c.view(out.data());
   m.nrows = -1;
   EXPECT_THROW(amgt::row_sums_ref(m, 32), amgt::Error);
   m = c.view(out.data());
   EXPECT_THROW(amgt::row_sums_ref(m, 48), amgt::Error) << "the warp width is a power of two";
   EXPECT_NO_THROW(amgt::row_sums_ref(RowSums{}, 32));
}

} // namespace

namespace {

using amgt::WeakRowSums;
using amgt::test::WeakRowSumsCase;

TEST(WeakRowSums, IntegerSumsEqualTheDefinition)
{
   for (unsigned seed = 1; seed <= 16; ++seed)
   {
      WeakRowSumsCase c = amgt::test::make_weak_row_sums_case(400, 1 + static_cast<int32_t>(seed * 3 % 40), seed % 2, seed);
      for (double& v : c.diag_a) v = std::round(std::fabs(v) > 1.0 ? v * 1e-12 : v * 1000.0);
      for (double& v : c.offd_a) v = std::round(v * 1000.0);
      std::vector<double> got = c.rs;
      amgt::weak_row_sums_ref(c.view(got.data()), 32);
      for (int32_t i = 0; i < c.nrows; ++i)
      {
         double want = c.rs[i]; // rows with cf_marker >= flag keep theirs
         if (c.cf_marker[i] < c.flag)
         {
            want = 0.0;
            for (int32_t k = c.diag_i[i]; k < c.diag_i[i + 1]; ++k)
               if (c.soc_diag_j[k] < 0) want += c.diag_a[k]; // the diagonal (-2) is weak too
            for (int32_t k = c.offd_i[i]; c.has_offd && k < c.offd_i[i + 1]; ++k)
               if (c.soc_offd_j[k] < 0) want += c.offd_a[k];
         }
         ASSERT_EQ(got[i], want) << "seed " << seed << " row " << i;
      }
   }
}

TEST(WeakRowSums, LanesThenTheTreeAndTheStrongLeftOut)
{
   // width 4: lane 0 takes entries 0 and 4 (1e16 and -1e16: 0), lanes 1-3 two weak ones each
   // (2), the strong entry 3 (5.0) out: 0 + (1 + 1) + (1 + 1) + (1 + 0) = 5 in the tree
   WeakRowSumsCase c;
   c.nrows      = 1;
   c.cf_marker  = {-1};
   c.diag_i     = {0, 8};
   c.diag_a     = {1e16, 1.0, 1.0, 5.0, -1e16, 1.0, 1.0, 1.0};
   c.soc_diag_j = {-2, -1, -1, 7, -1, -1, -1, -1};
   c.offd_i     = {0, 0};
   c.rs         = {9.0};
   std::vector<double> got = c.rs;
   amgt::weak_row_sums_ref(c.view(got.data()), 4);
   EXPECT_EQ(got[0], 5.0);
   c.cf_marker = {1}; // a C-point: left as it is
   got         = c.rs;
   amgt::weak_row_sums_ref(c.view(got.data()), 4);
   EXPECT_EQ(got[0], 9.0);
}

TEST(WeakRowSums, BadInputIsRefused)
{
   const WeakRowSumsCase c = amgt::test::make_weak_row_sums_case(20, 3, true, 3);
   std::vector<double> rs(20);
   WeakRowSums m = c.view(nullptr);
   EXPECT_THROW(amgt::weak_row_sums_ref(m, 32), amgt::Error);
   m           = c.view(rs.data());
   m.cf_marker = nullptr;
   EXPECT_THROW(amgt::weak_row_sums_ref(m, 32), amgt::Error);
   m        = c.view(rs.data());
   m.offd_i = nullptr;
   EXPECT_THROW(amgt::weak_row_sums_ref(m, 32), amgt::Error);
   m = c.view(rs.data());
   EXPECT_THROW(amgt::weak_row_sums_ref(m, 3), amgt::Error);
   EXPECT_NO_THROW(amgt::weak_row_sums_ref(WeakRowSums{}, 32));
}

} // namespace
