// What the device executor's files share (private to hypre_glue): the stream a call's
// kernels go on, the device memory they allocate from, and the AMGT_STATS timer. The executor
// (backend_device.cpp) and the device measurements (backend_device_measure.cpp) both need
// them; they are defined in backend_device.cpp, beside the allocators they wrap.
#pragma once

#include "backend.h"

#if defined(AMGT_WITH_DEVICE_KERNELS)

#include "device/runtime.h"

#include <chrono>

namespace amgt::glue {

// The plugin's device memory for a call: the side allocator for work beside hypre's setup
// (ctx.side), else hypre's allocator behind the cap and the block cache.
device::Allocator device_allocator(const Context& ctx);

// The stream a call's kernels go on: the plugin's second stream for work beside hypre's
// setup, else hypre's compute stream (the legacy default stream without one).
device::Stream stream_of(const Context& ctx);

// Times a region when AMGT_STATS asks for it; otherwise costs nothing.
class Timer
{
public:
   Timer(const Context& ctx, device::Stream s)
       : on_((ctx.config && ctx.config->stats) || (ctx.stats && ctx.stats->tracing())), s_(s)
   {
      if (on_)
      {
         device::synchronize(s_);
         t0_ = std::chrono::steady_clock::now();
      }
   }
   double seconds()
   {
      if (!on_) return 0.0;
      device::synchronize(s_);
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
   }

private:
   bool                                  on_;
   device::Stream                        s_;
   std::chrono::steady_clock::time_point t0_;
};

} // namespace amgt::glue

#endif
