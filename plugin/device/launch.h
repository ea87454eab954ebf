// Launch geometry shared by the plugin's kernels: the one block size of the flat launches
// (one thread, or one group of lanes, per item) and the grid that covers n items with it.
// Kernels whose block size is a property of the kernel (SpGEMM's symbolic and numeric bins)
// compute their own grids.
#pragma once

#include "common/error.h"

#include <cstdint>
#include <type_traits>

namespace amgt::device {

// Threads per block of the flat launches, and the __launch_bounds__ of the kernels they start.
constexpr int kThreads = 256;

// Blocks of `threads` threads that cover n threads' worth of work.
inline unsigned blocks_for(int64_t n, int threads = kThreads)
{
   return static_cast<unsigned>((n + threads - 1) / threads);
}

// The entries of a mean row, rounded up (rows > 0): what the kernels' widths are chosen by.
inline int64_t mean_row(int64_t entries, int64_t rows) { return (entries + rows - 1) / rows; }

// A group of lanes a row with one lane per entry of a mean row: 4, 8, 16 or 32 (rows > 0).
inline int32_t lanes_per_entry(int64_t entries, int64_t rows)
{
   const int64_t mean = mean_row(entries, rows);
   return mean <= 4 ? 4 : mean <= 8 ? 8 : mean <= 16 ? 16 : 32;
}

// Calls f(std::integral_constant<int, G>{}) for lanes == G, a power of two from MinLanes to 32:
// the group kernels are templates on their width. Any other width is a caller's bug.
template <int MinLanes, class F>
void with_lanes(int32_t lanes, F&& f)
{
   static_assert(MinLanes >= 1 && MinLanes <= 32 && (MinLanes & (MinLanes - 1)) == 0,
                 "the narrowest group is a power of two up to a warp");
   bool done = false;
   auto one  = [&](auto g) {
      if constexpr (decltype(g)::value >= MinLanes)
      {
         if (!done && lanes == decltype(g)::value)
         {
            f(g);
            done = true;
         }
      }
   };
   one(std::integral_constant<int, 1>{});
   one(std::integral_constant<int, 2>{});
   one(std::integral_constant<int, 4>{});
   one(std::integral_constant<int, 8>{});
   one(std::integral_constant<int, 16>{});
   one(std::integral_constant<int, 32>{});
   AMGT_REQUIRE(done, "invalid group width for a group kernel");
}

} // namespace amgt::device
