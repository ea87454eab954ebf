#include "resetup/galerkin.h"

#include "common/error.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace amgt::resetup {

uint64_t structure_fingerprint(const CsrView& a)
{
   uint64_t h = fingerprint_shape(a.nrows, a.ncols, a.nnz);
   const uint64_t base = static_cast<uint64_t>(a.nnz);
   for (int64_t k = 0; k <= a.nrows; ++k)
   {
      h += fingerprint_term(base + 1 + static_cast<uint64_t>(k), static_cast<uint32_t>(a.row_ptr[k]));
   }
   for (int64_t k = 0; k < a.nnz; ++k)
   {
      h += fingerprint_term(static_cast<uint64_t>(k), static_cast<uint32_t>(a.col[k]));
   }
   return h;
}

std::vector<double> abs_diagonal(const CsrView& a)
{
   std::vector<double> d(static_cast<size_t>(a.nrows));
   for (int32_t i = 0; i < a.nrows; ++i) { d[i] = abs_diagonal_at(a.row_ptr, a.col, a.val, i); }
   return d;
}

double max_diagonal_ratio(const CsrView& a, const double* old_abs_diagonal)
{
   double worst = 1.0;
   for (int32_t i = 0; i < a.nrows; ++i)
   {
      worst = std::max(worst, diagonal_ratio(abs_diagonal_at(a.row_ptr, a.col, a.val, i), old_abs_diagonal[i]));
   }
   return worst;
}

FixedPattern pattern_of(int32_t nrows, int32_t ncols, const int32_t* row_ptr, const int32_t* col)
{
   FixedPattern p;
   p.nrows = nrows;
   p.ncols = ncols;
   p.row_ptr.assign(row_ptr, row_ptr + nrows + 1);
   const int32_t nnz = row_ptr[nrows];
   p.sorted_col.resize(nnz);
   p.pos.resize(nnz);
   for (int32_t i = 0; i < nrows; ++i)
   {
      const int32_t b = row_ptr[i], e = row_ptr[i + 1];
      std::iota(p.pos.begin() + b, p.pos.begin() + e, b);
      std::sort(p.pos.begin() + b, p.pos.begin() + e, [&](int32_t x, int32_t y) { return col[x] < col[y]; });
      for (int32_t k = b; k < e; ++k)
      {
         p.sorted_col[k] = col[p.pos[k]];
         AMGT_REQUIRE(k == b || p.sorted_col[k] != p.sorted_col[k - 1],
                      "fixed pattern: column " + std::to_string(p.sorted_col[k]) + " repeated in row " +
                         std::to_string(i));
      }
   }
   return p;
}

FixedPattern product_pattern(const CsrView& A, const CsrView& B)
{
   AMGT_REQUIRE(A.ncols == B.nrows, "product pattern: A's columns differ from B's rows");
   FixedPattern p;
   p.nrows = A.nrows;
   p.ncols = B.ncols;
   p.row_ptr.assign(static_cast<size_t>(A.nrows) + 1, 0);
   std::vector<int32_t> mark(static_cast<size_t>(B.ncols), -1);
   std::vector<int32_t> row;
   for (int32_t i = 0; i < A.nrows; ++i)
   {
      row.clear();
      for (int32_t ka = A.row_ptr[i]; ka < A.row_ptr[i + 1]; ++ka)
      {
         const int32_t k = A.col[ka];
         for (int32_t kb = B.row_ptr[k]; kb < B.row_ptr[k + 1]; ++kb)
         {
            const int32_t j = B.col[kb];
            if (mark[j] != i)
            {
               mark[j] = i;
               row.push_back(j);
            }
         }
      }
      std::sort(row.begin(), row.end());
      p.sorted_col.insert(p.sorted_col.end(), row.begin(), row.end());
      AMGT_REQUIRE(p.sorted_col.size() <= static_cast<size_t>(INT32_MAX), "product pattern: more than 2^31-1 entries");
      p.row_ptr[i + 1] = static_cast<int32_t>(p.sorted_col.size());
   }
   p.pos.resize(p.sorted_col.size());
   std::iota(p.pos.begin(), p.pos.end(), 0);
   return p;
}

bool numeric_on_pattern(const CsrView& A, const CsrView& B, const FixedPattern& C, double* out)
{
   if (A.nrows != C.nrows || B.ncols != C.ncols || A.ncols != B.nrows) { return false; }
   for (int32_t i = 0; i < C.nrows; ++i)
   {
      const int32_t  b    = C.row_ptr[i], e = C.row_ptr[i + 1];
      const int32_t* cols = C.sorted_col.data();
      for (int32_t k = b; k < e; ++k) { out[C.pos[k]] = 0.0; }
      for (int32_t ka = A.row_ptr[i]; ka < A.row_ptr[i + 1]; ++ka)
      {
         const int32_t k = A.col[ka];
         const double  a = A.val ? A.val[ka] : 1.0;
         for (int32_t kb = B.row_ptr[k]; kb < B.row_ptr[k + 1]; ++kb)
         {
            const int32_t  j  = B.col[kb];
            const int32_t* it = std::lower_bound(cols + b, cols + e, j);
            if (it == cols + e || *it != j) { return false; }
            out[C.pos[it - cols]] += a * (B.val ? B.val[kb] : 1.0);
         }
      }
   }
   return true;
}

bool term_places(const CsrView& X, const CsrView& B, const FixedPattern& C, TermPlaces& out)
{
   if (X.nrows != C.nrows || B.ncols != C.ncols || X.ncols != B.nrows) { return false; }
   int64_t longest = 0;
   for (int32_t i = 0; i < C.nrows; ++i) { longest = std::max<int64_t>(longest, C.row_ptr[i + 1] - C.row_ptr[i]); }
   out.width = place_width(longest);
   if (out.width == 0) { return false; }
   out.term_ptr.assign(static_cast<size_t>(C.nrows) + 1, 0);
   out.place.clear();
   const int32_t* cols = C.sorted_col.data();
   for (int32_t i = 0; i < C.nrows; ++i)
   {
      const int32_t b = C.row_ptr[i], e = C.row_ptr[i + 1];
      for (int32_t kx = X.row_ptr[i]; kx < X.row_ptr[i + 1]; ++kx)
      {
         const int32_t k = X.col[kx];
         for (int32_t kb = B.row_ptr[k]; kb < B.row_ptr[k + 1]; ++kb)
         {
            const int32_t* it = std::lower_bound(cols + b, cols + e, B.col[kb]);
            if (it == cols + e || *it != B.col[kb]) { return false; }
            const auto p = static_cast<uint32_t>(C.pos[it - cols] - b);
            out.place.push_back(static_cast<uint8_t>(p & 0xffu));
            if (out.width == 2) { out.place.push_back(static_cast<uint8_t>(p >> 8)); }
         }
      }
      out.term_ptr[i + 1] = static_cast<int64_t>(out.place.size()) / out.width;
   }
   return true;
}

void numeric_by_places(const CsrView& X, const CsrView& B, const FixedPattern& C, const TermPlaces& t,
                       double* out)
{
   for (int32_t i = 0; i < C.nrows; ++i)
   {
      double* row = out + C.row_ptr[i];
      for (int32_t k = 0; k < C.row_ptr[i + 1] - C.row_ptr[i]; ++k) { row[k] = 0.0; }
      int64_t term = t.term_ptr[i];
      for (int32_t kx = X.row_ptr[i]; kx < X.row_ptr[i + 1]; ++kx)
      {
         const int32_t k = X.col[kx];
         const double  x = X.val ? X.val[kx] : 1.0;
         for (int32_t kb = B.row_ptr[k]; kb < B.row_ptr[k + 1]; ++kb, ++term)
         {
            const uint8_t* q = t.place.data() + term * t.width;
            const uint32_t p = t.width == 2 ? q[0] | (static_cast<uint32_t>(q[1]) << 8) : q[0];
            row[p] += x * (B.val ? B.val[kb] : 1.0);
         }
      }
   }
}

bool term_pulls(const CsrView& X, const CsrView& B, const FixedPattern& C, const TermPlaces& t, TermPulls& out)
{
   out.width = 0;
   if (t.width == 0) { return false; }
   int64_t longest_x = 0, longest_b = 0;
   for (int32_t i = 0; i < X.nrows; ++i) { longest_x = std::max<int64_t>(longest_x, X.row_ptr[i + 1] - X.row_ptr[i]); }
   for (int32_t i = 0; i < B.nrows; ++i) { longest_b = std::max<int64_t>(longest_b, B.row_ptr[i + 1] - B.row_ptr[i]); }
   const int32_t bits_b = offset_bits(longest_b), bits = offset_bits(longest_x) + bits_b + 1;
   if (bits > 16) { return false; }
   const int32_t        width = bits <= 8 ? 1 : 2;
   const int32_t        nnz   = C.row_ptr[C.nrows];
   std::vector<int64_t> start(static_cast<size_t>(nnz) + 1, 0);
   std::vector<int32_t> n(static_cast<size_t>(nnz), 0);
   auto place_of = [&](int64_t term) {
      const uint8_t* q = t.place.data() + term * t.width;
      return t.width == 2 ? q[0] | (static_cast<int32_t>(q[1]) << 8) : static_cast<int32_t>(q[0]);
   };
   for (int32_t i = 0; i < C.nrows; ++i)
   {
      for (int64_t term = t.term_ptr[i]; term < t.term_ptr[i + 1]; ++term) { ++n[C.row_ptr[i] + place_of(term)]; }
   }
   for (int32_t e = 0; e < nnz; ++e)
   {
      if (n[e] > 255 || n[e] == 0) { return false; }
      start[e + 1] = start[e] + n[e];
   }
   out.width  = width;
   out.bits_b = bits_b;
   out.term_ptr = t.term_ptr;
   out.count.assign(n.begin(), n.end());
   out.code.assign(static_cast<size_t>(start[nnz]) * width, 0);
   for (int32_t i = 0; i < C.nrows; ++i)
   {
      int64_t term = t.term_ptr[i];
      for (int32_t kx = X.row_ptr[i]; kx < X.row_ptr[i + 1]; ++kx)
      {
         const int32_t k = X.col[kx];
         for (int32_t kb = B.row_ptr[k]; kb < B.row_ptr[k + 1]; ++kb, ++term)
         {
            const uint32_t code = ((static_cast<uint32_t>(kx - X.row_ptr[i]) << bits_b) |
                                   static_cast<uint32_t>(kb - B.row_ptr[k]))
                                  << 1;
            const int64_t  at   = start[C.row_ptr[i] + place_of(term)]++;
            out.code[at * width] = static_cast<uint8_t>(code & 0xffu);
            if (width == 2) { out.code[at * width + 1] = static_cast<uint8_t>(code >> 8); }
         }
      }
   }
   for (int32_t e = 0; e < nnz; ++e) { out.code[(start[e] - 1) * width] |= 1u; } // each entry's last term
   return true;
}

void numeric_by_pulls(const CsrView& X, const CsrView& B, const FixedPattern& C, const TermPulls& t,
                      double* out)
{
   const uint32_t mask_b = (1u << t.bits_b) - 1u;
   for (int32_t i = 0; i < C.nrows; ++i)
   {
      int64_t term = t.term_ptr[i];
      for (int32_t e = C.row_ptr[i]; e < C.row_ptr[i + 1]; ++e)
      {
         double sum = 0.0;
         for (int32_t q = 0; q < t.count[e]; ++q, ++term)
         {
            const uint8_t* c    = t.code.data() + term * t.width;
            const uint32_t code = (t.width == 2 ? c[0] | (static_cast<uint32_t>(c[1]) << 8) : c[0]) >> 1;
            const int32_t  kx   = X.row_ptr[i] + static_cast<int32_t>(code >> t.bits_b);
            const double   x    = X.val ? X.val[kx] : 1.0;
            const int32_t  kb   = B.row_ptr[X.col[kx]] + static_cast<int32_t>(code & mask_b);
            sum += x * (B.val ? B.val[kb] : 1.0);
         }
         out[e] = sum;
      }
   }
}

void check_galerkin_shapes(const CsrView& R, const CsrView& A, const CsrView& P, int32_t c_nrows)
{
   AMGT_REQUIRE(A.nrows == A.ncols, "Galerkin plan: the level's operator is not square");
   AMGT_REQUIRE(P.nrows == A.ncols && P.ncols == c_nrows,
                "Galerkin plan: P is " + std::to_string(P.nrows) + " x " + std::to_string(P.ncols) +
                   ", expected " + std::to_string(A.ncols) + " x " + std::to_string(c_nrows));
   AMGT_REQUIRE(R.nrows == c_nrows && R.ncols == A.nrows,
                "Galerkin plan: R is " + std::to_string(R.nrows) + " x " + std::to_string(R.ncols) +
                   ", expected " + std::to_string(c_nrows) + " x " + std::to_string(A.nrows));
}

GalerkinPlan make_galerkin_plan(const CsrView& R, const CsrView& A, const CsrView& P,
                                const int32_t* c_row_ptr, const int32_t* c_col, int32_t c_nrows)
{
   check_galerkin_shapes(R, A, P, c_nrows);
   GalerkinPlan plan;
   plan.ap = product_pattern(A, P);
   plan.ap_val.assign(plan.ap.sorted_col.size(), 0.0);
   plan.c = pattern_of(c_nrows, c_nrows, c_row_ptr, c_col);
   return plan;
}

bool galerkin_numeric(GalerkinPlan& plan, const CsrView& R, const CsrView& A, const CsrView& P,
                      double* c_val)
{
   if (!numeric_on_pattern(A, P, plan.ap, plan.ap_val.data())) { return false; }
   const CsrView ap{plan.ap.nrows, plan.ap.ncols, static_cast<int32_t>(plan.ap_val.size()),
                    plan.ap.row_ptr.data(), plan.ap.sorted_col.data(), plan.ap_val.data()};
   return numeric_on_pattern(R, ap, plan.c, c_val);
}

} // namespace amgt::resetup
