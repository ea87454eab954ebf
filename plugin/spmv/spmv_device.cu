// y = alpha * A * x + beta * y on the GPU for A in mBSR (spmv_device.h): the solve phase.
// spmv() checks the plan against A and enqueues the kernels of the plan's path: no
// allocation, no copy, no synchronisation.
//
// Where each part lives (the design notes of a path are with its kernels):
//   spmv_plan.cu             make_spmv_plan: the packed layout, the lane rules, the automatic
//                            choice of a path, the arrays a path needs
//   spmv_kernels.cuh         the CUDA-core paths (cuda_core, cuda_core_balanced,
//                            cuda_core_tiles, cuda_core_entries)
//   spmv_tensor_kernels.cuh  tensor_core (fp64 mma.m8n8k4, fp16 mma.m16n8k16)
//   spmv_common.cuh          what every kernel shares: x_j, the final combination, rounding
// Timings of the paths: bench/RESULTS.md.
#include "spmv/spmv_device.h"
#include "spmv/spmv_kernels.cuh"
#include "spmv/spmv_tensor_kernels.cuh"

#include "common/error.h"
#include "device/arith.cuh"
#include "device/launch.h"

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace amgt::device {
namespace {

using namespace spmv_detail;

// The packed layout a plan's kernels read: the plan's own arrays, else the matrix's.
template <class V>
const V* packed_values(const DeviceMbsr<V>& A, const SpmvPlan<V>& plan)
{
   return plan.packed_val.size() ? plan.packed_val.get() : A.packed_values();
}
template <class V>
const int64_t* packed_rows(const DeviceMbsr<V>& A, const SpmvPlan<V>& plan)
{
   return plan.row_val.size() ? plan.row_val.get() : A.packed_row.get();
}
template <class V>
const uint16_t* packed_decode(const DeviceMbsr<V>& A, const SpmvPlan<V>& plan)
{
   return plan.entry_meta.size() ? plan.entry_meta.get() : A.packed_meta.get();
}

// Starts the group kernel pick(G) for the plan's group width G: one group of G lanes per block
// row of A, kThreads per block.
template <class V, class Pick, class... Args>
void launch_groups(const char* name, const DeviceMbsr<V>& A, const SpmvPlan<V>& plan, Stream s, Pick pick,
                   Args... args)
{
   with_lanes<4>(plan.group_lanes, [&](auto g) {
      constexpr int G      = decltype(g)::value;
      const auto    kernel = pick(g);
      kernel<<<blocks_for(static_cast<int64_t>(A.block_rows) * G), kThreads, 0, s>>>(args...);
      AMGT_DEVICE_CHECK_LAUNCH(name);
   });
}

template <class V, bool Unscale>
void launch_rows(const DeviceMbsr<V>& A, const SpmvPlan<V>& plan, int32_t long_row_tiles,
                 double alpha, const double* x, const double* us, double beta, const double* yb, double* y, Stream s)
{
   launch_groups("spmv_rows_kernel", A, plan, s,
                 [](auto g) { return spmv_rows_kernel<V, decltype(g)::value, Unscale>; },
                 A.blk_ptr.get(), A.blk_col.get(), A.blk_map.get(), as_bits(packed_values(A, plan)),
                 packed_rows(A, plan), A.block_rows, A.nrows, long_row_tiles, alpha, x, us, beta, yb, y);
}

template <class V, bool Unscale>
void launch_tiles(const DeviceMbsr<V>& A, const SpmvPlan<V>& plan, double alpha, const double* x,
                  const double* us, double beta, const double* yb, double* y, Stream s)
{
   launch_groups("spmv_tiles_kernel", A, plan, s,
                 [](auto g) { return spmv_tiles_kernel<V, decltype(g)::value, Unscale>; },
                 A.blk_ptr.get(), A.blk_col.get(), A.blk_map.get(), as_bits(packed_values(A, plan)),
                 packed_rows(A, plan), A.block_rows, A.nrows, alpha, x, us, beta, yb, y);
}

template <class V, bool Unscale>
void launch_entries(const DeviceMbsr<V>& A, const SpmvPlan<V>& plan, double alpha, const double* x,
                    const double* us, double beta, const double* yb, double* y, Stream s)
{
   launch_groups("spmv_entries_kernel", A, plan, s,
                 [](auto g) { return spmv_entries_kernel<V, decltype(g)::value, Unscale>; },
                 A.blk_ptr.get(), A.blk_col.get(), as_bits(packed_values(A, plan)), packed_decode(A, plan),
                 packed_rows(A, plan), A.block_rows, A.nrows, alpha, x, us, beta, yb, y);
}

// The path's kernels, with (Unscale) or without the unscale vector us; false instantiates
// kernels that never read it.
template <class V, bool Unscale>
void run_spmv(const DeviceMbsr<V>& A, const SpmvPlan<V>& plan, double alpha, const double* x,
              const double* us, double beta, const double* yb, double* y, Stream s)
{
   using Acc = typename SpmvTraits<V>::acc_t;
   switch (plan.path)
   {
   case SpmvPath::cuda_core:
      launch_rows<V, Unscale>(A, plan, std::numeric_limits<int32_t>::max(), alpha, x, us, beta, yb, y, s);
      return;
   case SpmvPath::cuda_core_tiles:
      launch_tiles<V, Unscale>(A, plan, alpha, x, us, beta, yb, y, s);
      return;
   case SpmvPath::cuda_core_entries:
      launch_entries<V, Unscale>(A, plan, alpha, x, us, beta, yb, y, s);
      return;
   case SpmvPath::cuda_core_balanced:
      // Short rows (and empty ones) straight to y; long rows by chunks, then combined.
      launch_rows<V, Unscale>(A, plan, kSpmvBalancedTiles, alpha, x, us, beta, yb, y, s);
      if (plan.num_chunks > 0)
      {
         spmv_chunks_kernel<V, Unscale><<<blocks_for(plan.num_chunks * 32), kThreads, 0, s>>>(
            A.blk_ptr.get(), A.blk_col.get(), A.blk_map.get(), as_bits(packed_values(A, plan)),
            plan.chunk_row.get(), plan.chunk_tile.get(), plan.chunk_val.get(), plan.num_chunks, x, us,
            plan.partial.get());
         AMGT_DEVICE_CHECK_LAUNCH("spmv_chunks_kernel");
         spmv_long_rows_kernel<Acc, Unscale><<<blocks_for(int64_t{plan.num_long_rows} * 32), kThreads, 0, s>>>(
            A.blk_ptr.get(), plan.long_row.get(), plan.long_chunk.get(), plan.num_long_rows, A.nrows,
            plan.partial.get(), alpha, us, beta, yb, y);
         AMGT_DEVICE_CHECK_LAUNCH("spmv_long_rows_kernel");
      }
      return;
   case SpmvPath::tensor_core:
      if constexpr (std::is_same_v<V, double>)
      {
         constexpr int64_t rows_per_warp = 2 * kTensorPairs;
         spmv_tensor_kernel<kTensorPairs, 4 / kTensorPairs, Unscale>
            <<<blocks_for((int64_t{A.block_rows} + rows_per_warp - 1) / rows_per_warp * 32), kThreads, 0, s>>>(
               A.blk_ptr.get(), A.blk_col.get(), A.blk_val.get(), A.block_rows, A.nrows, A.ncols,
               alpha, x, us, beta, yb, y);
         AMGT_DEVICE_CHECK_LAUNCH("spmv_tensor_kernel");
         return;
      }
      else if constexpr (std::is_same_v<V, half_t>)
      {
         spmv_tensor_h_kernel<kTensorHalfSteps, Unscale>
            <<<blocks_for((int64_t{A.block_rows} + 3) / 4 * 32), kThreads, 0, s>>>(
               A.blk_ptr.get(), A.blk_col.get(), as_bits(A.blk_val.get()), A.block_rows, A.nrows,
               A.ncols, alpha, x, us, beta, yb, y);
         AMGT_DEVICE_CHECK_LAUNCH("spmv_tensor_h_kernel");
         return;
      }
      break;
   case SpmvPath::automatic:
      break;
   }
   AMGT_THROW(std::string("spmv: the plan holds no runnable path (") + to_string(plan.path) + ")");
}

} // namespace

bool spmv_detail::spmv_prologue(int32_t nrows, int32_t ncols, double alpha, const double* x, double beta,
                                const double* b, double* y, const double* unscale, Stream s)
{
   AMGT_REQUIRE(unscale == nullptr || nrows == ncols, "spmv: unscale needs a square matrix");
   if (nrows == 0) return false;
   AMGT_REQUIRE(y != nullptr, "spmv: y is null");
   AMGT_REQUIRE(b != nullptr || beta == 0.0, "spmv: b is null with beta != 0");
   if (alpha == 0.0)
   {
      spmv_detail::scale_kernel<<<blocks_for(nrows), kThreads, 0, s>>>(nrows, beta, b, y);
      AMGT_DEVICE_CHECK_LAUNCH("scale_kernel");
      return false;
   }
   AMGT_REQUIRE(x != nullptr || ncols == 0, "spmv: x is null");
   return true;
}

template <class V>
void spmv(const DeviceMbsr<V>& A, const SpmvPlan<V>& plan, double alpha, const double* x,
          double beta, double* y, Stream s, const double* unscale, const double* b)
{
   AMGT_REQUIRE(plan.nrows == A.nrows && plan.ncols == A.ncols && plan.block_rows == A.block_rows &&
                    plan.num_tiles == A.num_tiles,
                "spmv: the plan was made for a matrix of another shape");
   if (b == nullptr) b = y;
   if (!spmv_detail::spmv_prologue(A.nrows, A.ncols, alpha, x, beta, b, y, unscale, s)) return;
   if (unscale != nullptr) run_spmv<V, true>(A, plan, alpha, x, unscale, beta, b, y, s);
   else run_spmv<V, false>(A, plan, alpha, x, nullptr, beta, b, y, s);
}

template void spmv<double>(const DeviceMbsr<double>&, const SpmvPlan<double>&, double,
                          const double*, double, double*, Stream, const double*, const double*);
template void spmv<float>(const DeviceMbsr<float>&, const SpmvPlan<float>&, double, const double*,
                         double, double*, Stream, const double*, const double*);
template void spmv<half_t>(const DeviceMbsr<half_t>&, const SpmvPlan<half_t>&, double,
                          const double*, double, double*, Stream, const double*, const double*);

} // namespace amgt::device
