// The device layer's warp primitives (device/warp.cuh, device/group_ops.cuh) against their
// oracle (device/warp_check.h), lane by lane and exactly, on the lane-naming input
// in[t] = t and on random inputs. Written for either vendor: on CDNA each plugin warp is one
// half of a wavefront, and this is where that mapping (shifted ballots, the emulated
// match_any, width-limited shuffles, the wavefront barrier) is checked.
#include "device/warp_check.h"

#include "gpu_test_util.h"

#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace amgt;
using namespace amgt::device;
using namespace amgt::test::gpu;

class WarpDevice : public GpuStreamTest
{
};

template <class T>
void expect_lanes(const std::vector<T>& gpu, const std::vector<T>& want, const std::string& what)
{
   ASSERT_EQ(gpu.size(), want.size()) << what;
   int wrong = 0;
   for (size_t t = 0; t < want.size(); ++t)
   {
      if (gpu[t] != want[t] && ++wrong <= 4)
      {
         ADD_FAILURE() << what << ": thread " << t << " (lane " << t % 32 << ") got " << gpu[t]
                       << ", want " << want[t];
      }
   }
   EXPECT_EQ(wrong, 0) << what << ": lanes that differ";
}

void expect_same(const WarpCheck& g, const WarpCheck& w)
{
   expect_lanes(g.shfl, w.shfl, "shfl");
   expect_lanes(g.shfl_w8, w.shfl_w8, "shfl width 8");
   expect_lanes(g.shfl_xor, w.shfl_xor, "shfl_xor");
   expect_lanes(g.shfl_up, w.shfl_up, "shfl_up");
   expect_lanes(g.shfl_down, w.shfl_down, "shfl_down");
   expect_lanes(g.shfl_up_w8, w.shfl_up_w8, "shfl_up width 8");
   expect_lanes(g.shfl_double, w.shfl_double, "shfl of doubles");
   expect_lanes(g.ballot, w.ballot, "ballot");
   expect_lanes(g.match_any, w.match_any, "match_any");
   expect_lanes(g.reduce_or, w.reduce_or, "reduce_or");
   expect_lanes(g.reduce_max, w.reduce_max, "reduce_max");
   expect_lanes(g.reduce_add, w.reduce_add, "reduce_add");
   expect_lanes(g.scan, w.scan, "warp_inclusive_scan");
   expect_lanes(g.warp_min, w.warp_min, "warp_min");
   expect_lanes(g.exchanged, w.exchanged, "shared memory across sync_warp");
   expect_lanes(g.block_scan, w.block_scan, "block_exclusive_scan");
   expect_lanes(g.block_total, w.block_total, "block_exclusive_scan total");
}

TEST_F(WarpDevice, EveryLaneGetsWhatA32LaneWarpGives)
{
   std::vector<int32_t> in(kWarpCheckSize);
   std::iota(in.begin(), in.end(), 0);
   const WarpCheck want = warp_check_reference(in);
   // the oracle is not the identity: a check that copied its input would fail here
   ASSERT_NE(want.shfl, in);
   expect_same(warp_check_device(in, stream_, runtime_allocator()), want);
}

TEST_F(WarpDevice, RandomInputs)
{
   std::mt19937 rng(20261125);
   for (int round = 0; round < 4; ++round)
   {
      std::vector<int32_t> in(kWarpCheckSize);
      // few distinct values in some rounds, so match_any forms large groups
      const int range = round % 2 == 0 ? 1000 : 3;
      for (auto& v : in) v = static_cast<int32_t>(rng() % range);
      SCOPED_TRACE("round " + std::to_string(round));
      expect_same(warp_check_device(in, stream_, runtime_allocator()), warp_check_reference(in));
   }
}

} // namespace
