// parse_config / parse_environment: every rule of the run-time selection, including which
// messages appear, that each problem is reported exactly once, and AMGT_STRICT's wording.
#include "precision/schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
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
   // auto's own default floor s,s,h: the finest level's V-cycle SpMVs in fp32 too (its
   // matvecs outside the cycle stay fp64: the planner's rule)
   EXPECT_EQ(c.schedule, (std::vector<Precision>{Precision::fp32, Precision::fp32, Precision::fp16}));
   EXPECT_EQ(amgt::schedule_to_string(c.schedule), "s,s,h");
   EXPECT_TRUE(c.messages.empty()) << c.messages[0];
   EXPECT_STREQ(to_string(c.mode), "auto");
   // the floor per level, as for mixed
   EXPECT_EQ(precision_for_level(c, 0), Precision::fp32);
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
   EXPECT_EQ(amgt::schedule_to_string(d.schedule), "s,s,h"); // auto's default floor
   EXPECT_NE(d.messages[0].find("s,s,h"), std::string::npos) << "names the fallback: " << d.messages[0];
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
   EXPECT_STREQ(to_string(KernelChoice::rows), "rows");

   // rows: AMGT_SPGEMM's opt-in row-wise kernel; not a value of AMGT_SPMV (race is not one of
   // AMGT_SPGEMM's)
   c = parse_config("fp64", nullptr, nullptr, "rows", nullptr);
   EXPECT_EQ(c.spgemm, KernelChoice::rows);
   EXPECT_TRUE(c.messages.empty());
   c = parse_config("fp64", nullptr, nullptr, nullptr, "rows");
   EXPECT_EQ(c.spmv, KernelChoice::automatic);
   ASSERT_EQ(c.messages.size(), 1u);
   EXPECT_NE(c.messages[0].find("AMGT_SPMV=\"rows\""), std::string::npos) << c.messages[0];
   c = parse_config("fp64", nullptr, nullptr, "race", nullptr);
   EXPECT_EQ(c.spgemm, KernelChoice::automatic);
   EXPECT_EQ(c.invalid, 1);
   // the default stays auto
   EXPECT_EQ(parse_config("fp64", nullptr, nullptr).spgemm, KernelChoice::automatic);
}

// parse_environment: every variable the library reads, valid and invalid, the unknown ones,
// and AMGT_STRICT's wording.
namespace {

using amgt::Environment;
using amgt::parse_environment;

// How many messages mention `needle` (outside the anonymous namespace above).
int count_mentions(const Config& c, const std::string& needle)
{
   int n = 0;
   for (const std::string& m : c.messages) n += m.find(needle) != std::string::npos;
   return n;
}

struct VariableCase
{
   const char*              name;
   std::vector<const char*> valid;
   std::vector<const char*> invalid;
   const char*              accepted; // a piece of the accepted values the message must name
};

std::vector<VariableCase> every_variable()
{
   return {
      {"AMGT", {"off", "fp64", "Mixed", " auto "}, {"fp46", "on", "1"}, "off, fp64, mixed, auto"},
      {"AMGT_LEVELS", {"d,s,h", "h", "fp64, fp32"}, {"d,q", "d,,s", "x"}, "d, s, h"},
      {"AMGT_STATS", {"0", "off", "1", "on", "all"}, {"2", "yes"}, "0, off, 1, on, all"},
      {"AMGT_SPGEMM", {"auto", "plugin", "stock", "hypre", "rows", " Rows ", "lean"}, {"fast", "gpu", "race", "row"},
       "auto, plugin, stock, rows, lean)"},
      {"AMGT_SPMV", {"auto", "plugin", "stock", "amgt", "race"}, {"fast", "cpu", "rows"}, "auto, plugin, stock, race)"},
      {"AMGT_LAYOUT", {"auto", "mbsr", "ROWS"}, {"csr", "bsr"}, "auto, mbsr, rows"},
      {"AMGT_DEVICE_MEMORY_LIMIT",
       {"0", "1048576", "64K", "64m", " 2G "},
       {"-5", "lots", "1.5G", "64MB", "99999999999999999999999"},
       "K, M or G"},
      {"AMGT_DEVICE_CACHE", {"0", "256M", "2g"}, {"lots", "-1", "1e9"}, "K, M or G"},
      {"AMGT_STRICT", {"0", "off", "1", "on"}, {"yes", "2"}, "0, off, 1, on"},
      {"AMGT_SETUP_OVERLAP", {"0", "off", "1", "ON"}, {"yes", "2", "beside"}, "0, off, 1, on"},
      {"AMGT_PRELOAD", {"0", "off", "1", "on", "all", "Always", " Plugin "}, {"eager", "2", "hypre"}, "0, off, 1, on, all, always, plugin"},
      {"AMGT_SETUP_SURVEY", {"0", "off", "1", "On"}, {"all", "2"}, "0, off, 1, on"},
      {"AMGT_COST_MODEL", {"0", "off", "1", "on"}, {"never", "2"}, "0, off, 1, on"},
      {"AMGT_SETUP_KERNELS", {"0", "off", "1", "on", "All", " Large "}, {"plugin", "2", "small"}, "large, 1, on, all, 0, off"},
   };
}

TEST(Environment, EveryVariableValidAndInvalid)
{
   for (const VariableCase& v : every_variable())
   {
      for (const char* value : v.valid)
      {
         // AMGT=mixed, so that AMGT_LEVELS applies and gives no note
         Environment env{{v.name, value}};
         if (std::string(v.name) != "AMGT") env.emplace_back("AMGT", "mixed");
         const Config c = parse_environment(env);
         EXPECT_EQ(c.invalid, 0) << v.name << "=" << value;
         EXPECT_TRUE(c.messages.empty()) << v.name << "=" << value << ": " << c.messages[0];
      }
      for (const char* value : v.invalid)
      {
         const Config c = parse_environment({{v.name, value}});
         EXPECT_EQ(c.invalid, 1) << v.name << "=" << value;
         ASSERT_EQ(c.messages.size(), 1u) << v.name << "=" << value;
         const std::string& m = c.messages[0];
         EXPECT_NE(m.find(std::string(v.name) + "=\"" + value + "\""), std::string::npos)
            << "names the variable and the value: " << m;
         EXPECT_NE(m.find(v.accepted), std::string::npos) << "names the accepted values: " << m;
      }
   }
}

TEST(Environment, UnsetOrEmptyIsTheDefault)
{
   const Config c = parse_environment({});
   EXPECT_EQ(c.mode, Mode::off);
   EXPECT_FALSE(c.strict);
   EXPECT_FALSE(c.device_memory_limit.has_value());
   EXPECT_FALSE(c.device_cache.has_value());
   EXPECT_TRUE(c.trace_path.empty());
   EXPECT_TRUE(c.messages.empty());
   EXPECT_EQ(c.invalid, 0);

   Environment empty;
   for (const std::string& name : amgt::library_variables()) empty.emplace_back(name, "");
   const Config e = parse_environment(empty);
   EXPECT_EQ(e.mode, Mode::off);
   EXPECT_FALSE(e.strict);
   EXPECT_FALSE(e.device_memory_limit.has_value());
   EXPECT_FALSE(e.device_cache.has_value());
   EXPECT_TRUE(e.messages.empty()) << e.messages[0];
}

TEST(Environment, DeviceMemoryVariables)
{
   Config c = parse_environment({{"AMGT_DEVICE_MEMORY_LIMIT", "64M"}, {"AMGT_DEVICE_CACHE", "0"}});
   EXPECT_EQ(c.device_memory_limit, size_t{64} << 20);
   EXPECT_EQ(c.device_cache, size_t{0}); // set to 0: not the same as unset
   EXPECT_TRUE(c.messages.empty());

   c = parse_environment({{"AMGT_DEVICE_MEMORY_LIMIT", "-5"}, {"AMGT_DEVICE_CACHE", "lots"}});
   EXPECT_FALSE(c.device_memory_limit.has_value()); // no cap
   EXPECT_FALSE(c.device_cache.has_value());        // the backend's default
   EXPECT_EQ(c.invalid, 2);
   EXPECT_EQ(count_mentions(c, "not capped"), 1);
   EXPECT_EQ(count_mentions(c, "default"), 1);

   EXPECT_EQ(amgt::parse_byte_size("2G"), size_t{2} << 30);
   EXPECT_FALSE(amgt::parse_byte_size("2 G").has_value());
}

TEST(Environment, Trace)
{
   EXPECT_EQ(parse_environment({{"AMGT_TRACE", "/tmp/calls.csv"}}).trace_path, "/tmp/calls.csv");
   EXPECT_TRUE(parse_environment({{"AMGT_TRACE", ""}}).trace_path.empty());
}

TEST(Environment, StatsFile)
{
   // set alone it turns the table on; with AMGT_STATS it only names the destination
   Config c = parse_environment({{"AMGT_STATS_FILE", "/tmp/t.txt"}});
   EXPECT_EQ(c.stats_path, "/tmp/t.txt");
   EXPECT_TRUE(c.stats);
   EXPECT_TRUE(c.messages.empty());
   c = parse_environment({{"AMGT_STATS", "0"}, {"AMGT_STATS_FILE", "/tmp/t.txt"}});
   EXPECT_FALSE(c.stats);
   c = parse_environment({{"AMGT_STATS", "all"}, {"AMGT_STATS_FILE", "t"}});
   EXPECT_TRUE(c.stats && c.stats_all_ranks);
   EXPECT_TRUE(parse_environment({}).stats_path.empty());
}

TEST(Environment, LevelsAreValidatedInEveryMode)
{
   for (const char* mode : {"off", "fp64", "mixed", "auto", "fp46"})
   {
      const Config c = parse_environment({{"AMGT", mode}, {"AMGT_LEVELS", "d,q"}});
      EXPECT_EQ(count_mentions(c, "AMGT_LEVELS=\"d,q\" is not valid"), 1) << mode;
      EXPECT_EQ(c.invalid, std::string(mode) == "fp46" ? 2 : 1) << mode;
   }
   // a valid schedule without mixed/auto is a note, not an error
   for (const char* mode : {"off", "fp64"})
   {
      const Config c = parse_environment({{"AMGT", mode}, {"AMGT_LEVELS", "d,s"}});
      EXPECT_EQ(c.messages.size(), 1u) << mode;
      EXPECT_EQ(c.invalid, 0) << mode;
   }
}

TEST(Environment, UnknownVariables)
{
   Config c = parse_environment({{"AMGT_LEVEL", "d,s,h"}});
   EXPECT_EQ(c.invalid, 1);
   ASSERT_EQ(c.messages.size(), 1u);
   EXPECT_NE(c.messages[0].find("AMGT_LEVEL is set but is not a variable the library reads"),
             std::string::npos)
      << c.messages[0];
   EXPECT_NE(c.messages[0].find("did you mean AMGT_LEVELS?"), std::string::npos) << c.messages[0];
   EXPECT_NE(c.messages[0].find("ignored"), std::string::npos) << c.messages[0];

   // the names in any letter case are the glue's to pass in: a lower-case one is a typo
   c = parse_environment({{"amgt", "fp64"}});
   EXPECT_EQ(c.mode, Mode::off);
   ASSERT_EQ(c.messages.size(), 1u);
   EXPECT_NE(c.messages[0].find("did you mean AMGT?"), std::string::npos) << c.messages[0];

   c = parse_environment({{"AMGT_DEVICE_MEMORY_LIMT", "1G"}, {"AMGT_SPGEM", "plugin"}});
   EXPECT_EQ(c.invalid, 2);
   EXPECT_EQ(count_mentions(c, "did you mean AMGT_DEVICE_MEMORY_LIMIT?"), 1);
   EXPECT_EQ(count_mentions(c, "did you mean AMGT_SPGEMM?"), 1);
   EXPECT_EQ(c.spgemm, KernelChoice::automatic);

   // far from every name: the message lists what the library reads
   c = parse_environment({{"AMGT_SOMETHING_ELSE", "1"}});
   ASSERT_EQ(c.messages.size(), 1u);
   for (const std::string& name : amgt::library_variables())
      EXPECT_NE(c.messages[0].find(" " + name), std::string::npos) << name << ": " << c.messages[0];

   // the scripts' variables are expected in the environment the library runs in
   c = parse_environment({{"AMGT_GPU", "0"},
                          {"AMGT_BUILD_DIR", "/x"},
                          {"AMGT_NEED_PLOTS", "0"},
                          {"AMGT_DATASETS", "/d"},
                          {"AMGT_HYPRE_TARBALL", "/t"}});
   EXPECT_TRUE(c.messages.empty()) << c.messages[0];
   EXPECT_EQ(c.invalid, 0);
}

TEST(Environment, StrictLeavesOutTheFallback)
{
   Config c = parse_environment({{"AMGT", "fp46"}});
   EXPECT_FALSE(c.strict);
   ASSERT_EQ(c.messages.size(), 1u);
   EXPECT_NE(c.messages[0].find("hypre runs stock"), std::string::npos) << c.messages[0];

   c = parse_environment({{"AMGT_STRICT", "1"}, {"AMGT", "fp46"}});
   EXPECT_TRUE(c.strict);
   EXPECT_EQ(c.mode, Mode::off);
   EXPECT_EQ(c.invalid, 1);
   ASSERT_EQ(c.messages.size(), 1u);
   EXPECT_NE(c.messages[0].find("AMGT=\"fp46\""), std::string::npos) << c.messages[0];
   EXPECT_NE(c.messages[0].find("off, fp64, mixed, auto"), std::string::npos) << c.messages[0];
   EXPECT_EQ(c.messages[0].find("stock"), std::string::npos) << "no fallback: " << c.messages[0];

   // strict with a clean environment: nothing to report
   c = parse_environment({{"AMGT_STRICT", "on"}, {"AMGT", "mixed"}, {"AMGT_LEVELS", "d,s"}});
   EXPECT_TRUE(c.strict);
   EXPECT_EQ(c.invalid, 0);
   EXPECT_TRUE(c.messages.empty());

   // a note is not an error under strict either
   c = parse_environment({{"AMGT_STRICT", "1"}, {"AMGT", "fp64"}, {"AMGT_LEVELS", "d,s"}});
   EXPECT_EQ(c.invalid, 0);
   EXPECT_EQ(c.messages.size(), 1u);

   // whoever sets AMGT_STRICT wants it: a bad value counts as on (and as an error)
   c = parse_environment({{"AMGT_STRICT", "yes"}});
   EXPECT_TRUE(c.strict);
   EXPECT_EQ(c.invalid, 1);
   EXPECT_FALSE(parse_environment({{"AMGT_STRICT", "0"}}).strict);
   EXPECT_FALSE(parse_environment({{"AMGT_STRICT", ""}}).strict);

   // unknown variables are errors under strict
   c = parse_environment({{"AMGT_STRICT", "1"}, {"AMGT_LEVEL", "h"}});
   EXPECT_EQ(c.invalid, 1);
   EXPECT_EQ(count_mentions(c, "ignored"), 0);
}

TEST(Environment, LayoutRequest)
{
   EXPECT_EQ(parse_environment({}).layout, amgt::LayoutRequest::automatic);
   EXPECT_EQ(parse_environment({{"AMGT_LAYOUT", "mbsr"}}).layout, amgt::LayoutRequest::mbsr);
   EXPECT_EQ(parse_environment({{"AMGT_LAYOUT", "rows"}}).layout, amgt::LayoutRequest::rows);
   EXPECT_EQ(parse_environment({{"AMGT_LAYOUT", "csr"}}).layout, amgt::LayoutRequest::automatic);
   EXPECT_STREQ(amgt::to_string(amgt::LayoutRequest::rows), "rows");
}

TEST(Environment, Preload)
{
   EXPECT_TRUE(parse_environment({}).preload) << "on by default";
   EXPECT_FALSE(parse_environment({{"AMGT_PRELOAD", "0"}}).preload);
   EXPECT_TRUE(parse_environment({}).preload_images) << "hypre's kernels too by default";
   EXPECT_FALSE(parse_environment({{"AMGT_PRELOAD", "0"}}).preload_images);
   EXPECT_TRUE(parse_environment({{"AMGT_PRELOAD", "on"}}).preload);
   EXPECT_TRUE(parse_environment({{"AMGT_PRELOAD", "all"}}).preload_images);
   const Config plugin = parse_environment({{"AMGT_PRELOAD", "plugin"}});
   EXPECT_TRUE(plugin.preload);
   EXPECT_FALSE(plugin.preload_images) << "the synthetic runs only";
   EXPECT_EQ(plugin.invalid, 0);
   const Config bad = parse_environment({{"AMGT_PRELOAD", "eager"}});
   EXPECT_TRUE(bad.preload) << "an invalid value keeps the default";
   EXPECT_TRUE(bad.preload_images);
   EXPECT_FALSE(bad.preload_always);
   EXPECT_EQ(bad.invalid, 1);
   EXPECT_FALSE(parse_environment({}).preload_always) << "by default it stops at a small first matrix";
   const Config always = parse_environment({{"AMGT_PRELOAD", "always"}});
   EXPECT_TRUE(always.preload && always.preload_images && always.preload_always);
   EXPECT_EQ(always.invalid, 0);
   EXPECT_FALSE(parse_environment({{"AMGT_PRELOAD", "plugin"}}).preload_always);
}

TEST(Environment, CostModel)
{
   EXPECT_TRUE(parse_environment({}).cost_model) << "on by default";
   EXPECT_FALSE(parse_environment({{"AMGT_COST_MODEL", "off"}}).cost_model);
   EXPECT_TRUE(parse_environment({{"AMGT_COST_MODEL", "1"}}).cost_model);
   const Config bad = parse_environment({{"AMGT_COST_MODEL", "never"}});
   EXPECT_TRUE(bad.cost_model) << "an invalid value keeps the default";
   EXPECT_EQ(bad.invalid, 1);
}

TEST(Environment, SetupOverlap)
{
   EXPECT_FALSE(parse_environment({}).setup_overlap) << "off by default";
   EXPECT_FALSE(parse_environment({{"AMGT_SETUP_OVERLAP", "0"}}).setup_overlap);
   EXPECT_FALSE(parse_environment({{"AMGT_SETUP_OVERLAP", "off"}}).setup_overlap);
   EXPECT_TRUE(parse_environment({{"AMGT_SETUP_OVERLAP", "1"}}).setup_overlap);
   const Config bad = parse_environment({{"AMGT_SETUP_OVERLAP", "maybe"}});
   EXPECT_FALSE(bad.setup_overlap) << "an invalid value keeps the default";
   EXPECT_EQ(bad.invalid, 1);
}

TEST(Environment, SetupSurvey)
{
   EXPECT_TRUE(parse_environment({}).setup_survey) << "on by default";
   EXPECT_TRUE(parse_environment({}).setup_kernels) << "the plugin's setup kernels by default";
   EXPECT_TRUE(parse_environment({}).setup_kernels_large) << "from the size floor on by default";
   EXPECT_FALSE(parse_environment({{"AMGT_SETUP_KERNELS", "0"}}).setup_kernels);
   EXPECT_FALSE(parse_environment({{"AMGT_SETUP_KERNELS", "off"}}).setup_kernels);
   for (const char* every : {"1", "on", "all"})
   {
      const Config c = parse_environment({{"AMGT_SETUP_KERNELS", every}});
      EXPECT_TRUE(c.setup_kernels) << every;
      EXPECT_FALSE(c.setup_kernels_large) << every << ": every size";
   }
   const Config large = parse_environment({{"AMGT_SETUP_KERNELS", "large"}});
   EXPECT_TRUE(large.setup_kernels);
   EXPECT_TRUE(large.setup_kernels_large);
   EXPECT_EQ(large.invalid, 0);
   const Config bad_kernels = parse_environment({{"AMGT_SETUP_KERNELS", "small"}});
   EXPECT_TRUE(bad_kernels.setup_kernels) << "an invalid value keeps the default";
   EXPECT_TRUE(bad_kernels.setup_kernels_large);
   EXPECT_EQ(bad_kernels.invalid, 1);
   EXPECT_FALSE(parse_environment({{"AMGT_SETUP_SURVEY", "0"}}).setup_survey);
   EXPECT_FALSE(parse_environment({{"AMGT_SETUP_SURVEY", "off"}}).setup_survey);
   EXPECT_TRUE(parse_environment({{"AMGT_SETUP_SURVEY", "1"}}).setup_survey);
   const Config bad = parse_environment({{"AMGT_SETUP_SURVEY", "later"}});
   EXPECT_TRUE(bad.setup_survey) << "an invalid value keeps the default";
   EXPECT_EQ(bad.invalid, 1);
}

TEST(Environment, LibraryVariables)
{
   const std::vector<std::string>& v = amgt::library_variables();
   for (const char* name : {"AMGT", "AMGT_LEVELS", "AMGT_STATS", "AMGT_SPGEMM", "AMGT_SPMV",
                            "AMGT_TRACE", "AMGT_STATS_FILE", "AMGT_DEVICE_MEMORY_LIMIT",
                            "AMGT_DEVICE_CACHE", "AMGT_STRICT", "AMGT_LAYOUT", "AMGT_SETUP_OVERLAP",
                            "AMGT_PRELOAD", "AMGT_SETUP_SURVEY", "AMGT_RESETUP", "AMGT_COST_MODEL",
                            "AMGT_SETUP_KERNELS"})
   {
      EXPECT_NE(std::find(v.begin(), v.end(), name), v.end()) << name;
   }
   EXPECT_EQ(v.size(), 17u);
}

} // namespace
