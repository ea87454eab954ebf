// Build-wide constants and the host/device annotation for helpers that the CPU reference
// and the CUDA kernels share (bitmap operations, half conversion): one definition, so the
// oracle and the kernels cannot drift apart.
#pragma once

#if defined(__CUDACC__)
#define AMGT_HD __host__ __device__
#else
#define AMGT_HD
#endif

namespace amgt {

// mBSR tiles are kTileDim x kTileDim; the 16-bit tile bitmap relies on 4 * 4 == 16.
constexpr int kTileDim = 4;
static_assert(kTileDim * kTileDim == 16, "the tile bitmap is one uint16_t");

} // namespace amgt
