// What the SpMV tests share: bit patterns for exact comparisons, the alpha/beta pairs that keep
// small-integer results exact, and a band matrix whose entries lie a given distance from the
// diagonal (the row-wise layout's 16-bit offsets reach exactly kNarrowSpan).
#pragma once

#include "common/random_matrix.h"

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace amgt::test {

inline uint64_t bits_of(double v)
{
   uint64_t b;
   std::memcpy(&b, &v, sizeof b);
   return b;
}

struct AlphaBeta
{
   double alpha;
   double beta;
};

// alpha * s + beta * y0 stays exact for integer s and y0 with these.
inline const std::vector<AlphaBeta> kExactCombos{{1.0, 0.0}, {2.0, -1.0}, {-3.0, 0.0}, {1.0, 1.0},
                                                 {0.0, 3.0}, {0.0, 0.0},  {-0.5, 0.5}};

// n x n: the diagonal and the entries `reach` columns left and right of it.
inline CsrMatrix band(int32_t n, int32_t reach, Fill fill, uint32_t seed)
{
   std::mt19937       rng(seed);
   std::vector<Entry> e;
   for (int32_t i = 0; i < n; ++i)
   {
      e.push_back({i, i, draw_value(rng, fill)});
      if (i + reach < n) e.push_back({i, i + reach, draw_value(rng, fill)});
      if (i - reach >= 0) e.push_back({i, i - reach, draw_value(rng, fill)});
   }
   return from_entries(n, n, e);
}

} // namespace amgt::test
