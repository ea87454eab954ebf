// Tile bitmap operations against naive loops over explicit 4x4 boolean matrices.
#include "mbsr/bitmap.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

namespace {

using amgt::bit_at;
using amgt::bitmap_product;
using amgt::tile_popcount;

using Bool4 = bool[4][4];

void unpack(uint16_t m, Bool4& b)
{
   for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) b[r][c] = (m >> (r * 4 + c)) & 1u;
}

uint16_t naive_product(uint16_t a, uint16_t b)
{
   Bool4 x, y;
   unpack(a, x);
   unpack(b, y);
   uint16_t out = 0;
   for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c)
      {
         bool any = false;
         for (int k = 0; k < 4; ++k) any = any || (x[r][k] && y[k][c]);
         if (any) out |= static_cast<uint16_t>(1u << (r * 4 + c));
      }
   return out;
}

constexpr uint16_t kIdentity = 0x8421; // bits 0, 5, 10, 15: the diagonal
constexpr uint16_t kFull     = 0xffff;

TEST(Bitmap, PopcountAllMasks)
{
   for (uint32_t m = 0; m <= 0xffff; ++m)
   {
      int n = 0;
      for (int b = 0; b < 16; ++b) n += (m >> b) & 1u;
      ASSERT_EQ(tile_popcount(static_cast<uint16_t>(m)), n) << m;
   }
}

TEST(Bitmap, BitAtIsRowMajor)
{
   EXPECT_TRUE(bit_at(0x0001, 0, 0));
   EXPECT_TRUE(bit_at(0x0008, 0, 3));
   EXPECT_TRUE(bit_at(0x0010, 1, 0));
   EXPECT_TRUE(bit_at(0x8000, 3, 3));
   EXPECT_FALSE(bit_at(0x8000, 0, 0));
   for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c)
      {
         EXPECT_TRUE(bit_at(kIdentity, r, c) == (r == c)) << r << "," << c;
         EXPECT_EQ(amgt::bit_index(r, c), r * 4 + c);
      }
}

TEST(Bitmap, ProductSpecialCases)
{
   EXPECT_EQ(naive_product(kIdentity, 0x1234), 0x1234); // the naive oracle itself is sane
   for (uint16_t m :
        {uint16_t{0}, uint16_t{1}, uint16_t{0x1234}, kIdentity, kFull, uint16_t{0x8000}})
   {
      EXPECT_EQ(bitmap_product(kIdentity, m), m);
      EXPECT_EQ(bitmap_product(m, kIdentity), m);
      EXPECT_EQ(bitmap_product(0, m), 0);
      EXPECT_EQ(bitmap_product(m, 0), 0);
   }
   EXPECT_EQ(bitmap_product(kFull, kFull), kFull);
   // Column 0 of A times row 0 of B: the outer product, every entry set.
   EXPECT_EQ(bitmap_product(0x1111, 0x000f), kFull);
   // Row 0 of A times column 0 of B: only entry (0,0).
   EXPECT_EQ(bitmap_product(0x000f, 0x1111), 0x0001);
   // A's nonzero column k meets an empty row k of B: empty product of two nonempty tiles.
   EXPECT_EQ(bitmap_product(0x0002, 0x000f), 0);
   // Strictly upper times strictly upper shifts by two superdiagonals.
   EXPECT_EQ(bitmap_product(0x0842, 0x0842), 0x0084);
}

TEST(Bitmap, ProductMatchesNaiveOnRandomPairs)
{
   std::mt19937 rng(7);
   int          nonzero = 0, zero = 0;
   for (int n = 0; n < 200000; ++n)
   {
      // Vary the density so sparse pairs (often empty products) are well represented.
      uint16_t a = static_cast<uint16_t>(rng()), b = static_cast<uint16_t>(rng());
      if (n % 3 == 1)
      {
         a &= static_cast<uint16_t>(rng());
         b &= static_cast<uint16_t>(rng());
      }
      if (n % 3 == 2)
      {
         a &= static_cast<uint16_t>(rng() & rng());
         b &= static_cast<uint16_t>(rng() & rng());
      }
      const uint16_t c = bitmap_product(a, b);
      ASSERT_EQ(c, naive_product(a, b)) << a << " * " << b;
      (c ? nonzero : zero)++;
   }
   EXPECT_GT(nonzero, 1000);
   EXPECT_GT(zero, 1000);
}

TEST(Bitmap, ProductMatchesNaiveForAllSingleBitPairs)
{
   for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j)
      {
         const uint16_t a = static_cast<uint16_t>(1u << i), b = static_cast<uint16_t>(1u << j);
         // (r,k) * (k',c) is (r,c) iff k == k'.
         const uint16_t expect =
             (i % 4 == j / 4) ? static_cast<uint16_t>(1u << ((i / 4) * 4 + j % 4)) : 0;
         ASSERT_EQ(bitmap_product(a, b), expect) << i << "," << j;
      }
}

} // namespace
