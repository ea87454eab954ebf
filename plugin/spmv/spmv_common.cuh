// What the SpMV's kernels share (spmv_kernels.cuh, spmv_tensor_kernels.cuh and the plan's
// kernels in spmv_plan.cu): the warp mask, the balanced path's chunk size, and how every
// kernel forms x_j and the final y_i.
//
// Unscaling (unscale != nullptr; every path): x_j * u_j in double (__dmul_rn) replaces x_j
// before its rounding, and the row sum widened to double is multiplied by u_i (__dmul_rn)
// before alpha. Each kernel is a template on Unscale: without it the kernels never load u.
//
// Rounding (common/precision.h): fp64 __fma_rn; fp32 value float, x __double2float_rn, float
// __fmaf_rn; fp16 value half widened to float in registers, x __double2float_rn (float, not
// half: coarse residuals would underflow), float __fmaf_rn. Sums are formed in another order
// than spmv_ref's, so results agree bit for bit only when all partial sums are exact (small
// integers). The final y = alpha*s + beta*y uses __dmul_rn/__dadd_rn so that nvcc cannot
// contract it into an FMA the reference (built with -ffp-contract=off) does not do; beta == 0
// never reads y.
#pragma once

#include "spmv/spmv_device.h"

#include "device/warp.cuh"

#include <cstdint>

namespace amgt::device::spmv_detail {

constexpr unsigned kFull   = kAllLanes; // device/warp.cuh
constexpr int      kBudget = kSpmvBalancedTiles;
static_assert(kBudget % 32 == 0, "a balanced budget is whole steps of 32 tiles");

// x_j before its rounding to the contract's x type: x_j, or x_j * u_j formed in double.
template <bool Unscale>
__device__ inline double x_of(const double* __restrict__ x, const double* __restrict__ us, int64_t j)
{
   if constexpr (Unscale) return __dmul_rn(__ldg(x + j), __ldg(us + j));
   else return __ldg(x + j);
}

// Row sum i as the final combination sees it: widened to double, times u_i in double.
template <bool Unscale>
__device__ inline double row_of(double s, const double* __restrict__ us, int64_t i)
{
   if constexpr (Unscale) return __dmul_rn(s, __ldg(us + i));
   else return s;
}

// y_i = alpha * ax + beta * b_i rounded as the reference rounds it (no contraction); bi points
// at b_i (b is y for hypre's in-place product, else the out-of-place product's b: the kernels
// take it as `yb`, without __restrict__ since it may be y). With beta == 0 b_i is not read, so
// a NaN there does not survive.
__device__ inline double combine(double alpha, double ax, double beta, const double* bi)
{
   const double a = __dmul_rn(alpha, ax);
   return beta == 0.0 ? a : __dadd_rn(a, __dmul_rn(beta, *bi));
}

// What every device SpMV checks and does before its product (spmv, rows_spmv): unscale only
// with a square A; nothing without rows; y must exist, b too unless beta == 0; alpha == 0
// only sets y = beta * b (enqueued on s; x is not read); x must exist unless A has no
// columns. False when y is already final. b is y for the in-place product.
bool spmv_prologue(int32_t nrows, int32_t ncols, double alpha, const double* x, double beta,
                   const double* b, double* y, const double* unscale, Stream s);

} // namespace amgt::device::spmv_detail
