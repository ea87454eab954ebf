// Every tolerance of the numeric tests, with its derivation. Structure (pointers, columns,
// bitmaps) is never compared with a tolerance: it must match exactly. Values built from small
// integers must match exactly too (all partial sums are exact integers in every precision).
//
// Notation. u_s: unit roundoff of the storage type (values and x are rounded to it):
// 2^-53 (double), 2^-24 (float), 2^-11 (half). u_a: unit roundoff of the accumulator acc_t:
// 2^-53 (fp64 levels), 2^-24 (fp32 and fp16 levels). u_d = 2^-53. gamma_k(u) = k u / (1 - k u)
// (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., section 3.1).
// The bounds assume no overflow and no underflow of inputs (the generators keep magnitudes
// in [0.5, 2)); an output that underflows in fp16 adds at most eta = half its smallest
// subnormal in absolute terms.
//
// SpMV, row i with k stored terms (k = max nonzeros per row, duplicates counted apart). The
//   SpMV's contract (common/precision.h, SpmvTraits): stored values widened exactly to double,
//   x not rounded, double FMAs, whatever the storage type.
//   kernel: s^ = fl_d(sum_j a~_j x_j), a~_j = a_j (1 + al_j), |al_j| <= u_s. Each product is
//           exact inside its FMA and k FMAs round k times, so |s^ - sum a~ x| <= gamma_k(u_d)
//           sum |a~ x| <= gamma_k(u_d)(1+u_s) S with S = sum_j |a_j||x_j| = (|A||x|)_i, and
//           |sum a~x - sum a x| <= u_s S.
//   oracle (csr_spmv_ref, fp64 mul+add): |s_ref - sum a x| <= gamma_k(u_d) S.
//   both:   y = fl(fl(alpha s) + fl(beta y0)) adds <= 3 u_d (|alpha s| + |beta y0|) each, and
//           |s^|, |s_ref| <= 2 S under the bound above, so together <= 12 u_d |alpha| S +
//           6 u_d |beta y0|.
//   => |y_i - yref_i| <= rel_spmv_stored(k) |alpha| S + 12 u_d |alpha| S + 6 u_d |beta y0_i|,
//      rel_spmv_stored(k) = u_s + gamma_k(u_d)(1+u_s) + gamma_k(u_d).
//   rel_spmv (below) is the general form for an accumulator u_a and x rounded to u_s:
//      gamma_k(u_a)(1+u_s)^2 + 2u_s + u_s^2 + gamma_k(u_d); the fp16 tensor-core path uses it.
//
// SpMV with unscale u (y = alpha diag(u) A diag(u) x + beta y): the same with x_j u_j in place
//   of x_j and S = |u_i| (|A| |u o x|)_i. Extra roundings, all in double: x_j u_j (once in
//   the kernel and once in the oracle) and s u_i (once each); each moves the result by at
//   most u_d (1+u_s)^2 S <= 2 u_d S, so 8 u_d |alpha| S covers them (spmv_unscale_extra).
//
// fp16 tensor-core SpMV (spmv_tensor_kernels.cuh): x_j is rounded to half after a power-of-two
//   scaling per piece of 16 entries with max m: |x~_j - x_j| <= 2^-11 |x_j| + 2^-35 m (half's
//   subnormals), values exact in half; the 16 products of a step are summed inside the mma
//   with at most one fp32 ulp (2^-23, truncation allowed) per addition, then one RNE fp32 add
//   per step: a chain of at most 16 + ceil(T/4) additions for T tiles per block row. So
//   rel_spmv with u_s = 2^-11 (values and x), u_a = 2^-23, k = 16 + ceil(T/4), plus the
//   underflow term 2^-35 (1+u_s)(|A| 1)_i max_j |x_j| |alpha| (spmv_tensor_fp16_tolerance).
//
// SpGEMM, entry (i,j) with K product terms (K <= max nonzeros per row of A):
//   kernel: c_acc = fl_acc(sum a~ b~), |c_acc - c| <= e S, e = gamma_K(u_a)(1+u_s)^2 + 2u_s
//           + u_s^2, S = sum_k |a_ik||b_kj| = (|A||B|)_ij; stored once: |c^ - c_acc| <=
//           u_s |c_acc| + eta <= u_s (1 + e) S + eta.
//   oracle: |c_ref - c| <= gamma_K(u_d) S.
//   => |c^_ij - cref_ij| <= rel_spgemm(K) S + eta, rel_spgemm(K) = e + u_s(1+e) + gamma_K(u_d).
//
// kSlack (1%) covers the rounding in computing the bound itself (S comes from an fp64 SpMV
// or SpGEMM on |A|).
#pragma once

#include "common/half.h"

#include <cmath>

namespace amgt::test {

struct Roundoff
{
   double store;     // u_s
   double acc;       // u_a
   double underflow; // eta: absolute error of rounding a tiny result to the storage type
};

template <class V>
constexpr Roundoff roundoff();

template <>
constexpr Roundoff roundoff<double>()
{
   return {0x1p-53, 0x1p-53, 0.0};
}

template <>
constexpr Roundoff roundoff<float>()
{
   return {0x1p-24, 0x1p-24, 0x1p-150};
}

template <>
constexpr Roundoff roundoff<half_t>()
{
   return {0x1p-11, 0x1p-24, 0x1p-25};
}

constexpr double kUnitDouble = 0x1p-53;
constexpr double kSlack      = 1.01;

// Only meaningful while k u < 1; every caller's k is far below that.
constexpr double gamma_k(int k, double u)
{
   return k * u / (1.0 - k * u);
}

constexpr double rel_spmv(const Roundoff& r, int k)
{
   return gamma_k(k, r.acc) * (1 + r.store) * (1 + r.store) + 2 * r.store + r.store * r.store +
          gamma_k(k, kUnitDouble);
}

constexpr double rel_spmv_stored(const Roundoff& r, int k)
{
   return r.store + gamma_k(k, kUnitDouble) * (1 + r.store) + gamma_k(k, kUnitDouble);
}

// The bound for a relative error rel of A x (see the top), plus the final combination's.
inline double spmv_bound(double rel, double alpha, double abs_ax, double beta, double y0)
{
   const double t = rel * std::fabs(alpha) * abs_ax + 12 * kUnitDouble * std::fabs(alpha) * abs_ax +
                    6 * kUnitDouble * std::fabs(beta * y0);
   return kSlack * t;
}

// The plugin's SpMV (every path but the fp16 tensor-core one) against the fp64 oracle.
// abs_ax = (|A||x|)_i in exact arithmetic (computed in fp64), y0 = y_i before the call.
inline double spmv_tolerance(const Roundoff& r, int k, double alpha, double abs_ax, double beta,
                             double y0)
{
   return spmv_bound(rel_spmv_stored(r, k), alpha, abs_ax, beta, y0);
}

// The extra rounding of an unscaled SpMV (see the top), to add to spmv_tolerance with
// abs_ax = S = |u_i| (|A| |u o x|)_i.
inline double spmv_unscale_extra(double alpha, double abs_ax)
{
   return kSlack * 8 * kUnitDouble * std::fabs(alpha) * abs_ax;
}

// fp16 tensor-core SpMV against the fp64 oracle. tiles: max tiles per block row; abs_ax = S;
// abs_a_xmax = (|A| 1)_i max_j |x_j| (x_j u_j with unscale).
inline double spmv_tensor_fp16_tolerance(int tiles, double alpha, double abs_ax, double abs_a_xmax,
                                         double beta, double y0)
{
   constexpr Roundoff r{0x1p-11, 0x1p-23, 0.0};
   const int          k = 16 + (tiles + 3) / 4;
   return spmv_bound(rel_spmv(r, k), alpha, abs_ax, beta, y0) +
          kSlack * 0x1p-35 * (1 + r.store) * std::fabs(alpha) * abs_a_xmax;
}

constexpr double rel_spgemm(const Roundoff& r, int k)
{
   const double e =
       gamma_k(k, r.acc) * (1 + r.store) * (1 + r.store) + 2 * r.store + r.store * r.store;
   return e + r.store * (1 + e) + gamma_k(k, kUnitDouble);
}

// abs_ab = (|A||B|)_ij computed in fp64.
inline double spgemm_tolerance(const Roundoff& r, int k, double abs_ab)
{
   return kSlack * (rel_spgemm(r, k) * abs_ab + r.underflow);
}

// fp16 tensor-core SpGEMM (spgemm_numeric_ordered.cu, mma.m16n8k16 f16 x f16 + f32): entry (i,j) of a
//   block row whose A row has T tiles is built in T steps, one per A tile in block-column
//   order. A CUDA-core step is <= 4 RNE float FMAs. A tensor-core step is one mma:
//   c_new = c_old + p_1 + ... + p_4 (the 12 other k of the 16-wide operand meet the block
//   diagonal's exact zeros), the products p_k of two halves exact in fp32 (11 + 11 significand
//   bits). The mma's fp32 sum is not IEEE: the addends may be aligned to the largest one and
//   truncated, and the result normalised by truncation. Model: each of the <= 5 addends loses
//   < 1 ulp of the largest (<= 2^-23 times it), the normalisation < 2^-23 of the result, so
//   |c_new - (c_old + sum p)| <= 6 * 2^-23 (|c_old| + sum |p_k|), the bound of a chain of six
//   additions with u = 2^-23 (a CUDA-core step, 4 FMAs with 2^-24, is below it). T steps chain
//   like 6T additions: the kernel's |c_acc - sum a~ b~| <= gamma_{6T}(2^-23) sum |a~ b~|. So
//   rel_spgemm with u_a = 2^-23 and k = 6T bounds it; the rounding of values to half and of C
//   once to half is the u_s = 2^-11 part as before (spgemm_tensor_fp16_tolerance). Small-integer
//   inputs stay exact: every addend and partial sum is an integer below 2^24, which neither
//   alignment nor truncation can change.
// abs_ab = (|A||B|)_ij computed in fp64; a_tiles = max tiles per block row of A in mBSR.
inline double spgemm_tensor_fp16_tolerance(int a_tiles, double abs_ab)
{
   constexpr Roundoff r{0x1p-11, 0x1p-23, 0x1p-25};
   return spgemm_tolerance(r, 6 * a_tiles, abs_ab);
}

// The same kernel against spgemm_ref<half_t> on the same half inputs (no input rounding):
//   both sum the same exact products S = sum |a~ b~| (fp64, from the half values), the kernel
//   within gamma_{6T}(2^-23) S (above), the reference's K FMAs within gamma_K(2^-24) S; each
//   fp32 sum x is rounded once to half h with |h - x| <= u_s |h| + eta (RNE: x = h (1 + d),
//   |d| <= u_s, Higham (2.5)). So |got - want| <= u_s (|got| + |want|) + 2 eta
//   + (gamma_{6T}(2^-23) + gamma_K(2^-24)) S.
inline double spgemm_tensor_fp16_vs_ref_tolerance(int a_tiles, int k, double abs_ab, double got,
                                                  double want)
{
   return kSlack * (0x1p-11 * (std::fabs(got) + std::fabs(want)) + 2 * 0x1p-25 +
                    (gamma_k(6 * a_tiles, 0x1p-23) + gamma_k(k, 0x1p-24)) * abs_ab);
}

// SpGEMM, pairs kernel (spgemm_numeric_pairs.cu, numeric_pairs_kernel: SpgemmPath::cuda_core_pairs,
//   and SpgemmPath::automatic on low-fill products). Entry (i,j) with K product terms, K <=
//   nonzeros of row i of A <= 4 x tiles of A's block row. Each term is rounded to acc_t on its
//   own, p_t = a~_t b~_t (1 + d_t), |d_t| <= u_a (exact for half x half in float: 11 + 11
//   significand bits), and added to an accumulator that starts at +0 by RNE atomic additions
//   in an order the hardware picks. One location receiving the terms one at a time is
//   recursive summation of some permutation of them, and its bound, gamma_{K-1}(u_a) sum |p_t|
//   (Higham, section 4.2), holds for every permutation; so |c_acc - sum a~ b~| <=
//   ((1 + u_a)(1 + gamma_{K-1}(u_a)) - 1) S~ <= gamma_K(u_a) S~, S~ = sum |a~ b~|. We take
//   gamma_{K+1}(u_a): it also counts the addition into the +0 accumulator as a rounding (it
//   is exact), which only loosens the bound. From there the steps of rel_spgemm:
//   |c_acc - c| <= e' S, e' = gamma_{K+1}(u_a)(1+u_s)^2 + 2u_s + u_s^2; rounding C once to V
//   adds u_s (1 + e') S + eta; the oracle gamma_K(u_d) S:
//   => |c^_ij - cref_ij| <= rel_spgemm_pairs(K) S + eta + K phi,
//      rel_spgemm_pairs(K) = e' + u_s (1 + e') + gamma_K(u_d).
//   phi: the PTX ISA lets atom.add.f32 flush subnormal inputs and results to zero (it does on
//   global memory; shared memory is not documented either way), an absolute error below
//   2^-126 per addition, so phi = 2^-126 for float accumulators (fp32 and fp16 levels), 0 for
//   double (atom.add.f64 keeps subnormals). Outside the no-underflow model above, and far
//   below every other term at the tests' magnitudes; it keeps the bound true if it happens.
//   Small-integer inputs stay exact: every product and partial sum is an integer below 2^24,
//   whatever the order, so the pairs kernel equals spgemm_ref bit for bit on them.
constexpr double rel_spgemm_pairs(const Roundoff& r, int k)
{
   const double e =
       gamma_k(k + 1, r.acc) * (1 + r.store) * (1 + r.store) + 2 * r.store + r.store * r.store;
   return e + r.store * (1 + e) + gamma_k(k, kUnitDouble);
}

constexpr double pairs_flush(const Roundoff& r)
{
   return r.acc > kUnitDouble ? 0x1p-126 : 0.0;
}

// abs_ab = (|A||B|)_ij computed in fp64, k = max nonzeros per row of A.
inline double spgemm_pairs_tolerance(const Roundoff& r, int k, double abs_ab)
{
   return kSlack * (rel_spgemm_pairs(r, k) * abs_ab + r.underflow + k * pairs_flush(r));
}

// The pairs kernel against spgemm_ref<V> on the same inputs (values already in V, so no input
//   rounding): both sum the same K exact products a~ b~ with S~ = sum |a~ b~| (fp64, from the
//   values stored in V); the kernel within gamma_{K+1}(u_a) S~ + K phi (above), the reference's
//   K FMAs within gamma_K(u_a) S~. Each acc_t sum x is then stored as h = fl_V(x): exact when
//   V is acc_t (double, float: u_s == u_a there), else (half) |h - x| <= u_s |h| + eta (RNE,
//   Higham (2.5)). So |got - want| <= (gamma_{K+1}(u_a) + gamma_K(u_a)) S~ + K phi
//   + [V != acc_t] (u_s (|got| + |want|) + 2 eta).
inline double spgemm_pairs_vs_ref_tolerance(const Roundoff& r, int k, double abs_ab, double got,
                                            double want)
{
   const bool   stored_rounds = r.store > r.acc; // half: the only storage narrower than acc_t
   const double store =
       stored_rounds ? r.store * (std::fabs(got) + std::fabs(want)) + 2 * r.underflow : 0.0;
   return kSlack * ((gamma_k(k + 1, r.acc) + gamma_k(k, r.acc)) * abs_ab + k * pairs_flush(r) +
                    store);
}

} // namespace amgt::test
