// Deterministic test matrices and vectors (std::mt19937 with fixed seeds), so a failure
// reproduces. The distributions are the standard library's, so the exact inputs are fixed per
// standard library (libstdc++ here); a test that needs a property of its draws asserts it.
#pragma once

#include "mbsr/mbsr.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace amgt::test {

enum class Fill
{
   small_int, // {-3..3} \ {0}: every sum and product in the tests stays an exact integer
   random,    // sign * uniform [0.5, 2): no underflow or overflow in any precision
};

inline double draw_value(std::mt19937& rng, Fill fill)
{
   if (fill == Fill::small_int)
   {
      std::uniform_int_distribution<int> d(1, 3);
      const int                          v = d(rng);
      return (rng() & 1u) ? v : -v;
   }
   std::uniform_real_distribution<double> d(0.5, 2.0);
   const double                           v = d(rng);
   return (rng() & 1u) ? v : -v;
}

inline std::vector<double> random_vector(int32_t n, Fill fill, uint32_t seed)
{
   std::mt19937        rng(seed);
   std::vector<double> x(static_cast<size_t>(n));
   for (double& v : x) v = draw_value(rng, fill);
   return x;
}

// Each entry present with probability `density`; columns of each row shuffled, so they are
// unsorted as hypre's (diagonal-first) rows can be.
inline CsrMatrix random_csr(int32_t nrows, int32_t ncols, double density, Fill fill, uint32_t seed)
{
   std::mt19937                           rng(seed);
   std::uniform_real_distribution<double> coin(0.0, 1.0);
   CsrMatrix                              a;
   a.nrows = nrows;
   a.ncols = ncols;
   a.row_ptr.push_back(0);
   std::vector<int32_t> row;
   for (int32_t i = 0; i < nrows; ++i)
   {
      row.clear();
      for (int32_t j = 0; j < ncols; ++j)
         if (coin(rng) < density) row.push_back(j);
      std::shuffle(row.begin(), row.end(), rng);
      for (int32_t j : row)
      {
         a.col.push_back(j);
         a.val.push_back(draw_value(rng, fill));
      }
      a.row_ptr.push_back(static_cast<int32_t>(a.col.size()));
   }
   return a;
}

// Builds a CSR from (row, col, value) triplets in the given order (unsorted, repeats allowed).
struct Entry
{
   int32_t row;
   int32_t col;
   double  val;
};

inline CsrMatrix from_entries(int32_t nrows, int32_t ncols, std::vector<Entry> entries)
{
   std::stable_sort(entries.begin(), entries.end(),
                    [](const Entry& x, const Entry& y) { return x.row < y.row; });
   CsrMatrix a;
   a.nrows = nrows;
   a.ncols = ncols;
   a.row_ptr.assign(static_cast<size_t>(nrows) + 1, 0);
   for (const Entry& e : entries)
   {
      ++a.row_ptr[static_cast<size_t>(e.row) + 1];
      a.col.push_back(e.col);
      a.val.push_back(e.val);
   }
   for (int32_t i = 0; i < nrows; ++i) a.row_ptr[i + 1] += a.row_ptr[i];
   return a;
}

// 5-point Laplacian on an nx x ny grid (values 4 and -1), diagonal stored first like hypre.
inline CsrMatrix laplacian_2d(int32_t nx, int32_t ny)
{
   std::vector<Entry> e;
   for (int32_t y = 0; y < ny; ++y)
   {
      for (int32_t x = 0; x < nx; ++x)
      {
         const int32_t i = y * nx + x;
         e.push_back({i, i, 4.0});
         if (x > 0) e.push_back({i, i - 1, -1.0});
         if (x + 1 < nx) e.push_back({i, i + 1, -1.0});
         if (y > 0) e.push_back({i, i - nx, -1.0});
         if (y + 1 < ny) e.push_back({i, i + nx, -1.0});
      }
   }
   return from_entries(nx * ny, nx * ny, e);
}

struct NamedMatrix
{
   std::string name;
   CsrMatrix   a;
};

// The edge cases of the format, all with small-integer values (so every precision is exact).
inline std::vector<NamedMatrix> edge_matrices()
{
   std::vector<NamedMatrix> m;
   {
      CsrMatrix a; // 0 x 0
      a.row_ptr = {0};
      m.push_back({"empty_0x0", a});
   }
   {
      CsrMatrix a; // rows and columns, no entries
      a.nrows = 5;
      a.ncols = 7;
      a.row_ptr.assign(6, 0);
      m.push_back({"no_entries_5x7", a});
   }
   {
      CsrMatrix a; // rows but no columns
      a.nrows = 3;
      a.ncols = 0;
      a.row_ptr.assign(4, 0);
      m.push_back({"no_columns_3x0", a});
   }
   m.push_back({"n1", from_entries(1, 1, {{0, 0, 3.0}})});
   m.push_back({"n3_dense", random_csr(3, 3, 1.0, Fill::small_int, 11)});
   m.push_back({"n5", random_csr(5, 5, 0.5, Fill::small_int, 12)});
   m.push_back({"n37", random_csr(37, 37, 0.15, Fill::small_int, 13)});
   m.push_back({"single_entry_9x9", from_entries(9, 9, {{6, 7, -2.0}})});
   m.push_back(
       {"empty_rows",
        from_entries(10, 10, {{0, 9, 1.0}, {0, 0, 2.0}, {4, 4, -1.0}, {9, 3, 3.0}, {9, 0, -3.0}})});
   m.push_back({"dense_8x8", random_csr(8, 8, 1.0, Fill::small_int, 14)});
   m.push_back({"dense_6x6_partial", random_csr(6, 6, 1.0, Fill::small_int, 15)});
   {
      // Every tile holds exactly one entry, at a different position in each tile.
      std::vector<Entry> e;
      for (int32_t bi = 0; bi < 4; ++bi)
         for (int32_t bj = 0; bj < 4; ++bj)
            if ((bi + bj) % 2 == 0)
               e.push_back({4 * bi + bi % 4, 4 * bj + (bi + bj) % 4, 1.0 + bj});
      m.push_back({"one_bit_tiles", from_entries(16, 16, e)});
   }
   m.push_back({"rect_10x23", random_csr(10, 23, 0.3, Fill::small_int, 16)});
   m.push_back({"rect_23x10", random_csr(23, 10, 0.3, Fill::small_int, 17)});
   m.push_back({"rect_1x9", random_csr(1, 9, 0.6, Fill::small_int, 18)});
   {
      CsrMatrix a = random_csr(13, 13, 0.4, Fill::small_int, 19);
      for (size_t p = 0; p < a.val.size(); p += 3) a.val[p] = 0.0; // stored zeros
      m.push_back({"explicit_zeros", a});
   }
   m.push_back({"duplicates", from_entries(6, 6,
                                           {{0, 1, 2.0},
                                            {0, 1, 3.0},
                                            {2, 5, 1.0},
                                            {2, 2, -1.0},
                                            {2, 5, -1.0},
                                            {5, 0, 1.0},
                                            {5, 0, 1.0},
                                            {5, 0, -3.0}})});
   m.push_back({"laplacian_7x5", laplacian_2d(7, 5)});
   {
      CsrMatrix a = random_csr(11, 11, 0.3, Fill::small_int, 20);
      a.val.clear(); // val == nullptr: pattern only, every value 1.0
      m.push_back({"pattern_only", a});
   }
   return m;
}

} // namespace amgt::test
