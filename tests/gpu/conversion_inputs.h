// Inputs of the GPU conversion tests (test_mbsr_device.cpp, test_mbsr_entry_order_device.cpp):
// CSR matrices whose block rows exercise every tier of the hashed conversion.
#pragma once

#include "gpu_test_util.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

namespace amgt::test::gpu {

// Random CSR with unsorted columns; some empty rows; n and m need not be multiples of 4.
inline CsrMatrix conversion_csr(int n, int m, double density, unsigned seed, bool small_int)
{
   std::mt19937                           rng(seed);
   std::uniform_real_distribution<double> u(0.0, 1.0), v(-1.0, 1.0);
   CsrMatrix                              a;
   a.nrows = n;
   a.ncols = m;
   a.row_ptr.push_back(0);
   for (int i = 0; i < n; ++i)
   {
      std::vector<int> cols;
      if (u(rng) > 0.1) // ~10% empty rows
         for (int j = 0; j < m; ++j)
            if (u(rng) < density) cols.push_back(j);
      std::shuffle(cols.begin(), cols.end(), rng);
      for (int j : cols)
      {
         a.col.push_back(j);
         a.val.push_back(small_int ? std::floor(7 * u(rng)) - 3 : v(rng) * 1e3);
      }
      a.row_ptr.push_back(static_cast<int>(a.col.size()));
   }
   return a;
}

// Block rows of chosen entry counts: each lands in one tier of the hashed conversion (E <= 128,
// <= 512, <= 4096 entries), on and just past each tier's bound; the entries of a block row
// are spread over its 4 rows and over many block columns, unsorted.
inline CsrMatrix block_rows_of(const std::vector<int>& entries, int ncols, unsigned seed)
{
   std::mt19937 rng(seed);
   CsrMatrix    a;
   a.nrows = 4 * static_cast<int>(entries.size()) - 2; // a partial last block row
   a.ncols = ncols;
   std::vector<std::vector<std::pair<int, double>>> rows(a.nrows);
   for (size_t b = 0; b < entries.size(); ++b)
   {
      const int nr = std::min(4, a.nrows - 4 * static_cast<int>(b));
      // distinct (row, col) pairs: a shuffled prefix of all positions of the block row
      std::vector<int> pos(static_cast<size_t>(nr) * ncols);
      for (size_t k = 0; k < pos.size(); ++k) pos[k] = static_cast<int>(k);
      std::shuffle(pos.begin(), pos.end(), rng);
      const int n = std::min<int>(entries[b], static_cast<int>(pos.size()));
      for (int k = 0; k < n; ++k)
         rows[4 * b + pos[k] / ncols].push_back({pos[k] % ncols, 1.0 + (rng() % 1000) / 7.0});
   }
   a.row_ptr = {0};
   for (auto& r : rows)
   {
      for (auto& [c, v] : r)
      {
         a.col.push_back(c);
         a.val.push_back(v);
      }
      a.row_ptr.push_back(static_cast<int32_t>(a.col.size()));
   }
   return a;
}

} // namespace amgt::test::gpu
