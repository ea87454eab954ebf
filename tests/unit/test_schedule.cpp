// parse_config: every rule of the run-time selection, including which messages appear and
// that each problem is reported exactly once.
#include "precision/schedule.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using amgt::Config;
using amgt::Mode;
using amgt::parse_config;
using amgt::Precision;
using amgt::KernelChoice;
using amgt::to_string;

const std::vector<Precision> kDsh{Precision::fp64, Precision::fp32, Precision::fp16};

// How many messages mention `needle`.
int mentions(const Config& c, const std::string& needle)
{
   int n = 0;
   for (const std::string& m : c.messages) n += m.find(needle) != std::string::npos;
   return n;
}

TEST(Schedule, UnsetEmptyOrOffIsOff)
{
   for (const char* v : {static_cast<const char*>(nullptr), "", "   ", "off", "OFF", " Off\t"})
   {
      const Config c = parse_config(v, nullptr, nullptr);
      EXPECT_EQ(c.mode, Mode::off) << (v ? v : "(unset)");
      EXPECT_TRUE(c.messages.empty()) << (v ? v : "(unset)");
      EXPECT_FALSE(c.stats);
      EXPECT_EQ(amgt::precision_for_level(c, 2), Precision::fp64);
   }
}

TEST(Schedule, Fp64)
{
   for (const char* v : {"fp64", "FP64", "  fp64 "})
   {
      const Config c = parse_config(v, nullptr, nullptr);
      EXPECT_EQ(c.mode, Mode::fp64) << v;
      EXPECT_TRUE(c.messages.empty()) << v;
      ASSERT_FALSE(c.schedule.empty());
      for (Precision p : c.schedule) EXPECT_EQ(p, Precision::fp64);
      for (int level : {0, 1, 2, 9})
         EXPECT_EQ(amgt::precision_for_level(c, level), Precision::fp64);
   }
}

TEST(Schedule, MixedDefaultsToDsh)
{
   for (const char* v : {"mixed", "Mixed", " MIXED "})
   {
      const Config c = parse_config(v, nullptr, nullptr);
      EXPECT_EQ(c.mode, Mode::mixed) << v;
      EXPECT_EQ(c.schedule, kDsh) << v;
      EXPECT_TRUE(c.messages.empty()) << v;
      EXPECT_EQ(amgt::schedule_to_string(c.schedule), "d,s,h");
   }
}

TEST(Schedule, MixedTakesLevels)
{
   struct Case
   {
      const char*            levels;
      std::vector<Precision> expect;
   };
   const Precision d = Precision::fp64, s = Precision::fp32, h = Precision::fp16;
   for (const Case& k : std::vector<Case>{{"d,s,h", {d, s, h}},
                                          {"d,d,s,s,h", {d, d, s, s, h}},
                                          {"s", {s}},
                                          {" D , S ,H ", {d, s, h}},
                                          {"fp64,fp32,fp16", {d, s, h}},
                                          {"FP64, fp16", {d, h}},
                                          {"h,d", {h, d}},
                                          {"d,fp32,h", {d, s, h}}})
   {
      const Config c = parse_config("mixed", k.levels, nullptr);
      EXPECT_EQ(c.mode, Mode::mixed) << k.levels;
      EXPECT_EQ(c.schedule, k.expect) << k.levels;
      EXPECT_TRUE(c.messages.empty()) << k.levels;
   }
   // Whitespace only counts as unset.
   const Config blank = parse_config("mixed", "  ", nullptr);
   EXPECT_EQ(blank.schedule, kDsh);
   EXPECT_TRUE(blank.messages.empty());
}

TEST(Schedule, InvalidLevelsFallBackToDsh)
{
   for (const char* v : {"x", "d,x", "d,,s", "d,", ",d", ",", "d;s;h", "d s h", "fp8", "single"})
   {
      const Config c = parse_config("mixed", v, nullptr);
      EXPECT_EQ(c.mode, Mode::mixed) << v;
      EXPECT_EQ(c.schedule, kDsh) << v;
      ASSERT_EQ(c.messages.size(), 1u) << v;
      const std::string& m = c.messages[0];
      EXPECT_NE(m.find("AMGT_LEVELS"), std::string::npos) << m;
      EXPECT_NE(m.find(v), std::string::npos) << "names the bad value: " << m;
      EXPECT_NE(m.find("d, s, h"), std::string::npos) << "names the accepted forms: " << m;
      EXPECT_NE(m.find("fp64, fp32, fp16"), std::string::npos) << m;
      EXPECT_NE(m.find("d,s,h"), std::string::npos) << "names the fallback: " << m;
   }
}

TEST(Schedule, LevelsWithoutMixedAreReported)
{
   const Config f = parse_config("fp64", "d,s,h", nullptr);
   EXPECT_EQ(f.mode, Mode::fp64);
   ASSERT_EQ(f.messages.size(), 1u);
   EXPECT_NE(f.messages[0].find("ignored"), std::string::npos) << f.messages[0];
   EXPECT_EQ(amgt::precision_for_level(f, 1), Precision::fp64);

   for (const char* off : {static_cast<const char*>(nullptr), "", "off"})
   {
      const Config o = parse_config(off, "d,s", nullptr);
      EXPECT_EQ(o.mode, Mode::off);
      ASSERT_EQ(o.messages.size(), 1u);
      EXPECT_NE(o.messages[0].find("no effect without AMGT=mixed"), std::string::npos)
          << o.messages[0];
   }
   // Invalid levels under fp64: still one message, the schedule is not even parsed.
   const Config g = parse_config("fp64", "garbage", nullptr);
   EXPECT_EQ(g.messages.size(), 1u);
}

TEST(Schedule, AutoIsItsOwnModeWithTheScheduleAsFloor)
{
   const Config c = parse_config(" AUTO ", nullptr, nullptr);
   EXPECT_EQ(c.mode, Mode::automatic);
   EXPECT_EQ(c.schedule, kDsh);
   EXPECT_TRUE(c.messages.empty()) << c.messages[0];
   EXPECT_STREQ(to_string(c.mode), "auto");
   // the floor per level, as for mixed
   EXPECT_EQ(precision_for_level(c, 0), Precision::fp64);
   EXPECT_EQ(precision_for_level(c, 1), Precision::fp32);
   EXPECT_EQ(precision_for_level(c, 7), Precision::fp16);

   // auto honours AMGT_LEVELS like mixed
   const Config l = parse_config("auto", "d,d,h", nullptr);
   EXPECT_EQ(l.mode, Mode::automatic);
   EXPECT_EQ(l.schedule,
             (std::vector<Precision>{Precision::fp64, Precision::fp64, Precision::fp16}));
   EXPECT_TRUE(l.messages.empty());
   EXPECT_STREQ(to_string(Mode::mixed), "mixed");
   EXPECT_STREQ(to_string(Mode::fp64), "fp64");
   EXPECT_STREQ(to_string(Mode::off), "off");
}

TEST(Schedule, UnknownModeIsOffWithOneMessage)
{
   for (const char* v : {"on", "1", "fp32", "mixed,fp16", "yes", "fp6 4"})
   {
      const Config c = parse_config(v, nullptr, nullptr);
      EXPECT_EQ(c.mode, Mode::off) << v;
      ASSERT_EQ(c.messages.size(), 1u) << v;
      const std::string& m = c.messages[0];
      EXPECT_NE(m.find(std::string("\"") + v + "\""), std::string::npos)
          << "names the value: " << m;
      for (const char* accepted : {"off", "fp64", "mixed", "auto"})
         EXPECT_NE(m.find(accepted), std::string::npos) << m;
   }
   // A bad mode explains everything: AMGT_LEVELS adds no second message.
   const Config c = parse_config("mxied", "d,s", nullptr);
   EXPECT_EQ(c.mode, Mode::off);
   EXPECT_EQ(c.messages.size(), 1u);
   EXPECT_EQ(mentions(c, "mxied"), 1);
}

TEST(Schedule, Stats)
{
   struct Case
   {
      const char* v;
      bool        stats, all;
   };
   for (const Case& k : std::vector<Case>{{nullptr, false, false},
                                          {"", false, false},
                                          {"0", false, false},
                                          {"off", false, false},
                                          {"OFF", false, false},
                                          {"1", true, false},
                                          {"on", true, false},
                                          {" On ", true, false},
                                          {"all", true, true},
                                          {"ALL", true, true}})
   {
      const Config c = parse_config("mixed", nullptr, k.v);
      EXPECT_EQ(c.stats, k.stats) << (k.v ? k.v : "(unset)");
      EXPECT_EQ(c.stats_all_ranks, k.all) << (k.v ? k.v : "(unset)");
      EXPECT_TRUE(c.messages.empty());
   }
   for (const char* v : {"2", "yes", "true", "al"})
   {
      const Config c = parse_config("mixed", nullptr, v);
      EXPECT_FALSE(c.stats) << v;
      EXPECT_FALSE(c.stats_all_ranks) << v;
      ASSERT_EQ(c.messages.size(), 1u) << v;
      EXPECT_NE(c.messages[0].find("AMGT_STATS"), std::string::npos);
      EXPECT_NE(c.messages[0].find(std::string("\"") + v + "\""), std::string::npos)
          << c.messages[0];
   }
   // Stats parse independently of the mode.
   EXPECT_TRUE(parse_config(nullptr, nullptr, "1").stats);
}

TEST(Schedule, EveryProblemReportedExactlyOnce)
{
   const Config c = parse_config("mixed", "d,q", "maybe");
   EXPECT_EQ(c.mode, Mode::mixed);
   EXPECT_EQ(c.schedule, kDsh);
   EXPECT_FALSE(c.stats);
   ASSERT_EQ(c.messages.size(), 2u);
   EXPECT_EQ(mentions(c, "AMGT_LEVELS"), 1);
   EXPECT_EQ(mentions(c, "AMGT_STATS"), 1);

   const Config d = parse_config("auto", "z", "9");
   EXPECT_EQ(d.mode, Mode::automatic);
   EXPECT_EQ(d.schedule, kDsh);
   EXPECT_EQ(d.messages.size(), 2u); // bad levels, bad stats
   EXPECT_EQ(mentions(d, "AMGT_LEVELS"), 1);
   EXPECT_EQ(mentions(d, "AMGT_STATS"), 1);

   const Config e = parse_config("bogus", "d", "bogus2");
   EXPECT_EQ(e.mode, Mode::off);
   EXPECT_EQ(e.messages.size(), 2u); // the mode and the stats value
}

TEST(Schedule, PrecisionForLevel)
{
   Config c = parse_config("mixed", "d,s,s,h", nullptr);
   EXPECT_EQ(amgt::precision_for_level(c, -1), Precision::fp64);
   EXPECT_EQ(amgt::precision_for_level(c, 0), Precision::fp64);
   EXPECT_EQ(amgt::precision_for_level(c, 1), Precision::fp32);
   EXPECT_EQ(amgt::precision_for_level(c, 2), Precision::fp32);
   EXPECT_EQ(amgt::precision_for_level(c, 3), Precision::fp16);
   EXPECT_EQ(amgt::precision_for_level(c, 4), Precision::fp16); // past the end: last entry
   EXPECT_EQ(amgt::precision_for_level(c, 100), Precision::fp16);

   const Config s = parse_config("mixed", "h,s", nullptr);
   EXPECT_EQ(amgt::precision_for_level(s, 0), Precision::fp16);
   EXPECT_EQ(amgt::precision_for_level(s, 7), Precision::fp32);

   c.mode = Mode::off;
   EXPECT_EQ(amgt::precision_for_level(c, 3), Precision::fp64);
   c.mode = Mode::fp64;
   EXPECT_EQ(amgt::precision_for_level(c, 3), Precision::fp64);
}

TEST(Schedule, ScheduleToString)
{
   EXPECT_EQ(amgt::schedule_to_string({}), "");
   EXPECT_EQ(amgt::schedule_to_string({Precision::fp32}), "s");
   EXPECT_EQ(amgt::schedule_to_string(kDsh), "d,s,h");
   EXPECT_EQ(amgt::schedule_to_string({Precision::fp64, Precision::fp64, Precision::fp32,
                                       Precision::fp32, Precision::fp16}),
             "d,d,s,s,h");
}

} // namespace

TEST(Schedule, KernelChoices)
{
   Config c = parse_config("fp64", nullptr, nullptr, nullptr, nullptr);
   EXPECT_EQ(c.spgemm, KernelChoice::automatic);
   EXPECT_EQ(c.spmv, KernelChoice::automatic);
   EXPECT_TRUE(c.messages.empty());

   c = parse_config("fp64", nullptr, nullptr, " Stock ", "plugin");
   EXPECT_EQ(c.spgemm, KernelChoice::stock);
   EXPECT_EQ(c.spmv, KernelChoice::plugin);
   EXPECT_TRUE(c.messages.empty());

   c = parse_config("mixed", nullptr, nullptr, "hypre", "auto");
   EXPECT_EQ(c.spgemm, KernelChoice::stock);
   EXPECT_EQ(c.spmv, KernelChoice::automatic);

   c = parse_config("fp64", nullptr, nullptr, "fast", "");
   EXPECT_EQ(c.spgemm, KernelChoice::automatic);
   EXPECT_EQ(c.spmv, KernelChoice::automatic);
   ASSERT_EQ(c.messages.size(), 1u);
   EXPECT_NE(c.messages[0].find("AMGT_SPGEMM=\"fast\""), std::string::npos) << c.messages[0];
   EXPECT_NE(c.messages[0].find("auto, plugin, stock"), std::string::npos) << c.messages[0];

   EXPECT_STREQ(to_string(KernelChoice::automatic), "auto");
   EXPECT_STREQ(to_string(KernelChoice::plugin), "plugin");
   EXPECT_STREQ(to_string(KernelChoice::stock), "stock");
}
