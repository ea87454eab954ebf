// What the SpGEMM device tests share: the host recounts and the full check of one GPU
// product against the CPU oracles, the test matrices beyond tests/common, the fixture.
#pragma once

#include "common/csr_utils.h"
#include "common/storage_types.h"
#include "common/error.h"
#include "common/random_matrix.h"
#include "common/tolerances.h"
#include "mbsr/mbsr.h"
#include "mbsr/mbsr_device.h"
#include "spgemm/spgemm.h"
#include "spgemm/spgemm_device.h"

#include "gpu_test_util.h"

#include "device/backend.h"
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace amgt::test::gpu {

namespace dev = amgt::device;
// Named here so that the test files reach them through `using namespace amgt::test::gpu`.
using amgt::CsrMatrix;
using amgt::half_t;
using amgt::Mbsr;

// Host recount of what the stats report.
template <class V>
int64_t intermediate_bound(const Mbsr<V>& A, const Mbsr<V>& B)
{
   int64_t n = 0;
   for (int32_t k : A.blk_col) n += B.blk_ptr[k + 1] - B.blk_ptr[k];
   return n;
}

template <class V>
int64_t nonempty_pairs(const Mbsr<V>& A, const Mbsr<V>& B)
{
   int64_t n = 0;
   for (size_t ta = 0; ta < A.blk_col.size(); ++ta)
   {
      const int32_t k = A.blk_col[ta];
      for (int32_t tb = B.blk_ptr[k]; tb < B.blk_ptr[k + 1]; ++tb)
         n += amgt::bitmap_product(A.blk_map[ta], B.blk_map[tb]) != 0;
   }
   return n;
}

template <class V>
struct GpuResult
{
   Mbsr<V>          c;
   dev::SpgemmStats stats;
};

// Uploads A and B, multiplies on the GPU, downloads C; checks the allocator's bookkeeping.
template <class V>
GpuResult<V> gpu_product(const Mbsr<V>& A, const Mbsr<V>& B, device::Stream stream,
                         dev::SpgemmPath path = dev::SpgemmPath::automatic)
{
   AllocCounter         counter;
   const dev::Allocator alloc = counting_allocator(counter);
   GpuResult<V>         r;
   {
      const auto    dA     = upload_mbsr(A, alloc);
      const auto    dB     = upload_mbsr(B, alloc);
      const int64_t before = counter.live;
      const auto    dC     = dev::spgemm(dA, dB, stream, alloc, &r.stats, path);
      // C owns blk_ptr, plus col/map/val when it has tiles; every temporary is gone.
      EXPECT_EQ(counter.live - before, dC.num_tiles > 0 ? 4 : 1);
      EXPECT_EQ(dC.nrows, A.nrows);
      EXPECT_EQ(dC.ncols, B.ncols);
      EXPECT_EQ(dC.block_rows, A.block_rows());
      EXPECT_EQ(dC.block_cols, B.block_cols());
      r.c = dev::to_host(dC, stream);
   }
   EXPECT_EQ(counter.live, 0);
   EXPECT_EQ(device::last_error(), device::kSuccess);
   return r;
}

template <class V>
::testing::AssertionResult same_bits(const Mbsr<V>& got, const Mbsr<V>& want)
{
   if (got.blk_val.size() != want.blk_val.size())
      return ::testing::AssertionFailure() << "value arrays differ in size";
   for (size_t p = 0; p < got.blk_val.size(); ++p)
   {
      if (std::memcmp(&got.blk_val[p], &want.blk_val[p], sizeof(V)) != 0)
      {
         using T = amgt::StorageTraits<V>;
         return ::testing::AssertionFailure()
                << "tile " << p / 16 << " entry " << p % 16 << ": got "
                << T::to_double(got.blk_val[p]) << ", want " << T::to_double(want.blk_val[p]);
      }
   }
   return ::testing::AssertionSuccess();
}

struct Totals
{
   int64_t nonzeros   = 0; // output values != 0 (the outputs are not all zero)
   int64_t tc         = 0;
   int64_t cc         = 0;
   int64_t tiles      = 0;
   int64_t pairs      = 0; // products whose numeric phase ran the pairs kernel
   int64_t ordered    = 0; // ... the ordered kernel (numeric_kernel)
   double  worst      = 0; // largest err / tolerance
   double  max_err    = 0;
   int64_t toleranced = 0; // entries checked against the tolerance
};

template <class V>
int max_tiles_per_block_row(const Mbsr<V>& m)
{
   int t = 0;
   for (int32_t i = 0; i < m.block_rows(); ++i) t = std::max(t, m.blk_ptr[i + 1] - m.blk_ptr[i]);
   return t;
}

template <class V>
int64_t dense_tiles(const Mbsr<V>& m)
{
   int64_t n = 0;
   for (uint16_t map : m.blk_map) n += amgt::tile_popcount(map) >= amgt::kDenseTileNnz;
   return n;
}

// The numeric kernel spgemm() must pick (SpgemmStats::pairs_kernel): none when the product
// ends before the analysis (an operand without tiles).
template <class V>
bool expect_pairs_kernel(const Mbsr<V>& A, const Mbsr<V>& B, dev::SpgemmPath path)
{
   if (A.num_tiles() == 0 || B.num_tiles() == 0) return false;
   if (path == dev::SpgemmPath::cuda_core_pairs) return true;
   int64_t entries = 0;
   for (uint16_t map : A.blk_map) entries += amgt::tile_popcount(map);
   return path == dev::SpgemmPath::automatic &&
          2 * entries < dev::kPairsFillLimitTimes2 * static_cast<int64_t>(A.num_tiles());
}

// The full comparison of one product. `fill` says which value check applies.
template <class V>
dev::SpgemmStats check_product(const CsrMatrix& a, const CsrMatrix& b, Fill fill,
                               const std::string& what, Totals& totals, device::Stream stream,
                               dev::SpgemmPath path = dev::SpgemmPath::automatic)
{
   SCOPED_TRACE(what + " [" + dev::to_string(path) + "]");
   const Mbsr<V> A   = amgt::csr_to_mbsr<V>(a.view());
   const Mbsr<V> B   = amgt::csr_to_mbsr<V>(b.view());
   const Mbsr<V> ref = amgt::spgemm_ref(A, B);
   GpuResult<V>  gpu = gpu_product(A, B, stream, path);
   const Mbsr<V>& got = gpu.c;
   const auto&    st  = gpu.stats;

   // Structure: exactly the reference's, and the tile pattern of the scalar product.
   EXPECT_NO_THROW(amgt::validate_mbsr(got));
   EXPECT_EQ(got.nrows, ref.nrows);
   EXPECT_EQ(got.ncols, ref.ncols);
   EXPECT_EQ(got.blk_ptr, ref.blk_ptr);
   EXPECT_EQ(got.blk_col, ref.blk_col);
   EXPECT_EQ(got.blk_map, ref.blk_map);
   const CsrMatrix scalar  = amgt::csr_spgemm_ref(a.view(), b.view());
   const Mbsr<V>   pattern = amgt::csr_to_mbsr<V>(scalar.view());
   EXPECT_EQ(got.blk_ptr, pattern.blk_ptr);
   EXPECT_EQ(got.blk_col, pattern.blk_col);
   EXPECT_EQ(got.blk_map, pattern.blk_map);

   // Statistics.
   EXPECT_EQ(st.output_tiles, ref.num_tiles());
   EXPECT_EQ(st.intermediate_tiles,
             A.num_tiles() && B.num_tiles() ? intermediate_bound(A, B) : int64_t{0});
   EXPECT_EQ(st.tc_tile_products + st.cc_tile_products,
             A.num_tiles() && B.num_tiles() ? nonempty_pairs(A, B) : int64_t{0});
   // fp32 has no tensor-core path (tf32 only); a forced path takes every product.
   if (std::is_same_v<V, float> || path == dev::SpgemmPath::cuda_core ||
       path == dev::SpgemmPath::cuda_core_pairs || st.pairs_kernel)
   {
      EXPECT_EQ(st.tc_tile_products, 0);
   }
   EXPECT_EQ(st.pairs_kernel, expect_pairs_kernel(A, B, path));
   EXPECT_EQ(st.dense_a_tiles, A.num_tiles() && B.num_tiles() ? dense_tiles(A) : int64_t{0});
   if (!std::is_same_v<V, float> && path == dev::SpgemmPath::tensor_core)
   {
      EXPECT_EQ(st.cc_tile_products, 0);
   }
   int64_t rows_binned = 0;
   for (int64_t n : st.symbolic_bin_rows) rows_binned += n;
   EXPECT_LE(rows_binned, int64_t{A.block_rows()});

   // Values.
   const bool reference_order = st.tc_tile_products == 0 && !st.pairs_kernel;
   if (reference_order || fill == Fill::small_int) { EXPECT_TRUE(same_bits(got, ref)); }
   const CsrMatrix have = amgt::mbsr_to_csr(got);
   if (!(have.row_ptr == scalar.row_ptr && have.col == scalar.col))
   {
      ADD_FAILURE() << "scalar pattern differs from csr_spgemm_ref";
      return st;
   }
   if (fill == Fill::small_int)
   {
      EXPECT_LE(max_abs_value(amgt::csr_spgemm_ref(abs_values(a).view(), abs_values(b).view())),
                2048.0)
          << "inputs too large for an exact comparison in fp16";
      for (size_t p = 0; p < scalar.val.size(); ++p)
      {
         if (have.val[p] != scalar.val[p])
         {
            ADD_FAILURE() << "entry " << p << ": got " << have.val[p] << ", want "
                          << scalar.val[p];
            break;
         }
      }
   }
   else
   {
      const Roundoff  r  = roundoff<V>();
      const CsrMatrix ab = amgt::csr_spgemm_ref(abs_values(a).view(), abs_values(b).view());
      const int       k  = max_row_nnz(a);
      const bool tensor_fp16 = std::is_same_v<V, half_t> && st.tc_tile_products > 0;
      const int  a_tiles     = max_tiles_per_block_row(A);
      for (size_t p = 0; p < scalar.val.size(); ++p)
      {
         const double tol = tensor_fp16     ? spgemm_tensor_fp16_tolerance(a_tiles, ab.val[p])
                            : st.pairs_kernel ? spgemm_pairs_tolerance(r, k, ab.val[p])
                                              : spgemm_tolerance(r, k, ab.val[p]);
         const double err = std::fabs(have.val[p] - scalar.val[p]);
         if (!(err <= tol))
         {
            ADD_FAILURE() << "entry " << p << ": got " << have.val[p] << ", want "
                          << scalar.val[p] << " (tolerance " << tol << ")";
            break;
         }
         totals.worst   = std::max(totals.worst, err / tol);
         totals.max_err = std::max(totals.max_err, err);
         ++totals.toleranced;
      }
   }
   for (double v : have.val) totals.nonzeros += v != 0.0;
   totals.tc += st.tc_tile_products;
   totals.cc += st.cc_tile_products;
   totals.tiles += got.num_tiles();
   if (A.num_tiles() && B.num_tiles()) ++(st.pairs_kernel ? totals.pairs : totals.ordered);
   return st;
}

// ---------------------------------------------------------------------------------------------
// Test matrices beyond tests/common/random_matrix.h.

// 7-point Laplacian on an nx x ny x nz grid (6 on the diagonal, stored first, -1 off it).
inline CsrMatrix laplacian_3d(int32_t nx, int32_t ny, int32_t nz)
{
   std::vector<Entry> e;
   for (int32_t z = 0; z < nz; ++z)
      for (int32_t y = 0; y < ny; ++y)
         for (int32_t x = 0; x < nx; ++x)
         {
            const int32_t i = (z * ny + y) * nx + x;
            e.push_back({i, i, 6.0});
            if (x > 0) e.push_back({i, i - 1, -1.0});
            if (x + 1 < nx) e.push_back({i, i + 1, -1.0});
            if (y > 0) e.push_back({i, i - nx, -1.0});
            if (y + 1 < ny) e.push_back({i, i + nx, -1.0});
            if (z > 0) e.push_back({i, i - nx * ny, -1.0});
            if (z + 1 < nz) e.push_back({i, i + nx * ny, -1.0});
         }
   const int32_t n = nx * ny * nz;
   return from_entries(n, n, e);
}

// k distinct values from [0, range).
inline std::vector<int32_t> distinct(int32_t k, int32_t range, std::mt19937& rng)
{
   std::vector<int32_t> all(static_cast<size_t>(range));
   std::iota(all.begin(), all.end(), 0);
   std::shuffle(all.begin(), all.end(), rng);
   all.resize(static_cast<size_t>(std::min(k, range)));
   return all;
}

inline int value_pm(std::mt19937& rng, int max_abs)
{
   const int v = static_cast<int>(rng() % static_cast<unsigned>(max_abs)) + 1;
   return (rng() & 1u) ? v : -v;
}

// n x n pair for the row-length bins. Block row I of A holds a_tiles[I] tiles (one entry
// each) at distinct block columns; every block row of B (or only those A meets) holds kBTiles
// tiles at distinct block columns, each one full tile column. The analysis bound of block
// row I is then exactly a_tiles[I] * kBTiles, and so is its number of nonempty products.
constexpr int32_t kBTiles = 32;

inline std::pair<CsrMatrix, CsrMatrix> tiled_pair(int32_t n, const std::vector<int32_t>& a_tiles,
                                                  uint32_t seed, bool only_b_rows_met_by_a,
                                                  std::vector<int32_t>* b_rows_used = nullptr)
{
   std::mt19937       rng(seed);
   const int32_t      bn = (n + 3) / 4;
   std::vector<Entry> ea, eb;
   std::vector<char>  b_needed(static_cast<size_t>(bn), only_b_rows_met_by_a ? 0 : 1);
   for (int32_t bi = 0; bi < bn && bi < static_cast<int32_t>(a_tiles.size()); ++bi)
   {
      const auto cols = distinct(a_tiles[bi], bn, rng);
      for (size_t q = 0; q < cols.size(); ++q)
      {
         const int32_t row = std::min(n - 1, 4 * bi + static_cast<int32_t>(q % 4));
         const int32_t col = std::min(n - 1, 4 * cols[q] + static_cast<int32_t>(rng() % 4));
         ea.push_back({row, col, static_cast<double>(value_pm(rng, 3))});
         b_needed[static_cast<size_t>(col / 4)] = 1;
      }
   }
   for (int32_t bk = 0; bk < bn; ++bk)
   {
      if (!b_needed[static_cast<size_t>(bk)]) continue;
      if (b_rows_used) b_rows_used->push_back(bk);
      // Each tile holds one full column, so every A entry of the matching block column meets
      // every tile of this B row (no bitmap product is empty).
      for (int32_t bc : distinct(kBTiles, bn, rng))
      {
         const int32_t col = std::min(n - 1, 4 * bc + static_cast<int32_t>(rng() % 4));
         for (int32_t row = 4 * bk; row < std::min(n, 4 * bk + 4); ++row)
            eb.push_back({row, col, static_cast<double>(value_pm(rng, 1))});
      }
   }
   return {from_entries(n, n, ea), from_entries(n, n, eb)};
}

// ---------------------------------------------------------------------------------------------

// Each test on a non-blocking stream of its own (GpuStreamTest::stream_).
template <class V>
class SpgemmDevice : public GpuStreamTest
{
};

using amgt::test::StorageTypes;

} // namespace amgt::test::gpu
