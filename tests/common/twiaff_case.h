// Inputs of extended+i's F-F weights (interp/twiaff.h) for the CPU and GPU tests: a rank's
// F-rows of A_FF (diagonal block, off-diagonal block, the other ranks' rows in ext) with
// unsorted columns, rows without their diagonal entry, entries whose transpose is missing,
// and columns j whose rsFC_j + vji is exactly zero (hypre's rsj == 0 branch).
#pragma once

#include "interp/twiaff.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace amgt::test {

struct TwiaffCase
{
   int32_t              nrows = 0, offd_cols = 0;
   int64_t              first_index = 0;
   std::vector<int32_t> diag_i{0}, diag_j, offd_i{0}, offd_j, ext_i{0};
   std::vector<int64_t> ext_j;
   std::vector<double>  diag_a, offd_a, ext_a, rsW, rsFC, rsFC_offd;

   // the view with diag_old = the given copy of diag_a's values
   TwiaffRows rows(double* diag, const double* diag_old, double* offd) const
   {
      TwiaffRows m{};
      m.nrows       = nrows;
      m.first_index = first_index;
      m.diag_nnz    = static_cast<int64_t>(diag_j.size());
      m.diag_i      = diag_i.data();
      m.diag_j      = diag_j.data();
      m.diag_a      = diag;
      m.diag_old    = diag_old;
      m.offd_nnz    = static_cast<int64_t>(offd_j.size());
      m.offd_i      = offd_i.data();
      m.offd_j      = offd_j.data();
      m.offd_a      = offd;
      m.ext_i       = ext_i.data();
      m.ext_j       = ext_j.data();
      m.ext_j_64    = 1;
      m.ext_a       = ext_a.data();
      m.rsW         = rsW.data();
      m.rsFC        = rsFC.data();
      m.rsFC_offd   = rsFC_offd.data();
      return m;
   }
};

// per_row: the mean entries of a diagonal-block row (a row gets 1 .. 2*per_row - 1 besides
// its diagonal); offd_cols columns of the off-diagonal block (0: none)
inline TwiaffCase make_twiaff_case(int32_t nrows, int32_t per_row, int32_t offd_cols, unsigned seed)
{
   std::mt19937                           gen(seed);
   std::uniform_real_distribution<double> val(-1.0, 1.0);
   std::uniform_int_distribution<int32_t> len(1, std::max(1, 2 * per_row - 1));
   std::uniform_int_distribution<int32_t> col(0, std::max(0, nrows - 1));
   std::bernoulli_distribution            coin(0.5), rare(0.1);
   TwiaffCase                             c;
   c.nrows       = nrows;
   c.offd_cols   = offd_cols;
   c.first_index = 1000 + static_cast<int64_t>(seed % 7) * 100000;
   for (int32_t i = 0; i < nrows; ++i)
   {
      std::vector<int32_t> cols;
      if (!rare(gen)) cols.push_back(i); // most rows hold their diagonal entry
      const int32_t n = std::min(len(gen), nrows);
      for (int32_t k = 0; k < n; ++k)
      {
         const int32_t j = col(gen);
         if (std::find(cols.begin(), cols.end(), j) == cols.end()) cols.push_back(j);
      }
      std::shuffle(cols.begin(), cols.end(), gen); // hypre does not assume sorted rows
      for (int32_t j : cols)
      {
         c.diag_j.push_back(j);
         c.diag_a.push_back(j == i ? 4.0 + val(gen) : val(gen));
      }
      c.diag_i.push_back(static_cast<int32_t>(c.diag_j.size()));
      if (offd_cols > 0)
      {
         std::uniform_int_distribution<int32_t> ocol(0, offd_cols - 1);
         const int32_t                          m = static_cast<int32_t>(gen() % 4);
         std::vector<int32_t>                   oc;
         for (int32_t k = 0; k < m; ++k)
         {
            const int32_t j = ocol(gen);
            if (std::find(oc.begin(), oc.end(), j) == oc.end()) oc.push_back(j);
         }
         for (int32_t j : oc)
         {
            c.offd_j.push_back(j);
            c.offd_a.push_back(val(gen));
         }
      }
      c.offd_i.push_back(static_cast<int32_t>(c.offd_j.size()));
      c.rsW.push_back(val(gen));
   }
   // ext: row j (an off-diagonal column) of the other rank, with global columns; some hold
   // this rank's rows (the transposes the search finds), some only others' columns
   std::uniform_int_distribution<int64_t> gcol(c.first_index, c.first_index + std::max(0, nrows - 1));
   for (int32_t j = 0; j < offd_cols; ++j)
   {
      const int32_t        n = 1 + static_cast<int32_t>(gen() % 5); // ext holds entries where offd does
      std::vector<int64_t> gc;
      for (int32_t k = 0; k < n; ++k)
      {
         const int64_t g = coin(gen) ? gcol(gen) : 5 + static_cast<int64_t>(gen() % 900); // not ours
         if (std::find(gc.begin(), gc.end(), g) == gc.end()) gc.push_back(g);
      }
      for (int64_t g : gc)
      {
         c.ext_j.push_back(g);
         c.ext_a.push_back(val(gen));
      }
      c.ext_i.push_back(static_cast<int32_t>(c.ext_j.size()));
   }
   c.rsFC.resize(static_cast<size_t>(nrows));
   for (double& v : c.rsFC) v = val(gen);
   c.rsFC_offd.resize(static_cast<size_t>(offd_cols));
   for (double& v : c.rsFC_offd) v = val(gen);
   // rsj == 0 for some entries: rsFC_j = -A(j, i) of one of j's rows i
   for (int32_t i = 0; i < nrows; ++i)
   {
      for (int32_t k = c.diag_i[i]; k < c.diag_i[i + 1]; ++k)
      {
         const int32_t j = c.diag_j[k];
         if (j == i || !rare(gen)) continue;
         for (int32_t q = c.diag_i[j]; q < c.diag_i[j + 1]; ++q)
         {
            if (c.diag_j[q] == i) c.rsFC[j] = -c.diag_a[q];
         }
      }
   }
   for (int32_t j = 0; j < offd_cols; ++j)
   {
      if (!rare(gen) || c.ext_i[j] == c.ext_i[j + 1]) continue;
      const int32_t q = c.ext_i[j];
      if (c.ext_j[q] >= c.first_index && c.ext_j[q] < c.first_index + nrows) c.rsFC_offd[j] = -c.ext_a[q];
   }
   return c;
}

// Row 0: one entry (0, 1) = 0.5. Row 1: `len` entries, column 0 at positions `first` and
// `second` (values 2 and 3), columns 2 + p elsewhere; rows 2 .. len + 1 empty; rsFC = 1,
// rsW = 0, no off-diagonal block. Which of the two entries (1, 0) the search takes decides
// row 0's weight (-1 / vji up to rounding).
inline TwiaffCase repeated_column_case(int32_t len, int32_t first, int32_t second)
{
   TwiaffCase c;
   c.nrows  = len + 2;
   c.diag_i = {0, 1};
   c.diag_j = {1};
   c.diag_a = {0.5};
   for (int32_t p = 0; p < len; ++p)
   {
      c.diag_j.push_back(p == first || p == second ? 0 : 2 + p);
      c.diag_a.push_back(p == first ? 2.0 : p == second ? 3.0 : 0.25);
   }
   c.diag_i.push_back(1 + len);
   for (int32_t r = 2; r < c.nrows; ++r) c.diag_i.push_back(1 + len);
   c.offd_i.assign(static_cast<size_t>(c.nrows) + 1, 0);
   c.rsW.assign(static_cast<size_t>(c.nrows), 0.0);
   c.rsFC.assign(static_cast<size_t>(c.nrows), 1.0);
   return c;
}

} // namespace amgt::test
