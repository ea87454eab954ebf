#include "glue_test_util.h"

#include "mbsr/mbsr.h"
#include "spgemm/spgemm.h"
#include "spmv/spmv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <vector>
#include <utility>

namespace {

using amgt::CsrMatrix;
using amgt::test::stats_table;

// The glue reads its configuration once per process, at the first call; this fixes it for
// the whole binary before any test runs (static initialisation precedes gtest's main).
const bool g_environment_set = [] {
   setenv("AMGT", "mixed", 1);
   setenv("AMGT_LEVELS", "d,s,h", 1);
   setenv("AMGT_STATS", "1", 1);
   return true;
}();

// Random square CSR with unsorted columns and a full diagonal; small-integer values.
CsrMatrix random_csr(int n, int per_row, unsigned seed)
{
   std::mt19937                       rng(seed);
   std::uniform_int_distribution<int> col(0, n - 1), val(-3, 3);
   CsrMatrix                          a;
   a.nrows = a.ncols = n;
   a.row_ptr.push_back(0);
   for (int i = 0; i < n; ++i)
   {
      std::set<int> cols{i};
      while (static_cast<int>(cols.size()) < std::min(per_row, n)) cols.insert(col(rng));
      std::vector<int> c(cols.begin(), cols.end());
      std::shuffle(c.begin(), c.end(), rng);
      for (int j : c)
      {
         a.col.push_back(j);
         int v = val(rng);
         a.val.push_back(j == i ? 20.0 : (v == 0 ? 1.0 : v));
      }
      a.row_ptr.push_back(static_cast<int>(a.col.size()));
   }
   return a;
}

amgt_csr view(const CsrMatrix& a)
{
   return amgt_csr{a.nrows, a.ncols, static_cast<int>(a.col.size()), a.row_ptr.data(),
                   a.col.data(), a.val.data(), 0};
}

int g_live_allocations = 0;
bool g_fail_alloc      = false;

void* test_alloc(size_t bytes, int on_device)
{
   EXPECT_EQ(on_device, 0);
   if (g_fail_alloc) return nullptr;
   ++g_live_allocations;
   return std::malloc(bytes);
}

void test_release(void* p, int)
{
   if (p) --g_live_allocations;
   std::free(p);
}

class Glue : public ::testing::Test
{
protected:
   void SetUp() override
   {
      amgt_allocator a{test_alloc, test_release};
      amgt_glue_set_allocator(&a);
      amgt_glue_setup_begin();
      g_fail_alloc = false;
      amgt_glue_cycle_begin(0); // the matvecs of these tests are the V-cycle's unless they step out
   }
   void TearDown() override { amgt_glue_cycle_end(); }
};

TEST_F(Glue, ModeComesFromTheEnvironment)
{
   EXPECT_EQ(amgt_glue_mode(), AMGT_MODE_MIXED);
   EXPECT_EQ(amgt_glue_stats_enabled(), 1);
}

TEST_F(Glue, SpmvUntaggedRunsFp64AndMatchesCsr)
{
   CsrMatrix           a = random_csr(37, 6, 1);
   std::vector<double> x(37), y(37, 2.0), ref(37, 2.0);
   for (int i = 0; i < 37; ++i) x[i] = 0.5 * (i % 7) - 1.0;
   amgt::csr_spmv_ref(a.view(), 1.5, x.data(), -0.5, ref.data());
   void*    state = nullptr;
   amgt_csr v     = view(a);
   ASSERT_EQ(amgt_glue_spmv(&state, &v, 1.5, x.data(), -0.5, y.data()), 1);
   ASSERT_NE(state, nullptr);
   for (int i = 0; i < 37; ++i) EXPECT_DOUBLE_EQ(y[i], ref[i]) << i;
   amgt_glue_matrix_release(state);
}

// y = alpha*A*x + beta*b with b apart from y (hypre's out-of-place product): the result of the
// in-place call on y = b, b untouched, y not read (NaN there does not survive).
TEST_F(Glue, OutOfPlaceSpmvEqualsInPlace)
{
   CsrMatrix           a = random_csr(41, 5, 11);
   std::vector<double> x(41), b(41), y(41, std::nan("")), ref(41);
   for (int i = 0; i < 41; ++i)
   {
      x[i] = 0.5 * (i % 5) - 1.0;
      b[i] = (i % 3) - 1.0;
   }
   amgt_csr v  = view(a);
   void*    s1 = nullptr;
   void*    s2 = nullptr;
   ref         = b;
   ASSERT_EQ(amgt_glue_spmv(&s1, &v, -0.75, x.data(), 0.75, ref.data()), 1);
   const std::vector<double> b0 = b;
   ASSERT_EQ(amgt_glue_spmv_b(&s2, &v, -0.75, x.data(), 0.75, b.data(), y.data()), 1);
   EXPECT_EQ(b, b0);
   for (int i = 0; i < 41; ++i) EXPECT_EQ(y[i], ref[i]) << i;
   // beta = 0: b is not read
   std::vector<double> nanb(41, std::nan("")), y0(41, 5.0), r0(41, 5.0);
   ASSERT_EQ(amgt_glue_spmv(&s1, &v, 2.0, x.data(), 0.0, r0.data()), 1);
   ASSERT_EQ(amgt_glue_spmv_b(&s2, &v, 2.0, x.data(), 0.0, nanb.data(), y0.data()), 1);
   for (int i = 0; i < 41; ++i) EXPECT_EQ(y0[i], r0[i]) << i;
   amgt_glue_matrix_release(s1);
   amgt_glue_matrix_release(s2);
}

// Two counts of a line of AMGT_STATS's table: the text after `key`, read with `format` (two
// %ld); 0 and 0 when the table has no such line.
std::pair<long, long> table_counts(const std::string& key, const char* format)
{
   const std::string t  = stats_table();
   const size_t      at = t.find(key);
   long              a = 0, b = 0;
   if (at != std::string::npos) { EXPECT_EQ(std::sscanf(t.c_str() + at + key.size(), format, &a, &b), 2) << t; }
   return {a, b};
}

// The end-of-setup survey (amgt_glue_matrices_survey) tags what it is given, as
// amgt_glue_matrix_tag does, measures nothing for host arrays, and takes bad arguments
// without a crash.
TEST_F(Glue, TheSetupSurveyTagsItsMatricesAndLeavesHostArraysAlone)
{
   const CsrMatrix a = random_csr(40, 3, 17);
   const amgt_csr  v = view(a);
   void*           sa = nullptr;
   void*           sp = nullptr;
   const amgt_survey_item items[3] = {{&sa, v, 5, AMGT_ROLE_A}, {nullptr, v, 5, AMGT_ROLE_A}, {&sp, v, 5, AMGT_ROLE_P}};
   EXPECT_EQ(stats_table().find("\n     5 "), std::string::npos) << "level 5 unused so far";
   amgt_glue_matrices_survey(3, items); // a null slot is skipped
   ASSERT_NE(sa, nullptr);
   ASSERT_NE(sp, nullptr);
   amgt_glue_matrices_survey(-1, items);
   amgt_glue_matrices_survey(0, items);
   amgt_glue_matrices_survey(3, nullptr);
   std::vector<double> x(40, 1.0), y(40, 0.0);
   ASSERT_EQ(amgt_glue_spmv(&sa, &v, 1.0, x.data(), 0.0, y.data()), 1);
   EXPECT_NE(stats_table().find("\n     5 "), std::string::npos) << "the survey tagged it with level 5";
   EXPECT_EQ(stats_table().find("setup survey"), std::string::npos) << "host arrays: nothing surveyed";
   amgt_glue_matrix_release(sa);
   amgt_glue_matrix_release(sp);
}

// The two sweep counts (from u = 0, out of place).
std::pair<long, long> sweep_counts()
{
   return table_counts("l1-Jacobi sweeps taken from hypre's Relax7: ",
                       "%ld from u = 0 in one pass (no copy), %ld as one out-of-place product");
}

// The smoother's sweep from u = 0 on host arrays: the reference's values; each kind of sweep
// counted once in AMGT_STATS.
TEST_F(Glue, JacobiSweepFromZeroIsComputedAndCounted)
{
   const std::vector<double> f{2.0, -6.0, 0.0, 9.0}, l1{4.0, 3.0, 5.0, 0.5};
   std::vector<double>       u(4, 7.0), vt(4, 7.0);
   void*                     state  = nullptr;
   const auto                before = sweep_counts();
   amgt_glue_matrix_tag(&state, 1, AMGT_ROLE_A);
   ASSERT_EQ(amgt_glue_jacobi_from_zero(&state, 4, 0.5, f.data(), l1.data(), u.data(), vt.data(), 0), 1);
   EXPECT_EQ(u, (std::vector<double>{0.25, -1.0, 0.0, 9.0}));
   EXPECT_EQ(vt, (std::vector<double>{1.0, -3.0, 0.0, 4.5}));
   amgt_glue_count_sweep();
   const auto after = sweep_counts();
   EXPECT_EQ(after.first - before.first, 1);
   EXPECT_EQ(after.second - before.second, 1);
   // a null vector is a caller's bug: refused (0), nothing thrown into C
   EXPECT_EQ(amgt_glue_jacobi_from_zero(&state, 4, 0.5, f.data(), nullptr, u.data(), vt.data(), 0), 0);
   amgt_glue_matrix_release(state);
}

// The off-diagonal blocks' matvecs (on the plugin, on hypre).
std::pair<long, long> offd_counts()
{
   return table_counts("off-diagonal blocks (columns of other ranks): ", "%ld matvecs on the plugin, %ld on hypre");
}

// A matrix marked as an off-diagonal block (hypre's offd part of a ParCSR matrix: few columns,
// other ranks' unknowns) has its matvecs counted apart: on the plugin here (the CPU reference
// runs every tagged product); the diagonal block's are not counted there. The product itself is
// the reference's.
TEST_F(Glue, OffDiagonalBlockMatvecsAreCountedApart)
{
   CsrMatrix offd;
   offd.nrows = 24;
   offd.ncols = 5;
   offd.row_ptr.push_back(0);
   for (int i = 0; i < offd.nrows; ++i)
   {
      if (i % 3 == 0) // most rows of an offd block are empty
      {
         offd.col.push_back(i % offd.ncols);
         offd.val.push_back(-1.0 - (i % 4));
      }
      offd.row_ptr.push_back(static_cast<int>(offd.col.size()));
   }
   CsrMatrix           diag = random_csr(24, 4, 5);
   std::vector<double> x(5), xd(24, 0.5), y(24, 1.0), yd(24, 0.0), ref(24, 1.0);
   for (int j = 0; j < 5; ++j) x[j] = j + 1.0;
   amgt_csr   vo = view(offd), vd = view(diag);
   void*      so = nullptr;
   void*      sd = nullptr;
   const auto before = offd_counts();
   amgt_glue_matrix_tag(&so, 0, AMGT_ROLE_A);
   amgt_glue_matrix_mark_offd(&so);
   amgt_glue_matrix_tag(&sd, 0, AMGT_ROLE_A);
   ASSERT_EQ(amgt_glue_spmv(&so, &vo, 1.0, x.data(), 1.0, y.data()), 1);
   ASSERT_EQ(amgt_glue_spmv(&sd, &vd, 1.0, xd.data(), 0.0, yd.data()), 1);
   const auto after = offd_counts();
   EXPECT_EQ(after.first - before.first, 1);
   EXPECT_EQ(after.second - before.second, 0);
   for (int i = 0; i < 24; ++i)
   {
      for (int k = offd.row_ptr[i]; k < offd.row_ptr[i + 1]; ++k) ref[i] += offd.val[k] * x[offd.col[k]];
      EXPECT_EQ(y[i], ref[i]) << i;
   }
   amgt_glue_matrix_release(so);
   amgt_glue_matrix_release(sd);
}

TEST_F(Glue, TaggedLevelUsesItsScheduledPrecision)
{
   CsrMatrix           a = random_csr(64, 5, 2);
   std::vector<double> x(64);
   for (int i = 0; i < 64; ++i) x[i] = 0.1 * (i % 11) + 1.0 / 3.0; // not representable in fp16
   amgt_csr v     = view(a);
   void*    state = nullptr;
   amgt_glue_matrix_tag(&state, 2, AMGT_ROLE_A); // schedule d,s,h: level 2 is fp16
   std::vector<double> y(64, 0.0), ref(64, 0.0);
   ASSERT_EQ(amgt_glue_spmv(&state, &v, 1.0, x.data(), 0.0, y.data()), 1);
   auto h = amgt::csr_to_mbsr<amgt::half_t>(a.view());
   amgt::spmv_ref(h, 1.0, x.data(), 0.0, ref.data());
   for (int i = 0; i < 64; ++i) EXPECT_EQ(y[i], ref[i]) << i;
   // and it differs from the fp64 result (x was rounded to half): the precision really changed
   std::vector<double> y64(64, 0.0);
   amgt::csr_spmv_ref(a.view(), 1.0, x.data(), 0.0, y64.data());
   bool differs = false;
   for (int i = 0; i < 64; ++i) differs = differs || y64[i] != y[i];
   EXPECT_TRUE(differs);
   amgt_glue_matrix_release(state);
}

// Outside a V-cycle (a Krylov method's matvec, the solver's residual check) a matrix the
// schedule stores below fp64 is hypre's to multiply (fp64); an fp64 one stays with the plugin.
TEST_F(Glue, OutsideTheCycleLowerPrecisionGoesToHypre)
{
   CsrMatrix           a = random_csr(48, 5, 9);
   std::vector<double> x(48, 0.25), y(48, 0.0);
   amgt_csr            v = view(a);
   void*               s_h = nullptr; // level 2: fp16 in the cycle
   void*               s_d = nullptr; // level 0: fp64
   amgt_glue_matrix_tag(&s_h, 2, AMGT_ROLE_A);
   amgt_glue_matrix_tag(&s_d, 0, AMGT_ROLE_A);
   amgt_glue_cycle_end(); // step out of the fixture's cycle
   EXPECT_EQ(amgt_glue_spmv(&s_h, &v, 1.0, x.data(), 0.0, y.data()), 0);
   EXPECT_EQ(amgt_glue_spmv(&s_d, &v, 1.0, x.data(), 0.0, y.data()), 1);
   std::vector<double> ref(48, 0.0);
   amgt::csr_spmv_ref(a.view(), 1.0, x.data(), 0.0, ref.data());
   for (int i = 0; i < 48; ++i) EXPECT_EQ(y[i], ref[i]) << i; // small integers: exact in fp64
   EXPECT_NE(stats_table().find("spmv-outside-cycle-fp64="), std::string::npos) << stats_table();
   amgt_glue_cycle_begin(0); // back in: the fp16 matrix is the plugin's again
   EXPECT_EQ(amgt_glue_spmv(&s_h, &v, 1.0, x.data(), 0.0, y.data()), 1);
   amgt_glue_matrix_release(s_h);
   amgt_glue_matrix_release(s_d);
}

TEST_F(Glue, ConversionIsCachedAndInvalidatedBySetupAndNewArrays)
{
   CsrMatrix           a = random_csr(40, 4, 3);
   std::vector<double> x(40, 1.0), y(40, 0.0);
   amgt_csr            v     = view(a);
   void*               state = nullptr;
   amgt_glue_matrix_tag(&state, 7, AMGT_ROLE_A);
   // a level without plugin work (here: before the first call) has no row: 0 conversions
   auto conversions = [] {
      std::string t = stats_table();
      size_t      p = t.find("\n     7 ");
      char   lvl[8], rows[32], nnz[32], tiles[32], fill[32], prec[8];
      long   conv = 0;
      if (p != std::string::npos)
         std::sscanf(t.c_str() + p + 1, "%7s %31s %31s %31s %31s %7s %ld", lvl, rows, nnz, tiles, fill,
                     prec, &conv);
      return conv;
   };
   long c0 = conversions();
   EXPECT_EQ(c0, 0) << "a tag alone is no plugin work:\n" << stats_table();
   ASSERT_EQ(amgt_glue_spmv(&state, &v, 1.0, x.data(), 0.0, y.data()), 1);
   ASSERT_EQ(amgt_glue_spmv(&state, &v, 1.0, x.data(), 0.0, y.data()), 1);
   EXPECT_EQ(conversions(), c0 + 1) << "second call must reuse the cached mBSR";

   // new values in place, then a new setup epoch: the result follows the new values
   for (double& val : a.val) val *= 2.0;
   amgt_glue_setup_begin();
   std::vector<double> y2(40, 0.0), ref(40, 0.0);
   ASSERT_EQ(amgt_glue_spmv(&state, &v, 1.0, x.data(), 0.0, y2.data()), 1);
   EXPECT_EQ(conversions(), c0 + 2);
   auto h = amgt::csr_to_mbsr<amgt::half_t>(a.view());
   amgt::spmv_ref(h, 1.0, x.data(), 0.0, ref.data());
   for (int i = 0; i < 40; ++i) EXPECT_EQ(y2[i], ref[i]);

   // a different array (hypre replaced the matrix's arrays): reconverted without a new epoch
   CsrMatrix b  = a;
   amgt_csr  vb = view(b);
   ASSERT_EQ(amgt_glue_spmv(&state, &vb, 1.0, x.data(), 0.0, y2.data()), 1);
   EXPECT_EQ(conversions(), c0 + 3);
   amgt_glue_matrix_release(state);
}

TEST_F(Glue, SpgemmHonoursHypreHostDiagonalFirstContract)
{
   // A with an empty-diagonal row so the product lacks some diagonal entries
   CsrMatrix a;
   a.nrows = a.ncols = 6;
   a.row_ptr         = {0, 1, 2, 3, 3, 5, 6};
   a.col             = {1, 0, 3, 1, 5, 4};
   a.val             = {1, 2, 3, 4, 5, 6};
   amgt_csr     va = view(a);
   void*        sa = nullptr;
   amgt_csr_out c{};
   int          before = g_live_allocations;
   ASSERT_EQ(amgt_glue_spgemm(&sa, &va, &sa, &va, 1, &c), 1);
   CsrMatrix ref = amgt::csr_spgemm_ref(a.view(), a.view());
   for (int i = 0; i < 6; ++i)
   {
      ASSERT_LT(c.row_ptr[i], c.row_ptr[i + 1]) << "row " << i << " lacks its diagonal";
      EXPECT_EQ(c.col[c.row_ptr[i]], i);
      std::set<int> got(c.col + c.row_ptr[i] + 1, c.col + c.row_ptr[i + 1]);
      std::set<int> want(ref.col.begin() + ref.row_ptr[i], ref.col.begin() + ref.row_ptr[i + 1]);
      want.erase(i);
      EXPECT_EQ(got, want) << "row " << i;
      for (int k = c.row_ptr[i]; k < c.row_ptr[i + 1]; ++k)
      {
         double expect = 0.0;
         for (int r = ref.row_ptr[i]; r < ref.row_ptr[i + 1]; ++r)
            if (ref.col[r] == c.col[k]) expect = ref.val[r];
         EXPECT_EQ(c.val[k], expect);
      }
   }
   test_release(c.row_ptr, 0);
   test_release(c.col, 0);
   test_release(c.val, 0);
   EXPECT_EQ(g_live_allocations, before);
   amgt_glue_matrix_release(sa);
}

TEST_F(Glue, RectangularProductWithoutDiagonalContract)
{
   CsrMatrix a = random_csr(20, 4, 5);
   CsrMatrix p; // 20 x 7 interpolation-like
   p.nrows = 20;
   p.ncols = 7;
   p.row_ptr.push_back(0);
   for (int i = 0; i < 20; ++i)
   {
      p.col.push_back(i % 7);
      p.val.push_back(1.0);
      if (i % 3 == 0) { p.col.push_back((i + 3) % 7); p.val.push_back(-2.0); }
      p.row_ptr.push_back(static_cast<int>(p.col.size()));
   }
   amgt_csr     va = view(a), vp = view(p);
   void *       sa = nullptr, *sp = nullptr;
   amgt_csr_out c{};
   ASSERT_EQ(amgt_glue_spgemm(&sa, &va, &sp, &vp, 0, &c), 1);
   CsrMatrix ref = amgt::csr_spgemm_ref(a.view(), p.view());
   ASSERT_EQ(c.nnz, static_cast<int>(ref.col.size()));
   for (int i = 0; i <= 20; ++i) EXPECT_EQ(c.row_ptr[i], ref.row_ptr[i]);
   for (int k = 0; k < c.nnz; ++k)
   {
      EXPECT_EQ(c.col[k], ref.col[k]);
      EXPECT_EQ(c.val[k], ref.val[k]);
   }
   test_release(c.row_ptr, 0);
   test_release(c.col, 0);
   test_release(c.val, 0);
   amgt_glue_matrix_release(sa);
   amgt_glue_matrix_release(sp);
}

TEST_F(Glue, BadInputAndAllocationFailureFallBackWithoutLeaks)
{
   CsrMatrix a = random_csr(12, 3, 9);
   a.col[3]    = 99; // column out of range
   amgt_csr            v = view(a);
   std::vector<double> x(12, 1.0), y(12, 5.0);
   void*               state = nullptr;
   ::testing::internal::CaptureStderr();
   EXPECT_EQ(amgt_glue_spmv(&state, &v, 1.0, x.data(), 0.0, y.data()), 0);
   std::string err = ::testing::internal::GetCapturedStderr();
   EXPECT_NE(err.find("AMGT:"), std::string::npos);
   for (double yi : y) EXPECT_EQ(yi, 5.0) << "y must be untouched when the plugin declines";

   CsrMatrix good = random_csr(12, 3, 10);
   amgt_csr  vg   = view(good);
   void*     sg   = nullptr;
   amgt_csr_out c{};
   g_fail_alloc = true;
   int before   = g_live_allocations;
   ::testing::internal::CaptureStderr();
   EXPECT_EQ(amgt_glue_spgemm(&sg, &vg, &sg, &vg, 1, &c), 0);
   err = ::testing::internal::GetCapturedStderr();
   EXPECT_NE(err.find("out of memory"), std::string::npos) << err;
   EXPECT_EQ(g_live_allocations, before);
   g_fail_alloc = false;
   std::string t = stats_table();
   EXPECT_NE(t.find("out-of-memory="), std::string::npos) << t;
   EXPECT_NE(t.find("error="), std::string::npos) << t;
   amgt_glue_matrix_release(state);
   amgt_glue_matrix_release(sg);
}

TEST_F(Glue, DeclinedCasesAreCounted)
{
   void* state = nullptr;
   amgt_glue_matrix_tag(&state, 4, AMGT_ROLE_P);
   amgt_glue_count_fallback(state, "transposed");
   amgt_glue_count_fallback(nullptr, "multivector");
   std::string t = stats_table();
   EXPECT_NE(t.find("transposed=1"), std::string::npos) << t;
   EXPECT_NE(t.find("multivector=1"), std::string::npos) << t;
   amgt_glue_matrix_release(state);
}

// A call that throws after it found its matrix's state (a column out of range, found by the
// matvec) is counted on that matrix's level, not on the row of calls without a level.
TEST_F(Glue, AnErrorIsCountedOnItsMatrixsLevel)
{
   CsrMatrix a = random_csr(12, 3, 11);
   a.col[5]    = 40; // column out of range
   amgt_csr            v = view(a);
   std::vector<double> x(12, 1.0), y(12, 2.0);
   void*               state = nullptr;
   amgt_glue_matrix_tag(&state, 3, AMGT_ROLE_A);
   ::testing::internal::CaptureStderr();
   EXPECT_EQ(amgt_glue_spmv(&state, &v, 1.0, x.data(), 0.0, y.data()), 0);
   ::testing::internal::GetCapturedStderr();
   const std::string t = stats_table();
   EXPECT_NE(t.find("error="), std::string::npos) << t;
   // the table's row of level 3: its fallbacks column (the one before the path) holds the error
   std::string row;
   for (size_t b = 0, e; b < t.size(); b = e + 1)
   {
      e = t.find('\n', b);
      if (e == std::string::npos) e = t.size();
      const std::string line = t.substr(b, e - b);
      if (line.find_first_not_of(' ') != std::string::npos && line.compare(line.find_first_not_of(' '), 2, "3 ") == 0)
      {
         row = line;
      }
   }
   ASSERT_FALSE(row.empty()) << "no row of level 3 in\n" << t;
   std::vector<std::string> cols;
   for (size_t b = row.find_first_not_of(' '); b != std::string::npos; b = row.find_first_not_of(' ', b))
   {
      const size_t e = row.find(' ', b);
      cols.push_back(row.substr(b, e == std::string::npos ? std::string::npos : e - b));
      b = e;
   }
   ASSERT_GE(cols.size(), 2u) << row;
   EXPECT_EQ(cols[cols.size() - 2], "1") << row;
   amgt_glue_matrix_release(state);
}

// hypre's side names its reasons with literals; the same text at two addresses (a literal
// written in two places) is one reason, as when the counts were keyed by text.
TEST_F(Glue, AFallbackReasonIsItsText)
{
   static const char first[]  = "relax-vector-shape";
   static const char second[] = "relax-vector-shape";
   ASSERT_NE(static_cast<const void*>(first), static_cast<const void*>(second));
   amgt_glue_count_fallback(nullptr, first);
   amgt_glue_count_fallback(nullptr, second);
   amgt_glue_count_fallback(nullptr, first);
   std::string t = stats_table();
   EXPECT_NE(t.find(" relax-vector-shape=3"), std::string::npos) << t;
   EXPECT_EQ(t.find("relax-vector-shape=1"), std::string::npos) << t;
}

} // namespace
