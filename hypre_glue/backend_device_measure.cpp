// The device measurements the planner reads (backend.h): value statistics, the largest
// |col - row|, the fill sample, and the setup survey that takes them for a whole hierarchy with
// one read-back each. They read hypre's device arrays in place and keep nothing on the device,
// so they need only the executor's stream and memory (backend_device_internal.h), not its
// device copies.
#include "backend.h"
#include "backend_device_internal.h"

#if defined(AMGT_WITH_DEVICE_KERNELS)

#include "precision/range_device.h"
#include "rows/rows_device.h"

#include <vector>

namespace amgt::glue {

namespace {

// The planner's form of a device fill sample.
FillSample sample_of(const device::FillEstimate& e)
{
   return FillSample{e.fill(), e.max_span, e.row_cv()};
}

} // namespace

ValueStats device_value_stats(const Context& ctx, const amgt_csr& a, bool with_scaled, bool likely_tiny)
{
   return device::value_stats(view_of(a), stream_of(ctx), device_allocator(ctx), with_scaled, likely_tiny);
}

int64_t device_max_span(const Context& ctx, const amgt_csr& a)
{
   return device::max_span(view_of(a), stream_of(ctx), device_allocator(ctx));
}

int device_survey(const Context& ctx, const std::vector<SurveyItem>& items)
{
   std::vector<CsrView> stats_of, fill_of;
   std::vector<bool>    coarse;
   for (const SurveyItem& it : items)
   {
      if (it.stats)
      {
         stats_of.push_back(view_of(it.a));
         coarse.push_back(it.coarse);
      }
      if (it.fill) fill_of.push_back(view_of(it.a));
   }
   const device::Stream    s   = stream_of(ctx);
   const device::Allocator mem = device_allocator(ctx);
   Timer                   timer(ctx, s); // AMGT_STATS
   // both enqueued before either is read back would save one more round trip, but each
   // function owns its buffers until its read-back: two of them for a whole hierarchy
   const std::vector<ValueStats>           st = device::plain_value_stats(stats_of, coarse, s, mem);
   const std::vector<device::FillEstimate> fe = device::estimate_fills(fill_of, s, mem);
   size_t i_st = 0, i_fe = 0;
   for (const SurveyItem& it : items)
   {
      const CsrKey key = key_of(it.a, ctx.epoch);
      if (it.stats)
      {
         it.state->value_stats = st[i_st++];
         it.state->stats_key   = key;
      }
      if (it.fill)
      {
         it.state->fill_sample = sample_of(fe[i_fe++]);
         it.state->fill_key    = key;
      }
   }
   const int readbacks = (stats_of.empty() ? 0 : 1) + (fill_of.empty() ? 0 : 1);
   ctx.stats->survey(static_cast<int>(items.size()), readbacks, timer.seconds());
   return readbacks;
}

FillSample device_fill_sample(const Context& ctx, const amgt_csr& a)
{
   return sample_of(device::estimate_fill(view_of(a), stream_of(ctx), device_allocator(ctx)));
}

} // namespace amgt::glue

#else // CPU-only build: no device kernels in this library

#include "common/error.h"

namespace amgt::glue {

ValueStats device_value_stats(const Context&, const amgt_csr&, bool, bool)
{
   AMGT_THROW("device arrays in a build without the plugin's GPU kernels");
}

int64_t device_max_span(const Context&, const amgt_csr&)
{
   AMGT_THROW("device arrays in a build without the plugin's GPU kernels");
}

FillSample device_fill_sample(const Context&, const amgt_csr&)
{
   AMGT_THROW("device arrays in a build without the plugin's GPU kernels");
}

int device_survey(const Context&, const std::vector<SurveyItem>&)
{
   return 0; // no device measurements: each matrix goes to the stand-in (device_prepare)
}

} // namespace amgt::glue

#endif
