// AMGT_SPMV=auto's memory of its races (hypre_glue/race_memory.h).
#include "race_memory.h"

#include <gtest/gtest.h>

namespace {

using amgt::Precision;
using amgt::glue::RaceKey;
using amgt::glue::RaceMemory;

RaceKey key(int level, int role, int64_t rows, int64_t nnz, Precision p = Precision::fp64, bool scaled = false)
{
   RaceKey k;
   k.level     = level;
   k.role      = role;
   k.nrows     = rows;
   k.nnz       = nnz;
   k.precision = p;
   k.scaled    = scaled;
   return k;
}

TEST(RaceMemory, RemembersTheOutcomeForTheSameClassAndSize)
{
   RaceMemory m;
   EXPECT_FALSE(m.find(key(1, 1, 81733, 2000000)).has_value());
   m.record(key(1, 1, 81733, 2000000), false);
   m.record(key(0, 1, 1000000, 26000000), true);
   ASSERT_TRUE(m.find(key(1, 1, 81766, 2001000)).has_value()) << "a rerun's grid differs by a few rows";
   EXPECT_FALSE(*m.find(key(1, 1, 81766, 2001000)));
   EXPECT_TRUE(*m.find(key(0, 1, 1000000, 26000000)));
}

TEST(RaceMemory, ForgetsNothingAcrossClassesAndRefusesOtherSizes)
{
   RaceMemory m;
   m.record(key(1, 1, 80000, 2000000), false);
   EXPECT_FALSE(m.find(key(1, 2, 80000, 2000000)).has_value()) << "other role";
   EXPECT_FALSE(m.find(key(2, 1, 80000, 2000000)).has_value()) << "other level";
   EXPECT_FALSE(m.find(key(1, 1, 80000, 2000000, Precision::fp32)).has_value()) << "other precision";
   EXPECT_FALSE(m.find(key(1, 1, 80000, 2000000, Precision::fp64, true)).has_value()) << "scaled";
   EXPECT_FALSE(m.find(key(1, 1, 100000, 2000000)).has_value()) << "25% more rows";
   EXPECT_FALSE(m.find(key(1, 1, 80000, 1500000)).has_value()) << "25% fewer entries";
   EXPECT_TRUE(m.find(key(1, 1, 87000, 2150000)).has_value()) << "within 10%";
}

TEST(RaceMemory, ALaterRaceReplacesTheRecordAndUntaggedMatricesAreNotKept)
{
   RaceMemory m;
   m.record(key(3, 1, 1000, 20000), false);
   m.record(key(3, 1, 1010, 20100), true);
   EXPECT_EQ(m.size(), 1u);
   EXPECT_TRUE(*m.find(key(3, 1, 1000, 20000)));
   m.record(key(-1, 0, 1000, 20000), true);
   EXPECT_EQ(m.size(), 1u);
   EXPECT_FALSE(m.find(key(-1, 0, 1000, 20000)).has_value());
   m.clear();
   EXPECT_EQ(m.size(), 0u);
}

} // namespace
