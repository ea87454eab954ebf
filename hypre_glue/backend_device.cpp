// Device path. The CUDA kernels (plugin/*/ *.cu) are wired in here; until a build carries
// them, device matrices run stock hypre and the plugin says so once.
#include "backend.h"

#include <cstdio>
#include <mutex>

namespace amgt::glue {
namespace {

void say_no_kernels_once()
{
   static std::once_flag once;
   std::call_once(once, [] {
      std::fprintf(stderr, "AMGT: the GPU kernels are not part of this build yet; device "
                           "products run stock hypre (counted as fallbacks in AMGT_STATS)\n");
   });
}

} // namespace

int device_spmv(const Context& ctx, MatrixState& state, const amgt_csr&, double, const double*,
                double, double*)
{
   say_no_kernels_once();
   ctx.stats->fallback(state.level, "no-gpu-kernels");
   return 0;
}

int device_spgemm(const Context& ctx, int level, MatrixState&, const amgt_csr&, MatrixState&,
                  const amgt_csr&, amgt_csr_out&)
{
   say_no_kernels_once();
   ctx.stats->fallback(level, "no-gpu-kernels");
   return 0;
}

} // namespace amgt::glue
