// AMGT_STRICT through the C API, as hypre's side calls it: the first call that reads the
// configuration ends the process with status 2 on any invalid setting, and runs stock
// without AMGT_STRICT. The configuration is read once per process, so every case runs in
// a child (a death test) with its own environment; this process never reads it.
#include "amgt_glue.h"
#include "glue/glue_test_util.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

using amgt::test::child_environment;

// The child: the environment of the case, then the call hypre makes first.
[[noreturn]] void first_call(std::initializer_list<std::pair<const char*, const char*>> env)
{
   child_environment(env);
   const int mode = amgt_glue_mode();
   amgt_glue_mode(); // read once: a second call prints nothing more
   std::exit(mode == AMGT_MODE_OFF ? 0 : 10 + mode);
}

using ::testing::ExitedWithCode;

TEST(GlueStrictDeathTest, InvalidModeStopsWithStatus2)
{
   EXPECT_EXIT(first_call({{"AMGT_STRICT", "1"}, {"AMGT", "fp46"}}), ExitedWithCode(2),
               "AMGT: AMGT=\"fp46\" is not a valid value \\(accepted: off, fp64, mixed, "
               "auto\\)\nAMGT: error: AMGT_STRICT is set .*exit status 2");
}

TEST(GlueStrictDeathTest, WithoutStrictTheSameTypoRunsStock)
{
   EXPECT_EXIT(first_call({{"AMGT", "fp46"}}), ExitedWithCode(0),
               "^AMGT: AMGT=\"fp46\" is not a valid value [^\n]*hypre runs stock\n$");
}

TEST(GlueStrictDeathTest, DeviceVariablesAreValidatedInEveryBuild)
{
   EXPECT_EXIT(first_call({{"AMGT_STRICT", "1"}, {"AMGT", "fp64"}, {"AMGT_DEVICE_MEMORY_LIMIT", "-5"}}),
               ExitedWithCode(2), "AMGT_DEVICE_MEMORY_LIMIT=\"-5\" is not a byte size");
   EXPECT_EXIT(first_call({{"AMGT_STRICT", "1"}, {"AMGT_DEVICE_CACHE", "lots"}}),
               ExitedWithCode(2), "AMGT_DEVICE_CACHE=\"lots\" is not a byte size");
   // lenient: one line each, and the mode is what was asked for
   EXPECT_EXIT(first_call({{"AMGT", "fp64"}, {"AMGT_DEVICE_CACHE", "lots"}}),
               ExitedWithCode(10 + AMGT_MODE_FP64),
               "^AMGT: AMGT_DEVICE_CACHE=\"lots\" is not a byte size [^\n]*\n$");
}

TEST(GlueStrictDeathTest, UnknownVariableIsReportedOnceAndStopsUnderStrict)
{
   EXPECT_EXIT(first_call({{"AMGT", "mixed"}, {"AMGT_LEVEL", "h"}}),
               ExitedWithCode(10 + AMGT_MODE_MIXED),
               "^AMGT: AMGT_LEVEL is set but is not a variable the library reads \\(did you "
               "mean AMGT_LEVELS\\?\\); ignored\n$");
   EXPECT_EXIT(first_call({{"AMGT_STRICT", "1"}, {"AMGT", "mixed"}, {"AMGT_LEVEL", "h"}}),
               ExitedWithCode(2), "did you mean AMGT_LEVELS");
}

TEST(GlueStrictDeathTest, StrictWithAValidEnvironmentRuns)
{
   EXPECT_EXIT(first_call({{"AMGT_STRICT", "1"}, {"AMGT", "mixed"}, {"AMGT_LEVELS", "d,s"},
                           {"AMGT_DEVICE_MEMORY_LIMIT", "64M"}, {"AMGT_GPU", "0"}}),
               ExitedWithCode(10 + AMGT_MODE_MIXED), "^$");
}

} // namespace
