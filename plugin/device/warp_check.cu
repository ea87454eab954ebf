// The warp primitives of the device layer on fixed inputs (see warp_check.h for what each
// output must hold).
#include "device/warp_check.h"

#include "common/error.h"
#include "device/group_ops.cuh"
#include "device/launch.h"
#include "device/warp.cuh"

namespace amgt::device {

namespace {

struct WarpCheckOut
{
   int32_t *shfl, *shfl_w8, *shfl_xor, *shfl_up, *shfl_down, *shfl_up_w8;
   double*   shfl_double;
   uint32_t *ballot, *match_any, *reduce_or, *reduce_max;
   int32_t * reduce_add, *scan, *warp_min, *exchanged, *block_scan, *block_total;
};

__global__ void __launch_bounds__(kWarpCheckThreads) warp_check_kernel(const int32_t* __restrict__ in, WarpCheckOut o)
{
   __shared__ int32_t ex[kWarpCheckThreads];
   __shared__ int     red[32]; // group::block_* take 32 ints
   const int          t    = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
   const int          lane = static_cast<int>(threadIdx.x) & (kWarpSize - 1);
   const int32_t      v    = in[t];

   o.shfl[t]        = shfl(v, (7 * lane + 3) % kWarpSize);
   o.shfl_w8[t]     = shfl(v, (lane + 3) % 8, 8);
   o.shfl_xor[t]    = shfl_xor(v, 5);
   o.shfl_up[t]     = shfl_up(v, 3u);
   o.shfl_down[t]   = shfl_down(v, 3u);
   o.shfl_up_w8[t]  = shfl_up(v, 3u, 8);
   o.shfl_double[t] = shfl(static_cast<double>(v) + 0.5, kWarpSize - 1 - lane);
   o.ballot[t]      = ballot(v % 2 != 0);
   o.match_any[t]   = match_any(v % 5);
   o.reduce_or[t]   = reduce_or(1u << (static_cast<uint32_t>(v) % 32u));
   o.reduce_max[t]  = reduce_max(static_cast<uint32_t>(v));
   o.reduce_add[t]  = reduce_add(v);
   o.scan[t]        = group::warp_inclusive_scan(v);
   o.warp_min[t]    = group::warp_min(v);

   ex[threadIdx.x] = v;
   sync_warp();
   o.exchanged[t] = ex[threadIdx.x - lane + (lane + 1) % kWarpSize];

   int total        = 0;
   o.block_scan[t]  = group::block_exclusive_scan(v, red, total);
   o.block_total[t] = total;
}

} // namespace

WarpCheck warp_check_device(const std::vector<int32_t>& in, Stream s, const Allocator& a)
{
   AMGT_REQUIRE(in.size() == static_cast<size_t>(kWarpCheckSize), "warp check: wrong input size");
   const size_t n = kWarpCheckSize;
   Buffer<int32_t> d_in(n, a), i32(12 * n, a); // the twelve int32 outputs, n each
   Buffer<uint32_t> u32(4 * n, a);
   Buffer<double>   f64(n, a);
   AMGT_DEVICE_CHECK(memcpy_async(d_in.get(), in.data(), n * sizeof(int32_t), Copy::to_device, s));
   int32_t*     i = i32.get();
   uint32_t*    u = u32.get();
   WarpCheckOut o{i,         i + n,     i + 2 * n, i + 3 * n, i + 4 * n, i + 5 * n, f64.get(),
                  u,         u + n,     u + 2 * n, u + 3 * n, i + 6 * n, i + 7 * n, i + 8 * n,
                  i + 9 * n, i + 10 * n, i + 11 * n};
   warp_check_kernel<<<kWarpCheckBlocks, kWarpCheckThreads, 0, s>>>(d_in.get(), o);
   AMGT_DEVICE_CHECK_LAUNCH("warp_check_kernel");

   WarpCheck r;
   const auto get = [&](auto& v, const auto* d) {
      v.resize(n);
      AMGT_DEVICE_CHECK(memcpy_async(v.data(), d, n * sizeof(v[0]), Copy::to_host, s));
   };
   get(r.shfl, o.shfl), get(r.shfl_w8, o.shfl_w8), get(r.shfl_xor, o.shfl_xor);
   get(r.shfl_up, o.shfl_up), get(r.shfl_down, o.shfl_down), get(r.shfl_up_w8, o.shfl_up_w8);
   get(r.shfl_double, o.shfl_double), get(r.ballot, o.ballot), get(r.match_any, o.match_any);
   get(r.reduce_or, o.reduce_or), get(r.reduce_max, o.reduce_max), get(r.reduce_add, o.reduce_add);
   get(r.scan, o.scan), get(r.warp_min, o.warp_min), get(r.exchanged, o.exchanged);
   get(r.block_scan, o.block_scan), get(r.block_total, o.block_total);
   synchronize(s); // the host vectors are complete, the buffers may go
   return r;
}

} // namespace amgt::device
