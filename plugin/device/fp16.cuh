// Half precision of the thin device layer: the vendor's __half type and its conversions
// (__half2float, __float2half_rn, __ushort_as_half, __half_as_ushort have the same names and
// rounding under CUDA and HIP), plus double_to_half, which HIP 5.x lacks as __double2half.
#pragma once

#include "device/backend.h"

#if defined(AMGT_DEVICE_HIP)
#include <hip/hip_fp16.h>
#else
#include <cuda_fp16.h>
#endif

namespace amgt::device {

// One rounding, to nearest even, from double (not via float: double -> float -> half can
// round twice).
__device__ __forceinline__ __half double_to_half(double x)
{
#if defined(AMGT_DEVICE_HIP)
   __half_raw r; // clang's double -> _Float16 conversion is one IEEE rounding
   r.data = static_cast<_Float16>(x);
   return r;
#else
   return __double2half(x);
#endif
}

} // namespace amgt::device
