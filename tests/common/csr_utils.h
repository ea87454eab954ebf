// Small CSR helpers shared by the unit tests. Independent of the plugin's algorithms: they
// only use the CsrMatrix container.
#pragma once

#include "mbsr/mbsr.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

namespace amgt::test {

inline double value_at(const CsrMatrix& a, size_t p)
{
   return a.val.empty() ? 1.0 : a.val[p];
}

inline int64_t nnz_of(const CsrMatrix& a)
{
   return static_cast<int64_t>(a.col.size());
}

// Columns sorted, repeats summed in input order (the same order csr_to_mbsr sums them in),
// stored zeros kept, values always explicit.
inline CsrMatrix canonical(const CsrMatrix& a)
{
   CsrMatrix c;
   c.nrows = a.nrows;
   c.ncols = a.ncols;
   c.row_ptr.push_back(0);
   for (int32_t i = 0; i < a.nrows; ++i)
   {
      std::vector<size_t> idx(static_cast<size_t>(a.row_ptr[i + 1] - a.row_ptr[i]));
      std::iota(idx.begin(), idx.end(), static_cast<size_t>(a.row_ptr[i]));
      std::stable_sort(idx.begin(), idx.end(),
                       [&](size_t x, size_t y) { return a.col[x] < a.col[y]; });
      for (size_t n = 0; n < idx.size(); ++n)
      {
         if (n > 0 && a.col[idx[n]] == a.col[idx[n - 1]]) { c.val.back() += value_at(a, idx[n]); }
         else
         {
            c.col.push_back(a.col[idx[n]]);
            c.val.push_back(value_at(a, idx[n]));
         }
      }
      c.row_ptr.push_back(static_cast<int32_t>(c.col.size()));
   }
   return c;
}

inline CsrMatrix transpose(const CsrMatrix& a)
{
   CsrMatrix t;
   t.nrows = a.ncols;
   t.ncols = a.nrows;
   t.row_ptr.assign(static_cast<size_t>(a.ncols) + 1, 0);
   for (int32_t j : a.col) ++t.row_ptr[static_cast<size_t>(j) + 1];
   for (int32_t j = 0; j < a.ncols; ++j) t.row_ptr[j + 1] += t.row_ptr[j];
   t.col.resize(a.col.size());
   t.val.resize(a.col.size());
   std::vector<int32_t> next(t.row_ptr.begin(), t.row_ptr.end() - 1);
   for (int32_t i = 0; i < a.nrows; ++i)
   {
      for (int32_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p)
      {
         const int32_t q = next[a.col[p]]++;
         t.col[q]        = i;
         t.val[q]        = value_at(a, static_cast<size_t>(p));
      }
   }
   return t;
}

// |A| entrywise: the matrix of the error bounds' S = |A||x| and |A||B|.
inline CsrMatrix abs_values(const CsrMatrix& a)
{
   CsrMatrix b = a;
   b.val.resize(a.col.size());
   for (size_t p = 0; p < b.val.size(); ++p) b.val[p] = std::fabs(value_at(a, p));
   return b;
}

// Rounds every value to the storage type V and back: the matrix an mBSR<V> holds exactly.
template <class V>
CsrMatrix rounded_to(const CsrMatrix& a)
{
   CsrMatrix b = a;
   b.val.resize(a.col.size());
   for (size_t p = 0; p < b.val.size(); ++p)
   {
      b.val[p] = StorageTraits<V>::to_double(StorageTraits<V>::from_double(value_at(a, p)));
   }
   return b;
}

inline int max_row_nnz(const CsrMatrix& a)
{
   int k = 0;
   for (int32_t i = 0; i < a.nrows; ++i) k = std::max(k, a.row_ptr[i + 1] - a.row_ptr[i]);
   return k;
}

inline double max_abs_value(const CsrMatrix& a)
{
   double m = 0.0;
   for (size_t p = 0; p < a.col.size(); ++p) m = std::max(m, std::fabs(value_at(a, p)));
   return m;
}

// The same matrix with each row's entries in another order, values moved with their columns
// (hypre's outputs are unsorted: diagonal first, hash order after).
inline CsrMatrix shuffled_rows(const CsrMatrix& a, uint32_t seed)
{
   std::mt19937 rng(seed);
   CsrMatrix    s = a;
   for (int32_t i = 0; i < a.nrows; ++i)
   {
      std::vector<int32_t> idx(static_cast<size_t>(a.row_ptr[i + 1] - a.row_ptr[i]));
      std::iota(idx.begin(), idx.end(), a.row_ptr[i]);
      std::shuffle(idx.begin(), idx.end(), rng);
      for (size_t k = 0; k < idx.size(); ++k)
      {
         s.col[a.row_ptr[i] + k] = a.col[idx[k]];
         if (!a.val.empty()) s.val[a.row_ptr[i] + k] = a.val[idx[k]];
      }
   }
   return s;
}

} // namespace amgt::test
