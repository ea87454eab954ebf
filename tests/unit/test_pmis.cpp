// The CPU references of PMIS's sweep kernels (coarsen/pmis.h) against oracles written from the
// definitions per connection (which rows leave the set; which rows become F points), on random
// graphs with ties and decided neighbours; a hand-checked graph; bad input.
#include "coarsen/pmis.h"

#include "common/error.h"
#include "common/pmis_case.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

using amgt::PmisGraph;
using amgt::test::PmisCase;

constexpr int32_t kTemp = 9999; // hypre's IS_offd_temp_mark

// Independent set: a connection (row, j) with measures m_row, m_j > 1 takes the smaller one out.
void oracle_indep(const PmisCase& c, std::vector<int32_t>& is_diag, std::vector<int32_t>& is_offd)
{
   is_diag = c.is_diag;
   is_offd = c.is_offd;
   for (int32_t row : c.graph)
   {
      const double mr = c.measure_diag[static_cast<size_t>(row)];
      for (int32_t k = c.s_diag_i[row]; k < c.s_diag_i[row + 1]; ++k)
      {
         const double mj = c.measure_diag[static_cast<size_t>(c.s_diag_j[k])];
         if (mj > 1.0 && mr > mj) is_diag[static_cast<size_t>(c.s_diag_j[k])] = 0;
         if (mj > 1.0 && mj > mr) is_diag[static_cast<size_t>(row)] = 0;
      }
      for (int32_t k = c.s_offd_i[row]; k < c.s_offd_i[row + 1]; ++k)
      {
         const double mj = c.measure_offd[static_cast<size_t>(c.s_offd_j[k])];
         if (mj > 1.0 && mr > mj) is_offd[static_cast<size_t>(c.s_offd_j[k])] = kTemp;
         if (mj > 1.0 && mj > mr) is_diag[static_cast<size_t>(row)] = 0;
      }
   }
}

// Update: a C row (marker > 0) gets measure 0; an undecided row (0) next to a C point, or a row
// already marked F (-1), becomes / stays F with measure 0; other negative markers stay as they are
// unless a diagonal-block neighbour is a C point (then F).
void oracle_update(const PmisCase& c, std::vector<double>& measure, std::vector<int32_t>& cf)
{
   measure = c.measure_diag;
   cf      = c.cf_diag;
   const std::vector<int32_t> before = c.cf_diag;
   for (int32_t row : c.graph)
   {
      const size_t r = static_cast<size_t>(row);
      if (before[r] > 0)
      {
         measure[r] = 0.0;
         continue;
      }
      bool c_diag = false, c_offd = false;
      for (int32_t k = c.s_diag_i[row]; k < c.s_diag_i[row + 1]; ++k) c_diag |= before[static_cast<size_t>(c.s_diag_j[k])] > 0;
      for (int32_t k = c.s_offd_i[row]; k < c.s_offd_i[row + 1]; ++k) c_offd |= c.cf_offd[static_cast<size_t>(c.s_offd_j[k])] > 0;
      const bool f = before[r] == -1 || (before[r] >= -1 && c_diag) || (before[r] == 0 && c_offd);
      if (f)
      {
         cf[r]      = -1;
         measure[r] = 0.0;
      }
   }
}

TEST(Pmis, ReferencesEqualTheDefinitions)
{
   int left = 0, became_f = 0;
   for (unsigned seed = 1; seed <= 40; ++seed)
   {
      const PmisCase c = amgt::test::make_pmis_case(3 + static_cast<int32_t>(seed * 13 % 200),
                                                    1 + static_cast<int32_t>(seed % 20), seed % 3 == 0 ? 0 : 11, seed);
      SCOPED_TRACE("seed " + std::to_string(seed));
      std::vector<int32_t> want_d, want_o;
      oracle_indep(c, want_d, want_o);
      std::vector<int32_t> is_d = c.is_diag, is_o = c.is_offd;
      amgt::indep_set_main_ref(c.view(), c.measure_diag.data(), c.measure_offd.data(), is_d.data(), is_o.data(), kTemp);
      EXPECT_EQ(is_d, want_d);
      EXPECT_EQ(is_o, want_o);
      for (int32_t r : c.graph) left += is_d[static_cast<size_t>(r)] == 0;

      std::vector<double>  want_m;
      std::vector<int32_t> want_cf;
      oracle_update(c, want_m, want_cf);
      std::vector<double>  m  = c.measure_diag;
      std::vector<int32_t> cf = c.cf_diag;
      amgt::pmis_update_cf_ref(c.view(), m.data(), cf.data(), c.cf_offd.data());
      EXPECT_EQ(m, want_m);
      EXPECT_EQ(cf, want_cf);
      for (int32_t r : c.graph) became_f += cf[static_cast<size_t>(r)] == -1 && c.cf_diag[static_cast<size_t>(r)] == 0;
   }
   EXPECT_GT(left, 0);
   EXPECT_GT(became_f, 0);
}

// 0 - 1 - 2 in a line (strong both ways), measures 3, 5, 2: row 1 keeps its place and takes
// rows 0 and 2 out; then with 1 a C point, rows 0 and 2 become F points.
TEST(Pmis, HandCheckedLine)
{
   PmisCase c;
   c.nrows        = 3;
   c.graph        = {2, 0, 1};
   c.s_diag_i     = {0, 1, 3, 4};
   c.s_diag_j     = {1, 0, 2, 1};
   c.s_offd_i     = {0, 0, 0, 0};
   c.measure_diag = {3.0, 5.0, 2.0};
   c.is_diag      = {1, 1, 1};
   c.cf_diag      = {0, 1, 0};
   std::vector<int32_t> is = c.is_diag;
   amgt::indep_set_main_ref(c.view(), c.measure_diag.data(), nullptr, is.data(), nullptr, kTemp);
   EXPECT_EQ(is, (std::vector<int32_t>{0, 1, 0}));
   std::vector<double> m = c.measure_diag;
   std::vector<int32_t> cf = c.cf_diag;
   amgt::pmis_update_cf_ref(c.view(), m.data(), cf.data(), nullptr);
   EXPECT_EQ(cf, (std::vector<int32_t>{-1, 1, -1}));
   EXPECT_EQ(m, (std::vector<double>{0.0, 0.0, 0.0}));
}

TEST(Pmis, BadInputThrows)
{
   const PmisCase c = amgt::test::make_pmis_case(20, 3, 4, 3);
   PmisGraph      g = c.view();
   g.graph          = nullptr;
   std::vector<int32_t> is = c.is_diag, io = c.is_offd;
   EXPECT_THROW(amgt::indep_set_main_ref(g, c.measure_diag.data(), c.measure_offd.data(), is.data(), io.data(), kTemp),
                amgt::Error);
   EXPECT_THROW(amgt::indep_set_main_ref(c.view(), nullptr, c.measure_offd.data(), is.data(), io.data(), kTemp),
                amgt::Error);
   PmisGraph negative = c.view();
   negative.graph_size = -1;
   std::vector<double> m = c.measure_diag;
   std::vector<int32_t> cf = c.cf_diag;
   EXPECT_THROW(amgt::pmis_update_cf_ref(negative, m.data(), cf.data(), c.cf_offd.data()), amgt::Error);
   EXPECT_EQ(is, c.is_diag) << "a refused call wrote";
   EXPECT_NO_THROW(amgt::pmis_update_cf_ref(PmisGraph{}, nullptr, nullptr, nullptr));
}

} // namespace
