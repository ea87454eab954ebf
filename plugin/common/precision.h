// Storage precisions and the rounding contract of every kernel, CPU reference and GPU alike.
//
// A level stored in V computes as follows (acc_t = StorageTraits<V>::acc_t):
//   fp64: values double; products and sums in double.
//   fp32: values rounded once from double to float (RNE); x_j rounded to float; each
//         multiply-add one float FMA.
//   fp16: values rounded once from double to half (RNE, directly, not via float); x_j
//         rounded to half; each multiply-add one float FMA. The product of two halves has at
//         most 22 significant bits, so it is exact in float and the FMA equals "multiply,
//         then add": a GPU kernel may use either form and still match bit for bit.
//   fp64 also uses one FMA per multiply-add (std::fma), the form nvcc generates by default.
// hypre's vectors stay double: SpMV forms y = alpha * (double)sum + beta * y in double, and
// SpGEMM rounds each finished accumulator once to V.
#pragma once

#include "common/config.h"
#include "common/half.h"

#include <cmath>

namespace amgt {

enum class Precision : int
{
   fp64 = 0,
   fp32 = 1,
   fp16 = 2
};

inline const char* to_string(Precision p)
{
   switch (p)
   {
   case Precision::fp64:
      return "fp64";
   case Precision::fp32:
      return "fp32";
   case Precision::fp16:
      return "fp16";
   }
   return "?";
}

// The letters of AMGT_LEVELS (BLAS-style: d, s, h).
inline char to_letter(Precision p)
{
   switch (p)
   {
   case Precision::fp64:
      return 'd';
   case Precision::fp32:
      return 's';
   case Precision::fp16:
      return 'h';
   }
   return '?';
}

template <class V>
struct StorageTraits;

template <>
struct StorageTraits<double>
{
   static constexpr Precision precision     = Precision::fp64;
   static constexpr double    unit_roundoff = 0x1p-53;
   using acc_t                              = double;

   AMGT_HD static double from_double(double v) { return v; }
   AMGT_HD static double from_acc(double v) { return v; }
   AMGT_HD static double to_acc(double v) { return v; }
   AMGT_HD static double to_double(double v) { return v; }
   // x_j as the kernel sees it: rounded to the storage type, widened to acc_t.
   AMGT_HD static double round_x(double x) { return x; }
   static double         madd(double a, double b, double c) { return std::fma(a, b, c); }
};

template <>
struct StorageTraits<float>
{
   static constexpr Precision precision     = Precision::fp32;
   static constexpr double    unit_roundoff = 0x1p-24;
   using acc_t                              = float;

   AMGT_HD static float  from_double(double v) { return static_cast<float>(v); }
   AMGT_HD static float  from_acc(float v) { return v; }
   AMGT_HD static float  to_acc(float v) { return v; }
   AMGT_HD static double to_double(float v) { return static_cast<double>(v); }
   AMGT_HD static float  round_x(double x) { return static_cast<float>(x); }
   static float          madd(float a, float b, float c) { return std::fma(a, b, c); }
};

template <>
struct StorageTraits<half_t>
{
   static constexpr Precision precision     = Precision::fp16;
   static constexpr double    unit_roundoff = 0x1p-11;
   using acc_t                              = float;

   AMGT_HD static half_t from_double(double v) { return half_from_double(v); }
   AMGT_HD static half_t from_acc(float v) { return half_from_float(v); }
   AMGT_HD static float  to_acc(half_t v) { return half_to_float(v); }
   AMGT_HD static double to_double(half_t v) { return half_to_double(v); }
   AMGT_HD static float  round_x(double x) { return half_to_float(half_from_double(x)); }
   static float          madd(float a, float b, float c) { return std::fma(a, b, c); }
};

} // namespace amgt
