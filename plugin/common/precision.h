// Storage precisions and the rounding contract of every kernel, CPU reference and GPU alike.
//
// A level stored in V computes as follows (acc_t = StorageTraits<V>::acc_t):
//   fp64: values double; products and sums in double.
//   fp32: values rounded once from double to float (RNE); x_j rounded to float; each
//         multiply-add one float FMA.
//   fp16: values rounded once from double to half (RNE, directly, not via float); x_j
//         rounded once from double to FLOAT (not half); each multiply-add one float FMA (the
//         half value widened to float, which is exact). Why x is not rounded to half: the
//         residuals restricted to coarse levels near convergence (1e-9 and below) lie under
//         half's smallest subnormal (2^-24 ~ 6e-8), so half x would make the coarse
//         correction vanish and mixed precision stall at 1e-6..1e-7. x lives in registers
//         only, so float x costs no memory traffic; the stored values stay half.
//   fp64 also uses one FMA per multiply-add (std::fma), the form nvcc generates by default.
// hypre's vectors stay double: SpMV forms y = alpha * (double)sum + beta * y in double, and
// SpGEMM rounds each finished accumulator once to V.
//
// Symmetric unscaling (SpMV only, optional): with a vector u, x_j * u_j is formed in double
// and rounded once by round_x, and the row sum is widened to double and multiplied by u_i in
// double before alpha (see spmv/spmv.h).
//
// The fp16 tensor-core SpMV path (spmv/spmv_tensor_kernels.cuh) is the one documented
// exception: its mma instruction takes half operands, so x is rounded to half there, after a
// power-of-two scaling per 16-entry piece that keeps it clear of half's underflow.
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

// By enumerator: the names, and the letters of AMGT_LEVELS (BLAS-style: d, s, h).
inline const char* to_string(Precision p)
{
   constexpr const char* kNames[] = {"fp64", "fp32", "fp16"};
   return by_enum(p, kNames, "?");
}

inline char to_letter(Precision p)
{
   constexpr char kLetters[] = {'d', 's', 'h'};
   return by_enum(p, kLetters, '?');
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
   // x_j as the kernel sees it: rounded once from double (to the storage type for fp64/fp32,
   // to float for fp16), as acc_t.
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
   AMGT_HD static float  round_x(double x) { return static_cast<float>(x); }
   static float          madd(float a, float b, float c) { return std::fma(a, b, c); }
};

} // namespace amgt
