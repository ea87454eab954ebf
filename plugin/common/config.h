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

// The most a plugin temporary (the one-pass SpGEMM's, the one-pass conversion's scratch) may
// take of the device memory free at the time (device::mem_get_info): the plugin's scratch must
// not crowd hypre out. A pooled allocator may hold memory mem_get_info counts as used: the
// bound is then conservative, never unsafe; an allocation that still fails takes the path
// without the temporary.
constexpr double kScratchFreeFraction = 0.25;

} // namespace amgt
