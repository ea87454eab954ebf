// What the SpMV device tests share: the path list, device uploads of test matrices in each
// value layout, the y sentinels, the test matrices beyond tests/common, the fixture.
#pragma once

#include "common/csr_utils.h"
#include "common/storage_types.h"
#include "common/error.h"
#include "common/random_matrix.h"
#include "common/spmv_inputs.h"
#include "common/tolerances.h"
#include "mbsr/mbsr.h"
#include "mbsr/mbsr_device.h"
#include "spmv/spmv.h"
#include "spmv/spmv_device.h"

#include "gpu_test_util.h"

#include "device/backend.h"
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

namespace amgt::test::gpu {

namespace dev = amgt::device;

inline const double  kNaN      = std::numeric_limits<double>::quiet_NaN();
inline const double  kSentinel = -12345.0;
constexpr int kTail     = 5; // sentinels after y

inline const std::vector<dev::SpmvPath> kPaths{dev::SpmvPath::automatic, dev::SpmvPath::cuda_core,
                                               dev::SpmvPath::cuda_core_balanced,
                                               dev::SpmvPath::tensor_core,
                                               dev::SpmvPath::cuda_core_tiles,
                                               dev::SpmvPath::cuda_core_entries};


// Which value layouts the device matrix of a test holds (mbsr_device.h). The default, both,
// is what a product's operand holds in the library: the CUDA-core paths read the matrix's
// packed layout, the tensor-core paths its dense one.
enum class Layout
{
   both,
   dense, // the plan packs the dense values itself (a product's output, the sorted conversion)
   packed // what the library converts for the solve: no dense values
};

template <class V>
dev::DeviceMbsr<V> upload(const CsrMatrix& a, Layout layout = Layout::both)
{
   const DeviceCsr     d(a); // exact lengths (Empty::null)
   dev::ConvertOptions opt;
   opt.dense  = layout != Layout::packed;
   opt.packed = layout != Layout::dense;
   dev::DeviceMbsr<V> m = dev::csr_to_mbsr<V>(d.view, nullptr, dev::runtime_allocator(), opt);
   EXPECT_EQ(device::device_synchronize(), device::kSuccess);
   return m;
}

// One GPU call on fresh device vectors: x exactly ncols long, y nrows long plus sentinels.
// Returns y[0..nrows); fails the test if a sentinel changed.
// With a non-empty u: the unscaled product (u exactly nrows long on the device).
template <class V>
std::vector<double> gpu_spmv(const dev::DeviceMbsr<V>& m, const dev::SpmvPlan<V>& plan, double alpha,
                             const std::vector<double>& x, double beta, std::vector<double> y0,
                             const std::vector<double>& u = {})
{
   const size_t n = y0.size();
   y0.insert(y0.end(), kTail, kSentinel);
   DeviceArray<double> dx(x), dy(y0), du(u);
   dev::spmv(m, plan, alpha, dx.get(), beta, dy.get(), nullptr, u.empty() ? nullptr : du.get());
   EXPECT_EQ(device::device_synchronize(), device::kSuccess);
   EXPECT_EQ(device::last_error(), device::kSuccess);
   std::vector<double> y = dy.to_host();
   for (size_t i = n; i < y.size(); ++i)
   {
      EXPECT_EQ(bits_of(y[i]), bits_of(kSentinel)) << "spmv wrote y[" << i << "] past nrows " << n;
   }
   y.resize(n);
   return y;
}

// ---- test matrices (all built through CsrMatrix, the format hypre hands over) ----------

// Block row b holds lens[b] tiles (block columns 0..lens[b]-1), one entry each, at a position
// that moves from tile to tile: one-bit tiles of every shape, and block-row lengths chosen to
// land exactly on, just past and far past the balanced path's 64-tile budgets.
inline CsrMatrix tiles_per_block_row(const std::vector<int>& lens, Fill fill, uint32_t seed)
{
   std::mt19937       rng(seed);
   std::vector<Entry> e;
   const int32_t      nrows = 4 * static_cast<int32_t>(lens.size()) - 1; // partial last block row
   int                widest = 1;
   for (size_t b = 0; b < lens.size(); ++b)
   {
      widest = std::max(widest, lens[b]);
      for (int j = 0; j < lens[b]; ++j)
      {
         int32_t r = 4 * static_cast<int32_t>(b) + (j + static_cast<int>(b)) % 4;
         if (r >= nrows) r = 4 * static_cast<int32_t>(b);
         e.push_back({r, 4 * j + (3 * j + static_cast<int>(b)) % 4, draw_value(rng, fill)});
      }
   }
   return from_entries(nrows, 4 * widest + 1, e);
}

// Dense 4x4 tiles on three block diagonals (the tensor-core case); n % 4 == 2 gives partial
// tiles in the last block row and column.
inline CsrMatrix block_tridiagonal(int32_t n, Fill fill, uint32_t seed)
{
   std::mt19937       rng(seed);
   std::vector<Entry> e;
   const int32_t      nb = (n + 3) / 4;
   for (int32_t bi = 0; bi < nb; ++bi)
      for (int32_t bj = std::max(0, bi - 1); bj <= std::min(nb - 1, bi + 1); ++bj)
         for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 4; ++c)
               if (4 * bi + r < n && 4 * bj + c < n) e.push_back({4 * bi + r, 4 * bj + c, draw_value(rng, fill)});
   return from_entries(n, n, e);
}

// Very irregular: block row 0 holds ~2900 tiles (four rows of 2500 entries), row 1601 4000
// entries, the partial last block row 3000 entries; block rows 100..199 are empty; every
// other row holds 3 entries. 3003 x 12006: both dimensions % 4 != 0.
// One block row of more tiles than cuda_core_entries can index (kSpmvEntryMaxTiles): row 1
// has an entry in every 4th column, 5002 tiles; every third other row one entry.
inline CsrMatrix wide_row(Fill fill, uint32_t seed)
{
   const int32_t      n = 4003, m = 20005;
   std::mt19937       rng(seed);
   std::vector<Entry> e;
   for (int32_t i = 0; i < n; ++i)
   {
      if (i == 1)
         for (int32_t j = 0; j < m; j += 4) e.push_back({1, j, draw_value(rng, fill)});
      else if (i % 3 == 0)
         e.push_back({i, static_cast<int32_t>((int64_t{i} * 7919) % m), draw_value(rng, fill)});
   }
   return from_entries(n, m, e);
}

inline CsrMatrix irregular(Fill fill, uint32_t seed)
{
   const int32_t                          n = 3003, m = 12006;
   std::mt19937                           rng(seed);
   std::uniform_int_distribution<int32_t> col(0, m - 1);
   std::vector<int32_t>                   perm(static_cast<size_t>(m));
   std::vector<Entry>                     e;
   for (int32_t i = 0; i < n; ++i)
   {
      if (i >= 400 && i < 800) continue;
      const int count = i < 4 ? 2500 : i == 1601 ? 4000 : i == n - 1 ? 3000 : 3;
      if (count > 3)
      {
         for (int32_t j = 0; j < m; ++j) perm[static_cast<size_t>(j)] = j;
         std::shuffle(perm.begin(), perm.end(), rng);
         for (int k = 0; k < count; ++k) e.push_back({i, perm[static_cast<size_t>(k)], draw_value(rng, fill)});
      }
      else
      {
         std::set<int32_t> cols;
         while (static_cast<int>(cols.size()) < count) cols.insert(col(rng));
         for (int32_t j : cols) e.push_back({i, j, draw_value(rng, fill)});
      }
   }
   return from_entries(n, m, e);
}

// Entries only in the first and last rows, thousands of empty block rows between.
inline CsrMatrix far_apart(Fill fill, uint32_t seed)
{
   std::mt19937       rng(seed);
   std::vector<Entry> e;
   for (int32_t j = 0; j < 700; j += 3) e.push_back({0, j, draw_value(rng, fill)});
   for (int32_t j = 1; j < 700; j += 2) e.push_back({9998, j, draw_value(rng, fill)});
   return from_entries(9999, 701, e);
}

// (|A| 1)_i max_j |x_j| for the underflow term of the fp16 tensor-core bound; absx = |x|.
inline std::vector<double> abs_a_times_max(const CsrMatrix& a, const std::vector<double>& absx)
{
   const double        xmax = absx.empty() ? 0.0 : *std::max_element(absx.begin(), absx.end());
   std::vector<double> ones(static_cast<size_t>(a.ncols), 1.0), r(static_cast<size_t>(a.nrows), 0.0);
   csr_spmv_ref(abs_values(a).view(), 1.0, ones.data(), 0.0, r.data());
   for (double& v : r) v *= xmax;
   return r;
}

// Square, with long block rows (the balanced path's chunks): rows 0..3 hold 1500 entries,
// row 1001 2000, the others 3; 2003 rows (a partial last tile).
inline CsrMatrix long_rows_square(Fill fill, uint32_t seed)
{
   const int32_t      n = 2003;
   std::mt19937       rng(seed);
   std::vector<int32_t> perm(static_cast<size_t>(n));
   std::vector<Entry> e;
   for (int32_t i = 0; i < n; ++i)
   {
      const int count = i < 4 ? 1500 : i == 1001 ? 2000 : 3;
      for (int32_t j = 0; j < n; ++j) perm[static_cast<size_t>(j)] = j;
      std::shuffle(perm.begin(), perm.end(), rng);
      for (int k = 0; k < count; ++k) e.push_back({i, perm[static_cast<size_t>(k)], draw_value(rng, fill)});
   }
   return from_entries(n, n, e);
}

inline std::vector<NamedMatrix> exact_cases()
{
   std::vector<NamedMatrix> c = edge_matrices(); // 0x0, no entries, 3x0, single entry, ...
   c.push_back({"random_1000", random_csr(1000, 1000, 0.005, Fill::small_int, 101)});
   c.push_back({"rect_4999x3001", random_csr(4999, 3001, 0.002, Fill::small_int, 102)});
   c.push_back({"rect_1501x4003", random_csr(1501, 4003, 0.004, Fill::small_int, 103)});
   c.push_back({"laplacian_61x67", laplacian_2d(61, 67)});
   c.push_back({"dense_66x66", random_csr(66, 66, 1.0, Fill::small_int, 104)});
   c.push_back({"block_tridiagonal_2002", block_tridiagonal(2002, Fill::small_int, 105)});
   c.push_back({"irregular", irregular(Fill::small_int, 106)});
   c.push_back({"far_apart", far_apart(Fill::small_int, 107)});
   c.push_back({"wide_row", wide_row(Fill::small_int, 108)});
   c.push_back({"budget_edges",
                tiles_per_block_row({64, 64, 32, 32, 65, 63, 1, 0, 0, 128, 129, 1, 200, 0, 5, 64},
                                    Fill::small_int, 108)});
   return c;
}


template <class V>
class SpmvDevice : public GpuTest
{
};
using amgt::test::StorageTypes;

} // namespace amgt::test::gpu
