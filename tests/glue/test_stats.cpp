// The AMGT_STATS table as a pure function of the counters (hypre_glue/stats.h): no row for a
// level the plugin never worked on, one line instead of an empty table when the plugin was
// off or did nothing, and rows in the layout scripts/bench_runner.py parses.
#include "stats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using amgt::Config;
using amgt::Mode;
using amgt::Precision;
using amgt::glue::LevelShape;
using amgt::glue::Stats;

Config config(Mode mode)
{
   Config c;
   c.mode     = mode;
   c.schedule = {Precision::fp64, Precision::fp32, Precision::fp16};
   c.stats    = true;
   return c;
}

// The level numbers of the table's rows ("other" = -1), by the row pattern of
// scripts/bench_runner.py (STATS_ROW).
std::vector<int> row_levels(const std::string& table)
{
   static const std::regex row(
      R"(^\s*(-?\d+|other)\s+\S+\s+\S+\s+\S+\s+\S+\s+(fp64|fp32|fp16)\s+\d+\s+\d+\s+[\d.eE+-]+\s+\d+\s+[\d.eE+-]+\s+\d+\s+\S+\s*$)");
   std::vector<int>   levels;
   std::istringstream in(table);
   for (std::string line; std::getline(in, line);)
   {
      std::smatch m;
      if (std::regex_match(line, m, row)) levels.push_back(m[1] == "other" ? -1 : std::stoi(m[1]));
   }
   return levels;
}

LevelShape shape(int64_t rows, int64_t nnz)
{
   LevelShape s;
   s.known = true;
   s.rows  = rows;
   s.nnz   = nnz;
   s.tiles = nnz / 4;
   s.fill  = 4.0;
   return s;
}

TEST(StatsTable, NoRowForALevelThePluginNeverTouched)
{
   Stats s;
   // levels 0..2 converted and multiplied
   for (int l = 0; l < 3; ++l)
   {
      s.level_matrix(l, shape(1000 >> l, 7000 >> l));
      s.conversion(l);
      s.spgemm(l, 1e-3, "cpu-ref", Precision::fp64);
      s.spmv(l, 1e-4, "cpu-ref", Precision::fp64);
   }
   // the coarsest level: tagged but never converted (no shape), and a setup-work record of
   // zero time -- neither is work of the plugin's
   s.level_matrix(3, LevelShape{});
   s.prepare(4, 0.0, 0.0, 0.0);
   const std::string t = s.format(config(Mode::fp64), 0, 1);
   EXPECT_EQ(row_levels(t), (std::vector<int>{0, 1, 2})) << t;
   EXPECT_NE(t.find("AMGT statistics (rank 0 of 1): mode fp64\n"), std::string::npos) << t;
}

TEST(StatsTable, ALevelWithOnlyAFallbackOrAChoiceKeepsItsRow)
{
   Stats s;
   s.fallback(5, "transposed");    // the plugin declined a call of level 5: that is news
   s.fallback(-1, "multivector");  // untagged: the "other" row
   amgt::PrecisionChoice c;
   c.precision = Precision::fp32;
   c.reason    = "floor";
   s.spmv_choice(6, AMGT_ROLE_A, c);
   const std::string t = s.format(config(Mode::automatic), 0, 1);
   EXPECT_EQ(row_levels(t), (std::vector<int>{-1, 5, 6})) << t;
   EXPECT_NE(t.find("transposed=1"), std::string::npos) << t;
   EXPECT_NE(t.find("AMGT: why level 6: A:fp32/floor"), std::string::npos) << t;
}

TEST(StatsTable, PluginOffPrintsOneLineAndNoTable)
{
   Stats s;
   const std::string t = s.format(config(Mode::off), 0, 1);
   EXPECT_NE(t.find("the plugin was off"), std::string::npos) << t;
   EXPECT_EQ(t.find("level"), std::string::npos) << "a table header with the plugin off:\n" << t;
   EXPECT_EQ(std::count(t.begin(), t.end(), '\n'), 1) << t;
   // once per job, not once per rank (AMGT_STATS=all)
   EXPECT_EQ(s.format(config(Mode::off), 1, 2), "");
}

TEST(StatsTable, PluginOnWithoutCallsPrintsOneLine)
{
   Stats s;
   s.level_matrix(0, LevelShape{});
   const std::string t = s.format(config(Mode::mixed), 1, 2);
   EXPECT_EQ(t, "AMGT statistics (rank 1 of 2): mode mixed, no plugin call on this rank\n");
   EXPECT_TRUE(row_levels(t).empty());
}

// The setup kernels the plugin ran, by name, and the calls AMGT_SETUP_KERNELS=large left to
// hypre below its size floor, each on a line of its own
TEST(StatsTable, SetupKernelsRunAndLeftToHypreBySize)
{
   Stats s;
   s.setup_kernel("strength counts");
   s.setup_kernel("strength counts");
   s.setup_kernel_small();
   s.setup_kernel_small();
   s.setup_kernel_small();
   const std::string t = s.format(config(Mode::fp64), 0, 1);
   EXPECT_NE(t.find("AMGT: hypre's setup kernels run by the plugin (AMGT_SETUP_KERNELS): strength counts 2\n"),
             std::string::npos)
      << t;
   EXPECT_NE(t.find("left to hypre below the size floor (AMGT_SETUP_KERNELS=large): 3 calls\n"), std::string::npos) << t;
   Stats only_small;
   only_small.setup_kernel_small();
   const std::string u = only_small.format(config(Mode::fp64), 0, 1);
   EXPECT_EQ(u.find("no plugin call"), std::string::npos) << "a call left by size is reported\n" << u;
   EXPECT_NE(u.find("1 calls"), std::string::npos) << u;
   EXPECT_EQ(u.find("run by the plugin"), std::string::npos) << u;
   // those of them left for a small application's hierarchy (setup_kernel_decision) said apart
   only_small.setup_kernel_small(true);
   only_small.setup_kernel_small(true);
   const std::string v = only_small.format(config(Mode::fp64), 0, 1);
   EXPECT_NE(v.find("(AMGT_SETUP_KERNELS=large): 3 calls (2 of them of blocks above it, in the hierarchy of an "
                    "application's matrix of fewer than 400000 entries on this process)\n"),
             std::string::npos)
      << v;
}

// AMGT_STATS' setup work: the total over the process, and per setup the first (CUDA's lazy
// loading, first allocations) apart from the median of the later ones.
TEST(StatsTable, SetupWorkOfTheFirstSetupApartFromTheLaterOnes)
{
   Stats s;
   s.level_matrix(0, shape(1000, 4000));
   s.spmv(0, 1e-3, "rows", Precision::fp32);
   s.setup_begin();
   s.survey(3, 1, 0.002);
   s.prepare(0, 0.001, 0.010, 0.0); // the first setup: 13 ms
   std::string t = s.format(config(Mode::automatic), 0, 1);
   EXPECT_NE(t.find("AMGT: plugin setup work 13.000 ms"), std::string::npos) << t;
   EXPECT_EQ(t.find("per setup"), std::string::npos) << "one setup has no later ones:\n" << t;
   s.setup_begin();
   s.prepare(0, 0.0, 0.004, 0.0); // 4 ms
   s.setup_begin();
   s.survey(3, 1, 0.001);
   s.prepare(1, 0.0, 0.004, 0.0); // 5 ms
   s.setup_begin();
   s.prepare(0, 0.0, 0.006, 0.0); // 6 ms
   t = s.format(config(Mode::automatic), 0, 1);
   EXPECT_NE(t.find("AMGT: plugin setup work 28.000 ms"), std::string::npos) << t;
   EXPECT_NE(t.find("AMGT: plugin setup work per setup: the first 13.000 ms, the 3 later median 5.000 ms "
                    "(4.000 to 6.000)"),
             std::string::npos)
      << t;
   s.reset();
   s.level_matrix(0, shape(1000, 4000));
   s.spmv(0, 1e-3, "rows", Precision::fp32);
   EXPECT_EQ(s.format(config(Mode::automatic), 0, 1).find("plugin setup work"), std::string::npos);
}

// The plugin's entry points (Stats::entry_time): counted in the slot the latest setup_begin
// opened, slot 0 before any setup
TEST(StatsEntryTime, EachCallGoesToTheCurrentSetupSlot)
{
   Stats s;
   s.entry_time(0.001);
   s.entry_time(0.002);
   EXPECT_EQ(s.entry_slot(0).calls, 2);
   EXPECT_DOUBLE_EQ(s.entry_slot(0).seconds, 0.003);
   EXPECT_EQ(s.entry_slot(1).calls, 0) << "no setup yet";
   s.setup_begin();
   s.entry_time(0.004);
   EXPECT_EQ(s.entry_slot(0).calls, 2) << "slot 0 is closed by the first setup";
   EXPECT_EQ(s.entry_slot(1).calls, 1);
   EXPECT_DOUBLE_EQ(s.entry_slot(1).seconds, 0.004);
   s.setup_begin();
   s.entry_time(0.005);
   s.entry_time(0.006);
   EXPECT_EQ(s.entry_slot(1).calls, 1);
   EXPECT_EQ(s.entry_slot(2).calls, 2);
   EXPECT_DOUBLE_EQ(s.entry_slot(2).seconds, 0.011);
   s.reset();
   EXPECT_EQ(s.entry_slot(0).calls, 0);
   EXPECT_EQ(s.entry_slot(1).calls, 0);
   s.entry_time(0.001);
   EXPECT_EQ(s.entry_slot(0).calls, 1) << "after a reset, calls are before the first setup again";
}

// The table's line: before the first setup, the first setup with its solves, and the mean of
// the later ones; a part appears once its slot exists
TEST(StatsEntryTime, OneLineUnderTheSetupWork)
{
   Stats s;
   s.level_matrix(0, shape(1000, 4000));
   s.spmv(0, 1e-3, "rows", Precision::fp64);
   std::string t = s.format(config(Mode::fp64), 0, 1);
   EXPECT_EQ(t.find("plugin entry points"), std::string::npos) << "no call timed:\n" << t;
   s.entry_time(0.001);
   t = s.format(config(Mode::fp64), 0, 1);
   EXPECT_NE(t.find("\nAMGT: plugin entry points (host): before setup 1: 1 call, 1.000 ms\n"), std::string::npos)
      << t;
   s.setup_begin();
   s.prepare(0, 0.0, 0.010, 0.0);
   for (int k = 0; k < 3; ++k) s.entry_time(0.002);
   t = s.format(config(Mode::fp64), 0, 1);
   EXPECT_NE(t.find("AMGT: plugin entry points (host): before setup 1: 1 call, 1.000 ms; setup 1 and its "
                    "solves: 3 calls, 6.000 ms\n"),
             std::string::npos)
      << t;
   s.setup_begin();
   s.entry_time(0.002);
   s.setup_begin();
   s.entry_time(0.001);
   s.entry_time(0.003);
   t = s.format(config(Mode::fp64), 0, 1);
   const std::string line = "AMGT: plugin entry points (host): before setup 1: 1 call, 1.000 ms; setup 1 and its "
                            "solves: 3 calls, 6.000 ms; later setups and their solves: mean 3.000 ms over 2 (3 "
                            "calls in all)\n";
   const size_t      at   = t.find(line);
   ASSERT_NE(at, std::string::npos) << t;
   EXPECT_LT(t.find("AMGT: plugin setup work"), at) << "next to the setup work:\n" << t;
   EXPECT_EQ(row_levels(t), (std::vector<int>{0})) << "the table's rows as before:\n" << t;
}

// Hooks that reached the plugin while it did nothing on the rank: the one line, then what
// the hooks took
TEST(StatsEntryTime, ShownWhereThePluginDidNothingElse)
{
   Stats s;
   s.setup_begin();
   s.entry_time(0.0005);
   s.entry_time(0.0005);
   EXPECT_EQ(s.format(config(Mode::fp64), 0, 1),
             "AMGT statistics (rank 0 of 1): mode fp64, no plugin call on this rank\n"
             "AMGT: plugin entry points (host): before setup 1: 0 calls, 0.000 ms; setup 1 and its solves: "
             "2 calls, 1.000 ms\n");
}

// The fallbacks by reason and by level (Stats::fallback, offd_spmv, sweep, setup_kernel_small):
// counted without the lock on the reason's pointer, read by its text. The table is the one the
// counts under the lock, keyed by text, gave: this scenario's text is that table's, verbatim.
TEST(StatsFallbacks, TableTextAsKeyedByText)
{
   // two arrays of the same text: distinct pointers, one reason (as a literal repeated in
   // several places of hypre's side may be)
   static const char declined_a[] = "spmv-model-declined";
   static const char declined_b[] = "spmv-model-declined";
   ASSERT_NE(static_cast<const void*>(declined_a), static_cast<const void*>(declined_b));
   Stats s;
   s.level_matrix(0, shape(1000, 4000));
   s.spmv(0, 1e-3, "cpu-ref", Precision::fp64);
   for (int k = 0; k < 3; ++k) s.fallback(0, declined_a);
   for (int k = 0; k < 2; ++k) s.fallback(0, declined_b);
   s.fallback(2, "transposed");
   s.fallback(-1, "multivector");
   s.fallback(-1, "multivector");
   s.fallback(70, "AMGT_SPMV=stock"); // a level past the counters kept without the lock
   s.fallback(2, "spmv-outside-cycle-fp64");
   s.offd_spmv(1, false, nullptr);
   s.offd_spmv(1, false, nullptr);
   s.offd_spmv(1, false, "spmv-small-matrix");
   s.offd_spmv(0, true, nullptr);
   s.sweep(true);
   s.sweep(false);
   s.sweep(false);
   s.setup_kernel_small();
   s.setup_kernel_small(true);
   const std::string expected =
      "AMGT statistics (rank 0 of 1): mode fp64\n"
      " level       rows          nnz      tiles   fill  prec  conv   spgemm   spgemm_ms     spmv     spmv_ms "
      "fallbacks  path\n"
      " other          -            -          -      -  fp64     0        0       0.000        0       0.000         "
      "2  -\n"
      "     0       1000         4000       1000   4.00  fp64     0        0       0.000        1       1.000         "
      "5  cpu-ref\n"
      "     2          -            -          -      -  fp64     0        0       0.000        0       0.000         "
      "2  -\n"
      "    70          -            -          -      -  fp64     0        0       0.000        0       0.000         "
      "1  -\n"
      "AMGT: off-diagonal blocks (columns of other ranks): 1 matvecs on the plugin, 3 on hypre (plugin by level: "
      "L0=1) (hypre by reason: declined=2 spmv-small-matrix=1)\n"
      "AMGT: l1-Jacobi sweeps taken from hypre's Relax7: 1 from u = 0 in one pass (no copy), 2 as one out-of-place "
      "product (no copy where the plugin computes it)\n"
      "AMGT: hypre's setup kernels left to hypre below the size floor (AMGT_SETUP_KERNELS=large): 2 calls (1 of them "
      "of blocks above it, in the hierarchy of an application's matrix of fewer than 400000 entries on this "
      "process)\n"
      "AMGT fallbacks to stock hypre by reason: AMGT_SPMV=stock=1 multivector=2 spmv-model-declined=5 "
      "spmv-outside-cycle-fp64=1 transposed=1\n";
   EXPECT_EQ(s.format(config(Mode::fp64), 0, 1), expected);
   EXPECT_EQ(s.total_fallbacks("spmv-model-declined"), 5);
   EXPECT_EQ(s.total_fallbacks(declined_b), 5);
   EXPECT_EQ(s.total_fallbacks("multivector"), 2);
   EXPECT_EQ(s.total_fallbacks("AMGT_SPMV=stock"), 1);
   EXPECT_EQ(s.total_fallbacks("spmv-model"), 0) << "a reason is its whole text";
   EXPECT_EQ(s.level(0).fallbacks, 5);
   EXPECT_EQ(s.level(0).spmv_calls, 1);
   EXPECT_EQ(s.level(-1).fallbacks, 2);
   EXPECT_EQ(s.level(70).fallbacks, 1);
   EXPECT_EQ(s.level(3).fallbacks, 0);
}

// More distinct reason pointers than the counters kept without the lock have slots for: the
// others are counted under it, and every reason keeps its count, by text.
TEST(StatsFallbacks, MoreReasonsThanSlots)
{
   std::vector<std::string> texts, copies; // the copies: the same texts at other addresses
   for (int k = 0; k < 100; ++k)
   {
      char name[32];
      std::snprintf(name, sizeof(name), "reason-%03d", k);
      texts.emplace_back(name);
   }
   copies = texts;
   Stats                       s;
   std::map<std::string, long> want;
   for (int k = 0; k < 100; ++k)
   {
      for (int r = 0; r <= k % 3; ++r) s.fallback(k % 5, texts[k].c_str());
      s.fallback(k % 5, copies[k].c_str());
      want[texts[k]] = k % 3 + 2;
   }
   std::string line = "AMGT fallbacks to stock hypre by reason:";
   long        total = 0;
   for (const auto& [text, n] : want)
   {
      EXPECT_EQ(s.total_fallbacks(text), n) << text;
      line += " " + text + "=" + std::to_string(n);
      total += n;
   }
   const std::string t = s.format(config(Mode::fp64), 0, 1);
   EXPECT_NE(t.find("\n" + line + "\n"), std::string::npos) << t;
   long by_level = 0;
   for (int l = 0; l < 5; ++l) by_level += s.level(l).fallbacks;
   EXPECT_EQ(by_level, total);
}

// Several threads (hypre's and the preparation's) count at once: every count arrives, and a
// table read meanwhile does not disturb them.
TEST(StatsFallbacks, ConcurrentCountsAreExact)
{
   static const char small_a[] = "spmv-small-matrix";
   static const char small_b[] = "spmv-small-matrix";
   const char* const reasons[] = {small_a, small_b, "transposed", "prepare-beside-error"};
   constexpr int     kThreads = 4, kCalls = 20000;
   Stats             s;
   std::vector<std::thread> threads;
   for (int t = 0; t < kThreads; ++t)
   {
      threads.emplace_back([&s, &reasons, t] {
         for (int i = 0; i < kCalls; ++i)
         {
            s.fallback(i % 3 - 1, reasons[(t + i) % 4]); // levels -1, 0, 1
            s.offd_spmv(1, false, i % 2 ? nullptr : small_b);
            s.sweep(i % 2 == 0);
            s.setup_kernel_small(i % 4 == 0);
         }
      });
   }
   std::thread reader([&s] {
      for (int i = 0; i < 50; ++i) (void)s.format(config(Mode::fp64), 0, 1);
   });
   for (std::thread& th : threads) th.join();
   reader.join();
   const long n = long{kThreads} * kCalls;
   EXPECT_EQ(s.total_fallbacks("spmv-small-matrix"), n / 2);
   EXPECT_EQ(s.total_fallbacks("transposed"), n / 4);
   EXPECT_EQ(s.total_fallbacks("prepare-beside-error"), n / 4);
   long by_level = 0;
   for (int l = -1; l <= 1; ++l) by_level += s.level(l).fallbacks;
   EXPECT_EQ(by_level, n);
   EXPECT_EQ(s.level(1).fallbacks, long{kThreads} * (kCalls / 3));
   const std::string t = s.format(config(Mode::fp64), 0, 1);
   EXPECT_NE(t.find("AMGT fallbacks to stock hypre by reason: prepare-beside-error=20000 spmv-small-matrix=40000 "
                    "transposed=20000\n"),
             std::string::npos)
      << t;
   EXPECT_NE(t.find("0 matvecs on the plugin, 80000 on hypre (hypre by reason: declined=40000 "
                    "spmv-small-matrix=40000)\n"),
             std::string::npos)
      << t;
   EXPECT_NE(t.find("40000 from u = 0 in one pass (no copy), 40000 as one out-of-place"), std::string::npos) << t;
   EXPECT_NE(t.find("(AMGT_SETUP_KERNELS=large): 80000 calls (20000 of them"), std::string::npos) << t;
}

// A reset (HYPRE_Finalize) forgets every count; the next ones start from zero.
TEST(StatsFallbacks, ResetForgetsThem)
{
   Stats s;
   s.fallback(0, "transposed");
   s.fallback(90, "transposed");
   s.offd_spmv(1, false, nullptr);
   s.sweep(true);
   s.setup_kernel_small();
   s.reset();
   EXPECT_EQ(s.total_fallbacks("transposed"), 0);
   EXPECT_EQ(s.level(0).fallbacks, 0);
   EXPECT_EQ(s.level(90).fallbacks, 0);
   EXPECT_EQ(s.format(config(Mode::fp64), 0, 1), "AMGT statistics (rank 0 of 1): mode fp64, no plugin call on this rank\n");
   s.fallback(1, "multivector");
   EXPECT_EQ(s.total_fallbacks("multivector"), 1);
   EXPECT_EQ(s.total_fallbacks("transposed"), 0);
   EXPECT_EQ(row_levels(s.format(config(Mode::fp64), 0, 1)), (std::vector<int>{1}));
}

} // namespace
