// The device side of the rounding contract (common/precision.h), one specialisation per
// storage type V: how a kernel loads a stored value, widens it to the accumulator type Acc
// (StorageTraits<V>::acc_t), rounds x, multiplies and adds, and rounds a finished sum back to
// V. The CUDA intrinsics used here round exactly as StorageTraits' software conversions do
// (round to nearest even), so the kernels and the CPU references agree bit for bit wherever
// they add in the same order. Every kernel takes its per-precision arithmetic from here.
#pragma once

#include "common/half.h"
#include "common/precision.h"

#include "device/fp16.cuh"

namespace amgt::device {

template <class V>
struct Arith;

template <>
struct Arith<double>
{
   using Acc  = StorageTraits<double>::acc_t; // double
   using Bits = double;                       // V as the kernels load it (__ldg)

   __device__ static Acc    load(const double* p) { return __ldg(p); }
   __device__ static Acc    widen(Bits v) { return v; }
   __device__ static Acc    round_x(double x) { return x; }
   __device__ static Acc    madd(Acc a, Acc b, Acc c) { return __fma_rn(a, b, c); }
   __device__ static Acc    mul(Acc a, Acc b) { return __dmul_rn(a, b); }
   __device__ static double store(Acc x) { return x; }
   __device__ static double zero() { return 0.0; }
   __device__ static double from_double(double x) { return x; }
   __device__ static double to_double(double v) { return v; }
};

template <>
struct Arith<float>
{
   using Acc  = StorageTraits<float>::acc_t; // float
   using Bits = float;

   __device__ static Acc    load(const float* p) { return __ldg(p); }
   __device__ static Acc    widen(Bits v) { return v; }
   __device__ static Acc    round_x(double x) { return __double2float_rn(x); }
   __device__ static Acc    madd(Acc a, Acc b, Acc c) { return __fmaf_rn(a, b, c); }
   __device__ static Acc    mul(Acc a, Acc b) { return __fmul_rn(a, b); }
   __device__ static float  store(Acc x) { return x; }
   __device__ static float  zero() { return 0.0f; }
   __device__ static float  from_double(double x) { return __double2float_rn(x); }
   __device__ static double to_double(float v) { return static_cast<double>(v); }
};

// half values widen to float exactly, and a product of two halves is exact in float.
static_assert(sizeof(half_t) == sizeof(unsigned short), "half_t is read as __half bits");
template <>
struct Arith<half_t>
{
   using Acc  = StorageTraits<half_t>::acc_t; // float
   using Bits = unsigned short;               // binary16 bits: __ldg has no half_t overload

   __device__ static Acc load(const half_t* p)
   {
      return __half2float(__ushort_as_half(__ldg(&p->bits)));
   }
   __device__ static Acc widen(Bits v) { return __half2float(__ushort_as_half(v)); }
   // x is rounded to float, not to half: coarse residuals would underflow half.
   __device__ static Acc    round_x(double x) { return __double2float_rn(x); }
   __device__ static Acc    madd(Acc a, Acc b, Acc c) { return __fmaf_rn(a, b, c); }
   __device__ static Acc    mul(Acc a, Acc b) { return __fmul_rn(a, b); }
   __device__ static half_t store(Acc x)
   {
      half_t h;
      h.bits = __half_as_ushort(__float2half_rn(x));
      return h;
   }
   __device__ static half_t zero() { return half_t{0}; }
   // One rounding from double (not via float, which could round twice).
   __device__ static half_t from_double(double x)
   {
      half_t h;
      h.bits = __half_as_ushort(device::double_to_half(x));
      return h;
   }
   __device__ static double to_double(half_t v)
   {
      return static_cast<double>(__half2float(__ushort_as_half(v.bits)));
   }
};

// The SpMV's arithmetic on the device (common/precision.h, SpmvTraits): V loaded as Arith<V>
// loads it, widened exactly to double; x as the double it is; double FMAs.
template <class V>
struct SpmvArith
{
   using Acc  = double;
   using Bits = typename Arith<V>::Bits;

   __device__ static double widen(Bits v) { return static_cast<double>(Arith<V>::widen(v)); }
   __device__ static double round_x(double x) { return x; }
   __device__ static double madd(double a, double b, double c) { return __fma_rn(a, b, c); }
   __device__ static double zero() { return 0.0; }
};

// A device array of V seen as the Bits the kernels load (host side, for kernel arguments).
template <class V>
const typename Arith<V>::Bits* as_bits(const V* p)
{
   return reinterpret_cast<const typename Arith<V>::Bits*>(p);
}

} // namespace amgt::device
