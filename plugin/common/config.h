// Build-wide constants and the host/device annotation for helpers that the CPU reference
// and the CUDA kernels share (bitmap operations, half conversion): one definition, so the
// oracle and the kernels cannot drift apart.
#pragma once

#include <cstddef>

#if defined(__CUDACC__) || defined(__HIPCC__) // nvcc, or hipcc (the HIP build, AMGT_WITH_HIP)
#define AMGT_HD __host__ __device__
#else
#define AMGT_HD
#endif

namespace amgt {

// mBSR tiles are kTileDim x kTileDim; the 16-bit tile bitmap relies on 4 * 4 == 16.
constexpr int kTileDim = 4;
static_assert(kTileDim * kTileDim == 16, "the tile bitmap is one uint16_t");

// The entry of `table` for enumerator e, whose enumerators are 0, 1, ... in table order;
// `other` for a value outside the table (the names of enums, for messages and statistics).
template <class T, std::size_t N, class E>
constexpr T by_enum(E e, const T (&table)[N], T other)
{
   const auto i = static_cast<std::size_t>(e);
   return i < N ? table[i] : other;
}

} // namespace amgt
