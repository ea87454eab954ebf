// Which matvecs a schedule that lowers the finest level may run below fp64 (amgt_glue.h,
// amgt_glue_cycle_begin): AMGT=mixed AMGT_LEVELS=h, fixed for this binary before main.
#include "amgt_glue.h"
#include "glue/glue_test_util.h"

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

using amgt::test::stats_table;

// n x n tridiagonal (4, -1): values exact in fp16.
CsrMatrix tridiag(int n)
{
   return amgt::test::tridiag(n, 4.0, -1.0);
}

amgt_csr view(const CsrMatrix& a)
{
   return amgt::test::host_view(a);
}

// These tests place their matvecs inside or outside cycles themselves.
class GlueCycle : public amgt::test::GlueInCycle
{
protected:
   void SetUp() override
   {
      GlueInCycle::SetUp();
      amgt_glue_cycle_end();
   }
   void TearDown() override {}
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
