// The device layer's warp primitives (device/warp.cuh, and the group helpers built on them in
// device/group_ops.cuh) run on fixed inputs, and what a 32-lane plugin warp must give for
// each: the oracle of tests/gpu/test_warp_device.cpp. These primitives are where the two
// backends differ most (on CDNA a plugin warp is half a 64-lane wavefront, ballots are
// shifted halves, match_any is emulated bit by bit), so each one is checked lane by lane.
//
// The launch covers several plugin warps per block and several blocks (on CDNA: both
// halves of several wavefronts). Every lane t (thread index over the whole launch) starts
// from in[t]; lane = t % 32 and base = t - lane below.
#pragma once

#include "device/runtime.h"

#include <cstdint>
#include <vector>

namespace amgt::device {

struct WarpCheck
{
   // One entry per thread of the launch, each the value thread t received.
   std::vector<int32_t>  shfl;        // shfl(in, (7 lane + 3) % 32)
   std::vector<int32_t>  shfl_w8;     // shfl(in, (lane + 3) % 8, width 8): inside lanes' 8-group
   std::vector<int32_t>  shfl_xor;    // shfl_xor(in, 5)
   std::vector<int32_t>  shfl_up;     // shfl_up(in, 3): lanes < 3 keep their own value
   std::vector<int32_t>  shfl_down;   // shfl_down(in, 3): lanes > 28 keep their own value
   std::vector<int32_t>  shfl_up_w8;  // shfl_up(in, 3, width 8), inside the 8-group
   std::vector<double>   shfl_double; // shfl of the double in[t] + 0.5, from lane 31 - lane
   std::vector<uint32_t> ballot;      // ballot(in odd)
   std::vector<uint32_t> match_any;   // match_any(in % 5)
   std::vector<uint32_t> reduce_or;   // reduce_or(1 << (in % 32))
   std::vector<uint32_t> reduce_max;  // reduce_max((unsigned) in)
   std::vector<int32_t>  reduce_add;  // reduce_add(in)
   std::vector<int32_t>  scan;        // group::warp_inclusive_scan(in)
   std::vector<int32_t>  warp_min;    // group::warp_min(in)
   std::vector<int32_t>  exchanged;   // in[base + (lane + 1) % 32] through shared memory and
                                      // sync_warp
   std::vector<int32_t>  block_scan;  // group::block_exclusive_scan(in) over the block
   std::vector<int32_t>  block_total; // its total
};

// Threads per block and blocks of the check's launch: 4 plugin warps per block, 3 blocks.
constexpr int kWarpCheckThreads = 128;
constexpr int kWarpCheckBlocks  = 3;
constexpr int kWarpCheckSize    = kWarpCheckThreads * kWarpCheckBlocks;

// What each thread must receive (32-lane warps, CUDA's semantics). in.size() must be
// kWarpCheckSize (amgt::Error otherwise).
WarpCheck warp_check_reference(const std::vector<int32_t>& in);

// The primitives on the device (the GPU build only; amgt::Error from a build without kernels).
WarpCheck warp_check_device(const std::vector<int32_t>& in, Stream s, const Allocator& a);

} // namespace amgt::device
