// The strength counting pass on the GPU (coarsen/strength_device.h) against the CPU reference
// (coarsen/strength.h) with hypre's warp width: equal exactly, on rank blocks of every group
// width (rows of 1 to 150 entries: several of hypre's lane rounds), one and several functions,
// an off-diagonal block, and the row whose sum depends on the order; nothing written past the
// arrays; bad input refused.
#include "gpu_test_util.h"

#include "coarsen/strength.h"
#include "coarsen/strength_device.h"
#include "common/error.h"
#include "common/strength_case.h"

#include <limits>

namespace {

using namespace amgt;
using namespace amgt::test;
using namespace amgt::test::gpu;

constexpr int32_t kMark = 0x5a5a5a5a; // the guard entry after each written array

class StrengthDevice : public GpuStreamTest
{
protected:
   void check(const StrengthCase& c)
   {
      const size_t         nd = c.diag_j.size(), no = c.offd_j.size(), nr = static_cast<size_t>(c.nrows);
      std::vector<int32_t> rd(nd), ro(no), rjd(nr), rjo(nr);
      strength_rowcount_ref(c.rows(rd.data(), ro.data(), rjd.data(), rjo.data()), device::strength_warp());

      const std::vector<int32_t> guard_d(nd + 1, kMark), guard_o(no + 1, kMark), guard_r(nr + 1, kMark);
      DeviceArray<int32_t> di(c.diag_i), dj(c.diag_j), oi(c.offd_i), oj(c.offd_j), df(c.dof_func), dfo(c.dof_func_offd);
      DeviceArray<double>  da(c.diag_a), oa(c.offd_a);
      DeviceArray<int32_t> sd(guard_d), so(guard_o), jd(guard_r), jo(guard_r);
      StrengthRows         m = c.rows(sd.get(), so.get(), jd.get(), jo.get());
      m.diag_i        = di.get();
      m.diag_j        = dj.get();
      m.diag_a        = da.get();
      m.offd_i        = oi.get();
      m.offd_j        = oj.get();
      m.offd_a        = oa.get();
      m.dof_func      = df.get();
      m.dof_func_offd = dfo.get();
      device::strength_rowcount(m, stream_);
      ASSERT_NO_THROW(device::synchronize(stream_));
      std::vector<int32_t> gd = sd.to_host(), go = so.to_host(), gjd = jd.to_host(), gjo = jo.to_host();
      EXPECT_EQ(gd.back(), kMark) << "wrote past the diagonal block's marks";
      EXPECT_EQ(go.back(), kMark) << "wrote past the off-diagonal block's marks";
      EXPECT_EQ(gjd.back(), kMark) << "wrote past the row counts";
      EXPECT_EQ(gjo.back(), kMark) << "wrote past the row counts";
      gd.pop_back();
      go.pop_back();
      gjd.pop_back();
      gjo.pop_back();
      EXPECT_EQ(gd, rd);
      EXPECT_EQ(go, ro);
      EXPECT_EQ(gjd, rjd);
      EXPECT_EQ(gjo, rjo);
   }
};

TEST_F(StrengthDevice, EqualsTheReferenceExactly)
{
   for (unsigned seed = 1; seed <= 30; ++seed)
   {
      const int32_t per_row   = 1 + static_cast<int32_t>(seed * 7 % 75);
      const int32_t nrows     = 40 + static_cast<int32_t>(seed * 211 % 4000);
      const int32_t offd_cols = seed % 4 == 0 ? 0 : static_cast<int32_t>(seed * 13 % 300);
      const int32_t functions = 1 + static_cast<int32_t>(seed % 3);
      SCOPED_TRACE("seed " + std::to_string(seed) + " rows " + std::to_string(nrows) + " per row " +
                   std::to_string(per_row) + " functions " + std::to_string(functions));
      check(make_strength_case(nrows, per_row, offd_cols, functions, seed));
      if (HasFatalFailure()) return;
   }
}

TEST_F(StrengthDevice, RowSumInHypresLaneOrder)
{
   // 100 copies of the order-sensitive row (tests/unit/test_strength.cpp) with its large terms
   // at every lane distance, so that the butterfly's order decides some rows' row-sum test
   StrengthCase c;
   c.nrows       = 100;
   c.max_row_sum = 0.9;
   for (int32_t r = 0; r < c.nrows; ++r)
   {
      const int32_t len = 6 + r % 60;
      for (int32_t k = 0; k < len; ++k)
      {
         c.diag_j.push_back(k == 0 ? r : (r + k) % c.nrows);
         c.diag_a.push_back(k == 0 ? 4.0 : k == 1 + r % 7 ? 1e17 : k == 2 + r % 11 + r % 7 ? -1e17 : 2.0);
      }
      c.diag_i.push_back(static_cast<int32_t>(c.diag_j.size()));
      c.offd_i.push_back(0);
   }
   check(c);
}

// Rows the random cases do not draw, among short ones (so that the narrow groups meet them):
// rows past one, two and four of hypre's lane rounds in both blocks, empty rows, two diagonal
// entries in a row, a NaN and a -0 among the values; one and two functions, and short rows of
// four lengths (mean rows of 8: a thread a row; 10 and 17: groups of 8 lanes; 34: groups of
// 16); rows either side of the thread kernel's 8 slots a block and of a group's held slots.
TEST_F(StrengthDevice, LongEmptyAndOddRowsAmongShortOnes)
{
   for (const int32_t functions : {1, 2})
   {
      for (const int32_t short_len : {2, 4, 11, 30})
      {
         SCOPED_TRACE("functions " + std::to_string(functions) + " short rows " + std::to_string(short_len));
         StrengthCase c;
         c.nrows         = 3000;
         c.offd_cols     = 500;
         c.num_functions = functions;
         c.max_row_sum   = 0.8;
         c.threshold     = 0.25;
         for (int32_t i = 0; i < c.nrows; ++i) c.dof_func.push_back(i % functions);
         for (int32_t j = 0; j < c.offd_cols; ++j) c.dof_func_offd.push_back(j % functions);
         for (int32_t i = 0; i < c.nrows; ++i)
         {
            const int32_t kind = i % 50;
            int32_t       nd = short_len + i % 3, no = i % 3;
            if (kind == 7) { nd = 40 + (i / 50 % 3) * 45; no = 35 + (i / 50 % 4) * 40; } // 40-130, 35-155
            if (kind == 13) nd = no = 0;                                                 // empty
            if (kind == 17) nd = no = 8;                       // the thread kernel's slots, full
            if (kind == 19) nd = 9;                            // one past them: the warp's row
            if (kind == 23) { nd = 3; no = 9; }
            for (int32_t k = 0; k < nd; ++k)
            {
               const bool diagonal = k == nd / 2 || (kind == 21 && k == 0); // two of them in kind 21
               c.diag_j.push_back(diagonal ? i : (i + 1 + k * 7) % c.nrows);
               double v = diagonal ? 2.0 * nd : (k % 5 == 1 ? 0.3 : -1.0 - 0.01 * k);
               if (kind == 29 && k == 1) v = std::numeric_limits<double>::quiet_NaN();
               if (kind == 31 && k == 1) v = -0.0;
               c.diag_a.push_back(v);
            }
            c.diag_i.push_back(static_cast<int32_t>(c.diag_j.size()));
            for (int32_t k = 0; k < no; ++k)
            {
               c.offd_j.push_back((i + k * 13) % c.offd_cols);
               c.offd_a.push_back(kind == 31 && k == 0 ? -0.0 : (k % 4 == 2 ? 0.2 : -0.9 - 0.01 * k));
            }
            c.offd_i.push_back(static_cast<int32_t>(c.offd_j.size()));
         }
         if (short_len == 2)
         {
            const int64_t entries = static_cast<int64_t>(c.diag_j.size() + c.offd_j.size());
            ASSERT_LE((entries + c.nrows - 1) / c.nrows, 8) << "the case must take the thread-a-row kernel";
         }
         check(c);
         if (HasFatalFailure()) return;
      }
   }
}

TEST_F(StrengthDevice, BadInputRefusedBeforeAnyLaunch)
{
   const StrengthCase c = make_strength_case(30, 4, 0, 1, 2);
   StrengthRows       m = c.rows(nullptr, nullptr, nullptr, nullptr);
   EXPECT_THROW(device::strength_rowcount(m, stream_), Error);
   EXPECT_NO_THROW(device::strength_rowcount(StrengthRows{}, stream_));
   EXPECT_NO_THROW(device::synchronize(stream_));
}

} // namespace
