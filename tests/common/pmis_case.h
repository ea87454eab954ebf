// Inputs of the PMIS sweep kernels (coarsen/pmis.h) for the CPU and GPU tests: a strength
// matrix S (diagonal and off-diagonal blocks), a graph of part of its rows, measures with ties
// and values at or below 1, C/F markers.
#pragma once

#include "coarsen/pmis.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace amgt::test {

struct PmisCase
{
   int32_t              nrows = 0, offd_cols = 0;
   std::vector<int32_t> graph, s_diag_i{0}, s_diag_j, s_offd_i{0}, s_offd_j;
   std::vector<double>  measure_diag, measure_offd;
   std::vector<int32_t> is_diag, is_offd, cf_diag, cf_offd;

   PmisGraph view() const
   {
      PmisGraph g{};
      g.graph_size = static_cast<int32_t>(graph.size());
      g.graph      = graph.data();
      g.nrows      = nrows;
      g.s_diag_nnz = static_cast<int64_t>(s_diag_j.size());
      g.s_offd_nnz = static_cast<int64_t>(s_offd_j.size());
      g.s_diag_i   = s_diag_i.data();
      g.s_diag_j   = s_diag_j.data();
      g.s_offd_i   = s_offd_i.data();
      g.s_offd_j   = s_offd_j.data();
      return g;
   }
};

inline PmisCase make_pmis_case(int32_t nrows, int32_t per_row, int32_t offd_cols, unsigned seed)
{
   std::mt19937                           gen(seed);
   std::uniform_int_distribution<int32_t> len(0, std::max(0, 2 * per_row));
   std::uniform_int_distribution<int32_t> col(0, std::max(0, nrows - 1));
   std::uniform_int_distribution<int32_t> level(0, 12);
   std::bernoulli_distribution            half(0.5);
   PmisCase                               c;
   c.nrows     = nrows;
   c.offd_cols = offd_cols;
   // measures: whole steps (ties) and values at or below 1 (decided points); a random part
   // keeps them apart as PMIS's random numbers do
   const auto measure = [&] { return level(gen) <= 1 ? 0.5 * level(gen) / 12.0 : level(gen) + (half(gen) ? 0.0 : 0.25); };
   for (int32_t i = 0; i < nrows; ++i)
   {
      const int32_t n = std::min(len(gen), nrows - 1);
      for (int32_t k = 0; k < n; ++k)
      {
         const int32_t j = col(gen);
         if (j != i) c.s_diag_j.push_back(j);
      }
      c.s_diag_i.push_back(static_cast<int32_t>(c.s_diag_j.size()));
      for (int32_t k = 0; offd_cols > 0 && k < static_cast<int32_t>(gen() % 4); ++k)
         c.s_offd_j.push_back(static_cast<int32_t>(gen() % offd_cols));
      c.s_offd_i.push_back(static_cast<int32_t>(c.s_offd_j.size()));
      c.measure_diag.push_back(measure());
      if (half(gen) || i % 5 == 0) c.graph.push_back(i);
      c.cf_diag.push_back(half(gen) ? 0 : static_cast<int32_t>(gen() % 3) - 1); // -1, 0, 1
      c.is_diag.push_back(static_cast<int32_t>(gen() % 2));
   }
   for (int32_t j = 0; j < offd_cols; ++j)
   {
      c.measure_offd.push_back(measure());
      c.cf_offd.push_back(static_cast<int32_t>(gen() % 3) - 1);
      c.is_offd.push_back(static_cast<int32_t>(gen() % 2));
   }
   std::shuffle(c.graph.begin(), c.graph.end(), gen);
   for (int32_t r : c.graph) c.is_diag[static_cast<size_t>(r)] = 1; // the set starts as the whole graph
   return c;
}

} // namespace amgt::test
