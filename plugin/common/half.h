// Software IEEE 754 binary16 (1 sign, 5 exponent, 10 fraction bits). It is the storage type
// of fp16 levels on the host and the reference the GPU's cuda_fp16 conversions are held to.
// The type is a plain bit container on purpose: no arithmetic operators, so every use has
// to say in which wider type it computes.
#pragma once

#include "common/config.h"

#include <cstdint>
#include <cstring>

namespace amgt {

struct half_t
{
   uint16_t bits;
};

constexpr double kHalfMax       = 65504.0;         // (2 - 2^-10) * 2^15
constexpr double kHalfMinNormal = 6.103515625e-05; // 2^-14

namespace detail {

AMGT_HD inline uint64_t double_bits(double d)
{
   uint64_t b;
   memcpy(&b, &d, sizeof b);
   return b;
}

AMGT_HD inline float float_from_bits(uint32_t b)
{
   float f;
   memcpy(&f, &b, sizeof f);
   return f;
}

// Round-to-nearest-even of (sig >> shift), 1 <= shift <= 63: the dropped bits are compared
// with one half of the last kept bit.
AMGT_HD inline uint64_t shift_right_rne(uint64_t sig, int shift)
{
   const uint64_t kept    = sig >> shift;
   const uint64_t dropped = sig & ((uint64_t{1} << shift) - 1);
   const uint64_t half    = uint64_t{1} << (shift - 1);
   return (dropped > half || (dropped == half && (kept & 1))) ? kept + 1 : kept;
}

} // namespace detail

// Rounds directly from double (one rounding). Going through float would round twice and can
// land on the other side of a half tie (e.g. 1 + 2^-11 + 2^-40).
AMGT_HD inline half_t half_from_double(double d)
{
   const uint64_t b    = detail::double_bits(d);
   const uint16_t sign = static_cast<uint16_t>((b >> 48) & 0x8000u);
   const int      exp  = static_cast<int>((b >> 52) & 0x7ff);
   const uint64_t frac = b & ((uint64_t{1} << 52) - 1);

   if (exp == 0x7ff)
   {
      if (frac == 0) { return half_t{static_cast<uint16_t>(sign | 0x7c00u)}; }
      // NaN: keep the top payload bits and force the quiet bit, so a payload that lives only
      // in the dropped low bits cannot turn the NaN into an infinity.
      return half_t{static_cast<uint16_t>(sign | 0x7e00u | (frac >> 42))};
   }
   // A double subnormal is far below half's smallest subnormal (2^-24): it rounds to zero.
   if (exp == 0) { return half_t{sign}; }

   const int e = exp - 1023; // value = 1.frac * 2^e
   if (e > 15) { return half_t{static_cast<uint16_t>(sign | 0x7c00u)}; }
   if (e >= -14)
   {
      // Normal range: keep 10 of the 52 fraction bits. A carry out of the fraction moves into
      // the exponent field by plain addition, and a carry out of exponent 30 yields exactly
      // the infinity pattern 0x7c00 (this is how 65520 and above overflow).
      const uint64_t m = detail::shift_right_rne(frac, 42);
      return half_t{static_cast<uint16_t>(sign | ((static_cast<uint64_t>(e + 15) << 10) + m))};
   }
   // Half subnormal range: the result is m * 2^-24 with m = sig * 2^(e - 28), where
   // sig = 2^52 + frac. Shifts above 54 leave less than half of 2^-24: always zero. A result
   // of m == 1024 is the smallest normal, whose encoding is exactly 0x0400.
   const int shift = 28 - e; // >= 43
   if (shift > 54) { return half_t{sign}; }
   const uint64_t sig = (uint64_t{1} << 52) | frac;
   return half_t{static_cast<uint16_t>(sign | detail::shift_right_rne(sig, shift))};
}

// float -> double is exact, so this is the correctly rounded float -> half conversion.
AMGT_HD inline half_t half_from_float(float f)
{
   return half_from_double(static_cast<double>(f));
}

// Exact: every half is a float.
AMGT_HD inline float half_to_float(half_t h)
{
   const uint32_t sign = static_cast<uint32_t>(h.bits & 0x8000u) << 16;
   const uint32_t exp  = (h.bits >> 10) & 0x1fu;
   const uint32_t frac = h.bits & 0x3ffu;
   if (exp == 0x1f) { return detail::float_from_bits(sign | 0x7f800000u | (frac << 13)); }
   if (exp == 0)
   {
      // frac * 2^-24: both factors and the product are exact in float.
      const float mag = static_cast<float>(frac) * 5.9604644775390625e-08f;
      return sign ? -mag : mag;
   }
   return detail::float_from_bits(sign | ((exp - 15 + 127) << 23) | (frac << 13));
}

AMGT_HD inline double half_to_double(half_t h)
{
   return static_cast<double>(half_to_float(h));
}

// Whether fp16 holds d exactly as a normal number (or d is +-0): its exponent lies in fp16's
// normal range [-14, 15] and its significand needs at most fp16's 10 fraction bits. Such a
// value converts to half and back without change (half_from_double, or the GPU's conversion),
// so a matrix made only of them stores in fp16 losslessly. fp16's subnormals are left out
// (exact too, but nothing gains from the distinction), as are NaN and Inf.
AMGT_HD inline bool half_holds_exactly(double d)
{
   const uint64_t b   = detail::double_bits(d);
   const int      exp = static_cast<int>((b >> 52) & 0x7ff); // biased by 1023
   if (exp == 0) return (b & ((uint64_t{1} << 52) - 1)) == 0; // +-0 (double subnormals: no)
   return exp >= 1023 - 14 && exp <= 1023 + 15 && (b & ((uint64_t{1} << 42) - 1)) == 0;
}

} // namespace amgt
