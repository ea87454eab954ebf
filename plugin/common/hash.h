// The one hash of the plugin's open-addressing tables (the hashed CSR->mBSR conversion, the
// mBSR SpGEMM's symbolic phase, the row-wise CSR SpGEMM and its host emulation).
#pragma once

#include "common/config.h"

#include <cstdint>

namespace amgt {

// Fibonacci hashing into 2^log2 slots (1 <= log2 <= 32): the top log2 bits of
// key * 2654435769. The low bits of key * odd depend only on key's low bits: masking them
// would put every key of one residue class mod 2^log2 in one slot, and AMG's columns come in
// strides.
AMGT_HD inline uint32_t fibonacci_slot(int32_t key, int log2)
{
   const uint32_t h = static_cast<uint32_t>(key) * 2654435769u;
   return log2 >= 32 ? h : h >> (32 - log2);
}

} // namespace amgt
