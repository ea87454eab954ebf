// Launch geometry shared by the plugin's kernels: the one block size of the flat launches
// (one thread, or one group of lanes, per item) and the grid that covers n items with it.
// Kernels whose block size is a property of the kernel (SpGEMM's symbolic and numeric bins)
// compute their own grids.
#pragma once

#include <cstdint>

namespace amgt::device {

// Threads per block of the flat launches, and the __launch_bounds__ of the kernels they start.
constexpr int kThreads = 256;

// Blocks of `threads` threads that cover n threads' worth of work.
inline unsigned blocks_for(int64_t n, int threads = kThreads)
{
   return static_cast<unsigned>((n + threads - 1) / threads);
}

} // namespace amgt::device
