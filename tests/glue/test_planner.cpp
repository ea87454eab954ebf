// The planner's host decisions (hypre_glue/planner.h): who runs a product, in which precision,
// and the fallback reason when hypre does. Each test builds its own configuration and context,
// so no environment is read; device arrays are described only (the rules below look at their
// shape and at the configuration, never at their values).
#include "planner.h"

#include "backend.h"

#include "glue/glue_test_util.h"
#include "race_memory.h"

#include "common/error.h"

#include <gtest/gtest.h>

#include <cstring>

namespace {

using namespace amgt;
using namespace amgt::glue;

int stock_spmv_stub(void*, const double*, double*) { return 1; }

// A configuration, its statistics and the context of one call: host allocator with hypre's
// stock matvec installed, inside the first V-cycle of a solve.
struct Call
{
   Config         config;
   Stats          stats;
   LevelFloors    floors;
   amgt_allocator allocator{test::host_alloc, test::host_release, nullptr, stock_spmv_stub, 0};

   Call(Mode mode, std::vector<Precision> schedule)
   {
      config.mode     = mode;
      config.schedule = std::move(schedule);
   }
   Context ctx(bool in_cycle = true, bool first_cycle = true)
   {
      Context c;
      c.config        = &config;
      c.allocator     = allocator;
      c.allocator_ref = &allocator;
      c.epoch         = 7;
      c.stats         = &stats;
      c.floors        = config.mode == Mode::automatic ? &floors : nullptr;
      c.in_cycle      = in_cycle;
      c.first_cycle   = first_cycle;
      return c;
   }
};

MatrixState tagged(int level, int role)
{
   MatrixState s;
   s.level = level;
   s.role  = role;
   return s;
}

// A device matrix of nnz entries handed over by hypre (owner set); its arrays are never read.
amgt_csr device_matrix(int nrows, int nnz)
{
   static int owner_tag = 0;
   amgt_csr   a{};
   a.nrows     = nrows;
   a.ncols     = nrows;
   a.nnz       = nnz;
   a.on_device = 1;
   a.owner     = &owner_tag;
   return a;
}

const CsrMatrix kTri = test::tridiag(40, 4.0, -1.0);

TEST(Planner, TheStockSettingDecidesBeforeAnythingIsLookedAt)
{
   Call c(Mode::mixed, {Precision::fp64, Precision::fp32});
   c.config.spmv   = KernelChoice::stock;
   c.config.spgemm = KernelChoice::stock;
   MatrixState    s = tagged(1, AMGT_ROLE_A);
   const amgt_csr a = test::host_view(kTri);
   const SpmvPlan p = plan_spmv(c.ctx(), s, a);
   EXPECT_EQ(p.who, Executor::stock);
   ASSERT_NE(p.reason, nullptr);
   EXPECT_STREQ(p.reason, "AMGT_SPMV=stock");
   const SpgemmPlan g = plan_spgemm(c.ctx(), 1, s, a, s, a);
   EXPECT_EQ(g.who, Executor::stock);
   EXPECT_STREQ(g.reason, "AMGT_SPGEMM=stock");
   EXPECT_FALSE(device_copy_wanted(c.ctx()));
}

TEST(Planner, HostMatricesRunOnTheHostInTheirLevelsPrecision)
{
   Call           c(Mode::mixed, {Precision::fp64, Precision::fp32, Precision::fp16});
   MatrixState    s1 = tagged(1, AMGT_ROLE_A), s2 = tagged(2, AMGT_ROLE_P);
   const amgt_csr a  = test::host_view(kTri);
   const SpmvPlan p1 = plan_spmv(c.ctx(), s1, a);
   EXPECT_EQ(p1.who, Executor::host);
   EXPECT_EQ(p1.choice.precision, Precision::fp32);
   EXPECT_STREQ(p1.choice.reason, "schedule");
   EXPECT_FALSE(p1.race);
   EXPECT_EQ(plan_spmv(c.ctx(), s2, a).choice.precision, Precision::fp16);
   EXPECT_TRUE(device_copy_wanted(c.ctx()));
}

TEST(Planner, BelowFp64OnlyTheFirstCycleRunsThePlugin)
{
   Call           c(Mode::mixed, {Precision::fp32});
   MatrixState    a0 = tagged(0, AMGT_ROLE_A), p0 = tagged(0, AMGT_ROLE_P);
   const amgt_csr a  = test::host_view(kTri);
   const SpmvPlan outside = plan_spmv(c.ctx(false, false), a0, a);
   EXPECT_EQ(outside.who, Executor::stock);
   EXPECT_STREQ(outside.reason, "spmv-outside-cycle-fp64");
   const SpmvPlan later = plan_spmv(c.ctx(true, false), a0, a);
   EXPECT_EQ(later.who, Executor::stock);
   EXPECT_STREQ(later.reason, "spmv-later-cycle-fp64");
   // the later-cycle rule is the finest operator's only
   EXPECT_EQ(plan_spmv(c.ctx(true, false), p0, a).who, Executor::host);
   EXPECT_EQ(plan_spmv(c.ctx(true, true), a0, a).who, Executor::host);

   Call        d(Mode::fp64, {Precision::fp64});
   MatrixState s = tagged(0, AMGT_ROLE_A);
   EXPECT_EQ(plan_spmv(d.ctx(false, false), s, a).who, Executor::host) << "fp64 has no cycle rule";
}

TEST(Planner, SmallMatricesGoToHypreOnlyWhenHypreCanRunThem)
{
   Call           c(Mode::fp64, {Precision::fp64});
   const amgt_csr small = device_matrix(1000, AMGT_SMALL_MATRIX_ENTRIES - 1);
   const amgt_csr large = device_matrix(100000, AMGT_SMALL_MATRIX_ENTRIES);
   EXPECT_TRUE(too_small_for_plugin(c.ctx(), small));
   EXPECT_FALSE(too_small_for_plugin(c.ctx(), large));
   c.config.spmv = KernelChoice::race;
   EXPECT_TRUE(too_small_for_plugin(c.ctx(), small));
   c.config.spmv = KernelChoice::plugin;
   EXPECT_FALSE(too_small_for_plugin(c.ctx(), small)) << "AMGT_SPMV=plugin forces the plugin";
   c.config.spmv = KernelChoice::automatic;
   amgt_csr orphan = small;
   orphan.owner    = nullptr;
   EXPECT_FALSE(too_small_for_plugin(c.ctx(), orphan)) << "not handed over by hypre";
   c.allocator.stock_spmv = nullptr;
   EXPECT_FALSE(too_small_for_plugin(c.ctx(), small)) << "no stock matvec installed";

   // at the end of a setup: no device copy for it, and nothing counted
   Call        d(Mode::fp64, {Precision::fp64});
   MatrixState s    = tagged(2, AMGT_ROLE_A);
   SpmvPlan    plan = plan_device_copy(d.ctx(), s, small);
   EXPECT_EQ(plan.who, Executor::stock);
   EXPECT_EQ(plan.reason, nullptr);
   plan = plan_device_copy(d.ctx(), s, large);
   EXPECT_EQ(plan.who, Executor::device);
   EXPECT_FALSE(plan.race) << "auto decides by rule";
}

TEST(Planner, RaceMemoryDecidesAMatrixLikeAnEarlierOne)
{
   process_race_memory().clear();
   Call c(Mode::fp64, {Precision::fp64});
   c.config.spmv        = KernelChoice::race;
   const amgt_csr a     = device_matrix(100000, 2000000);
   MatrixState    fresh = tagged(1, AMGT_ROLE_A);
   SpmvPlan       plan  = plan_device_copy(c.ctx(), fresh, a);
   EXPECT_EQ(plan.who, Executor::device);
   EXPECT_TRUE(plan.race) << "nothing remembered: race it";

   RaceKey k;
   k.level = 1, k.role = AMGT_ROLE_A, k.precision = Precision::fp64, k.nrows = 100000, k.nnz = 2000000;
   process_race_memory().record(k, false);
   MatrixState lost = tagged(1, AMGT_ROLE_A);
   EXPECT_TRUE(remembered_for_stock(c.ctx(), lost, a, PrecisionChoice{Precision::fp64, false, "schedule"}));
   EXPECT_TRUE(lost.remembered_stock == key_of(a, 7));
   EXPECT_NE(c.stats.format(c.config, 0, 1).find("as an earlier race in this process"), std::string::npos)
      << "a note says why it was not converted";
   plan = plan_device_copy(c.ctx(), lost, a);
   EXPECT_EQ(plan.who, Executor::stock);

   process_race_memory().record(k, true);
   MatrixState won = tagged(1, AMGT_ROLE_A);
   plan            = plan_device_copy(c.ctx(), won, a);
   EXPECT_EQ(plan.who, Executor::device);
   EXPECT_FALSE(plan.race) << "an earlier win is not raced again";
   EXPECT_TRUE(won.remembered_plugin == key_of(a, 7));
   process_race_memory().clear();
}

TEST(Planner, DeviceMatricesWithoutDeviceKernelsGoToTheDeviceStandIn)
{
   Call           c(Mode::fp64, {Precision::fp64});
   MatrixState    s = tagged(1, AMGT_ROLE_A);
   const amgt_csr a = device_matrix(1000, 5000);
   const SpmvPlan p = plan_spmv(c.ctx(), s, a);
   const SpgemmPlan g = plan_spgemm(c.ctx(), 1, s, a, s, a);
#if defined(AMGT_WITH_DEVICE_KERNELS)
   EXPECT_EQ(p.who, Executor::stock);
   EXPECT_STREQ(p.reason, "spmv-small-matrix");
   EXPECT_EQ(g.who, Executor::stock);
   EXPECT_STREQ(g.reason, "spgemm-stock-faster") << "auto leaves device products to hypre";
#else
   EXPECT_EQ(p.who, Executor::device) << "its stand-in counts no-gpu-kernels";
   EXPECT_EQ(g.who, Executor::device);
#endif
}

// AMGT_SPGEMM=auto (the default) on device products: long rows of C in few rows (systems3's
// coarsest P^T*(AP)) go to the row-wise kernel in fp64, whatever the mode; many short rows (a
// fine level's A*P) and long rows in many rows to hypre in its binned mode; the rest to hypre
// in its default mode. Under
// AMGT_SPGEMM=stock hypre keeps the application's mode.
TEST(Planner, AutoSpreadsDeviceProductsOverTheRowWiseKernelAndHypresModes)
{
   amgt_csr a = device_matrix(4096000, 28518400), p = device_matrix(4096000, 12594719);
   p.ncols    = 1263015;
   amgt_csr rt = device_matrix(4779, 137590), ap = device_matrix(38322, 3611281);
   rt.ncols    = 38322;
   ap.ncols    = 4779;
   amgt_csr pt = device_matrix(169796, 4537220), ap1 = device_matrix(1263015, 28206178);
   pt.ncols    = 1263015;
   ap1.ncols   = 169796;
   for (Mode mode : {Mode::fp64, Mode::mixed, Mode::automatic})
   {
      Call        c(mode, {Precision::fp32, Precision::fp16});
      MatrixState sa = tagged(0, AMGT_ROLE_A), sp = tagged(0, AMGT_ROLE_P), sr = tagged(2, AMGT_ROLE_R);
      const SpgemmPlan light  = plan_spgemm(c.ctx(), 0, sa, a, sp, p);
      const SpgemmPlan longc  = plan_spgemm(c.ctx(), 2, sr, rt, sa, ap);
      const SpgemmPlan middle = plan_spgemm(c.ctx(), 1, sr, pt, sa, ap1);
#if defined(AMGT_WITH_DEVICE_KERNELS)
      EXPECT_EQ(longc.who, Executor::device) << to_string(mode);
      EXPECT_TRUE(longc.rows) << to_string(mode);
      EXPECT_EQ(longc.precision, Precision::fp64) << to_string(mode);
      EXPECT_EQ(longc.reason, nullptr) << to_string(mode);
      for (const SpgemmPlan* g : {&light, &middle})
      {
         EXPECT_EQ(g->who, Executor::stock) << to_string(mode);
         EXPECT_STREQ(g->reason, "spgemm-stock-faster") << to_string(mode);
      }
      EXPECT_TRUE(stock_spgemm_binned(c.ctx(), a.nrows, a.nnz, p.nrows, p.nnz)) << to_string(mode);
      EXPECT_FALSE(stock_spgemm_binned(c.ctx(), pt.nrows, pt.nnz, ap1.nrows, ap1.nnz)) << to_string(mode);
      EXPECT_FALSE(stock_spgemm_binned(c.ctx(), rt.nrows, rt.nnz, ap.nrows, ap.nnz)) << to_string(mode);
      // long rows of C past 2^14 rows (systems3 n=64 L1 P^T*(AP)): hypre, binned
      amgt_csr rt1 = device_matrix(38322, 865050), ap2 = device_matrix(245978, 15763182);
      rt1.ncols = 245978;
      ap2.ncols = 38322;
      const SpgemmPlan long_many = plan_spgemm(c.ctx(), 1, sr, rt1, sa, ap2);
      EXPECT_EQ(long_many.who, Executor::stock) << to_string(mode);
      EXPECT_TRUE(stock_spgemm_binned(c.ctx(), rt1.nrows, rt1.nnz, ap2.nrows, ap2.nnz)) << to_string(mode);
      c.config.spgemm = KernelChoice::stock;
      EXPECT_FALSE(stock_spgemm_binned(c.ctx(), a.nrows, a.nnz, p.nrows, p.nnz)) << "the application's mode";
#else
      EXPECT_EQ(light.who, Executor::device) << "the stand-in, as for every device product";
      EXPECT_FALSE(light.rows);
      EXPECT_EQ(longc.who, Executor::device);
      EXPECT_FALSE(stock_spgemm_binned(c.ctx(), a.nrows, a.nnz, p.nrows, p.nnz)) << "no device kernels";
#endif
   }
}

// AMGT_SPGEMM=rows: device products go to the row-wise CSR kernel in fp64 whatever the level's
// precision, without looking at their values; host products are planned as with plugin; the
// default (auto) is untouched.
TEST(Planner, RowsSendsDeviceProductsToTheRowWiseKernelInFp64)
{
   const amgt_csr d = device_matrix(1000, 5000);
   for (Mode mode : {Mode::fp64, Mode::mixed, Mode::automatic})
   {
      Call c(mode, {Precision::fp32, Precision::fp16});
      c.config.spgemm = KernelChoice::rows;
      MatrixState      sa = tagged(1, AMGT_ROLE_A), sp = tagged(1, AMGT_ROLE_P);
      const SpgemmPlan g  = plan_spgemm(c.ctx(), 1, sa, d, sp, d);
      EXPECT_EQ(g.who, Executor::device) << to_string(mode);
      EXPECT_TRUE(g.rows) << to_string(mode);
      EXPECT_EQ(g.precision, Precision::fp64) << to_string(mode);
      EXPECT_FALSE(g.check_finite) << to_string(mode);
      EXPECT_EQ(g.reason, nullptr);
      EXPECT_TRUE(sa.stats_key == CsrKey{} && sp.stats_key == CsrKey{}) << "no value statistics taken";

      // host arrays: as plugin (the schedule's precision on the host)
      const amgt_csr   h  = test::host_view(kTri);
      const SpgemmPlan gh = plan_spgemm(c.ctx(), 1, sa, h, sp, h);
      EXPECT_EQ(gh.who, Executor::host);
      EXPECT_FALSE(gh.rows);
      c.config.spgemm     = KernelChoice::plugin;
      const SpgemmPlan gp = plan_spgemm(c.ctx(), 1, sa, h, sp, h);
      EXPECT_EQ(gh.precision, gp.precision) << to_string(mode);

      // no other setting reaches the row-wise kernel
      for (KernelChoice k : {KernelChoice::automatic, KernelChoice::plugin, KernelChoice::stock})
      {
         c.config.spgemm = k;
         MatrixState ta = tagged(1, AMGT_ROLE_A), tp = tagged(1, AMGT_ROLE_P);
         if (k == KernelChoice::plugin && mode == Mode::automatic) continue; // reads device values
         EXPECT_FALSE(plan_spgemm(c.ctx(), 1, ta, d, tp, d).rows) << to_string(k);
      }
   }

   // dimension mismatch: refused before any kernel
   Call c(Mode::fp64, {Precision::fp64});
   c.config.spgemm = KernelChoice::rows;
   MatrixState s   = tagged(1, AMGT_ROLE_A);
   amgt_csr    bad = d;
   bad.ncols       = 999;
#if defined(AMGT_WITH_DEVICE_KERNELS)
   EXPECT_THROW(plan_spgemm(c.ctx(), 1, s, bad, s, bad), std::exception);
#else
   // CPU builds: the device stand-in declines every device product, counted no-gpu-kernels
   amgt_csr_out out{};
   ::testing::internal::CaptureStderr();
   EXPECT_EQ(backend_spgemm(c.ctx(), 1, s, d, s, d, false, out), 0);
   ::testing::internal::GetCapturedStderr();
   EXPECT_EQ(c.stats.total_fallbacks("no-gpu-kernels"), 1);
   EXPECT_EQ(out.row_ptr, nullptr);
   (void)bad;
#endif
}

TEST(Planner, ProductsRunInTheHigherOperandPrecisionAndCheckTheirOutputOnlyUnderAuto)
{
   const amgt_csr a = test::host_view(kTri);
   Call           m(Mode::mixed, {Precision::fp64, Precision::fp16});
   MatrixState    sa = tagged(1, AMGT_ROLE_A), sp = tagged(1, AMGT_ROLE_P);
   SpgemmPlan     g = plan_spgemm(m.ctx(), 1, sa, a, sp, a);
   EXPECT_EQ(g.who, Executor::host);
   EXPECT_EQ(g.precision, Precision::fp16) << "mixed: the schedule, unchecked";
   EXPECT_FALSE(g.check_finite);

   Call        au(Mode::automatic, {Precision::fp64, Precision::fp16});
   MatrixState ta = tagged(1, AMGT_ROLE_A), tp = tagged(1, AMGT_ROLE_P);
   g = plan_spgemm(au.ctx(), 1, ta, a, tp, a);
   EXPECT_EQ(g.who, Executor::host);
   EXPECT_EQ(g.precision, Precision::fp32) << "auto: product operands at least fp32";
   EXPECT_TRUE(g.check_finite);
   MatrixState f0 = tagged(0, AMGT_ROLE_A);
   g              = plan_spgemm(au.ctx(), 0, f0, a, f0, a);
   EXPECT_EQ(g.precision, Precision::fp64);
   EXPECT_FALSE(g.check_finite) << "fp64 results go to hypre as they are";

   CsrMatrix rect = kTri;
   rect.ncols     = 41;
   const amgt_csr r = test::host_view(rect);
   EXPECT_THROW(plan_spgemm(m.ctx(), 1, sa, r, sp, r), std::exception) << "dimension mismatch";
}

TEST(Planner, ANonFiniteProductIsRecomputedOnePrecisionHigherAndCounted)
{
   Call c(Mode::automatic, {Precision::fp64, Precision::fp16});
   ::testing::internal::CaptureStderr();
   EXPECT_EQ(after_nonfinite_product(c.ctx(), 3, Precision::fp16), Precision::fp32);
   EXPECT_EQ(after_nonfinite_product(c.ctx(), 3, Precision::fp32), Precision::fp64);
   const std::string err = ::testing::internal::GetCapturedStderr();
   EXPECT_NE(err.find("non-finite-product"), std::string::npos);
   EXPECT_EQ(c.stats.total_fallbacks("non-finite-product"), 2);
}

TEST(Planner, LayoutBySettingOrRoleWithoutASample)
{
   Call           c(Mode::fp64, {Precision::fp64});
   const amgt_csr a = device_matrix(1000, 5000);
   MatrixState    p = tagged(1, AMGT_ROLE_P), r = tagged(1, AMGT_ROLE_R), op = tagged(1, AMGT_ROLE_A);
   LayoutPlan     l = plan_layout(c.ctx(), p, a, Precision::fp32);
   EXPECT_EQ(l.layout, Layout::rows);
   EXPECT_FALSE(l.narrow) << "a rectangular operator's columns do not follow its rows";
   EXPECT_EQ(plan_layout(c.ctx(), r, a, Precision::fp32).layout, Layout::rows);
   c.config.layout = LayoutRequest::mbsr;
   EXPECT_EQ(plan_layout(c.ctx(), p, a, Precision::fp32).layout, Layout::mbsr) << "AMGT_LAYOUT wins";
   c.config.layout = LayoutRequest::rows;
   l               = plan_layout(c.ctx(), op, a, Precision::fp32);
   EXPECT_EQ(l.layout, Layout::rows);
   EXPECT_TRUE(l.narrow);
   EXPECT_FALSE(op.device_shape.known) << "no sample taken";
}

// The end of a setup surveys every device matrix before preparing any (planner.h survey_wants):
// auto's plain statistics where choose_for would take them, the fill sample where plan_layout
// would, nothing twice, nothing for what the preparation skips.
TEST(Planner, TheSetupSurveyAsksForWhatEachPreparationWillMeasure)
{
   Call           c(Mode::automatic, {Precision::fp32, Precision::fp32, Precision::fp16});
   const amgt_csr a     = device_matrix(100000, 2000000);
   amgt_csr       p     = device_matrix(100000, 400000);
   p.ncols              = 30000;
   const amgt_csr small = device_matrix(1000, AMGT_SMALL_MATRIX_ENTRIES - 1);

   MatrixState a0 = tagged(0, AMGT_ROLE_A), a2 = tagged(2, AMGT_ROLE_A), p1 = tagged(1, AMGT_ROLE_P);
   SurveyItem  w  = survey_wants(c.ctx(), a0, a);
   EXPECT_TRUE(w.stats);
   EXPECT_FALSE(w.coarse) << "the finest operator: the flat pass";
   EXPECT_TRUE(w.fill);
   EXPECT_EQ(w.state, &a0);
   w = survey_wants(c.ctx(), a2, a);
   EXPECT_TRUE(w.stats && w.coarse && w.fill) << "a Galerkin coarse operator: the row-wise pass";
   w = survey_wants(c.ctx(), p1, p);
   EXPECT_TRUE(w.stats);
   EXPECT_FALSE(w.coarse) << "not square";
   EXPECT_FALSE(w.fill) << "P and R are row-wise without a sample";
   MatrixState s3 = tagged(3, AMGT_ROLE_A);
   w              = survey_wants(c.ctx(), s3, small);
   EXPECT_TRUE(w.stats) << "a small operator's statistics may still raise its level's floor";
   EXPECT_FALSE(w.fill) << "hypre serves its matvecs: no layout to choose";

   // what is known already, or not needed, is not asked for
   a0.stats_key = key_of(a, 7);
   a0.fill_key  = key_of(a, 7);
   w            = survey_wants(c.ctx(), a0, a);
   EXPECT_FALSE(w.stats || w.fill);
   MatrixState done  = tagged(1, AMGT_ROLE_A);
   done.prepared_key = key_of(a, 7);
   w                 = survey_wants(c.ctx(), done, a);
   EXPECT_FALSE(w.stats || w.fill) << "prepared beside the setup already";
   MatrixState h = tagged(1, AMGT_ROLE_A);
   w             = survey_wants(c.ctx(), h, test::host_view(kTri));
   EXPECT_FALSE(w.stats || w.fill) << "host arrays: measured on the host, no read-back to save";
   c.config.layout = LayoutRequest::mbsr;
   MatrixState l1  = tagged(1, AMGT_ROLE_A);
   w               = survey_wants(c.ctx(), l1, a);
   EXPECT_TRUE(w.stats);
   EXPECT_FALSE(w.fill) << "AMGT_LAYOUT decides without a sample";
   c.config.spmv = KernelChoice::stock;
   w             = survey_wants(c.ctx(), l1, a);
   EXPECT_FALSE(w.stats || w.fill) << "AMGT_SPMV=stock: nothing is prepared";

   Call           f(Mode::fp64, {Precision::fp64});
   MatrixState    f1 = tagged(1, AMGT_ROLE_A);
   w                 = survey_wants(f.ctx(), f1, a);
   EXPECT_FALSE(w.stats) << "fp64: no value statistics";
   EXPECT_TRUE(w.fill);
   Call        d(Mode::automatic, {Precision::fp64, Precision::fp32});
   MatrixState d0 = tagged(0, AMGT_ROLE_A);
   EXPECT_FALSE(survey_wants(d.ctx(), d0, a).stats) << "an fp64 floor needs none (choose_for)";
}

// An operator the rule puts in mBSR for the entries kernel (laplace7 n=250's level 1: 2.36
// entries a tile, 30 a row, columns wider than 16-bit offsets) is converted in entry order
// only in fp64, where the copy lends hypre's values; in fp32/fp16 in bitmap order.
TEST(Planner, EntryOrderOnlyForFp64Copies)
{
   Call           c(Mode::automatic, {Precision::fp32});
   const amgt_csr a = device_matrix(4800000, 142000000);
   for (const Precision p : {Precision::fp64, Precision::fp32, Precision::fp16})
   {
      SCOPED_TRACE(to_string(p));
      MatrixState s = tagged(1, AMGT_ROLE_A);
      s.fill_key    = key_of(a, 7);
      s.fill_sample = FillSample{2.36, 100000, 0.1};
      LayoutInputs in;
      in.precision  = p;
      in.fill       = 2.36;
      in.row_length = 142000000.0 / 4800000.0;
      in.narrow     = false;
      const LayoutChoice want = choose_layout(in);
      ASSERT_EQ(want.layout, Layout::mbsr);
      ASSERT_FALSE(want.tile_kernels);
      const LayoutPlan l = plan_layout(c.ctx(), s, a, p);
      EXPECT_EQ(l.layout, Layout::mbsr);
      EXPECT_EQ(l.entry_order, p == Precision::fp64);
   }
}

// What the survey stored serves choose_for and plan_layout: no device measurement of their own
// (in a build without GPU kernels one would throw). The scaled form is asked for only where the
// plain values do not fit an fp16 floor.
TEST(Planner, SurveyedStatisticsAndSamplesServeTheChoiceAndTheLayout)
{
   Call           c(Mode::automatic, {Precision::fp32, Precision::fp32, Precision::fp16});
   const amgt_csr a = device_matrix(100000, 2000000);
   MatrixState    s = tagged(2, AMGT_ROLE_A);
   s.stats_key                 = key_of(a, 7);
   s.value_stats.plain.max_abs = 14.0;
   s.value_stats.plain.inexact_fp16 = 5;
   s.value_stats.scaled_known  = false; // the device's plain statistics alone
   s.value_stats.sum           = 1.0;
   s.value_stats.abs_sum       = 50.0;
   PrecisionChoice ch          = choose_for(c.ctx(), s, a, 2, false);
   EXPECT_EQ(ch.precision, Precision::fp16);
   EXPECT_STREQ(ch.reason, "in-range");
   EXPECT_FALSE(s.value_stats.scaled_known) << "fits fp16 unscaled: the scaled form is not computed";
   ch = choose_for(c.ctx(), s, a, 1, false);
   EXPECT_EQ(ch.precision, Precision::fp32) << "an fp32 floor never reads the scaled form";

   s.fill_key    = key_of(a, 7);
   s.fill_sample = FillSample{1.6, 100000, 0.1}; // wider than 16-bit offsets: no exact span
   const LayoutPlan l = plan_layout(c.ctx(), s, a, Precision::fp16);
   EXPECT_DOUBLE_EQ(s.device_shape.fill, 1.6) << "the surveyed fill";
   LayoutInputs in;
   in.precision  = Precision::fp16;
   in.fill       = 1.6;
   in.row_length = 20.0;
   in.narrow     = false;
   EXPECT_EQ(l.layout, choose_layout(in).layout);
   EXPECT_DOUBLE_EQ(l.row_cv, 0.1);

#if !defined(AMGT_WITH_DEVICE_KERNELS)
   // plain values beyond fp16's range under an fp16 floor: the scaled form is asked of the
   // device (whose stand-in throws in this build), as is a sample the survey did not take
   s.value_stats.plain.max_abs = 1e6;
   s.spmv_choice_key           = CsrKey{};
   EXPECT_THROW(choose_for(c.ctx(), s, a, 2, false), amgt::Error);
   MatrixState unsurveyed = tagged(2, AMGT_ROLE_A);
   EXPECT_THROW(plan_layout(c.ctx(), unsurveyed, a, Precision::fp16), amgt::Error);
#endif
}

TEST(Planner, TheDispatcherCountsTheReasonOfAStockPlan)
{
   Call c(Mode::mixed, {Precision::fp32});
   c.config.spmv    = KernelChoice::stock;
   MatrixState    s = tagged(0, AMGT_ROLE_A);
   const amgt_csr a = test::host_view(kTri);
   std::vector<double> x(40, 1.0), y(40, 0.0);
   EXPECT_EQ(backend_spmv(c.ctx(), s, a, 1.0, x.data(), 0.0, y.data()), 0);
   EXPECT_EQ(c.stats.total_fallbacks("AMGT_SPMV=stock"), 1);
   c.config.spmv = KernelChoice::automatic;
   EXPECT_EQ(backend_spmv(c.ctx(), s, a, 1.0, x.data(), 0.0, y.data()), 1);
   EXPECT_DOUBLE_EQ(y[0], 3.0) << "row 0 of tridiag(4, -1) times ones";
   EXPECT_DOUBLE_EQ(y[1], 2.0);
}

// The cost model in the planner (planner.h model_declines): a level's operator by the table,
// its P, R and off-diagonal blocks as it, a declined matrix taken once the matvecs hypre
// served would have repaid the one-time work, and the rules that bypass it.
TEST(Planner, TheCostModelDecidesEachLevelAndItsTransferOperatorsFollow)
{
   Call            c(Mode::fp64, {Precision::fp64});
   cost::SpmvModel model;
   c.config.stats = true;
   Context ctx    = c.ctx();
   ctx.model      = &model;

   const amgt_csr small = device_matrix(10600, 145000);    // at the latency floor
   const amgt_csr large = device_matrix(1000000, 6940000); // a 7-point operator of 1M rows
   amgt_csr       p_big = device_matrix(1000000, 3000000);
   p_big.ncols          = 250000;

   MatrixState a2 = tagged(2, AMGT_ROLE_A), p2 = tagged(2, AMGT_ROLE_P);
   EXPECT_TRUE(model_declines(ctx, a2, small, false));
   EXPECT_TRUE(a2.model_key == key_of(small, 7));
   EXPECT_TRUE(a2.model_decision.floor);
   EXPECT_EQ(model.level_decision(2, 7), 1);
   EXPECT_TRUE(model_declines(ctx, p2, p_big, false)) << "a large P follows its level's declined operator";
   EXPECT_TRUE(cost::decide(Precision::fp64, p_big.nnz, p_big.nrows, cost::kDefaultMatvecs).take)
      << "(on its own numbers it would have been taken)";

   MatrixState a0 = tagged(0, AMGT_ROLE_A), p0 = tagged(0, AMGT_ROLE_P), o0 = tagged(0, AMGT_ROLE_A);
   o0.offd        = true;
   EXPECT_FALSE(model_declines(ctx, a0, large, false));
   EXPECT_EQ(model.level_decision(0, 7), 0);
   EXPECT_FALSE(model_declines(ctx, p0, p_big, false));
   EXPECT_TRUE(model_declines(ctx, o0, small, false) == false) << "an offd block follows its level";
   EXPECT_EQ(model.level_decision(0, 7), 0) << "an offd block does not decide its level";

#if defined(AMGT_WITH_DEVICE_KERNELS)
   // the setup survey does not touch a declined level's matrices (GPU builds: the survey is
   // the device's)
   const SurveyItem w = survey_wants(ctx, a2, small);
   EXPECT_FALSE(w.stats || w.fill);
   EXPECT_EQ(plan_device_copy(ctx, p2, p_big).who, Executor::stock) << "no copy for a declined level";
#endif
   // the decision is kept per arrays and setup: the same call again decides nothing new
   const std::string once = c.stats.format(c.config, 0, 1);
   EXPECT_NE(once.find("cost model: level 2 A, 10600 rows, 145000 entries, fp64: hypre"), std::string::npos) << once;
   EXPECT_NE(once.find("cost model: level 0 A, 1000000 rows, 6940000 entries, fp64: plugin"), std::string::npos);
   EXPECT_NE(once.find("as its level's operator"), std::string::npos);
   EXPECT_NE(once.find("AMGT: cost model: 3 matrices taken by the plugin (0 of them after hypre served enough "
                       "of their matvecs), 2 left to hypre"),
             std::string::npos)
      << once;

   // a mid-size operator with a small gain: declined for the expected solve, taken by the
   // re-check once hypre has served its break-even's worth of matvecs
   const amgt_csr mid = device_matrix(1 << 18, 1 << 20);
   MatrixState    a1  = tagged(1, AMGT_ROLE_A);
   ASSERT_TRUE(model_declines(ctx, a1, mid, false));
   const cost::Decision d = a1.model_decision;
   ASSERT_GT(d.gain_us, 0.0);
   ASSERT_GT(d.break_even, cost::kDefaultMatvecs);
   long served = 0;
   while (model_declines(ctx, a1, mid, true) && served < 100000) { ++served; }
   EXPECT_NEAR(static_cast<double>(served + 1), d.break_even, 1.0) << "taken at its break-even";
   EXPECT_FALSE(model_declines(ctx, a1, mid, true)) << "and kept";
   EXPECT_NE(c.stats.format(c.config, 0, 1).find("its matvecs repaid it"), std::string::npos);
   // a P that follows its declined operator is not taken by its own re-check while the
   // operator stays declined; once the operator is taken, its own numbers decide
   MatrixState    a3 = tagged(3, AMGT_ROLE_A), p3 = tagged(3, AMGT_ROLE_P);
   const amgt_csr mid3 = device_matrix(1 << 18, 1 << 20);
   ASSERT_TRUE(model_declines(ctx, a3, mid3, false));
   ASSERT_TRUE(model_declines(ctx, p3, p_big, false));
   for (int i = 0; i < 1000; ++i) { ASSERT_TRUE(model_declines(ctx, p3, p_big, true)) << i; }
   while (model_declines(ctx, a3, mid3, true)) {}
   EXPECT_EQ(model.level_decision(3, 7), 0) << "the operator taken: its level with it";
   EXPECT_FALSE(model_declines(ctx, p3, p_big, true)) << "its P's served matvecs repaid it long ago";
   // calls that serve no matvec (the survey, the preparation) do not count
   MatrixState b1 = tagged(1, AMGT_ROLE_A);
   for (int i = 0; i < 1000; ++i) { ASSERT_TRUE(model_declines(ctx, b1, mid, false)); }

   // a later setup of the process expects what the level served (counted by the SpMV hook)
   for (int i = 0; i < 400; ++i) { model.count(1); }
   model.setup_begins();
   Context next = ctx;
   next.epoch   = 8;
   MatrixState again = tagged(1, AMGT_ROLE_A);
   EXPECT_FALSE(model_declines(next, again, mid, false)) << "400 matvecs repay it";
   EXPECT_DOUBLE_EQ(again.model_decision.matvecs, 400.0);

   // what bypasses the model: AMGT_SPMV=plugin, no stock matvec, an untagged matrix (the size
   // floor), no model
   MatrixState u;
   EXPECT_TRUE(model_declines(ctx, u, small, false)) << "untagged: the size floor";
   EXPECT_FALSE(model_declines(ctx, u, mid, false));
   Context none = ctx;
   none.model   = nullptr;
   MatrixState n1 = tagged(1, AMGT_ROLE_A);
   EXPECT_FALSE(model_declines(none, n1, mid, false)) << "no model: the size floor alone";
   c.config.spmv = KernelChoice::plugin;
   MatrixState forced = tagged(2, AMGT_ROLE_A);
   EXPECT_FALSE(model_declines(ctx, forced, small, false)) << "AMGT_SPMV=plugin forces the plugin";
   c.config.spmv          = KernelChoice::automatic;
   c.allocator.stock_spmv = nullptr;
   MatrixState orphan     = tagged(2, AMGT_ROLE_A);
   EXPECT_FALSE(model_declines(c.ctx(), orphan, small, false)) << "hypre cannot run it";
}

// AMGT_SETUP_KERNELS=large (the default), 1 and 0
struct SetupKernelConfigs
{
   Config large, on, off;
};

SetupKernelConfigs setup_kernel_configs()
{
   SetupKernelConfigs c;
   c.on.setup_kernels_large = false;
   c.off.setup_kernels      = false;
   return c;
}

// AMGT_SETUP_KERNELS=large (the default): the plugin's setup kernels take a block from 2^18
// entries on (the SpMV's latency floor), counted over both blocks where the kernel reads both;
// on every size, off none
TEST(Planner, SetupKernelsBySize)
{
   const auto [large, on, off] = setup_kernel_configs();
   const int64_t floor = AMGT_SMALL_MATRIX_ENTRIES;
   EXPECT_EQ(setup_kernel_decision(on, 1, -1), SetupKernelTake::plugin);
   EXPECT_EQ(setup_kernel_decision(on, 0, -1), SetupKernelTake::plugin) << "every size, an empty block too";
   EXPECT_EQ(setup_kernel_decision(off, floor * 16, -1), SetupKernelTake::off);
   EXPECT_EQ(setup_kernel_decision(large, floor - 1, -1), SetupKernelTake::below_floor);
   EXPECT_EQ(setup_kernel_decision(large, floor, -1), SetupKernelTake::plugin);

   TwiaffRows tw{};
   tw.diag_nnz = floor - 10;
   tw.offd_nnz = 10;
   EXPECT_EQ(setup_kernel_entries(tw), floor) << "diagonal and off-diagonal blocks";
   PmisGraph g{};
   g.s_diag_nnz = 100;
   g.s_offd_nnz = 7;
   EXPECT_EQ(setup_kernel_entries(g), 107);
   StrengthRows st{};
   st.diag_nnz = 5;
   st.offd_nnz = 6;
   EXPECT_EQ(setup_kernel_entries(st), 11);
   RowSums rs{};
   rs.nnz = 12;
   EXPECT_EQ(setup_kernel_entries(rs), 12);
   WeakRowSums ws{};
   ws.nnz = 13;
   EXPECT_EQ(setup_kernel_entries(ws), 13);
   CsrDiag d{};
   d.nnz = 14;
   EXPECT_EQ(setup_kernel_entries(d), 14);
   TruncCopy tc{};
   tc.nnz_new = 15;
   EXPECT_EQ(setup_kernel_entries(tc), 15);
   EXPECT_EQ(setup_kernel_decision(large, setup_kernel_entries(g), -1), SetupKernelTake::below_floor);
   EXPECT_EQ(setup_kernel_decision(large, setup_kernel_entries(tw), -1), SetupKernelTake::plugin);
}

// AMGT_SETUP_KERNELS=large leaves every block of a small application's hierarchy to hypre (the
// images the plugin's kernels would load inside its first setup do not repay), blocks below the
// floor for either reason counted as below it; no application matrix seen (-1): the block
// decides; AMGT_SETUP_KERNELS=1 and 0 as before
TEST(Planner, SetupKernelsByApplicationMatrix)
{
   const auto [large, on, off] = setup_kernel_configs();
   const int64_t floor = AMGT_SMALL_MATRIX_ENTRIES, app = kSetupKernelsApplicationEntries;
   EXPECT_EQ(app, kPreloadAssemblyEntries) << "the preload's bound";
   EXPECT_EQ(setup_kernel_decision(large, floor, app - 1), SetupKernelTake::small_application);
   EXPECT_EQ(setup_kernel_decision(large, floor * 4, 0), SetupKernelTake::small_application);
   EXPECT_EQ(setup_kernel_decision(large, floor, app), SetupKernelTake::plugin);
   EXPECT_EQ(setup_kernel_decision(large, floor, -1), SetupKernelTake::plugin);
   EXPECT_EQ(setup_kernel_decision(large, floor - 1, app - 1), SetupKernelTake::below_floor);
   EXPECT_EQ(setup_kernel_decision(large, floor - 1, app), SetupKernelTake::below_floor);
   EXPECT_EQ(setup_kernel_decision(on, 1, app - 1), SetupKernelTake::plugin);
   EXPECT_EQ(setup_kernel_decision(off, floor, app), SetupKernelTake::off);
}

} // namespace
