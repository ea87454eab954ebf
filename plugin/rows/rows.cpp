#include "rows/rows.h"

#include "common/error.h"
#include "precision/policy.h"
#include "spmv/combine.h"

#include <algorithm>
#include <cstdlib>

namespace amgt {

using spmv_ref_detail::combine;
using spmv_ref_detail::needs_product;

int64_t max_span(const CsrView& a)
{
   int64_t span = 0;
   for (int32_t i = 0; i < a.nrows; ++i)
   {
      for (int32_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
      {
         const int64_t d = static_cast<int64_t>(a.col[k]) - i;
         span            = std::max(span, d < 0 ? -d : d);
      }
   }
   return span;
}

bool fits_narrow(const CsrView& a)
{
   return max_span(a) <= kNarrowSpan;
}

template <class V>
Rows<V> rows_from_csr(const CsrView& a, bool narrow, const std::vector<double>* unscale)
{
   validate_csr(a);
   AMGT_REQUIRE(!unscale || (a.nrows == a.ncols && unscale->size() == static_cast<size_t>(a.nrows)),
                "rows: the scaling vector needs a square matrix and one entry per row");
   Rows<V> r;
   r.nrows = a.nrows;
   r.ncols = a.ncols;
   r.row_ptr.assign(a.row_ptr, a.row_ptr + a.nrows + 1);
   r.narrow               = narrow && fits_narrow(a);
   const std::vector<double> scaled = unscale ? scaled_values(a, *unscale) : std::vector<double>();
   const size_t nnz = static_cast<size_t>(a.nnz);
   r.val.resize(nnz);
   if (r.narrow) r.col16.resize(nnz);
   else r.col.assign(a.col, a.col + nnz);
   for (int32_t i = 0; i < a.nrows; ++i)
   {
      for (int32_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
      {
         const double v = unscale ? scaled[k] : (a.val ? a.val[k] : 1.0);
         r.val[k]       = StorageTraits<V>::from_double(v);
         if (r.narrow) r.col16[k] = static_cast<int16_t>(a.col[k] - i);
      }
   }
   return r;
}

template <class V>
void rows_spmv_ref(const Rows<V>& A, double alpha, const double* x, double beta, double* y,
                   const double* unscale)
{
   using T   = SpmvTraits<V>; // common/precision.h: values widened to double, double FMAs
   using Acc = typename T::acc_t;
   AMGT_REQUIRE(A.row_ptr.size() == static_cast<size_t>(A.nrows) + 1, "spmv: row_ptr does not match nrows");
   if (!needs_product("spmv", A.nrows, A.ncols, alpha, x, beta, y, unscale)) return;
   for (int32_t i = 0; i < A.nrows; ++i)
   {
      Acc sum = Acc(0);
      for (int32_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      {
         const int32_t j  = A.narrow ? i + A.col16[k] : A.col[k];
         // x_j * u_j in double (-ffp-contract=off), rounded once
         const double  xj = unscale ? x[j] * unscale[j] : x[j];
         sum              = T::madd(T::to_acc(A.val[k]), T::round_x(xj), sum);
      }
      const double ax = unscale ? static_cast<double>(sum) * unscale[i] : static_cast<double>(sum);
      y[i]            = combine(alpha, ax, beta, y[i]);
   }
}

const char* to_string(Layout l)
{
   return l == Layout::rows ? "rows" : "mbsr";
}

namespace {

// y0 up to x0, y1 from x1 on, linear between
double ramp(double x, double x0, double x1, double y0, double y1)
{
   const double t = std::min(std::max((x - x0) / (x1 - x0), 0.0), 1.0);
   return (1.0 - t) * y0 + t * y1;
}

} // namespace

double rows_relative_speed(double row_length, double fill, Precision p)
{
   const double top   = p == Precision::fp64 ? kRowsHighFillSpeedFp64 : kRowsHighFillSpeed;
   const double along = ramp(fill, kRowsLowFill, kRowsHighFill, kRowsLowFillSpeed, top); // rows of >= kRowsLongRow
   return ramp(row_length, kRowsShortRow, kRowsLongRow, kRowsShortSpeed, along);
}

LayoutChoice choose_layout(const LayoutInputs& in)
{
   const double s = in.precision == Precision::fp64 ? 8.0 : in.precision == Precision::fp32 ? 4.0 : 2.0;
   LayoutChoice c;
   // a matrix without entries (or without an estimate) reads nothing either way: rows, which
   // costs nothing to build
   if (!(in.fill > 0.0) || !(in.row_length > 0.0))
   {
      c.layout = Layout::rows;
      return c;
   }
   const double per_block_row = 12.0 / (4.0 * in.row_length);
   c.tile_kernels = in.fill >= kLayoutTileMinFill && 4.0 * in.row_length / in.fill <= kLayoutTileMaxMeanTiles;
   c.mbsr_bytes   = s + (c.tile_kernels ? 6.0 / in.fill : 2.0 + 4.0 / in.fill) + per_block_row;
   c.rows_bytes = s + (in.narrow ? 2.0 : 4.0) + 4.0 / in.row_length;
   c.rows_speed = rows_relative_speed(in.row_length, in.fill, in.precision);
   c.mbsr_speed = c.tile_kernels && in.precision != Precision::fp64 ? kMbsrTileLowSpeed : 1.0;
   c.layout     = c.mbsr_bytes / c.mbsr_speed <= (1.0 - kMbsrMinSaving) * c.rows_bytes / c.rows_speed
                     ? Layout::mbsr
                     : Layout::rows;
   c.entry_order = c.layout == Layout::mbsr && !c.tile_kernels && in.precision == Precision::fp64;
   return c;
}

bool layout_needs_exact_span(const LayoutInputs& in)
{
   if (!in.narrow || choose_layout(in).layout != Layout::rows) return false;
   LayoutInputs wide = in;
   wide.narrow       = false;
   return choose_layout(wide).layout == Layout::mbsr;
}

#define AMGT_ROWS_REF_INSTANTIATE(V)                                                      \
   template Rows<V> rows_from_csr<V>(const CsrView&, bool, const std::vector<double>*); \
   template void    rows_spmv_ref<V>(const Rows<V>&, double, const double*, double, double*, const double*);
AMGT_ROWS_REF_INSTANTIATE(double)
AMGT_ROWS_REF_INSTANTIATE(float)
AMGT_ROWS_REF_INSTANTIATE(half_t)
#undef AMGT_ROWS_REF_INSTANTIATE

} // namespace amgt
