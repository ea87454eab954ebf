#include "device/warp_check.h"

#include "common/error.h"

#include <algorithm>

namespace amgt::device {

WarpCheck warp_check_reference(const std::vector<int32_t>& in)
{
   AMGT_REQUIRE(in.size() == static_cast<size_t>(kWarpCheckSize), "warp check: wrong input size");
   const int  n = kWarpCheckSize, W = 32;
   WarpCheck  r;
   const auto sized = [n](auto& v) { v.assign(n, {}); };
   sized(r.shfl), sized(r.shfl_w8), sized(r.shfl_xor), sized(r.shfl_up), sized(r.shfl_down);
   sized(r.shfl_up_w8), sized(r.shfl_double), sized(r.ballot), sized(r.match_any);
   sized(r.reduce_or), sized(r.reduce_max), sized(r.reduce_add), sized(r.scan), sized(r.warp_min);
   sized(r.exchanged), sized(r.block_scan), sized(r.block_total);
   for (int t = 0; t < n; ++t)
   {
      const int lane = t % W, base = t - lane, seg = t - lane % 8;
      r.shfl[t]        = in[base + (7 * lane + 3) % W];
      r.shfl_w8[t]     = in[seg + (lane + 3) % 8];
      r.shfl_xor[t]    = in[base + (lane ^ 5)];
      r.shfl_up[t]     = lane >= 3 ? in[t - 3] : in[t];
      r.shfl_down[t]   = lane + 3 < W ? in[t + 3] : in[t];
      r.shfl_up_w8[t]  = lane % 8 >= 3 ? in[t - 3] : in[t];
      r.shfl_double[t] = in[base + W - 1 - lane] + 0.5;
      r.exchanged[t]   = in[base + (lane + 1) % W];
      uint32_t ballot = 0, match = 0, ror = 0, rmax = 0;
      int32_t  radd = 0, scan = 0, wmin = in[base];
      for (int l = 0; l < W; ++l)
      {
         const int32_t v = in[base + l];
         if (v % 2 != 0) ballot |= 1u << l;
         if (v % 5 == in[t] % 5) match |= 1u << l;
         ror |= 1u << (static_cast<uint32_t>(v) % 32u);
         rmax = std::max(rmax, static_cast<uint32_t>(v));
         radd += v;
         if (l <= lane) scan += v;
         wmin = std::min(wmin, v);
      }
      r.ballot[t] = ballot, r.match_any[t] = match, r.reduce_or[t] = ror, r.reduce_max[t] = rmax;
      r.reduce_add[t] = radd, r.scan[t] = scan, r.warp_min[t] = wmin;
   }
   for (int b = 0; b < kWarpCheckBlocks; ++b)
   {
      const int first = b * kWarpCheckThreads;
      int32_t   sum   = 0;
      for (int i = 0; i < kWarpCheckThreads; ++i)
      {
         r.block_scan[first + i] = sum;
         sum += in[first + i];
      }
      std::fill(r.block_total.begin() + first, r.block_total.begin() + first + kWarpCheckThreads, sum);
   }
   return r;
}

#if !defined(AMGT_WITH_DEVICE_KERNELS)
WarpCheck warp_check_device(const std::vector<int32_t>&, Stream, const Allocator&)
{
   throw Error("warp_check_device: this build has no device kernels", __FILE__, __LINE__);
}
#endif

} // namespace amgt::device
