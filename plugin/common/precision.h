// Storage precisions and the rounding contract of every kernel, CPU reference and GPU alike.
//
// A level stored in V keeps its values rounded once from double to V (RNE; fp16 directly, not
// via float). The two products then compute differently:
//
// SpMV (SpmvTraits<V>): each stored value widened exactly to double, x_j taken as the double
//   hypre holds, one double FMA per entry, the row sum in double. The low precision saves
//   the bytes of the values, which is what an SpMV is bound by; it does not round x or the
//   partial sums. That keeps the product linear in x up to fp64 rounding: a V-cycle with its
//   levels stored in fp32/fp16 is then a fixed linear operator, as a Krylov method requires
//   of its preconditioner. Rounding x_j (and the sums) to float made it nonlinear at float's
//   unit roundoff: hypre's GMRES, which applies the preconditioner again to a combination of
//   its Krylov vectors to form the solution, then found a true residual of ~2e-8 relative
//   after its estimate had reached 1e-12 and restarted (27-point, 64k rows, AMG-GMRES to 1e-12:
//   33 iterations against fp64's 24; with this contract 24, also with every level in fp16;
//   bench/RESULTS.md). Coarse residuals below half's range stay representable as well.
// SpGEMM (StorageTraits<V>, acc_t): fp64 in double; fp32 each multiply-add one float FMA;
//   fp16 the half values widened to float (exact), float FMAs; each finished accumulator
//   rounded once to V. fp64 also uses one FMA per multiply-add (std::fma), the form nvcc
//   generates by default.
// hypre's vectors stay double: SpMV forms y = alpha * sum + beta * y in double.
//
// Symmetric unscaling (SpMV only, optional): with a vector u, x_j * u_j is formed in double,
// and the row sum is multiplied by u_i in double before alpha (see spmv/spmv.h).
//
// The fp16 tensor-core SpMV path (spmv/spmv_tensor_kernels.cuh) is the one documented
// exception: its mma instruction takes half operands and accumulates in float, so x is
// rounded to half there, after a power-of-two scaling per 16-entry piece that keeps it clear
// of half's underflow. It runs only when forced.
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

// Calls f with a value of the storage type of precision p (double, float or half_t).
template <class F>
auto with_precision(Precision p, F&& f)
{
   switch (p)
   {
   case Precision::fp32: return f(float{});
   case Precision::fp16: return f(half_t{});
   default: return f(double{});
   }
}

// The SpMV's arithmetic for storage V (see the top): widen exactly, multiply-add in double.
template <class V>
struct SpmvTraits
{
   using acc_t = double;
   static double to_acc(V v) { return StorageTraits<V>::to_double(v); }
   static double round_x(double x) { return x; }
   static double madd(double a, double b, double c) { return std::fma(a, b, c); }
};

} // namespace amgt
