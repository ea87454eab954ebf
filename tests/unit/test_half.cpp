// Software binary16: decoding checked against the IEEE formula for all 65536 patterns,
// encoding checked to be round-to-nearest-even directly from double.
#include "common/half.h"
#include "common/precision.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

namespace {

using amgt::half_from_double;
using amgt::half_from_float;
using amgt::half_t;
using amgt::half_to_double;
using amgt::half_to_float;

uint16_t h(double d)
{
   return half_from_double(d).bits;
}

bool is_nan_bits(uint16_t b)
{
   return (b & 0x7c00u) == 0x7c00u && (b & 0x03ffu) != 0;
}

double from_bits64(uint64_t b)
{
   double d;
   std::memcpy(&d, &b, sizeof d);
   return d;
}

// Independent decoding straight from the IEEE 754 definition.
double ieee_value(uint16_t b)
{
   const int    sign = (b >> 15) & 1;
   const int    exp  = (b >> 10) & 0x1f;
   const int    frac = b & 0x3ff;
   const double mag  = exp == 0 ? std::ldexp(frac, -24) : std::ldexp(1.0 + frac / 1024.0, exp - 15);
   return sign ? -mag : mag;
}

TEST(Half, DecodesEveryFinitePatternExactly)
{
   int finite = 0;
   for (uint32_t b = 0; b <= 0xffff; ++b)
   {
      const uint16_t bits = static_cast<uint16_t>(b);
      if (((bits >> 10) & 0x1f) == 0x1f) continue;
      ++finite;
      const double expect = ieee_value(bits);
      ASSERT_EQ(half_to_double(half_t{bits}), expect) << std::hex << b;
      ASSERT_EQ(static_cast<double>(half_to_float(half_t{bits})), expect) << std::hex << b;
      ASSERT_EQ(std::signbit(half_to_double(half_t{bits})), (bits & 0x8000) != 0) << std::hex << b;
   }
   EXPECT_EQ(finite, 2 * 31 * 1024);
}

TEST(Half, EveryPatternRoundTrips)
{
   for (uint32_t b = 0; b <= 0xffff; ++b)
   {
      const uint16_t bits       = static_cast<uint16_t>(b);
      const uint16_t via_double = half_from_double(half_to_double(half_t{bits})).bits;
      const uint16_t via_float  = half_from_float(half_to_float(half_t{bits})).bits;
      if (is_nan_bits(bits))
      {
         // Payload and sign survive; a signalling NaN comes back quiet.
         ASSERT_EQ(via_double, bits | 0x0200u) << std::hex << b;
         ASSERT_EQ(via_float, bits | 0x0200u) << std::hex << b;
      }
      else
      {
         ASSERT_EQ(via_double, bits) << std::hex << b;
         ASSERT_EQ(via_float, bits) << std::hex << b;
      }
   }
}

TEST(Half, KnownValues)
{
   EXPECT_EQ(h(1.0), 0x3c00);
   EXPECT_EQ(h(-2.0), 0xc000);
   EXPECT_EQ(h(0.5), 0x3800);
   EXPECT_EQ(h(0.0), 0x0000);
   EXPECT_EQ(h(-0.0), 0x8000);
   EXPECT_EQ(h(amgt::kHalfMax), 0x7bff);
   EXPECT_EQ(h(amgt::kHalfMinNormal), 0x0400);
   EXPECT_EQ(half_to_double(half_t{0x7bff}), amgt::kHalfMax);
   EXPECT_EQ(half_to_double(half_t{0x0400}), amgt::kHalfMinNormal);
   EXPECT_EQ(half_to_double(half_t{0x0001}), std::ldexp(1.0, -24));
   EXPECT_EQ(half_to_double(half_t{0x03ff}), std::ldexp(1023.0, -24));
   EXPECT_EQ(half_to_float(half_t{0x3555}), 0.333251953125f);
}

TEST(Half, TiesRoundToEven)
{
   // Spacing is 2 in [2048, 4096).
   EXPECT_EQ(half_to_double(half_from_double(2049.0)), 2048.0);
   EXPECT_EQ(half_to_double(half_from_double(2050.0)), 2050.0);
   EXPECT_EQ(half_to_double(half_from_double(2051.0)), 2052.0);
   EXPECT_EQ(half_to_double(half_from_double(-2049.0)), -2048.0);
   EXPECT_EQ(half_to_double(half_from_double(-2051.0)), -2052.0);
   // Spacing is 2^-10 in [1, 2).
   EXPECT_EQ(h(1.0 + std::ldexp(1.0, -11)), 0x3c00);
   EXPECT_EQ(h(1.0 + 3 * std::ldexp(1.0, -11)), 0x3c02);
   // Just off a tie goes to the nearer neighbour.
   EXPECT_EQ(h(std::nextafter(2049.0, 0.0)), h(2048.0));
   EXPECT_EQ(h(std::nextafter(2049.0, 4096.0)), h(2050.0));
   EXPECT_EQ(h(std::nextafter(2051.0, 0.0)), h(2050.0));
}

TEST(Half, OverflowsToInfinityFrom65520)
{
   EXPECT_EQ(h(65504.0), 0x7bff);
   EXPECT_EQ(h(65519.0), 0x7bff);
   EXPECT_EQ(h(std::nextafter(65520.0, 0.0)), 0x7bff);
   EXPECT_EQ(h(65520.0), 0x7c00); // the tie rounds to even, which is past the largest finite
   EXPECT_EQ(h(-65520.0), 0xfc00);
   EXPECT_EQ(h(1.0e10), 0x7c00);
   EXPECT_EQ(h(std::numeric_limits<double>::max()), 0x7c00);
   EXPECT_EQ(h(std::numeric_limits<double>::infinity()), 0x7c00);
   EXPECT_EQ(h(-std::numeric_limits<double>::infinity()), 0xfc00);
   EXPECT_TRUE(std::isinf(half_to_float(half_t{0x7c00})));
   EXPECT_LT(half_to_float(half_t{0xfc00}), 0.0f);
   EXPECT_EQ(half_from_float(65520.0f).bits, 0x7c00);
}

TEST(Half, GradualUnderflow)
{
   const double tiny = std::ldexp(1.0, -24); // smallest subnormal
   EXPECT_EQ(h(tiny), 0x0001);
   EXPECT_EQ(h(tiny / 2), 0x0000); // tie between 0 and 1: even is 0
   EXPECT_EQ(h(std::nextafter(tiny / 2, 1.0)), 0x0001);
   EXPECT_EQ(h(-std::nextafter(tiny / 2, 1.0)), 0x8001);
   EXPECT_EQ(h(1.5 * tiny), 0x0002);
   EXPECT_EQ(h(2.5 * tiny), 0x0002);
   EXPECT_EQ(h(1023 * tiny), 0x03ff);
   EXPECT_EQ(h(1023.5 * tiny), 0x0400); // rounds up into the smallest normal
   EXPECT_EQ(h(std::nextafter(1023.5 * tiny, 0.0)), 0x03ff);
   EXPECT_EQ(h(1.0e-30), 0x0000);
   EXPECT_EQ(h(-1.0e-30), 0x8000);
   EXPECT_EQ(h(std::numeric_limits<double>::denorm_min()), 0x0000);
   EXPECT_EQ(h(-std::numeric_limits<double>::denorm_min()), 0x8000);
   EXPECT_EQ(half_from_float(std::ldexp(1.0f, -25)).bits, 0x0000);
   EXPECT_EQ(half_from_float(std::ldexp(3.0f, -25)).bits, 0x0002);
}

TEST(Half, NaNStaysNaN)
{
   const double qnan = std::numeric_limits<double>::quiet_NaN();
   EXPECT_TRUE(is_nan_bits(h(qnan)));
   EXPECT_TRUE(is_nan_bits(h(-qnan)));
   EXPECT_EQ(h(-qnan) & 0x8000u, 0x8000u);
   EXPECT_EQ(h(qnan) & 0x8000u, 0x0000u);
   // Payload only in bits that half drops: must not collapse to infinity.
   EXPECT_TRUE(is_nan_bits(h(from_bits64(0x7ff0000000000001ull))));
   EXPECT_TRUE(is_nan_bits(half_from_float(std::numeric_limits<float>::quiet_NaN()).bits));
   EXPECT_TRUE(std::isnan(half_to_float(half_t{0x7e00})));
   EXPECT_TRUE(std::isnan(half_to_double(half_t{0x7c01})));
}

// The case the direct conversion exists for: double -> float rounds 1 + 2^-11 + 2^-40 onto the
// half tie 1 + 2^-11, which then rounds to even (1.0); the value is above the tie, so the
// correctly rounded half is 1 + 2^-10.
TEST(Half, DirectFromDoubleAvoidsDoubleRounding)
{
   const double   d         = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
   const uint16_t direct    = half_from_double(d).bits;
   const uint16_t via_float = half_from_float(static_cast<float>(d)).bits;
   EXPECT_EQ(direct, 0x3c01);
   EXPECT_EQ(via_float, 0x3c00);
   EXPECT_NE(direct, via_float);
}

// Nearest-even property on many doubles with full 52-bit significands across the whole half
// range (subnormal to overflow threshold), and on exact midpoints.
TEST(Half, RandomDoublesRoundToNearestEven)
{
   std::mt19937_64                    rng(2024);
   std::uniform_int_distribution<int> exp(-27, 15);
   int                                checked = 0, ties = 0;
   for (int n = 0; n < 200000; ++n)
   {
      const uint64_t frac = rng() & ((uint64_t{1} << 52) - 1);
      double         d    = std::ldexp(1.0 + std::ldexp(static_cast<double>(frac), -52), exp(rng));
      if (n % 4 == 0)
      {
         // An exact midpoint between two adjacent finite halves.
         const uint16_t lo = static_cast<uint16_t>(rng() % 0x7bff);
         d = (half_to_double(half_t{lo}) + half_to_double(half_t{static_cast<uint16_t>(lo + 1)})) /
             2;
      }
      if (d >= 65520.0)
      {
         ASSERT_EQ(h(d), 0x7c00);
         continue;
      }
      const uint16_t b = h(d);
      ASSERT_LE(b, 0x7bff) << d;
      ASSERT_EQ(h(-d), b | 0x8000u) << d;
      const double v   = half_to_double(half_t{b});
      const double err = std::fabs(d - v);
      // Neighbours: below +0 it is the negative subnormal -2^-24; above the largest finite half
      // it is 65536, the value at which overflow starts being nearer.
      const double below =
          b > 0 ? half_to_double(half_t{static_cast<uint16_t>(b - 1)}) : -half_to_double(half_t{1});
      const double above =
          b < 0x7bff ? half_to_double(half_t{static_cast<uint16_t>(b + 1)}) : 65536.0;
      ASSERT_LE(err, std::fabs(d - below)) << d;
      ASSERT_LE(err, std::fabs(d - above)) << d;
      if (err == std::fabs(d - below) || err == std::fabs(d - above))
      {
         if (err > 0)
         {
            ++ties;
            ASSERT_EQ(b & 1u, 0u) << "tie not rounded to even at " << d;
         }
      }
      ++checked;
   }
   EXPECT_GT(checked, 150000);
   EXPECT_GT(ties, 40000);
}

TEST(Precision, NamesAndTraits)
{
   using amgt::Precision;
   using amgt::StorageTraits;
   EXPECT_STREQ(amgt::to_string(Precision::fp64), "fp64");
   EXPECT_STREQ(amgt::to_string(Precision::fp32), "fp32");
   EXPECT_STREQ(amgt::to_string(Precision::fp16), "fp16");
   EXPECT_EQ(amgt::to_letter(Precision::fp64), 'd');
   EXPECT_EQ(amgt::to_letter(Precision::fp32), 's');
   EXPECT_EQ(amgt::to_letter(Precision::fp16), 'h');
   EXPECT_EQ(StorageTraits<double>::precision, Precision::fp64);
   EXPECT_EQ(StorageTraits<float>::precision, Precision::fp32);
   EXPECT_EQ(StorageTraits<half_t>::precision, Precision::fp16);
   static_assert(std::is_same_v<StorageTraits<double>::acc_t, double>);
   static_assert(std::is_same_v<StorageTraits<float>::acc_t, float>);
   static_assert(std::is_same_v<StorageTraits<half_t>::acc_t, float>);
}

TEST(Precision, RoundingPoints)
{
   using amgt::StorageTraits;
   const double third = 1.0 / 3.0;
   EXPECT_EQ(StorageTraits<double>::round_x(third), third);
   EXPECT_EQ(StorageTraits<float>::round_x(third), static_cast<float>(third));
   EXPECT_NE(static_cast<double>(StorageTraits<float>::round_x(third)), third);
   // fp16 storage: x is rounded once to float, not to half (coarse residuals near
   // convergence would underflow in half; see common/precision.h)
   EXPECT_EQ(StorageTraits<half_t>::round_x(2049.0), 2049.0f);
   EXPECT_EQ(StorageTraits<half_t>::round_x(third), static_cast<float>(third));
   EXPECT_EQ(StorageTraits<half_t>::round_x(1e-9), static_cast<float>(1e-9));
   EXPECT_NE(StorageTraits<half_t>::round_x(1e-9), 0.0f);
   EXPECT_EQ(StorageTraits<half_t>::from_double(third).bits, 0x3555);
   EXPECT_EQ(StorageTraits<half_t>::from_acc(2051.0f).bits, h(2052.0));
   // The fp32 multiply-add is fused: one rounding, visible where a*b is not a float.
   const float a = 1.0f + std::ldexp(1.0f, -12);
   const float c = -(1.0f + std::ldexp(1.0f, -11));
   EXPECT_EQ(StorageTraits<float>::madd(a, a, c), std::ldexp(1.0f, -24));
   // The product of two halves is exact in float, so fused and unfused agree.
   const float ha = half_to_float(half_t{0x3bff}), hb = half_to_float(half_t{0x3c01});
   EXPECT_EQ(StorageTraits<half_t>::madd(ha, hb, -1.0f), ha * hb - 1.0f);
}

} // namespace
