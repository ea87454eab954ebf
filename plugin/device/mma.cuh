// Matrix-instruction fragments of the thin device layer: the only place that names a
// vendor's matrix instructions. Two products, each a warp-wide operation on register
// fragments (the layouts are described at each function and used by the SpMV's tensor_core
// kernels and the SpGEMM's ordered kernel):
//   - mma_m8n8k4_f64: D(8x8) = A(8x4) * B(4x8) + C, fp64;
//   - mma_m16n8k16_f16f32: D(16x8) = A(16x16) * B(16x8) + C, f16 operands, fp32 sums.
// AMGT_DEVICE_HAS_MMA says, at compile time, whether the instructions exist: NVIDIA sm_80 and
// later (mma.sync). Everywhere else -- older NVIDIA targets and AMD, where CDNA's MFMA
// instructions have other fragment shapes and are not used yet -- the same fragment semantics
// run on CUDA cores (shuffles and FMAs), so every caller works unchanged; the kernels that
// exist only to use the instructions (the SpMV's tensor_core paths) say in their planners that
// they gain nothing there.
#pragma once

#include "device/fp16.cuh"
#include "device/warp.cuh"

#include <cstdint>

#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800)
#define AMGT_DEVICE_HAS_MMA 1
#else
#define AMGT_DEVICE_HAS_MMA 0
#endif

namespace amgt::device {

// D = A * B + C for one m8n8k4 fp64 fragment set: lane l holds A(l/4, l%4) in a, B(l%4, l/4)
// in b, and C/D(l/4, 2(l%4)) and (l/4, 2(l%4)+1) in c0/d0 and c1/d1.
__device__ __forceinline__ void mma_m8n8k4_f64(double a, double b, double c0, double c1,
                                               double& d0, double& d1)
{
#if AMGT_DEVICE_HAS_MMA
   asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%4, %5};\n"
                : "=d"(d0), "=d"(d1)
                : "d"(a), "d"(b), "d"(c0), "d"(c1));
#else
   // Same semantics on CUDA cores: A(g,k) sits in lane 4g+k, B(k,n) in lane 4n+k.
   const int lane = static_cast<int>(threadIdx.x & (kWarpSize - 1)), g = lane >> 2, t = lane & 3;
   double    x0 = c0, x1 = c1;
#pragma unroll
   for (int k = 0; k < 4; ++k)
   {
      const double ak = shfl(a, 4 * g + k);
      const double b0 = shfl(b, 4 * (2 * t) + k);
      const double b1 = shfl(b, 4 * (2 * t + 1) + k);
      x0              = __fma_rn(ak, b0, x0);
      x1              = __fma_rn(ak, b1, x1);
   }
   d0 = x0;
   d1 = x1;
#endif
}

// D = A * B + C for one m16n8k16 fragment set, half operands (.f16x2 registers, the lower k
// in the low 16 bits), fp32 accumulation; the register layout is in the fallback below.
__device__ __forceinline__ void mma_m16n8k16_f16f32(const uint32_t (&a)[4], const uint32_t (&b)[2],
                                                    const float (&c)[4], float (&d)[4])
{
#if AMGT_DEVICE_HAS_MMA
   asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
                : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]),
                  "f"(c[1]), "f"(c[2]), "f"(c[3]));
#else
   // Same semantics on CUDA cores. A(m, k) sits in lane 4(m%8) + (k%8)/2, register
   // (m >= 8) + 2(k >= 8), half k%2; B(k, n) in lane 4n + (k%8)/2, register k >= 8, half k%2.
   const int lane = static_cast<int>(threadIdx.x & (kWarpSize - 1)), g = lane >> 2, n0 = 2 * (lane & 3);
   float     x[4] = {c[0], c[1], c[2], c[3]};
   const auto f = [](uint32_t w, int h) {
      return __half2float(__ushort_as_half(static_cast<unsigned short>(w >> (16 * h))));
   };
#pragma unroll
   for (int k = 0; k < 16; k += 2)
   {
      const int      src = (k & 7) >> 1;
      const uint32_t alo = shfl(a[k >= 8 ? 2 : 0], 4 * g + src);
      const uint32_t ahi = shfl(a[k >= 8 ? 3 : 1], 4 * g + src);
      const uint32_t b0  = shfl(b[k >= 8 ? 1 : 0], 4 * n0 + src);
      const uint32_t b1  = shfl(b[k >= 8 ? 1 : 0], 4 * (n0 + 1) + src);
#pragma unroll
      for (int h = 0; h < 2; ++h)
      {
         x[0] = __fmaf_rn(f(alo, h), f(b0, h), x[0]);
         x[1] = __fmaf_rn(f(alo, h), f(b1, h), x[1]);
         x[2] = __fmaf_rn(f(ahi, h), f(b0, h), x[2]);
         x[3] = __fmaf_rn(f(ahi, h), f(b1, h), x[3]);
      }
   }
#pragma unroll
   for (int q = 0; q < 4; ++q) d[q] = x[q];
#endif
}

} // namespace amgt::device
