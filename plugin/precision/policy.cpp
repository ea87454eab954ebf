#include "precision/policy.h"

#include "common/error.h"
#include "common/half.h"

#include <algorithm>
#include <cmath>

namespace amgt {
namespace {

double value_at(const CsrView& a, int64_t k)
{
   return a.val ? a.val[k] : 1.0;
}

// Adds the facts of row values v[0..n) to s. Two passes over the row: its largest finite
// magnitude first (the reference of "significant"), then the underflow counts.
template <class Get>
void add_row(RangeStats& s, int64_t begin, int64_t end, Get&& get)
{
   double row_max = 0.0;
   for (int64_t k = begin; k < end; ++k)
   {
      const double v = get(k);
      if (!std::isfinite(v))
      {
         ++s.nonfinite;
         continue;
      }
      row_max = std::max(row_max, std::fabs(v));
      if (!half_holds_exactly(v)) ++s.inexact_fp16;
   }
   s.max_abs = std::max(s.max_abs, row_max);
   const double significant = kSignificantRelative * row_max;
   for (int64_t k = begin; k < end; ++k)
   {
      const double m = std::fabs(get(k));
      if (!(m > 0.0) || !std::isfinite(m) || m < significant) continue;
      if (m < kFp16MinNormal) ++s.underflow_fp16;
      if (m < kFp32MinNormal) ++s.underflow_fp32;
   }
}

// Sum of the row's diagonal entries (duplicates summed in CSR order); `found` says whether
// the row holds one at all.
double diagonal_of_row(const CsrView& a, int i, bool& found)
{
   double d = 0.0;
   found    = false;
   for (int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
   {
      if (a.col[k] == i)
      {
         d += value_at(a, k);
         found = true;
      }
   }
   return d;
}

bool fits(const RangeStats& s, Precision p)
{
   if (s.nonfinite > 0) return false;
   switch (p)
   {
   case Precision::fp16: return s.max_abs <= kFp16MaxAbs && s.underflow_fp16 == 0;
   case Precision::fp32: return s.max_abs <= kFp32MaxAbs && s.underflow_fp32 == 0;
   default: return true;
   }
}

// Why values do not fit p (called only when they do not): overflow wins over underflow
// because it is the one that produces Inf.
const char* misfit_reason(const RangeStats& s, Precision p)
{
   const double max_abs = p == Precision::fp16 ? kFp16MaxAbs : kFp32MaxAbs;
   return s.max_abs > max_abs ? "overflow" : "underflow";
}

} // namespace

ValueStats value_stats(const CsrView& a)
{
   validate_csr(a);
   ValueStats out;
   for (int i = 0; i < a.nrows; ++i)
   {
      add_row(out.plain, a.row_ptr[i], a.row_ptr[i + 1], [&](int64_t k) { return value_at(a, k); });
   }
   out.scalable = a.nrows == a.ncols;
   if (out.scalable)
   {
      for (int i = 0; i < a.nrows; ++i)
      {
         double row = 0.0, row_abs = 0.0;
         for (int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
         {
            const double v = value_at(a, k);
            if (!std::isfinite(v)) continue;
            row += v;
            row_abs += std::fabs(v);
         }
         out.sum += row;
         out.abs_sum += row_abs;
      }
   }
   for (int i = 0; i < a.nrows && out.scalable; ++i)
   {
      bool         found = false;
      const double d     = diagonal_of_row(a, i, found);
      out.scalable       = found && std::isfinite(d) && d != 0.0;
   }
   if (out.scalable)
   {
      const std::vector<double> u = scaling_vector(a);
      for (int i = 0; i < a.nrows; ++i)
      {
         add_row(out.scaled, a.row_ptr[i], a.row_ptr[i + 1],
                 [&](int64_t k) { return value_at(a, k) / (u[i] * u[a.col[k]]); });
      }
   }
   return out;
}

std::vector<double> scaling_vector(const CsrView& a)
{
   AMGT_REQUIRE(a.nrows == a.ncols, "scaling_vector: the matrix is not square");
   std::vector<double> u(static_cast<size_t>(a.nrows));
   for (int i = 0; i < a.nrows; ++i)
   {
      bool found = false;
      u[i]       = std::sqrt(std::fabs(diagonal_of_row(a, i, found)));
      AMGT_REQUIRE(found && std::isfinite(u[i]) && u[i] > 0.0,
                   "scaling_vector: row " + std::to_string(i) + " has no usable diagonal");
   }
   return u;
}

std::vector<double> scaled_values(const CsrView& a, const std::vector<double>& unscale)
{
   AMGT_REQUIRE(static_cast<int64_t>(unscale.size()) == a.nrows && a.nrows == a.ncols,
                "scaled_values: scaling vector does not match the matrix");
   std::vector<double> v(static_cast<size_t>(a.nnz));
   for (int i = 0; i < a.nrows; ++i)
   {
      for (int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
      {
         v[k] = value_at(a, k) / (unscale[i] * unscale[a.col[k]]);
      }
   }
   return v;
}

bool near_singular(const ValueStats& s, Precision p)
{
   const double u = p == Precision::fp16   ? StorageTraits<half_t>::unit_roundoff
                    : p == Precision::fp32 ? StorageTraits<float>::unit_roundoff
                                           : 0.0;
   return s.abs_sum > 0.0 && std::fabs(s.sum) < kNearSingularFactor * u * s.abs_sum;
}

PrecisionChoice choose_precision(const ValueStats& s, Precision floor)
{
   if (floor == Precision::fp64) return {Precision::fp64, false, "floor"};
   // NaN/Inf already in the operator: no storage type makes them finite; fp64 at least
   // does not add rounding of its own, and hypre's own checks see the same values.
   if (s.plain.nonfinite > 0) return {Precision::fp64, false, "non-finite"};
   if (near_singular(s, Precision::fp32)) return {Precision::fp64, false, "near-singular"};
   const char* refused = nullptr;
   if (floor == Precision::fp16 && near_singular(s, Precision::fp16)) refused = "near-singular";
   else if (floor == Precision::fp16)
   {
      if (fits(s.plain, Precision::fp16)) return {Precision::fp16, false, "in-range"};
      if (s.scalable && fits(s.scaled, Precision::fp16)) return {Precision::fp16, true, "scaled"};
      refused = misfit_reason(s.plain, Precision::fp16);
   }
   if (fits(s.plain, Precision::fp32))
   {
      return {Precision::fp32, false, refused ? refused : "in-range"};
   }
   return {Precision::fp64, false, misfit_reason(s.plain, Precision::fp32)};
}

bool scaled_form_needed(const ValueStats& s, Precision floor)
{
   return floor == Precision::fp16 && !s.scaled_known && s.plain.nonfinite == 0 &&
          !near_singular(s, Precision::fp32) && !near_singular(s, Precision::fp16) &&
          !fits(s.plain, Precision::fp16);
}

PrecisionChoice lossless_storage(const ValueStats& s, const PrecisionChoice& c)
{
   if (c.precision == Precision::fp16 || c.scaled || s.plain.nonfinite > 0 || s.plain.inexact_fp16 > 0)
   {
      return c;
   }
   PrecisionChoice e{Precision::fp16, false, "exact-fp16"};
   e.exact = true;
   return e;
}

Precision level_floor(const ValueStats& s, Precision floor)
{
   if (floor == Precision::fp64) return floor;
   if (near_singular(s, Precision::fp32)) return Precision::fp64;
   if (floor == Precision::fp16 && near_singular(s, Precision::fp16)) return Precision::fp32;
   return floor;
}

Precision product_precision(Precision floor)
{
   return floor == Precision::fp64 ? Precision::fp64 : Precision::fp32;
}

Precision higher(Precision p)
{
   return p == Precision::fp16 ? Precision::fp32 : Precision::fp64;
}

int64_t count_nonfinite(const double* v, int64_t n)
{
   int64_t c = 0;
   for (int64_t i = 0; i < n; ++i) c += std::isfinite(v[i]) ? 0 : 1;
   return c;
}

} // namespace amgt
