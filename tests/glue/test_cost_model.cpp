// The planner's cost model (hypre_glue/cost_model.h): the table's interpolation, the decision,
// the re-check of a declined matrix, the lent fp64 matvecs and what the process learns
// between setups. Pure host code.
#include "cost_model.h"

#include <gtest/gtest.h>

#include <cmath>

namespace amgt::glue::cost {
namespace {

constexpr Precision kAll[] = {Precision::fp64, Precision::fp32, Precision::fp16};

TEST(CostModel, EveryPrecisionHasATable)
{
   for (Precision p : kAll)
   {
      const Prediction e = predict(p, 1 << 20, (1 << 20) / 7);
      EXPECT_GT(e.hypre_us, 0.0) << to_string(p);
      EXPECT_GT(e.plugin_us, 0.0) << to_string(p);
      EXPECT_GT(e.once_us, kSurveyUs) << to_string(p) << ": the conversion and plan beside the survey";
   }
   EXPECT_EQ(predict(Precision::fp64, 0, 10).hypre_us, 0.0) << "an empty matrix predicts nothing";
   EXPECT_EQ(predict(Precision::fp64, 10, 0).hypre_us, 0.0);
}

TEST(CostModel, InterpolatesBetweenSizesAndLengthsAndExtrapolatesByEntries)
{
   for (Precision p : kAll)
   {
      // below the smallest size measured: the latency floor, the same for any smaller matrix
      const Prediction tiny = predict(p, 1000, 250), tinier = predict(p, 100, 25);
      EXPECT_DOUBLE_EQ(tiny.hypre_us, tinier.hypre_us) << to_string(p);
      EXPECT_DOUBLE_EQ(tiny.plugin_us, tinier.plugin_us) << to_string(p);
      // above the largest (2^26 entries): both kernels' times and the one-time work grow with
      // the entries
      const int64_t    big = int64_t{1} << 28;
      const Prediction b1 = predict(p, big, big / 7), b2 = predict(p, 2 * big, 2 * big / 7);
      EXPECT_NEAR(b2.hypre_us, 2.0 * b1.hypre_us, 1e-6 * b1.hypre_us) << to_string(p);
      EXPECT_NEAR(b2.plugin_us, 2.0 * b1.plugin_us, 1e-6 * b1.plugin_us) << to_string(p);
      EXPECT_NEAR(b2.once_us - kSurveyUs, 2.0 * (b1.once_us - kSurveyUs), 1e-6 * b1.once_us) << to_string(p);
      // a memory-bound kernel: 16x the entries take longer
      EXPECT_GT(predict(p, 1 << 24, (1 << 24) / 7).hypre_us, 4.0 * predict(p, 1 << 20, (1 << 20) / 7).hypre_us)
         << to_string(p);
      // between two sizes and two row lengths: between the neighbours
      const Prediction lo = predict(p, 1 << 20, (1 << 20) / 7), hi = predict(p, 1 << 22, (1 << 22) / 7);
      const Prediction mid = predict(p, 1 << 21, (1 << 21) / 7);
      EXPECT_GE(mid.hypre_us, std::min(lo.hypre_us, hi.hypre_us)) << to_string(p);
      EXPECT_LE(mid.hypre_us, std::max(lo.hypre_us, hi.hypre_us)) << to_string(p);
      const Prediction l7 = predict(p, 1 << 22, (1 << 22) / 7), l16 = predict(p, 1 << 22, (1 << 22) / 16);
      const Prediction l11 = predict(p, 1 << 22, (1 << 22) / 11);
      EXPECT_GE(l11.plugin_us, std::min(l7.plugin_us, l16.plugin_us)) << to_string(p);
      EXPECT_LE(l11.plugin_us, std::max(l7.plugin_us, l16.plugin_us)) << to_string(p);
   }
}

// What the H100 table says and the planner relies on: small matrices do not repay the plugin's
// one-time work within a solve, the operators of millions of entries do in a few matvecs.
TEST(CostModel, DeclinesSmallMatricesAndTakesLargeOnes)
{
   for (Precision p : kAll)
   {
      // a 10k-row FEM matrix of 14 a row (ted_B-like): no gain worth 80 us
      const Decision small = decide(p, 145000, 10600, kDefaultMatvecs);
      EXPECT_FALSE(small.take) << to_string(p);
      // a 7-point operator of 1M rows
      const Decision large = decide(p, 6940000, 1000000, kDefaultMatvecs);
      EXPECT_TRUE(large.take) << to_string(p);
      EXPECT_GT(large.gain_us, 0.0) << to_string(p);
      EXPECT_LT(large.break_even, kDefaultMatvecs) << to_string(p);
      EXPECT_DOUBLE_EQ(large.break_even, large.once_us / large.gain_us);
      EXPECT_DOUBLE_EQ(large.matvecs, kDefaultMatvecs);
   }
   // a mid-size matrix with a small gain: declined for one short solve, taken when many
   // matvecs follow (a solve of a thousand iterations, or many solves a setup)
   const Decision few = decide(Precision::fp32, 1 << 20, (1 << 20) / 4, kDefaultMatvecs);
   ASSERT_GT(few.gain_us, 0.0);
   EXPECT_FALSE(few.take) << "break-even " << few.break_even;
   EXPECT_TRUE(decide(Precision::fp32, 1 << 20, (1 << 20) / 4, 10 * few.break_even).take);
   // no gain: never taken, whatever the matvecs (58 a row in fp64: hypre's kernel is faster)
   const Decision loses = decide(Precision::fp64, 943798, 16384, 1e9);
   EXPECT_LE(loses.gain_us, 0.0);
   EXPECT_FALSE(loses.take);
   EXPECT_FALSE(loses.floor);
   EXPECT_TRUE(std::isinf(loses.break_even));
   // at the latency floor: declined whatever the table's noise says
   for (Precision p : kAll)
   {
      const Decision at_floor = decide(p, kLatencyFloorEntries - 1, (kLatencyFloorEntries - 1) / 7, 1e9);
      EXPECT_TRUE(at_floor.floor) << to_string(p);
      EXPECT_FALSE(at_floor.take) << to_string(p);
      EXPECT_FALSE(decide(p, kLatencyFloorEntries, kLatencyFloorEntries / 7, 0.0).floor) << to_string(p);
   }
}

TEST(CostModel, ADeclinedMatrixIsRepaidAtItsBreakEven)
{
   const Decision d = decide(Precision::fp32, 1 << 20, (1 << 20) / 4, kDefaultMatvecs);
   ASSERT_GT(d.gain_us, 0.0);
   const long n = static_cast<long>(std::ceil(d.break_even));
   EXPECT_TRUE(repaid(d, n));
   EXPECT_FALSE(repaid(d, n - 2));
   const Decision loses = decide(Precision::fp64, 943798, 16384, kDefaultMatvecs);
   EXPECT_FALSE(repaid(loses, 1000000000L)) << "no gain repays nothing";
   const Decision at_floor = decide(Precision::fp16, 100000, 4000, kDefaultMatvecs);
   EXPECT_FALSE(repaid(at_floor, 1000000000L)) << "the latency floor is not re-checked";
}

TEST(CostModel, LentMatvecsOnlyWhereTheFp64KernelIsFaster)
{
   EXPECT_TRUE(lent_pays(16669619, 2396745)) << "a 7-point 2.4M-row operator";
   EXPECT_TRUE(lent_pays(int64_t{1} << 27, (int64_t{1} << 27) / 27)) << "beyond the table";
   EXPECT_FALSE(lent_pays(943798, 16384)) << "58 a row: hypre's fp64 kernel is faster";
   EXPECT_FALSE(lent_pays(255385, 37449)) << "the latency floor";
   EXPECT_TRUE(decide(Precision::fp32, 16669619, 2396745, kDefaultMatvecs).lent) << "decided with the rest";
   EXPECT_FALSE(decide(Precision::fp32, 943798, 16384, kDefaultMatvecs).lent);
}

TEST(CostModel, TheProcessLearnsEachLevelsMatvecsBetweenSetups)
{
   SpmvModel m;
   bool      learned = true;
   EXPECT_DOUBLE_EQ(m.expected(0, &learned), kDefaultMatvecs);
   EXPECT_FALSE(learned) << "nothing seen yet";
   for (int i = 0; i < 57; ++i) m.count(0);
   for (int i = 0; i < 12; ++i) m.count(3);
   m.count(-1);                   // not a level: ignored
   m.count(SpmvModel::kLevels);   // beyond the table: ignored
   EXPECT_DOUBLE_EQ(m.expected(0), kDefaultMatvecs) << "counted calls count from the next setup on";
   m.setup_begins();
   EXPECT_DOUBLE_EQ(m.expected(0, &learned), 57.0);
   EXPECT_TRUE(learned);
   EXPECT_DOUBLE_EQ(m.expected(3), 12.0);
   EXPECT_DOUBLE_EQ(m.expected(1), kDefaultMatvecs);
   // a setup with no solve after it keeps what was learned before
   m.setup_begins();
   EXPECT_DOUBLE_EQ(m.expected(0), 57.0);
   for (int i = 0; i < 5; ++i) m.count(0);
   m.setup_begins();
   EXPECT_DOUBLE_EQ(m.expected(0), 5.0);

   // a level's decision belongs to its setup (epoch)
   EXPECT_EQ(m.level_decision(2, 9), -1);
   m.set_level(2, 9, true);
   EXPECT_EQ(m.level_decision(2, 9), 1);
   EXPECT_EQ(m.level_decision(2, 10), -1) << "another setup";
   m.set_level(2, 10, false);
   EXPECT_EQ(m.level_decision(2, 10), 0);
   EXPECT_EQ(m.level_decision(SpmvModel::kLevels, 10), -1);
}

} // namespace
} // namespace amgt::glue::cost
