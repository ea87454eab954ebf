// Operations on a tile's 16-bit occupancy mask: bit r*4+c is entry (r, c) of the 4x4 tile,
// so row r of the tile is the nibble at bits 4r..4r+3.
#pragma once

#include "common/config.h"

#include <cstdint>

namespace amgt {

AMGT_HD inline int bit_index(int r, int c)
{
   return r * kTileDim + c;
}

AMGT_HD inline bool bit_at(uint16_t m, int r, int c)
{
   return ((m >> bit_index(r, c)) & 1u) != 0;
}

// Portable SWAR popcount (no compiler builtin), identical on host and device.
AMGT_HD inline int tile_popcount(uint16_t m)
{
   uint32_t v = m;
   v          = v - ((v >> 1) & 0x5555u);
   v          = (v & 0x3333u) + ((v >> 2) & 0x3333u);
   v          = (v + (v >> 4)) & 0x0f0fu;
   return static_cast<int>((v + (v >> 8)) & 0x1fu);
}

// Boolean 4x4 product: row r of the result is the OR of B's rows k for which a(r, k) is set.
// It is exactly the symbolic pattern of the tile product, before any value is touched.
AMGT_HD inline uint16_t bitmap_product(uint16_t a, uint16_t b)
{
   uint32_t c = 0;
   for (int r = 0; r < kTileDim; ++r)
   {
      for (int k = 0; k < kTileDim; ++k)
      {
         if (bit_at(a, r, k)) { c |= ((b >> (k * kTileDim)) & 0xfu) << (r * kTileDim); }
      }
   }
   return static_cast<uint16_t>(c);
}

} // namespace amgt
