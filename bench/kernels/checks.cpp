#include "checks.h"

#include "report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace amgt::kbench {

double spmv_check_tolerance(Precision p)
{
   switch (p)
   {
   case Precision::fp64: return kSpmvTolerance;
   case Precision::fp32: return 1e-5;
   case Precision::fp16: return 1e-2;
   }
   return kSpmvTolerance;
}

std::string half_products_differ(const amgt::Mbsr<amgt::half_t>& tc, const amgt::Mbsr<amgt::half_t>& cc,
                                 int64_t tiles_c, double* rel)
{
   *rel = std::numeric_limits<double>::quiet_NaN();
   if (tc.blk_ptr != cc.blk_ptr || tc.blk_col != cc.blk_col || tc.blk_map != cc.blk_map)
      return "tensor_core and cuda_core products differ in structure";
   if (tiles_c >= 0 && cc.num_tiles() != tiles_c)
      return "fp16 product has " + std::to_string(cc.num_tiles()) + " tiles, fp64 " + std::to_string(tiles_c);
   long double num = 0.0L, den = 0.0L;
   for (size_t p = 0; p < cc.blk_val.size(); ++p)
   {
      const double a = amgt::half_to_double(tc.blk_val[p]), b = amgt::half_to_double(cc.blk_val[p]);
      if (!std::isfinite(a) || !std::isfinite(b)) return "non-finite fp16 value (out of half's range)";
      num += static_cast<long double>(a - b) * (a - b);
      den += static_cast<long double>(b) * b;
   }
   *rel = den > 0.0L ? static_cast<double>(std::sqrt(num / den)) : 0.0;
   if (!(*rel < 1e-2)) return "tensor_core vs cuda_core normwise difference " + sci(*rel);
   return {};
}

double rel_err(const std::vector<double>& a, const std::vector<double>& b)
{
   if (a.size() != b.size()) return std::numeric_limits<double>::quiet_NaN();
   long double num = 0.0L, den = 0.0L;
   for (size_t i = 0; i < a.size(); ++i)
   {
      if (!std::isfinite(a[i])) return std::numeric_limits<double>::quiet_NaN();
      const long double d = static_cast<long double>(a[i]) - static_cast<long double>(b[i]);
      num += d * d;
      den += static_cast<long double>(b[i]) * static_cast<long double>(b[i]);
   }
   return static_cast<double>(den > 0.0L ? std::sqrt(num / den) : std::sqrt(num));
}

std::string sci(double v)
{
   char buf[32];
   std::snprintf(buf, sizeof buf, "%.2e", v);
   return buf;
}

std::vector<double> host_spmv(const HostCsr& A, const std::vector<double>& x, double alpha, double beta,
                              const std::vector<double>& y0)
{
   std::vector<double> y(static_cast<size_t>(A.nrows));
   parallel_for(A.nrows, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
      {
         long double s = 0.0L;
         for (int32_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
         {
            s += static_cast<long double>(A.val[p]) * static_cast<long double>(x[A.col[p]]);
         }
         long double r = static_cast<long double>(alpha) * s;
         if (beta != 0.0) r += static_cast<long double>(beta) * static_cast<long double>(y0[i]);
         y[i] = static_cast<double>(r);
      }
   });
   return y;
}

std::string compare_csr(const HostCsr& a, const HostCsr& ref, double tol, double* max_err)
{
   *max_err = 0.0;
   if (a.nrows != ref.nrows || a.ncols != ref.ncols)
   {
      return "shape " + std::to_string(a.nrows) + "x" + std::to_string(a.ncols) + " vs " +
             std::to_string(ref.nrows) + "x" + std::to_string(ref.ncols);
   }
   if (a.nnz() != ref.nnz())
   {
      return "nnz " + std::to_string(a.nnz()) + " vs " + std::to_string(ref.nnz());
   }
   // Rows in kChunks contiguous chunks; each chunk keeps its first bad row and its worst error.
   constexpr int64_t    kChunks = 1024;
   const int64_t        chunk   = std::max<int64_t>(1, (ref.nrows + kChunks - 1) / kChunks);
   constexpr int64_t    kNone   = std::numeric_limits<int64_t>::max();
   std::vector<double>  worst(kChunks, 0.0);
   std::vector<int64_t> first_bad(kChunks, kNone);
   std::vector<int>     kind(kChunks, 0);
   parallel_chunks(kChunks, [&](int64_t c) {
      const int64_t r0 = std::min<int64_t>(ref.nrows, c * chunk), r1 = std::min<int64_t>(ref.nrows, r0 + chunk);
      double        w  = 0.0;
      for (int64_t i = r0; i < r1 && first_bad[c] == kNone; ++i)
      {
         if (a.row_ptr[i + 1] != ref.row_ptr[i + 1])
         {
            first_bad[c] = i;
            kind[c]      = 1;
            break;
         }
         double rowmax = 0.0;
         for (int32_t p = ref.row_ptr[i]; p < ref.row_ptr[i + 1]; ++p) rowmax = std::max(rowmax, std::fabs(ref.val[p]));
         for (int32_t p = ref.row_ptr[i]; p < ref.row_ptr[i + 1]; ++p)
         {
            if (a.col[p] != ref.col[p])
            {
               first_bad[c] = i;
               kind[c]      = 2;
               break;
            }
            const double d = std::fabs(a.val[p] - ref.val[p]);
            const double e = rowmax > 0.0 ? d / rowmax : d;
            if (!(e <= w)) w = std::isfinite(e) ? e : std::numeric_limits<double>::infinity();
         }
      }
      worst[c] = w;
   });
   for (int64_t c = 0; c < kChunks; ++c)
   {
      if (first_bad[c] != kNone)
      {
         const int64_t i = first_bad[c];
         return std::string(kind[c] == 1 ? "row lengths differ" : "column indices differ") + " at row " +
                std::to_string(i) + " (" + std::to_string(a.row_ptr[i + 1] - a.row_ptr[i]) + " vs " +
                std::to_string(ref.row_ptr[i + 1] - ref.row_ptr[i]) + " entries)";
      }
      *max_err = std::max(*max_err, worst[c]);
   }
   if (!(*max_err <= tol)) return "values differ: max row-relative error " + sci(*max_err);
   return {};
}

} // namespace amgt::kbench
