// The preload's decision at the application's first assembled matrix (hypre_glue/preload_rule.h):
// pure host code. What the preload then does on the GPU is
// tests/integration/test_driver_modes.cpp (Selection.PreloadStopsAtASmallFirstMatrix).
#include "preload_rule.h"

#include <gtest/gtest.h>

#include <limits>

namespace amgt::glue {
namespace {

TEST(PreloadRule, StopsBelowTheBoundAndGoesOnFromIt)
{
   EXPECT_FALSE(preload_through_assembly(0, false)) << "an empty matrix";
   EXPECT_FALSE(preload_through_assembly(-1, false)) << "a negative count is no size";
   EXPECT_FALSE(preload_through_assembly(kPreloadAssemblyEntries - 1, false));
   EXPECT_TRUE(preload_through_assembly(kPreloadAssemblyEntries, false));
   EXPECT_TRUE(preload_through_assembly(std::numeric_limits<int64_t>::max(), false));
}

TEST(PreloadRule, AlwaysGoesOn)
{
   for (int64_t entries : {int64_t{-1}, int64_t{0}, kPreloadAssemblyEntries - 1, kPreloadAssemblyEntries})
   {
      EXPECT_TRUE(preload_through_assembly(entries, true)) << entries;
   }
}

// The bound lies between the measured cases it was set from (the entries of each matrix on one
// process; bench/RESULTS.md, *First setup of a process*): those whose assembly, first setup
// and solve were slower beside the preload stop, those that gained go on.
TEST(PreloadRule, SeparatesTheMeasuredCases)
{
   for (int64_t lost : {int64_t{49600} /* poisson10000 */, int64_t{87025} /* fv2 */, int64_t{290378} /* bcsstk16 */,
                        int64_t{327680} /* shallow_water1 */})
   {
      EXPECT_FALSE(preload_through_assembly(lost, false)) << lost;
   }
   for (int64_t gained : {int64_t{458964} /* systems3 n=22 */, int64_t{668656} /* laplace7 n=46 */,
                          int64_t{753571} /* laplace27 n=31 */, int64_t{6940000} /* laplace7 n=100 */})
   {
      EXPECT_TRUE(preload_through_assembly(gained, false)) << gained;
   }
}

// What AMGT_STATS says of an early stop: at the matrix with its count and the bound (the GPU
// test Selection.PreloadStopsAtASmallFirstMatrix looks for this text), briefly on a second
// line, and the first setup otherwise.
TEST(PreloadRule, TheStopIsExplained)
{
   const std::string full = preload_stop_reason(true, 53600, false);
   EXPECT_EQ(full.find("stopped at the application's first matrix (53600 entries on this process, fewer than 400000"), 0u)
      << full;
   EXPECT_NE(full.find("AMGT_PRELOAD=always"), std::string::npos) << full;
   const std::string brief = preload_stop_reason(true, 53600, true);
   EXPECT_EQ(brief.find("stopped at the application's first matrix"), 0u) << brief;
   EXPECT_EQ(brief.find("53600"), std::string::npos) << brief;
   const std::string setup = preload_stop_reason(false, 53600, false);
   EXPECT_NE(setup.find("the first setup"), std::string::npos) << setup;
   EXPECT_EQ(setup.find("first matrix"), std::string::npos) << setup;
}

} // namespace
} // namespace amgt::glue
