// Operands shaped like a BoomerAMG setup's products (7- and 27-point stencils, an
// interpolation-like P with 1-4 entries per row, P^T) and helpers to compare CSR products whose
// columns come in any order within a row. Independent of the plugin's algorithms.
#pragma once

#include "common/random_matrix.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace amgt::test {

// 7-point (points == 7) or 27-point stencil on an nx x ny x nz grid, diagonal stored first as
// hypre does: diagonal points - 1, every neighbour -1 (small integers: exact in every sum).
// fill == random replaces the off-diagonal values by draws of draw_value.
inline CsrMatrix stencil_3d(int32_t nx, int32_t ny, int32_t nz, int points, Fill fill = Fill::small_int,
                            uint32_t seed = 1)
{
   std::mt19937       rng(seed);
   std::vector<Entry> e;
   for (int32_t z = 0; z < nz; ++z)
      for (int32_t y = 0; y < ny; ++y)
         for (int32_t x = 0; x < nx; ++x)
         {
            const int32_t i = (z * ny + y) * nx + x;
            e.push_back({i, i, static_cast<double>(points - 1)});
            for (int dz = -1; dz <= 1; ++dz)
               for (int dy = -1; dy <= 1; ++dy)
                  for (int dx = -1; dx <= 1; ++dx)
                  {
                     const int manhattan = (dx != 0) + (dy != 0) + (dz != 0);
                     if (manhattan == 0 || (points == 7 && manhattan != 1)) continue;
                     const int32_t X = x + dx, Y = y + dy, Z = z + dz;
                     if (X < 0 || Y < 0 || Z < 0 || X >= nx || Y >= ny || Z >= nz) continue;
                     const double v = fill == Fill::small_int ? -1.0 : draw_value(rng, fill);
                     e.push_back({i, (Z * ny + Y) * nx + X, v});
                  }
         }
   const int32_t n = nx * ny * nz;
   return from_entries(n, n, e);
}

// Interpolation-like P for the grid above coarsened by 2 in each direction (coarse points:
// all coordinates even): a fine point interpolates from the coarse points around it (1, 2, 4 or
// 8), truncated to at most max_per_row as BoomerAMG's -Pmx does; columns unsorted (coarse
// neighbours taken in a shuffled order). Values 1 (small_int) or draws of draw_value.
inline CsrMatrix interpolation_3d(int32_t nx, int32_t ny, int32_t nz, int max_per_row = 4,
                                  Fill fill = Fill::small_int, uint32_t seed = 2)
{
   std::mt19937  rng(seed);
   const int32_t cx = (nx + 1) / 2, cy = (ny + 1) / 2, cz = (nz + 1) / 2;
   auto          around = [](int32_t v, int32_t n) {
      std::vector<int32_t> c;
      if (v % 2 == 0) c.push_back(v / 2);
      else
      {
         c.push_back((v - 1) / 2);
         if (v + 1 < n) c.push_back((v + 1) / 2);
      }
      return c;
   };
   std::vector<Entry> e;
   for (int32_t z = 0; z < nz; ++z)
      for (int32_t y = 0; y < ny; ++y)
         for (int32_t x = 0; x < nx; ++x)
         {
            const int32_t        i = (z * ny + y) * nx + x;
            std::vector<int32_t> cols;
            for (int32_t Z : around(z, nz))
               for (int32_t Y : around(y, ny))
                  for (int32_t X : around(x, nx)) cols.push_back((Z * cy + Y) * cx + X);
            std::shuffle(cols.begin(), cols.end(), rng);
            if (static_cast<int>(cols.size()) > max_per_row) cols.resize(static_cast<size_t>(max_per_row));
            for (int32_t j : cols) e.push_back({i, j, fill == Fill::small_int ? 1.0 : draw_value(rng, fill)});
         }
   return from_entries(nx * ny * nz, cx * cy * cz, e);
}

// Row lengths drawn per row from `lengths` (columns distinct, unsorted): rows of very different
// sizes in one matrix, so that a product lands in every bin of the row-wise SpGEMM.
inline CsrMatrix varied_rows(int32_t nrows, int32_t ncols, const std::vector<int32_t>& lengths, Fill fill,
                             uint32_t seed)
{
   std::mt19937 rng(seed);
   CsrMatrix    a;
   a.nrows = nrows;
   a.ncols = ncols;
   a.row_ptr.push_back(0);
   std::vector<int32_t> all(static_cast<size_t>(ncols));
   for (int32_t j = 0; j < ncols; ++j) all[static_cast<size_t>(j)] = j;
   for (int32_t i = 0; i < nrows; ++i)
   {
      const int32_t len = std::min(ncols, lengths[rng() % lengths.size()]);
      // a partial Fisher-Yates shuffle: len distinct columns in random order
      for (int32_t t = 0; t < len; ++t)
      {
         const int32_t u = t + static_cast<int32_t>(rng() % static_cast<uint32_t>(ncols - t));
         std::swap(all[static_cast<size_t>(t)], all[static_cast<size_t>(u)]);
         a.col.push_back(all[static_cast<size_t>(t)]);
         a.val.push_back(draw_value(rng, fill));
      }
      a.row_ptr.push_back(static_cast<int32_t>(a.col.size()));
   }
   return a;
}

// The dense product of two small CSR matrices (row-major nrows x ncols), each entry summed in
// A's storage order: the independent oracle of the tiny tests.
inline std::vector<double> dense_product(const CsrMatrix& a, const CsrMatrix& b)
{
   std::vector<double> c(static_cast<size_t>(a.nrows) * static_cast<size_t>(b.ncols), 0.0);
   for (int32_t i = 0; i < a.nrows; ++i)
      for (int32_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p)
      {
         const double av = a.val.empty() ? 1.0 : a.val[static_cast<size_t>(p)];
         const int32_t k = a.col[static_cast<size_t>(p)];
         for (int32_t q = b.row_ptr[k]; q < b.row_ptr[k + 1]; ++q)
         {
            const double bv = b.val.empty() ? 1.0 : b.val[static_cast<size_t>(q)];
            c[static_cast<size_t>(i) * static_cast<size_t>(b.ncols) + static_cast<size_t>(b.col[static_cast<size_t>(q)])] +=
               av * bv;
         }
      }
   return c;
}

// The structural pattern of a*b (true where some a(i,k) meets some b(k,j)), row-major.
inline std::vector<char> dense_pattern(const CsrMatrix& a, const CsrMatrix& b)
{
   std::vector<char> c(static_cast<size_t>(a.nrows) * static_cast<size_t>(b.ncols), 0);
   for (int32_t i = 0; i < a.nrows; ++i)
      for (int32_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p)
      {
         const int32_t k = a.col[static_cast<size_t>(p)];
         for (int32_t q = b.row_ptr[k]; q < b.row_ptr[k + 1]; ++q)
            c[static_cast<size_t>(i) * static_cast<size_t>(b.ncols) + static_cast<size_t>(b.col[static_cast<size_t>(q)])] = 1;
      }
   return c;
}

} // namespace amgt::test
