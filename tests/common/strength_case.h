// Inputs of the strength counting pass (coarsen/strength.h) for the CPU and GPU tests: a rank's
// rows of A (diagonal block with the diagonal entry in most rows, unsorted; an off-diagonal
// block), M-matrix-like signs with some positive couplings, one or several functions.
#pragma once

#include "coarsen/strength.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace amgt::test {

struct StrengthCase
{
   int32_t              nrows = 0, offd_cols = 0, num_functions = 1;
   double               max_row_sum = 0.8, threshold = 0.25;
   std::vector<int32_t> diag_i{0}, diag_j, offd_i{0}, offd_j, dof_func, dof_func_offd;
   std::vector<double>  diag_a, offd_a;

   // the view, writing into the given outputs
   StrengthRows rows(int32_t* s_diag, int32_t* s_offd, int32_t* js_diag, int32_t* js_offd) const
   {
      StrengthRows m{};
      m.nrows              = nrows;
      m.max_row_sum        = max_row_sum;
      m.strength_threshold = threshold;
      m.diag_nnz           = static_cast<int64_t>(diag_j.size());
      m.offd_nnz           = static_cast<int64_t>(offd_j.size());
      m.diag_i             = diag_i.data();
      m.diag_j             = diag_j.data();
      m.diag_a             = diag_a.data();
      m.offd_i             = offd_i.data();
      m.offd_j             = offd_j.data();
      m.offd_a             = offd_a.data();
      m.num_functions      = num_functions;
      m.dof_func           = dof_func.data();
      m.dof_func_offd      = dof_func_offd.data();
      m.s_diag_j           = s_diag;
      m.s_offd_j           = s_offd;
      m.js_diag            = js_diag;
      m.js_offd            = js_offd;
      return m;
   }
};

inline StrengthCase make_strength_case(int32_t nrows, int32_t per_row, int32_t offd_cols, int32_t functions,
                                       unsigned seed)
{
   std::mt19937                           gen(seed);
   std::uniform_real_distribution<double> val(0.05, 1.0);
   std::uniform_int_distribution<int32_t> len(1, std::max(1, 2 * per_row - 1));
   std::uniform_int_distribution<int32_t> col(0, std::max(0, nrows - 1));
   std::bernoulli_distribution            rare(0.1), half(0.5);
   StrengthCase                           c;
   c.nrows         = nrows;
   c.offd_cols     = offd_cols;
   c.num_functions = functions;
   c.max_row_sum   = seed % 3 == 0 ? 1.0 : 0.8; // 1: the row-sum test off
   c.threshold     = 0.1 + 0.1 * (seed % 5);
   for (int32_t i = 0; i < nrows; ++i) c.dof_func.push_back(i % functions);
   for (int32_t j = 0; j < offd_cols; ++j) c.dof_func_offd.push_back(static_cast<int32_t>(gen() % functions));
   for (int32_t i = 0; i < nrows; ++i)
   {
      std::vector<int32_t> cols;
      if (!rare(gen)) cols.push_back(i);
      const int32_t n = std::min(len(gen), nrows);
      for (int32_t k = 0; k < n; ++k)
      {
         const int32_t j = col(gen);
         if (std::find(cols.begin(), cols.end(), j) == cols.end()) cols.push_back(j);
      }
      std::shuffle(cols.begin(), cols.end(), gen);
      double off = 0.0;
      for (int32_t j : cols)
      {
         if (j == i) continue;
         // mostly negative couplings, some positive; a few rows with a negative diagonal
         const double v = rare(gen) ? val(gen) : -val(gen);
         off += std::abs(v);
      }
      std::mt19937 again(seed * 7919u + static_cast<unsigned>(i)); // values drawn again, in order
      for (int32_t j : cols)
      {
         c.diag_j.push_back(j);
         if (j == i) c.diag_a.push_back((rare(again) ? -1.0 : 1.0) * (half(again) ? off * 1.1 : off * 0.7 + 0.01));
         else c.diag_a.push_back(half(again) ? -val(again) : (rare(again) ? val(again) : -0.5 * val(again)));
      }
      c.diag_i.push_back(static_cast<int32_t>(c.diag_j.size()));
      if (offd_cols > 0)
      {
         const int32_t m = static_cast<int32_t>(gen() % 4);
         for (int32_t k = 0; k < m; ++k)
         {
            c.offd_j.push_back(static_cast<int32_t>(gen() % offd_cols));
            c.offd_a.push_back(half(gen) ? -val(gen) : 0.3 * val(gen));
         }
      }
      c.offd_i.push_back(static_cast<int32_t>(c.offd_j.size()));
   }
   return c;
}

} // namespace amgt::test
