// AMGT_RESETUP's decisions (hypre_glue/resetup.h): what a new setup is, by the rule of each mode,
// across a sequence of setups and solves as hypre's hooks report them; the variable's parsing;
// the statistics line that tells what was decided and why.
#include "resetup.h"
#include "stats.h"

#include "precision/schedule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace {

using namespace amgt;
using namespace amgt::glue;

TEST(ResetupRule, FirstSetupStructureAndSettingsMakeFullSetups)
{
   const ResetupRecord r = resetup_record_after_full(42);
   EXPECT_EQ(resetup_propose(ResetupMode::galerkin, nullptr, true, 42, true), AMGT_SETUP_FIRST);
   ResetupRecord unrecorded;
   EXPECT_EQ(resetup_propose(ResetupMode::galerkin, &unrecorded, true, 42, true), AMGT_SETUP_FIRST);
   EXPECT_EQ(resetup_propose(ResetupMode::galerkin, &r, true, 43, true), AMGT_SETUP_STRUCTURE);
   EXPECT_EQ(resetup_propose(ResetupMode::galerkin, &r, false, 42, true), AMGT_SETUP_FAILED);
   EXPECT_EQ(resetup_propose(ResetupMode::galerkin, &r, true, 42, false), AMGT_SETUP_UNSUPPORTED);
   EXPECT_EQ(resetup_propose(ResetupMode::galerkin, &r, true, 42, true), AMGT_SETUP_RESETUP);
   EXPECT_EQ(resetup_propose(ResetupMode::automatic, &r, true, 42, true), AMGT_SETUP_RESETUP);
}

// A time-stepping sequence as the hooks see it: full setup, solves (cycles), setups...
struct Sequence
{
   ResetupMode   mode;
   ResetupRecord record = resetup_record_after_full(7);
   std::string   kinds  = "F";

   void solve(long cycles) { record.cycles += cycles; }
   void setup()
   {
      const int reason = resetup_propose(mode, &record, true, 7, true);
      resetup_begin(&record, reason);
      if (reason == AMGT_SETUP_RESETUP) { kinds += 'R'; }
      else
      {
         kinds += 'F';
         record = resetup_record_after_full(7);
      }
   }
};

TEST(ResetupRule, AutoReusesWhileCyclesStayWithinTheBoundOfTheLastFullSetup)
{
   Sequence s{ResetupMode::automatic};
   s.solve(20); // after the full setup: 20 cycles
   s.setup();   // R
   s.solve(22); // 22 <= 1.15 * 20 = 23
   s.setup();   // R
   s.solve(23); // 23 <= 23
   s.setup();   // R
   s.solve(24); // 24 > 23: the next setup is full
   s.setup();   // F
   s.solve(30); // the new full setup's solves set the new bound: 1.15 * 30 = 34.5
   s.setup();   // R
   s.solve(34);
   s.setup();   // R
   EXPECT_EQ(s.kinds, "FRRRFRR");
}

TEST(ResetupRule, AutoMakesAFullSetupWhenADiagonalMovedPastTheFactor)
{
   const ResetupRecord r = resetup_record_after_full(42);
   EXPECT_EQ(resetup_propose(ResetupMode::automatic, &r, true, 42, true, kResetupDiagonalFactor), AMGT_SETUP_RESETUP);
   EXPECT_EQ(resetup_propose(ResetupMode::automatic, &r, true, 42, true, 2.5), AMGT_SETUP_DRIFT);
   EXPECT_EQ(resetup_propose(ResetupMode::automatic, &r, true, 42, true, std::nan("")), AMGT_SETUP_DRIFT);
   // galerkin keeps the hierarchy whatever the values do
   EXPECT_EQ(resetup_propose(ResetupMode::galerkin, &r, true, 42, true, 1000.0), AMGT_SETUP_RESETUP);
   // a changed structure is told as such, not as drift
   EXPECT_EQ(resetup_propose(ResetupMode::automatic, &r, true, 43, true, 1000.0), AMGT_SETUP_STRUCTURE);
}

TEST(ResetupRule, TheDiagonalIsKeptAndComparedOnTheHost)
{
   const amgt::CsrMatrix a = [] {
      amgt::CsrMatrix m;
      m.nrows = m.ncols = 2;
      m.row_ptr         = {0, 2, 3};
      m.col             = {0, 1, 1};
      m.val             = {4.0, -1.0, 2.0};
      return m;
   }();
   amgt_csr view{2, 2, 3, a.row_ptr.data(), a.col.data(), a.val.data(), 0, nullptr};
   Context  ctx;
   ResetupRecord r = resetup_record_after_full(1);
   EXPECT_EQ(diagonal_drift(ctx, r, view), 1.0) << "nothing kept: no guard";
   remember_diagonal(ctx, r, view);
   EXPECT_EQ(r.diag_n, 2);
   EXPECT_EQ(diagonal_drift(ctx, r, view), 1.0);
   amgt::CsrMatrix b = a;
   b.val[2]          = 7.0; // 2 -> 7
   amgt_csr moved{2, 2, 3, b.row_ptr.data(), b.col.data(), b.val.data(), 0, nullptr};
   EXPECT_EQ(diagonal_drift(ctx, r, moved), 3.5);
}

TEST(ResetupRule, GalerkinReusesWhateverTheCycles)
{
   Sequence s{ResetupMode::galerkin};
   s.solve(10);
   s.setup();
   s.solve(100);
   s.setup();
   s.solve(1000);
   s.setup();
   EXPECT_EQ(s.kinds, "FRRR");
}

TEST(ResetupRule, AutoWithoutSolvesAfterTheFullSetupHasNoBoundAndReuses)
{
   Sequence s{ResetupMode::automatic};
   s.setup(); // no cycle counted since the full setup: nothing to compare with
   s.solve(50);
   s.setup();
   s.solve(500);
   s.setup();
   EXPECT_EQ(s.kinds, "FRRR");
   EXPECT_EQ(s.record.full_cycles, -1);
}

TEST(ResetupRule, ReasonsHaveNames)
{
   for (int r : {AMGT_SETUP_RESETUP, AMGT_SETUP_FIRST, AMGT_SETUP_STRUCTURE, AMGT_SETUP_CYCLES,
                 AMGT_SETUP_UNSUPPORTED, AMGT_SETUP_FAILED, AMGT_SETUP_DRIFT})
   {
      EXPECT_STRNE(setup_reason_name(r), "?") << r;
   }
   EXPECT_STREQ(setup_reason_name(99), "?");
}

TEST(ResetupConfig, ValuesAndTheFallback)
{
   EXPECT_EQ(parse_environment({{"AMGT", "auto"}}).resetup, ResetupMode::off);
   EXPECT_EQ(parse_environment({{"AMGT_RESETUP", "galerkin"}}).resetup, ResetupMode::galerkin);
   EXPECT_EQ(parse_environment({{"AMGT_RESETUP", " AUTO "}}).resetup, ResetupMode::automatic);
   EXPECT_EQ(parse_environment({{"AMGT_RESETUP", "off"}}).resetup, ResetupMode::off);
   const Config bad = parse_environment({{"AMGT_RESETUP", "sometimes"}});
   EXPECT_EQ(bad.resetup, ResetupMode::off);
   ASSERT_EQ(bad.invalid, 1);
   EXPECT_NE(bad.messages.at(0).find("AMGT_RESETUP"), std::string::npos);
   EXPECT_NE(bad.messages.at(0).find("galerkin"), std::string::npos);
}

TEST(ResetupStats, TheTableSaysWhatEachSetupWasAndWhy)
{
   Stats  stats;
   Config config = parse_environment({{"AMGT", "fp64"}, {"AMGT_RESETUP", "auto"}});
   stats.setup_kind(AMGT_SETUP_FIRST, setup_reason_name(AMGT_SETUP_FIRST));
   stats.setup_kind(AMGT_SETUP_RESETUP, setup_reason_name(AMGT_SETUP_RESETUP));
   stats.resetup_products(3, 0, 0.002);
   stats.setup_kind(AMGT_SETUP_CYCLES, setup_reason_name(AMGT_SETUP_CYCLES));
   stats.setup_kind(AMGT_SETUP_RESETUP, setup_reason_name(AMGT_SETUP_RESETUP));
   const std::string out = stats.format(config, 0, 1);
   EXPECT_NE(out.find("setups (AMGT_RESETUP=auto): 2 full (cycles grew: 1, no hierarchy to keep: 1), 2 re-setups"),
             std::string::npos)
      << out;
   EXPECT_NE(out.find("3 coarse operators on their plans, 0 by hypre's product"), std::string::npos) << out;
   EXPECT_NE(out.find("in order: FRFR"), std::string::npos) << out;
   stats.reset();
   EXPECT_EQ(stats.format(config, 0, 1).find("setups (AMGT_RESETUP"), std::string::npos);
}

// A re-setup carries a matrix's cached state into the new setup (MatrixState::carry): with
// its values unchanged (P, R) every key of the same arrays moves to the new epoch; with new
// values only the structure's facts do (the fill sample), so the value statistics, the
// precision choice and the host copy are made again. Other arrays carry nothing; an empty
// key is never taken for a match.
TEST(ResetupCarry, KeysMoveByWhatTheReSetupKept)
{
   int        rp[3] = {0, 1, 2}, col[2] = {0, 1}, other_col[2] = {0, 1};
   double     val[2] = {1.0, 2.0};
   amgt_csr   a{2, 2, 2, rp, col, val, 0, nullptr};
   amgt_csr   b = a;
   b.col        = other_col;
   auto fresh_state = [&](long epoch) {
      MatrixState s;
      const CsrKey k = key_of(a, epoch);
      s.key = s.stats_key = s.choice_key = s.fill_key = s.spmv_choice_key = k;
      s.race_checked = s.remembered_stock = s.remembered_plugin = s.prepared_key = k;
      return s;
   };
   {
      MatrixState s = fresh_state(3);
      EXPECT_FALSE(s.carry(key_of(a, 5), false)); // no device copy to carry
      for (const CsrKey* k : {&s.key, &s.stats_key, &s.choice_key, &s.fill_key, &s.spmv_choice_key,
                              &s.race_checked, &s.remembered_stock, &s.remembered_plugin})
      {
         EXPECT_TRUE(*k == key_of(a, 5));
      }
      EXPECT_TRUE(s.prepared_key == key_of(a, 3)); // the end of the setup prepares it as always
   }
   {
      MatrixState s = fresh_state(3);
      s.carry(key_of(a, 5), true);
      EXPECT_TRUE(s.fill_key == key_of(a, 5));
      for (const CsrKey* k : {&s.key, &s.stats_key, &s.choice_key, &s.spmv_choice_key, &s.prepared_key})
      {
         EXPECT_TRUE(*k == key_of(a, 3));
      }
   }
   {
      MatrixState s = fresh_state(3);
      s.carry(key_of(b, 5), false);
      EXPECT_TRUE(s.key == key_of(a, 3));
      EXPECT_TRUE(s.fill_key == key_of(a, 3));
   }
   {
      MatrixState s; // nothing cached: the empty keys stay empty
      s.carry(CsrKey{}, false);
      EXPECT_EQ(s.key.epoch, 0);
      EXPECT_FALSE(same_arrays(CsrKey{}, CsrKey{}));
   }
   {
      MatrixState s = fresh_state(3);
      s.invalidate(true); // keep_structure: only a device copy would stay
      EXPECT_TRUE(s.key == CsrKey{});
      EXPECT_TRUE(s.fill_key == CsrKey{});
      EXPECT_FALSE(s.device);
   }
}

} // namespace
