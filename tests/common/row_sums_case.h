// Inputs of the row sums of a CSR block (csr/row_sums.h) for the CPU and GPU tests: rows of 0
// to 2*per_row entries with mixed signs, C/F markers for the rows and the columns, an initial
// output for the `add` form.
#pragma once

#include "csr/row_sums.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace amgt::test {

struct RowSumsCase
{
   int32_t              nrows = 0, ncols = 0, type = 0, set = 1;
   double               scal  = 1.0;
   bool                 with_cf = false;
   std::vector<int32_t> ia{0}, ja, cf_i, cf_j;
   std::vector<double>  a, out; // out: the initial values (add)
   int64_t              nnz_hint = -1; // >= 0: the view's nnz (the kernels' hint) instead of ja's size

   // the view, writing into out_data
   RowSums view(double* out_data) const
   {
      RowSums m{};
      m.nrows = nrows;
      m.ncols = ncols;
      m.nnz   = nnz_hint >= 0 ? nnz_hint : static_cast<int64_t>(ja.size());
      m.ia    = ia.data();
      m.ja    = ja.data();
      m.a     = a.data();
      m.cf_i  = with_cf ? cf_i.data() : nullptr;
      m.cf_j  = with_cf ? cf_j.data() : nullptr;
      m.type  = type;
      m.scal  = scal;
      m.set   = set;
      m.out   = out_data;
      return m;
   }
};

inline RowSumsCase make_row_sums_case(int32_t nrows, int32_t ncols, int32_t per_row, unsigned seed)
{
   std::mt19937                           gen(seed);
   std::uniform_real_distribution<double> val(-1.0, 1.0);
   std::uniform_int_distribution<int32_t> len(0, std::max(0, 2 * per_row));
   RowSumsCase                            c;
   c.nrows   = nrows;
   c.ncols   = ncols;
   c.type    = static_cast<int32_t>(seed % 2);
   c.set     = static_cast<int32_t>(seed / 2 % 2);
   c.scal    = seed % 5 == 0 ? -0.5 : 1.0;
   c.with_cf = seed % 3 != 0;
   for (int32_t i = 0; i < nrows; ++i)
   {
      c.cf_i.push_back(gen() % 2 ? 1 : -1);
      c.out.push_back(val(gen));
      const int32_t n = ncols > 0 ? len(gen) : 0;
      for (int32_t k = 0; k < n; ++k)
      {
         c.ja.push_back(static_cast<int32_t>(gen() % static_cast<unsigned>(ncols)));
         // some large terms, so that the order of the additions shows
         c.a.push_back(gen() % 17 == 0 ? 1e15 * val(gen) : val(gen));
      }
      c.ia.push_back(static_cast<int32_t>(c.ja.size()));
   }
   for (int32_t j = 0; j < ncols; ++j) c.cf_j.push_back(gen() % 2 ? 1 : -1);
   return c;
}

} // namespace amgt::test

namespace amgt::test {

// Inputs of the weak row sums: a rank's rows of A (both blocks), the strength matrix's marks at
// the same positions (negative: weak), C/F markers (1 C, -1 F, some -3), an initial rs.
struct WeakRowSumsCase
{
   int32_t              nrows = 0, flag = 0;
   bool                 has_offd = false;
   std::vector<int32_t> diag_i{0}, offd_i{0}, soc_diag_j, soc_offd_j, cf_marker;
   std::vector<double>  diag_a, offd_a, rs;

   WeakRowSums view(double* rs_data) const
   {
      WeakRowSums m{};
      m.nrows      = nrows;
      m.has_offd   = has_offd ? 1 : 0;
      m.nnz        = static_cast<int64_t>(diag_a.size() + (has_offd ? offd_a.size() : 0));
      m.cf_marker  = cf_marker.data();
      m.flag       = flag;
      m.diag_i     = diag_i.data();
      m.diag_a     = diag_a.data();
      m.soc_diag_j = soc_diag_j.data();
      m.offd_i     = offd_i.data();
      m.offd_a     = offd_a.data();
      m.soc_offd_j = soc_offd_j.data();
      m.rs         = rs_data;
      return m;
   }
};

inline WeakRowSumsCase make_weak_row_sums_case(int32_t nrows, int32_t per_row, bool offd, unsigned seed)
{
   std::mt19937                           gen(seed);
   std::uniform_real_distribution<double> val(-1.0, 1.0);
   std::uniform_int_distribution<int32_t> len(0, std::max(0, 2 * per_row));
   WeakRowSumsCase                        c;
   c.nrows    = nrows;
   c.has_offd = offd;
   for (int32_t i = 0; i < nrows; ++i)
   {
      const unsigned kind = gen() % 5;
      c.cf_marker.push_back(kind == 0 ? 1 : kind == 1 ? -3 : -1);
      c.rs.push_back(val(gen));
      const int32_t n = len(gen);
      for (int32_t k = 0; k < n; ++k)
      {
         c.diag_a.push_back(gen() % 13 == 0 ? 1e15 * val(gen) : val(gen));
         c.soc_diag_j.push_back(gen() % 3 == 0 ? -1 : (k == 0 ? -2 : static_cast<int32_t>(gen() % 100)));
      }
      c.diag_i.push_back(static_cast<int32_t>(c.diag_a.size()));
      const int32_t m = offd ? static_cast<int32_t>(gen() % 5) : 0;
      for (int32_t k = 0; k < m; ++k)
      {
         c.offd_a.push_back(val(gen));
         c.soc_offd_j.push_back(gen() % 2 ? -1 : static_cast<int32_t>(gen() % 50));
      }
      c.offd_i.push_back(static_cast<int32_t>(c.offd_a.size()));
   }
   return c;
}

} // namespace amgt::test
