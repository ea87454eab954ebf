// AMGT=auto: the per-matrix precision choice, as pure functions of a matrix's values.
//
// The glue asks once per conversion (setup, never solve): value_stats summarises the CSR
// values (this file's CPU function is also the reference of the device reduction in
// range_device.h), choose_precision turns the summary and the level's floor (the schedule
// entry: the lowest precision the level may use) into a storage precision, whether to store
// the symmetrically scaled matrix, and a short reason for the statistics table.
//
// Why these checks (the failure modes of naive half-precision AMG that the Ginkgo study
// reported; docs/architecture.md, "fp16 range guards"): a value beyond the type's range becomes Inf
// and every later result NaN; a significant entry below the smallest normal loses its digits
// (or becomes 0) and the coarse operator changes silently. Symmetric diagonal scaling D^-1/2 A D^-1/2 (D = |diag A|) maps an operator
// whose values are large but whose scaled values are O(1) (elasticity: 1e9..1e15) into
// fp16's range without changing what the kernel computes (the SpMV applies the scaling
// back in fp64/fp32, spmv/spmv.h `unscale`).
#pragma once

#include "common/precision.h"
#include "mbsr/mbsr.h"

#include <cstdint>
#include <string>
#include <vector>

namespace amgt {

// Range facts of one set of values (a matrix, or its scaled form).
struct RangeStats
{
   double  max_abs   = 0.0; // over the finite entries
   int64_t nonfinite = 0;   // NaN or +-Inf entries
   // "Significant" entries (|a_ij| >= 2^-11 * max_j |a_ij| of the row, a_ij != 0) below the
   // smallest normal of fp16 (2^-14) and of fp32 (2^-126): they would lose their digits.
   // 2^-11 is fp16's unit roundoff: an entry smaller than that relative to its row's largest
   // is below the rounding error of the row's sum anyway, so its loss changes nothing.
   int64_t underflow_fp16 = 0;
   int64_t underflow_fp32 = 0;
   // Finite entries that fp16 does not hold exactly (half_holds_exactly, common/half.h). 0 on
   // a matrix without non-finite entries: every value is an fp16 number, so fp16 storage
   // loses nothing (lossless_storage below; only the plain form's count is read, the scaled
   // form's comes from the same add_row).
   int64_t inexact_fp16 = 0;
};

struct ValueStats
{
   RangeStats plain;
   // Square, and every row holds a diagonal entry that is finite and nonzero (duplicates
   // summed, as the conversion sums them): the condition for the scaled form to exist.
   bool       scalable = false;
   RangeStats scaled; // of D^-1/2 A D^-1/2; meaningful only when scalable
   // false: the scaled form was not computed (device value_stats without it: scalable is
   // false then, whatever the diagonal); a choice that may run in fp16 needs it computed
   bool       scaled_known = true;
   // Square matrices: sum of all finite values and of their magnitudes (rows in order, each
   // row in CSR order). |sum| / abs_sum is the relative Rayleigh quotient of the constant
   // vector, 1^T A 1 / 1^T |A| 1: see near_singular below.
   double sum     = 0.0;
   double abs_sum = 0.0;
};

// Thresholds of "fits". fp16 keeps a factor 2 of headroom below its largest finite value
// (65504): products of a stored value and an x entry accumulate in fp32, but a value rounded
// up near 65504 leaves no margin for the SpGEMM of the next level, whose inputs are stored
// values. fp32: the same reasoning with 2^126 (half of 2^127 < FLT_MAX).
constexpr double kFp16MaxAbs = 0x1p15;
constexpr double kFp32MaxAbs = 0x1p126;
constexpr double kFp16MinNormal = 0x1p-14;
constexpr double kFp32MinNormal = 0x1p-126;
constexpr double kSignificantRelative = 0x1p-11;

// One pass over the CSR (val == nullptr: all ones). Duplicate entries of a row are taken one
// by one for max/underflow (a duplicate pair that sums to a small value is not detected; hypre
// never produces duplicates), but summed for the diagonal. The diagonal's square root is
// taken of |sum|.
ValueStats value_stats(const CsrView& a);

// unscale_i = sqrt(|a_ii|) per row (duplicates summed); requires stats.scalable.
std::vector<double> scaling_vector(const CsrView& a);

// The values of D^-1/2 A D^-1/2 in A's CSR order: a_ij / (unscale_i * unscale_j), computed
// in double (the device kernel computes the same expression, so the two agree bit for bit).
std::vector<double> scaled_values(const CsrView& a, const std::vector<double>& unscale);

// The constant vector is annihilated by A to below the rounding of precision p:
// |1^T A 1| < kNearSingularFactor * u(p) * 1^T |A| 1 (square, abs_sum > 0).
//
// Why (amgmatch_anisotropic3d7816, tests/integration): every row of that matrix sums to zero
// up to fp64 rounding (|row sum| / |diag| ~ 1e-15), with positive off-diagonals; it is
// numerically singular, and PCG converges in fp64 only because fp64 rounding leaves it
// barely definite. Its Galerkin coarse operators inherit the near-null constant vector
// (interpolation reproduces constants). Iterates then carry huge near-null components, and
// A*u cancels to ~|1^T A 1| / 1^T |A| 1 of |A||u|: a SpMV stored in fp32 (u = 6e-8) returns
// rounding noise, the preconditioner turns indefinite and PCG breaks down at once, on any
// single coarse level in fp32. A well-posed (Dirichlet) operator keeps boundary rows with
// row sums of the order of the diagonal: its quotient is O(h) on the fine level and grows on
// coarse levels. Measured (AMGT_STATS notes, PCG benchmark settings, every dataset matrix
// and the generated problems): amgmatch_anisotropic3d7816's coarse levels 1.4e-17 .. 2.2e-8;
// every other coarse operator >= 2.6e-4 (LFAT5000 level 1; aft01 level 1: 3.6e-4; most are
// 1e-3 .. 1). The factor 1 (no margin) separates the two by four decades at fp32's 2^-24;
// at fp16's 2^-11 (4.9e-4) the two level-1 operators above would be refused fp16 -- they
// run fp32 under the default floor anyway, and "near-singular" in the table says so.
constexpr double kNearSingularFactor = 1.0;
bool near_singular(const ValueStats& stats, Precision p);

struct PrecisionChoice
{
   Precision   precision = Precision::fp64;
   bool        scaled    = false;
   const char* reason    = "floor"; // a string literal: "floor", "in-range", "scaled", ...
   // The stored values equal the fp64 values (lossless_storage): an SpMV on them is an fp64
   // SpMV (the kernels widen each value to double and accumulate in double), so it may serve
   // where fp64 is required (a Krylov method's matvec, a later cycle's finest operator).
   bool        exact     = false;
};

// Lossless storage for an SpMV: a choice c for a matrix whose every value fp16 holds exactly
// (s.plain.inexact_fp16 == 0, no non-finite value) is stored in fp16, unscaled, reason
// "exact-fp16", exact = true, whatever precision c asked for: storing such values in fp16
// changes no value, and the SpMV kernels (CUDA-core paths, the host reference) widen every
// stored value exactly and multiply-add in double whatever the storage type, so the result
// is the same as from the wider storage up to the order of the row sums, while the matrix
// moves 2 bytes a value instead of 4 or 8. Stencil operators with small integer or dyadic
// coefficients (graph Laplacians, the generated problems) qualify; a matrix with one value
// fp16 does not hold keeps c. Not for products: the SpGEMM's fp16 arithmetic differs.
PrecisionChoice lossless_storage(const ValueStats& s, const PrecisionChoice& c);

// Rules (tested in tests/unit/test_policy.cpp):
//   floor fp64                               -> fp64, "floor" (level 0 is never touched)
//   any non-finite value                     -> fp64, "non-finite"
//   near_singular in fp32                    -> fp64, "near-singular"
//   near_singular in fp16 (floor fp16)       -> treated as not fitting fp16 (fp32 next),
//                                               reason "near-singular"
//   floor fp16, values fit fp16              -> fp16, "in-range"
//   floor fp16, scalable, scaled values fit  -> fp16 scaled, "scaled"
//   values fit fp32                          -> fp32, "in-range" when the floor is fp32,
//                                               otherwise why fp16 was refused:
//                                               "overflow" or "underflow"
//   otherwise                                -> fp64, "overflow" or "underflow"
// "fits" for type T: max_abs <= the headroom bound above and no significant underflow.
PrecisionChoice choose_precision(const ValueStats& stats, Precision floor);

// Whether choose_precision(s, floor) would read the scaled form that s lacks
// (s.scaled_known false: the device took the plain statistics alone): an fp16 floor, a square
// matrix whose plain values are finite, not near-singular and do not fit fp16. Elsewhere the
// choice is the same with or without it, so the device computes it only then (its two passes
// gather the diagonal's scale per entry). Every Galerkin coarse operator of the generated
// problems fits fp16 unscaled.
bool scaled_form_needed(const ValueStats& s, Precision floor);

// Precision of a SpGEMM of a level under auto: the floor, but never below fp32 (products
// are not scaled and their outputs are the next level's operator; fp16 products round every
// coarse operator entry to 11 bits before the next level's own range check could help).
Precision product_precision(Precision floor);

// The floor of a whole level (its A, P, R and products) given its operator's statistics: a
// near-singular operator (near_singular above) spoils not only its own SpMV but every
// rounding of the level: P rounded to fp32 in the Galerkin product R (A P) moves the coarse
// operator's row sums by ~1e-8 relative, and P, R in fp16 move the near-null component of the
// coarse correction by ~5e-4 -- both measured to break PCG on amgmatch_anisotropic3d7816.
// Returns fp64 if near_singular in fp32, fp32 if the floor is fp16 and it is near_singular
// in fp16, else the floor.
Precision level_floor(const ValueStats& operator_stats, Precision floor);

// One precision up (fp16 -> fp32 -> fp64 -> fp64).
Precision higher(Precision p);

// Count of NaN/Inf among n doubles (the product check of the host path).
int64_t count_nonfinite(const double* v, int64_t n);

} // namespace amgt
