// The CPU reference of extended+i's F-F weights (interp/twiaff.h) against an oracle written
// from the formula with dense lookups (no search), on random rank blocks; hypre's search rule
// for rows with a repeated column; hand-computed values; bad input.
#include "interp/twiaff.h"

#include "common/error.h"
#include "common/twiaff_case.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <utility>
#include <vector>

namespace {

using amgt::TwiaffRows;
using amgt::test::TwiaffCase;

uint64_t bits(double v)
{
   uint64_t b;
   std::memcpy(&b, &v, sizeof b);
   return b;
}

struct Counts
{
   int zero_rsj = 0, missing_transpose = 0, found_in_ext = 0;
};

// The formula with the transposes looked up in maps of (row, column) -> value; the sums in
// hypre's order (diagonal block, then off-diagonal block, in storage order).
void oracle(const TwiaffCase& c, std::vector<double>& diag, std::vector<double>& offd, Counts& n)
{
   std::map<std::pair<int64_t, int64_t>, double> local, ext;
   for (int32_t i = 0; i < c.nrows; ++i)
      for (int32_t k = c.diag_i[i]; k < c.diag_i[i + 1]; ++k) local[{i, c.diag_j[k]}] = c.diag_a[k];
   for (int32_t j = 0; j < c.offd_cols; ++j)
      for (int32_t k = c.ext_i[j]; k < c.ext_i[j + 1]; ++k) ext[{j, c.ext_j[k]}] = c.ext_a[k];
   diag = c.diag_a;
   offd = c.offd_a;
   for (int32_t i = 0; i < c.nrows; ++i)
   {
      double theta = 0.0;
      for (int32_t k = c.diag_i[i]; k < c.diag_i[i + 1]; ++k)
      {
         const int32_t j = c.diag_j[k];
         if (j == i)
         {
            diag[k] = 1.0;
            continue;
         }
         const auto   t   = local.find({j, i});
         const double vji = t == local.end() ? 0.0 : t->second;
         n.missing_transpose += t == local.end();
         const double rsj = c.rsFC[j] + vji;
         if (rsj != 0.0)
         {
            diag[k] = c.diag_a[k] / rsj;
            theta   = std::fma(vji, diag[k], theta);
         }
         else
         {
            ++n.zero_rsj;
            diag[k] = 0.0;
            theta += c.diag_a[k];
         }
      }
      for (int32_t k = c.offd_i[i]; k < c.offd_i[i + 1]; ++k)
      {
         const int32_t j   = c.offd_j[k];
         const auto    t   = ext.find({j, c.first_index + i});
         const double  vji = t == ext.end() ? 0.0 : t->second;
         n.found_in_ext += t != ext.end();
         const double rsj = c.rsFC_offd[j] + vji;
         if (rsj != 0.0)
         {
            offd[k] = c.offd_a[k] / rsj;
            theta   = std::fma(vji, offd[k], theta);
         }
         else
         {
            ++n.zero_rsj;
            offd[k] = 0.0;
         }
      }
      theta += c.rsW[i];
      theta = theta != 0.0 ? -1.0 / theta : -1.0;
      for (int32_t k = c.diag_i[i]; k < c.diag_i[i + 1]; ++k) diag[k] *= theta;
      for (int32_t k = c.offd_i[i]; k < c.offd_i[i + 1]; ++k) offd[k] *= theta;
   }
}

TEST(Twiaff, ReferenceEqualsTheFormulaBitForBit)
{
   Counts total;
   for (unsigned seed = 1; seed <= 40; ++seed)
   {
      const int32_t nrows = 1 + static_cast<int32_t>(seed * 7 % 90);
      const int32_t per_row = 1 + static_cast<int32_t>(seed % 12);
      const int32_t offd_cols = seed % 3 == 0 ? 0 : static_cast<int32_t>(seed % 17);
      const TwiaffCase c = amgt::test::make_twiaff_case(nrows, per_row, offd_cols, seed);
      std::vector<double> want_d, want_o;
      oracle(c, want_d, want_o, total);
      for (int chunk : {1, 4, 32, 64})
      {
         SCOPED_TRACE("seed " + std::to_string(seed) + " chunk " + std::to_string(chunk));
         std::vector<double> d = c.diag_a, o = c.offd_a;
         amgt::twiaff_ref(c.rows(d.data(), c.diag_a.data(), o.data()), chunk);
         for (size_t k = 0; k < d.size(); ++k) ASSERT_EQ(bits(d[k]), bits(want_d[k])) << "diag entry " << k;
         for (size_t k = 0; k < o.size(); ++k) ASSERT_EQ(bits(o[k]), bits(want_o[k])) << "offd entry " << k;
      }
   }
   // the branches the cases were built to reach were reached
   EXPECT_GT(total.zero_rsj, 0);
   EXPECT_GT(total.missing_transpose, 0);
   EXPECT_GT(total.found_in_ext, 0);
}

// One row i = 0 with one entry (0, 1); row 1 holds column 0 twice. hypre's search takes the last
// match in the first chunk that holds one.
TEST(Twiaff, RepeatedColumnFollowsHypresSearchChunks)
{
   auto run = [](int32_t first, int32_t second, int chunk) {
      const TwiaffCase    c = amgt::test::repeated_column_case(40, first, second);
      std::vector<double> d = c.diag_a;
      TwiaffRows          m = c.rows(d.data(), c.diag_a.data(), nullptr);
      m.offd_j = nullptr;
      m.ext_i  = nullptr;
      m.ext_j  = nullptr;
      m.ext_a  = nullptr;
      amgt::twiaff_ref(m, chunk);
      return d[0]; // a_01 / (1 + vji) * theta, theta = -1 / (vji * a_01 / (1 + vji))
   };
   // vji = 2: a01 = 0.5 / 3, theta = -1 / (2 * 0.5 / 3) = -3, weight -0.5; vji = 3: 0.5 / 4,
   // theta = -1 / (3 * 0.125) = -8 / 3, weight -1 / 3
   const double with_2 = -0.5, with_3 = (0.5 / 4.0) * (-1.0 / std::fma(3.0, 0.5 / 4.0, 0.0));
   EXPECT_DOUBLE_EQ(run(3, 10, 32), with_3);  // both in the first chunk: the last
   EXPECT_DOUBLE_EQ(run(3, 35, 32), with_2);  // only the first in the first chunk
   EXPECT_DOUBLE_EQ(run(3, 35, 64), with_3);  // one chunk of 64 holds both
   EXPECT_DOUBLE_EQ(run(35, 38, 32), with_3); // both in the second chunk: the last
   EXPECT_DOUBLE_EQ(run(3, 10, 4), with_2);   // chunks of 4: 3 is in the first
}

// A 2x2 block by hand: rows 0 and 1 couple both ways, no off-diagonal block.
TEST(Twiaff, HandComputedTwoRows)
{
   TwiaffCase c;
   c.nrows  = 2;
   c.diag_i = {0, 2, 4};
   c.diag_j = {0, 1, 1, 0};
   c.diag_a = {4.0, -1.0, 4.0, -2.0};
   c.offd_i = {0, 0, 0};
   c.rsW    = {0.5, 0.25};
   c.rsFC   = {1.0, 3.0};
   std::vector<double> d = c.diag_a;
   TwiaffRows          m = c.rows(d.data(), c.diag_a.data(), nullptr);
   amgt::twiaff_ref(m, 32);
   // row 0: j = 1, vji = a_10 = -2, rsj = 3 - 2 = 1, v01 = -1; theta = (-2)(-1) + 0.5 = 2.5 -> -0.4
   EXPECT_DOUBLE_EQ(d[0], -0.4);
   EXPECT_DOUBLE_EQ(d[1], 0.4);
   // row 1: j = 0, vji = a_01 = -1, rsj = 1 - 1 = 0: weight 0, theta = -2 + 0.25 = -1.75 -> 1/1.75
   EXPECT_DOUBLE_EQ(d[2], 1.0 / 1.75);
   EXPECT_EQ(bits(d[3]), bits(0.0 * (1.0 / 1.75)));
}

TEST(Twiaff, BadInputThrows)
{
   TwiaffCase c = amgt::test::make_twiaff_case(5, 3, 2, 7);
   std::vector<double> d = c.diag_a, o = c.offd_a;
   TwiaffRows          m = c.rows(d.data(), c.diag_a.data(), o.data());
   EXPECT_THROW(amgt::twiaff_ref(m, 3), amgt::Error);  // not a power of two
   EXPECT_THROW(amgt::twiaff_ref(m, 128), amgt::Error);
   TwiaffRows no_ext = m;
   no_ext.ext_i      = nullptr;
   ASSERT_GT(no_ext.offd_nnz, 0) << "the case was to have an off-diagonal block";
   EXPECT_THROW(amgt::twiaff_ref(no_ext, 32), amgt::Error);
   TwiaffRows no_rows = m;
   no_rows.diag_i     = nullptr;
   EXPECT_THROW(amgt::twiaff_ref(no_rows, 32), amgt::Error);
   TwiaffRows negative = m;
   negative.nrows      = -1;
   EXPECT_THROW(amgt::twiaff_ref(negative, 32), amgt::Error);
   EXPECT_EQ(d, c.diag_a) << "a refused call wrote";
   TwiaffRows empty{};
   EXPECT_NO_THROW(amgt::twiaff_ref(empty, 32));
}

} // namespace
