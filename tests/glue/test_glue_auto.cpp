// AMGT=auto through the glue's C API (host arrays): the per-matrix choice reaches the
// kernels (scaling, fall-back to higher precision), the product check recomputes a product
// that overflowed, and the statistics table says why. Its own process: the configuration is
// read once per process (AMGT=auto, its default floor s,s,h).
#include "amgt_glue.h"
#include "glue/glue_test_util.h"

#include "mbsr/mbsr.h"
#include "spgemm/spgemm.h"
#include "spmv/spmv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using amgt::CsrMatrix;

const bool g_environment_set = [] {
   setenv("AMGT", "auto", 1);
   unsetenv("AMGT_LEVELS");
   setenv("AMGT_STATS", "1", 1);
   return true;
}();

using amgt::test::stats_table;
using amgt::test::tridiag;

amgt_csr view(const CsrMatrix& a)
{
   return amgt::test::host_view(a);
}

class GlueAuto : public amgt::test::GlueInCycle
{
};

double max_rel_error(const std::vector<double>& y, const std::vector<double>& ref)
{
   double err = 0.0, scale = 0.0;
   for (size_t i = 0; i < y.size(); ++i)
   {
      err   = std::max(err, std::fabs(y[i] - ref[i]));
      scale = std::max(scale, std::fabs(ref[i]));
   }
   return err / scale;
}

TEST_F(GlueAuto, ModeIsAuto)
{
   EXPECT_EQ(amgt_glue_mode(), AMGT_MODE_AUTO);
}

TEST_F(GlueAuto, HugeValuesRunScaledInFp16)
{
   // bcsstk16-like magnitudes: 4e9 does not fit fp16, D^-1/2 A D^-1/2 (values 1, -0.25) does
   CsrMatrix a = tridiag(50, 4e9, -1e9);
   amgt_csr  v = view(a);
   void*     s = nullptr;
   amgt_glue_matrix_tag(&s, 2, AMGT_ROLE_A);
   std::vector<double> x(50), y(50, 0.0), ref(50, 0.0);
   for (int i = 0; i < 50; ++i) x[i] = 1.0 + 0.01 * (i % 7);
   ASSERT_EQ(amgt_glue_spmv(&s, &v, 1.0, x.data(), 0.0, y.data()), 1);
   amgt::csr_spmv_ref(a.view(), 1.0, x.data(), 0.0, ref.data());
   for (double yi : y) ASSERT_TRUE(std::isfinite(yi));
   // fp16 storage of the scaled values (exact here: 1 and -0.25) and x rounded per the
   // contract: a few units of fp16's roundoff at most
   EXPECT_LT(max_rel_error(y, ref), 4 * 0x1p-11);
   const std::string t = stats_table();
   EXPECT_NE(t.find("mode auto, schedule s,s,h"), std::string::npos) << t;
   EXPECT_NE(t.find("A:fp16/scaled"), std::string::npos) << t;
   amgt_glue_matrix_release(s);
}

TEST_F(GlueAuto, RectangularOverflowFallsBackToFp32)
{
   // not square: no scaling; 1e6 fits fp32
   CsrMatrix a;
   a.nrows = 3;
   a.ncols = 5;
   a.row_ptr = {0, 2, 3, 5};
   a.col     = {0, 4, 2, 1, 3};
   a.val     = {1e6, -3e5, 7e5, 2.5e5, 1e6};
   amgt_csr v = view(a);
   void*    s = nullptr;
   amgt_glue_matrix_tag(&s, 3, AMGT_ROLE_P);
   std::vector<double> x{1, 2, 3, 4, 5}, y(3, 0.0), ref(3, 0.0);
   ASSERT_EQ(amgt_glue_spmv(&s, &v, 1.0, x.data(), 0.0, y.data()), 1);
   auto m = amgt::csr_to_mbsr<float>(a.view());
   amgt::spmv_ref(m, 1.0, x.data(), 0.0, ref.data());
   for (int i = 0; i < 3; ++i) EXPECT_EQ(y[i], ref[i]) << i; // exactly the fp32 kernel
   EXPECT_NE(stats_table().find("P:fp32/overflow"), std::string::npos) << stats_table();
   amgt_glue_matrix_release(s);
}

TEST_F(GlueAuto, Fp32FloorSaysFloorWhereFp16WouldHold)
{
   // level 1 under the default floor s,s,h: fp32. Its A holds 2.1 and -1, which fp16's range
   // would hold (2.1 rounded): fp32 is the floor's doing ("floor"). Its P holds 1e6 and is not
   // square (no scaling): fp16 would not hold it, fp32 is what its values need ("in-range").
   CsrMatrix a = tridiag(30, 2.1, -1.0);
   amgt_csr  va = view(a);
   void*     sa = nullptr;
   amgt_glue_matrix_tag(&sa, 1, AMGT_ROLE_A);
   std::vector<double> x(30, 1.0), y(30, 0.0);
   ASSERT_EQ(amgt_glue_spmv(&sa, &va, 1.0, x.data(), 0.0, y.data()), 1);
   CsrMatrix p;
   p.nrows   = 3;
   p.ncols   = 2;
   p.row_ptr = {0, 1, 3, 4};
   p.col     = {0, 0, 1, 1};
   p.val     = {1e6, 5e5, 5e5, 1e6};
   amgt_csr vp = view(p);
   void*    sp = nullptr;
   amgt_glue_matrix_tag(&sp, 1, AMGT_ROLE_P);
   std::vector<double> xp(2, 1.0), yp(3, 0.0);
   ASSERT_EQ(amgt_glue_spmv(&sp, &vp, 1.0, xp.data(), 0.0, yp.data()), 1);
   const std::string t = stats_table();
   EXPECT_NE(t.find("AMGT: why level 1: A:fp32/floor P:fp32/in-range"), std::string::npos) << t;
   EXPECT_EQ(t.find("A:fp32/in-range"), std::string::npos) << t;
   amgt_glue_matrix_release(sa);
   amgt_glue_matrix_release(sp);
}

TEST_F(GlueAuto, ValuesThatFp16HoldsAreStoredInFp16AndGiveTheFp64Result)
{
   // 2 and -1 are fp16 numbers: stored in fp16 at no loss (lossless_storage); the products
   // are the fp64 kernel's, bit for bit. With one value fp16 does not hold (2.1), fp32.
   CsrMatrix a = tridiag(30, 2.0, -1.0);
   amgt_csr  v = view(a);
   void*     s = nullptr;
   // level 0 (fp32 floor): no other test of this binary tags it, so its "why" line is this
   // matrix's when the binary runs whole (the table keeps a level's first choice per role)
   amgt_glue_matrix_tag(&s, 0, AMGT_ROLE_A);
   std::vector<double> x(30), y(30, 0.0), ref(30, 0.0);
   for (int i = 0; i < 30; ++i) x[i] = 1.0 / 3.0 + 1e-3 * i;
   ASSERT_EQ(amgt_glue_spmv(&s, &v, 1.0, x.data(), 0.0, y.data()), 1);
   auto m = amgt::csr_to_mbsr<double>(a.view());
   amgt::spmv_ref(m, 1.0, x.data(), 0.0, ref.data());
   for (int i = 0; i < 30; ++i) EXPECT_EQ(y[i], ref[i]) << i;
   EXPECT_NE(stats_table().find("AMGT: why level 0: A:fp16/exact-fp16"), std::string::npos) << stats_table();
   amgt_glue_matrix_release(s);
}

TEST_F(GlueAuto, NearSingularLevelRunsInFp64)
{
   // every row sums to zero: the constant vector is annihilated, |1'A1| / 1'|A|1 = 0 (values
   // 2.2 and -1.1, which fp16 does not hold exactly: stored as they are, in fp64)
   CsrMatrix a = tridiag(40, 2.2, -1.1, /*neumann=*/true);
   amgt_csr  v = view(a);
   void*     s = nullptr;
   amgt_glue_matrix_tag(&s, 4, AMGT_ROLE_A);
   std::vector<double> x(40), y(40, 0.0), ref(40, 0.0);
   for (int i = 0; i < 40; ++i) x[i] = 1.0 / 3.0 + 1e-3 * i;
   ASSERT_EQ(amgt_glue_spmv(&s, &v, 1.0, x.data(), 0.0, y.data()), 1);
   auto m = amgt::csr_to_mbsr<double>(a.view());
   amgt::spmv_ref(m, 1.0, x.data(), 0.0, ref.data());
   for (int i = 0; i < 40; ++i) EXPECT_EQ(y[i], ref[i]) << i;
   // and the level's P (which fits fp16's range by itself) follows its operator
   CsrMatrix p = tridiag(40, 1.0, 0.3);
   amgt_csr  vp = view(p);
   void*     sp = nullptr;
   amgt_glue_matrix_tag(&sp, 4, AMGT_ROLE_P);
   ASSERT_EQ(amgt_glue_spmv(&sp, &vp, 1.0, x.data(), 0.0, y.data()), 1);
   const std::string t = stats_table();
   EXPECT_NE(t.find("A:fp64/near-singular"), std::string::npos) << t;
   EXPECT_NE(t.find("P:fp64/level-near-singular"), std::string::npos) << t;
   amgt_glue_matrix_release(s);
   amgt_glue_matrix_release(sp);
}

TEST_F(GlueAuto, OverflowingProductIsRecomputedInFp64)
{
   // values 1e20 fit fp32 (so the level-5 product runs in fp32), but A*A holds 3e40 > FLT_MAX
   CsrMatrix a = tridiag(12, 1e20, 1e20);
   amgt_csr  v = view(a);
   void*     s = nullptr;
   amgt_glue_set_setup_level(5);
   amgt_csr_out c{};
   ASSERT_EQ(amgt_glue_spgemm(&s, &v, &s, &v, 0, &c), 1);
   amgt_glue_set_setup_level(-1);
   CsrMatrix ref = amgt::csr_spgemm_ref(a.view(), a.view());
   ASSERT_EQ(c.nnz, static_cast<int>(ref.col.size()));
   for (int k = 0; k < c.nnz; ++k)
   {
      ASSERT_TRUE(std::isfinite(c.val[k])) << k;
      EXPECT_NEAR(c.val[k], ref.val[k], 1e-14 * std::fabs(ref.val[k])) << k;
   }
   std::free(c.row_ptr);
   std::free(c.col);
   std::free(c.val);
   const std::string t = stats_table();
   EXPECT_NE(t.find("non-finite-product=1"), std::string::npos) << t;
   EXPECT_NE(t.find("x:fp64"), std::string::npos) << t;
   amgt_glue_matrix_release(s);
}

} // namespace
