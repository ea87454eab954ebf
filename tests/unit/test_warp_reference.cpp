// The oracle of the device layer's warp check (device/warp_check.h) on inputs whose answers
// can be written down by hand: in[t] = t (so every value names the lane it came from) and a
// constant input. The GPU test compares the device's primitives with this oracle.
#include "device/warp_check.h"

#include "common/error.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace {

using namespace amgt::device;

std::vector<int32_t> iota_input()
{
   std::vector<int32_t> in(kWarpCheckSize);
   std::iota(in.begin(), in.end(), 0);
   return in;
}

TEST(WarpReference, ShufflesNameTheirSourceLane)
{
   const WarpCheck r = warp_check_reference(iota_input());
   // thread 37: warp 1 (base 32), lane 5
   EXPECT_EQ(r.shfl[37], 32 + (7 * 5 + 3) % 32);  // lane 6
   EXPECT_EQ(r.shfl_w8[37], 32 + (5 + 3) % 8);    // 8-group of lanes 0-7, lane 0
   EXPECT_EQ(r.shfl_xor[37], 32 + (5 ^ 5));       // lane 0
   EXPECT_EQ(r.shfl_up[37], 34);                  // lane 2
   EXPECT_EQ(r.shfl_up[33], 33);                  // lane 1 < 3 keeps its own
   EXPECT_EQ(r.shfl_down[37], 40);
   EXPECT_EQ(r.shfl_down[63], 63);                // lane 31 keeps its own
   EXPECT_EQ(r.shfl_up_w8[42], 42);               // lane 10: 2nd in its 8-group, keeps its own
   EXPECT_EQ(r.shfl_up_w8[44], 41);
   EXPECT_DOUBLE_EQ(r.shfl_double[37], 32 + 26 + 0.5);
   EXPECT_EQ(r.exchanged[63], 32);                // lane 31 reads lane 0
}

TEST(WarpReference, VotesAndReductionsCoverTheWholeWarp)
{
   const WarpCheck r = warp_check_reference(iota_input());
   EXPECT_EQ(r.ballot[70], 0xAAAAAAAAu);  // odd values sit in odd lanes
   EXPECT_EQ(r.match_any[0], 0x42108421u); // lanes 0, 5, 10, ..., 30 (values = 0 mod 5)
   EXPECT_EQ(r.reduce_or[70], 0xFFFFFFFFu);
   EXPECT_EQ(r.reduce_max[70], 95u);       // warp 2: values 64..95
   EXPECT_EQ(r.reduce_add[70], 32 * 64 + 31 * 32 / 2);
   EXPECT_EQ(r.scan[66], 64 + 65 + 66);
   EXPECT_EQ(r.warp_min[95], 64);
}

TEST(WarpReference, BlockScanRestartsInEveryBlock)
{
   const WarpCheck r = warp_check_reference(iota_input());
   EXPECT_EQ(r.block_scan[0], 0);
   EXPECT_EQ(r.block_scan[kWarpCheckThreads], 0);
   EXPECT_EQ(r.block_scan[kWarpCheckThreads + 2], 2 * kWarpCheckThreads + 1);
   const int first = kWarpCheckThreads; // block 1 holds first .. first + threads - 1
   EXPECT_EQ(r.block_total[first + 7], kWarpCheckThreads * first + kWarpCheckThreads * (kWarpCheckThreads - 1) / 2);
}

TEST(WarpReference, ConstantInputGivesFullMasks)
{
   const WarpCheck r = warp_check_reference(std::vector<int32_t>(kWarpCheckSize, 7));
   EXPECT_EQ(r.ballot[3], 0xFFFFFFFFu);
   EXPECT_EQ(r.match_any[3], 0xFFFFFFFFu);
   EXPECT_EQ(r.reduce_or[3], 1u << 7);
   EXPECT_EQ(r.scan[31], 7 * 32);
}

TEST(WarpReference, WrongInputSizeIsAnError)
{
   EXPECT_THROW(warp_check_reference(std::vector<int32_t>(5)), amgt::Error);
}

} // namespace
