// Which matvecs a schedule that lowers the finest level may run below fp64 (amgt_glue.h,
// amgt_glue_cycle_begin): AMGT=mixed AMGT_LEVELS=h, fixed for this binary before main.
#include "amgt_glue.h"

#include "mbsr/mbsr.h"
#include "spmv/spmv.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace {

using amgt::CsrMatrix;

const bool g_environment_set = [] {
   setenv("AMGT", "mixed", 1);
   setenv("AMGT_LEVELS", "h", 1);
   setenv("AMGT_STATS", "1", 1);
   return true;
}();

// 40 x 40 tridiagonal (4, -1) with values exact in fp16.
CsrMatrix tridiag(int n)
{
   CsrMatrix a;
   a.nrows = a.ncols = n;
   a.row_ptr.push_back(0);
   for (int i = 0; i < n; ++i)
   {
      for (int j : {i - 1, i, i + 1})
      {
         if (j < 0 || j >= n) continue;
         a.col.push_back(j);
         a.val.push_back(j == i ? 4.0 : -1.0);
      }
      a.row_ptr.push_back(static_cast<int>(a.col.size()));
   }
   return a;
}

amgt_csr view(const CsrMatrix& a)
{
   return amgt_csr{a.nrows, a.ncols, static_cast<int>(a.col.size()), a.row_ptr.data(),
                   a.col.data(), a.val.data(), 0, nullptr};
}

void* test_alloc(size_t bytes, int) { return std::malloc(bytes); }
void  test_release(void* p, int) { std::free(p); }

std::string stats_table()
{
   ::testing::internal::CaptureStdout();
   amgt_glue_print_stats(0, 1);
   return ::testing::internal::GetCapturedStdout();
}

class GlueCycle : public ::testing::Test
{
protected:
   void SetUp() override
   {
      amgt_allocator a{test_alloc, test_release, nullptr, nullptr};
      amgt_glue_set_allocator(&a);
      amgt_glue_setup_begin();
   }
};

TEST_F(GlueCycle, FinestOperatorBelowFp64OnlyInTheFirstCycle)
{
   CsrMatrix           a = tridiag(40);
   amgt_csr            v = view(a);
   void*               sa = nullptr; // level 0 A
   void*               sp = nullptr; // level 0 P (same values: only the role differs)
   amgt_glue_matrix_tag(&sa, 0, AMGT_ROLE_A);
   amgt_glue_matrix_tag(&sp, 0, AMGT_ROLE_P);
   std::vector<double> x(40), y(40, 0.0), y16(40, 0.0);
   for (int i = 0; i < 40; ++i) x[i] = 1.0 / 3.0 + 0.01 * i; // not representable in fp16 or fp32
   const auto h = amgt::csr_to_mbsr<amgt::half_t>(a.view());
   amgt::spmv_ref(h, 1.0, x.data(), 0.0, y16.data());

   // outside any cycle (a Krylov matvec): hypre's, fp64
   EXPECT_EQ(amgt_glue_spmv(&sa, &v, 1.0, x.data(), 0.0, y.data()), 0);
   EXPECT_EQ(amgt_glue_spmv(&sp, &v, 1.0, x.data(), 0.0, y.data()), 0);
   // the first cycle of a solve (every preconditioner application): the schedule's fp16
   amgt_glue_cycle_begin(0);
   ASSERT_EQ(amgt_glue_spmv(&sa, &v, 1.0, x.data(), 0.0, y.data()), 1);
   for (int i = 0; i < 40; ++i) EXPECT_EQ(y[i], y16[i]) << i;
   amgt_glue_cycle_end();
   // a later cycle of the same solve (BoomerAMG as a solver): the finest operator in fp64,
   // the level's P stays in the schedule's precision
   amgt_glue_cycle_begin(3);
   EXPECT_EQ(amgt_glue_spmv(&sa, &v, 1.0, x.data(), 0.0, y.data()), 0);
   EXPECT_EQ(amgt_glue_spmv(&sp, &v, 1.0, x.data(), 0.0, y.data()), 1);
   amgt_glue_cycle_end();
   const std::string t = stats_table();
   EXPECT_NE(t.find("spmv-outside-cycle-fp64=2"), std::string::npos) << t;
   EXPECT_NE(t.find("spmv-later-cycle-fp64=1"), std::string::npos) << t;
   amgt_glue_matrix_release(sa);
   amgt_glue_matrix_release(sp);
}

// Unbalanced ends never leave the glue believing it is inside a cycle.
TEST_F(GlueCycle, ExtraCycleEndIsHarmless)
{
   amgt_glue_cycle_end();
   amgt_glue_cycle_end();
   CsrMatrix a = tridiag(8);
   amgt_csr  v = view(a);
   void*     s = nullptr;
   amgt_glue_matrix_tag(&s, 2, AMGT_ROLE_A);
   std::vector<double> x(8, 1.0), y(8, 0.0);
   EXPECT_EQ(amgt_glue_spmv(&s, &v, 1.0, x.data(), 0.0, y.data()), 0); // outside: hypre's
   amgt_glue_cycle_begin(0);
   EXPECT_EQ(amgt_glue_spmv(&s, &v, 1.0, x.data(), 0.0, y.data()), 1);
   amgt_glue_cycle_end();
   amgt_glue_matrix_release(s);
}

} // namespace
