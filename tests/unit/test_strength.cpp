// The CPU reference of the strength counting pass (coarsen/strength.h) against an oracle
// written from the definition (sums in row order, no lanes), on random rank blocks with one
// and several functions; the sum in hypre's lane order where the order decides; bad input.
#include "coarsen/strength.h"

#include "common/error.h"
#include "common/strength_case.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace {

using amgt::StrengthRows;
using amgt::test::StrengthCase;

struct Marks
{
   std::vector<int32_t> s_diag, s_offd, js_diag, js_offd;
};

// The definition, the row's entries taken in storage order
Marks oracle(const StrengthCase& c, int* all_weak_rows)
{
   Marks r{std::vector<int32_t>(c.diag_j.size()), std::vector<int32_t>(c.offd_j.size()),
           std::vector<int32_t>(static_cast<size_t>(c.nrows)), std::vector<int32_t>(static_cast<size_t>(c.nrows))};
   for (int32_t i = 0; i < c.nrows; ++i)
   {
      const auto same = [&](int32_t f) { return c.num_functions == 1 || f == c.dof_func[i]; };
      double     diag = 0.0, sum = 0.0, mx = 0.0, mn = 0.0;
      int64_t    dp = -1;
      for (int32_t k = c.diag_i[i]; k < c.diag_i[i + 1]; ++k)
      {
         const int32_t j = c.diag_j[k];
         if (j != i && !same(c.dof_func[j])) continue;
         sum += c.diag_a[k];
         if (j == i)
         {
            diag = c.diag_a[k];
            dp   = k;
         }
         else
         {
            mx = std::fmax(mx, c.diag_a[k]);
            mn = std::fmin(mn, c.diag_a[k]);
         }
      }
      for (int32_t k = c.offd_i[i]; k < c.offd_i[i + 1]; ++k)
      {
         if (!same(c.dof_func_offd[c.offd_j[k]])) continue;
         sum += c.offd_a[k];
         mx = std::fmax(mx, c.offd_a[k]);
         mn = std::fmin(mn, c.offd_a[k]);
      }
      const int    sd       = diag > 0.0 ? 1 : -1;
      const bool   all_weak = c.max_row_sum < 1.0 && std::fabs(sum) > std::fabs(diag) * c.max_row_sum;
      const double thresh   = sd * c.threshold * (diag > 0.0 ? mn : mx);
      *all_weak_rows += all_weak;
      for (int32_t k = c.diag_i[i]; k < c.diag_i[i + 1]; ++k)
      {
         const int32_t j      = c.diag_j[k];
         const bool    strong = !all_weak && k != dp && same(c.dof_func[j]) && sd * c.diag_a[k] < thresh;
         r.s_diag[static_cast<size_t>(k)] = k == dp ? -2 : strong ? j : -1;
         r.js_diag[static_cast<size_t>(i)] += strong;
      }
      for (int32_t k = c.offd_i[i]; k < c.offd_i[i + 1]; ++k)
      {
         const bool strong = !all_weak && same(c.dof_func_offd[c.offd_j[k]]) && sd * c.offd_a[k] < thresh;
         r.s_offd[static_cast<size_t>(k)] = strong ? c.offd_j[k] : -1;
         r.js_offd[static_cast<size_t>(i)] += strong;
      }
   }
   return r;
}

Marks reference(const StrengthCase& c, int w)
{
   Marks r{std::vector<int32_t>(c.diag_j.size(), 7), std::vector<int32_t>(c.offd_j.size(), 7),
           std::vector<int32_t>(static_cast<size_t>(c.nrows), 7), std::vector<int32_t>(static_cast<size_t>(c.nrows), 7)};
   amgt::strength_rowcount_ref(c.rows(r.s_diag.data(), r.s_offd.data(), r.js_diag.data(), r.js_offd.data()), w);
   return r;
}

TEST(Strength, ReferenceEqualsTheDefinition)
{
   int all_weak_rows = 0, strong = 0;
   for (unsigned seed = 1; seed <= 36; ++seed)
   {
      const int32_t functions = 1 + static_cast<int32_t>(seed % 3);
      const StrengthCase c = amgt::test::make_strength_case(5 + static_cast<int32_t>(seed * 11 % 120),
                                                            1 + static_cast<int32_t>(seed % 40),
                                                            seed % 4 == 0 ? 0 : static_cast<int32_t>(seed % 13), functions, seed);
      const Marks want = oracle(c, &all_weak_rows);
      for (int w : {1, 8, 32, 64})
      {
         SCOPED_TRACE("seed " + std::to_string(seed) + " warp " + std::to_string(w));
         const Marks got = reference(c, w);
         EXPECT_EQ(got.s_diag, want.s_diag);
         EXPECT_EQ(got.s_offd, want.s_offd);
         EXPECT_EQ(got.js_diag, want.js_diag);
         EXPECT_EQ(got.js_offd, want.js_offd);
      }
      for (int32_t n : want.js_diag) strong += n;
   }
   EXPECT_GT(all_weak_rows, 0) << "no row met the row-sum test";
   EXPECT_GT(strong, 0);
}

// One row whose sum depends on the order: in storage order 4 + 1e17 - 1e17 + 2 + 2 + 2 = 6, in
// two lanes (4 - 1e17 + 2) + (1e17 + 2 + 2) = 0 (the small terms lost beside 1e17): the
// row-sum test (|sum| > 0.9 * 4) makes the row all weak in one order and not in the other.
TEST(Strength, RowSumInHypresLaneOrder)
{
   StrengthCase c;
   c.nrows       = 6;
   c.diag_i      = {0, 6, 6, 6, 6, 6, 6};
   c.diag_j      = {0, 1, 2, 3, 4, 5};
   c.diag_a      = {4.0, 1e17, -1e17, 2.0, 2.0, 2.0};
   c.offd_i      = {0, 0, 0, 0, 0, 0, 0};
   c.max_row_sum = 0.9; // |sum| > 3.6 makes the row all weak
   c.threshold   = 0.25;
   const auto row_sum_in_lanes = [](int w) {
      std::vector<double> lanes(static_cast<size_t>(w), 0.0);
      const double        a[] = {4.0, 1e17, -1e17, 2.0, 2.0, 2.0};
      for (int k = 0; k < 6; ++k) lanes[static_cast<size_t>(k % w)] += a[k];
      // the butterfly, as hypre's warp adds
      for (int d = w / 2; d > 0; d >>= 1)
      {
         std::vector<double> n(lanes.size());
         for (size_t l = 0; l < lanes.size(); ++l) n[l] = lanes[l] + lanes[l ^ static_cast<size_t>(d)];
         lanes = n;
      }
      return lanes[0];
   };
   for (int w : {1, 2, 4})
   {
      const Marks  got      = reference(c, w);
      const bool   all_weak = std::fabs(row_sum_in_lanes(w)) > 4.0 * 0.9;
      SCOPED_TRACE("warp " + std::to_string(w) + " row sum " + std::to_string(row_sum_in_lanes(w)));
      EXPECT_EQ(got.js_diag[0] == 0, all_weak);
   }
   // the orders differ here: one warp width makes the row all weak, another does not
   EXPECT_NE(std::fabs(row_sum_in_lanes(1)) > 3.6, std::fabs(row_sum_in_lanes(2)) > 3.6);
}

TEST(Strength, BadInputThrows)
{
   const StrengthCase   c = amgt::test::make_strength_case(20, 4, 3, 2, 5);
   std::vector<int32_t> sd(c.diag_j.size()), so(c.offd_j.size()), jd(20), jo(20);
   StrengthRows         m = c.rows(sd.data(), so.data(), jd.data(), jo.data());
   EXPECT_THROW(amgt::strength_rowcount_ref(m, 48), amgt::Error);
   StrengthRows no_dof = m;
   no_dof.dof_func     = nullptr;
   EXPECT_THROW(amgt::strength_rowcount_ref(no_dof, 32), amgt::Error);
   StrengthRows no_out = m;
   no_out.js_diag      = nullptr;
   EXPECT_THROW(amgt::strength_rowcount_ref(no_out, 32), amgt::Error);
   StrengthRows negative = m;
   negative.nrows        = -1;
   EXPECT_THROW(amgt::strength_rowcount_ref(negative, 32), amgt::Error);
   EXPECT_NO_THROW(amgt::strength_rowcount_ref(StrengthRows{}, 32));
}

} // namespace
