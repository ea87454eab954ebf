// The tensor-core instructions of the SpGEMM's ordered kernel (spgemm_numeric_ordered.cu, which
// describes the fragment layouts and how the kernel fills them). Below sm_80 the same fragment
// semantics run on CUDA cores through shuffles.
#pragma once

#include "spgemm/spgemm_internal.cuh"

#include <cuda_fp16.h>

#include <cstdint>

namespace amgt::device::spgemm_detail {

// D = A * B + C for one m8n8k4 fp64 fragment set (layouts in spgemm_numeric_ordered.cu).
__device__ __forceinline__ void mma_m8n8k4_f64(double a, double b, double c0, double c1,
                                               double& d0, double& d1)
{
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800)
   asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%4, %5};\n"
                : "=d"(d0), "=d"(d1)
                : "d"(a), "d"(b), "d"(c0), "d"(c1));
#else // also the HIP compile check's path (__CUDA_ARCH__ undefined: no mma on AMD)
   // Same semantics on CUDA cores: A(g,k) sits in lane 4g+k, B(k,n) in lane 4n+k.
   const int lane = lane_id(), g = lane >> 2, t = lane & 3;
   double    x0 = c0, x1 = c1;
#pragma unroll
   for (int k = 0; k < 4; ++k)
   {
      const double ak = __shfl_sync(kFullMask, a, 4 * g + k);
      const double b0 = __shfl_sync(kFullMask, b, 4 * (2 * t) + k);
      const double b1 = __shfl_sync(kFullMask, b, 4 * (2 * t + 1) + k);
      x0              = __fma_rn(ak, b0, x0);
      x1              = __fma_rn(ak, b1, x1);
   }
   d0 = x0;
   d1 = x1;
#endif
}

// D = A * B + C for one m16n8k16 fragment set, half operands, fp32 accumulation (layouts in
// spgemm_numeric_ordered.cu; a[1], a[2] are always 0 here but the instruction takes them).
__device__ __forceinline__ void mma_m16n8k16_f16f32(const uint32_t (&a)[4], const uint32_t (&b)[2],
                                                    const float (&c)[4], float (&d)[4])
{
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800)
   asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
                : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]),
                  "f"(c[1]), "f"(c[2]), "f"(c[3]));
#else // also the HIP compile check's path (__CUDA_ARCH__ undefined: no mma on AMD)
   // Same semantics on CUDA cores. A(m, k) sits in lane 4(m%8) + (k%8)/2, register
   // (m >= 8) + 2(k >= 8), half k%2; B(k, n) in lane 4n + (k%8)/2, register k >= 8, half k%2.
   const int lane = lane_id(), g = lane >> 2, n0 = 2 * (lane & 3);
   float     x[4] = {c[0], c[1], c[2], c[3]};
   const auto f = [](uint32_t w, int h) {
      return __half2float(__ushort_as_half(static_cast<unsigned short>(w >> (16 * h))));
   };
#pragma unroll
   for (int k = 0; k < 16; k += 2)
   {
      const int      src = (k & 7) >> 1;
      const uint32_t alo = __shfl_sync(kFullMask, a[k >= 8 ? 2 : 0], 4 * g + src);
      const uint32_t ahi = __shfl_sync(kFullMask, a[k >= 8 ? 3 : 1], 4 * g + src);
      const uint32_t b0  = __shfl_sync(kFullMask, b[k >= 8 ? 1 : 0], 4 * n0 + src);
      const uint32_t b1  = __shfl_sync(kFullMask, b[k >= 8 ? 1 : 0], 4 * (n0 + 1) + src);
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

// Two halves (raw bits) as one f16x2 register, lo in the low 16 bits (the lower k index).
__device__ __forceinline__ uint32_t pack_halves(uint16_t lo, uint16_t hi)
{
   return static_cast<uint32_t>(lo) | (static_cast<uint32_t>(hi) << 16);
}

} // namespace amgt::device::spgemm_detail
