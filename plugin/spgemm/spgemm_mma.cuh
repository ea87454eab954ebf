// The tensor-core instructions of the SpGEMM's ordered kernel (spgemm_numeric_ordered.cu, which
// describes the fragment layouts and how the kernel fills them). Where the instructions do not
// exist (below sm_80, AMD) the same fragment semantics run on CUDA cores (device/mma.cuh).
#pragma once

#include "spgemm/spgemm_internal.cuh"

#include "device/mma.cuh"

#include <cstdint>

namespace amgt::device::spgemm_detail {

// The fragments' instructions are the device layer's (device/mma.cuh).
using device::mma_m16n8k16_f16f32;
using device::mma_m8n8k4_f64;

// Two halves (raw bits) as one f16x2 register, lo in the low 16 bits (the lower k index).
__device__ __forceinline__ uint32_t pack_halves(uint16_t lo, uint16_t hi)
{
   return static_cast<uint32_t>(lo) | (static_cast<uint32_t>(hi) << 16);
}

} // namespace amgt::device::spgemm_detail
