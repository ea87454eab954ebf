// GPU SpGEMM (device::spgemm) against the CPU oracles, in every storage precision:
//   - structure (blk_ptr, blk_col, blk_map) equal to spgemm_ref's and to the tile pattern of the
//     plain scalar product csr_spgemm_ref, always exactly;
//   - values bit for bit equal to spgemm_ref whenever the ordered kernel ran and no tile went
//     through the tensor cores (its CUDA-core path adds the terms in the reference's order
//     with one FMA each), and on small-integer inputs in every case (all partial sums are
//     exact integers, whatever the order: the pairs kernel's atomics included);
//   - on random inputs within spgemm_tolerance (tests/common/tolerances.h) of the fp64 scalar
//     product, with |A||B| computed in fp64 (fp16 products that used the tensor cores, mma
//     m16n8k16 with fp32 accumulation: spgemm_tensor_fp16_tolerance; the pairs kernel, one
//     rounding per product and atomics in any order: spgemm_pairs_tolerance);
//   - every path forced (SpgemmPath::cuda_core, tensor_core, cuda_core_pairs) as well as the
//     automatic choice, whose kernel and dense-tile count are recomputed on the host;
//     fp32 never uses the tensor cores;
//   - every device byte through the given Allocator, and all temporaries released on return.
// A GPU test that finds no GPU fails: it never passes by skipping.
#include "common/csr_utils.h"
#include "common/error.h"
#include "common/random_matrix.h"
#include "common/tolerances.h"
#include "mbsr/mbsr.h"
#include "mbsr/mbsr_device.h"
#include "spgemm/spgemm.h"
#include "spgemm/spgemm_device.h"

#include "gpu_test_util.h"

#include <cuda_runtime.h>
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
#include <vector>

namespace {

using amgt::CsrMatrix;
using amgt::half_t;
using amgt::Mbsr;
using namespace amgt::test;
using namespace amgt::test::gpu;
namespace dev = amgt::device;

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
GpuResult<V> gpu_product(const Mbsr<V>& A, const Mbsr<V>& B, cudaStream_t stream,
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
   EXPECT_EQ(cudaGetLastError(), cudaSuccess);
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
                               const std::string& what, Totals& totals, cudaStream_t stream,
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
CsrMatrix laplacian_3d(int32_t nx, int32_t ny, int32_t nz)
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
std::vector<int32_t> distinct(int32_t k, int32_t range, std::mt19937& rng)
{
   std::vector<int32_t> all(static_cast<size_t>(range));
   std::iota(all.begin(), all.end(), 0);
   std::shuffle(all.begin(), all.end(), rng);
   all.resize(static_cast<size_t>(std::min(k, range)));
   return all;
}

int value_pm(std::mt19937& rng, int max_abs)
{
   const int v = static_cast<int>(rng() % static_cast<unsigned>(max_abs)) + 1;
   return (rng() & 1u) ? v : -v;
}

// n x n pair for the row-length bins. Block row I of A holds a_tiles[I] tiles (one entry
// each) at distinct block columns; every block row of B (or only those A meets) holds kBTiles
// tiles at distinct block columns, each one full tile column. The analysis bound of block
// row I is then exactly a_tiles[I] * kBTiles, and so is its number of nonempty products.
constexpr int32_t kBTiles = 32;

std::pair<CsrMatrix, CsrMatrix> tiled_pair(int32_t n, const std::vector<int32_t>& a_tiles,
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

using StorageTypes = ::testing::Types<double, float, half_t>;
TYPED_TEST_SUITE(SpgemmDevice, StorageTypes);

// The numeric kernels every shape test below runs: the automatic choice (check_product
// recomputes which kernel it must be), the ordered kernel's CUDA cores (bit for bit) and the
// pairs kernel (small integers: bit for bit too).
constexpr dev::SpgemmPath kKernelPaths[] = {dev::SpgemmPath::automatic, dev::SpgemmPath::cuda_core,
                                            dev::SpgemmPath::cuda_core_pairs};

TYPED_TEST(SpgemmDevice, RandomLargerThanWarpSmallIntegersExact)
{
   Totals   totals;
   uint32_t seed = 5000;
   for (auto [n, k, m, da, db] : std::vector<std::tuple<int32_t, int32_t, int32_t, double, double>>{
            {2000, 2000, 2000, 0.002, 0.002},
            {1537, 1203, 911, 0.003, 0.004},
            {4099, 4099, 4099, 0.0012, 0.0012},
            {333, 333, 333, 0.05, 0.05}})
   {
      const CsrMatrix a = random_csr(n, k, da, Fill::small_int, ++seed);
      const CsrMatrix b = random_csr(k, m, db, Fill::small_int, ++seed);
      check_product<TypeParam>(a, b, Fill::small_int,
                               std::to_string(n) + "x" + std::to_string(k) + " * " +
                                   std::to_string(k) + "x" + std::to_string(m),
                               totals, this->stream_);
   }
   EXPECT_GT(totals.nonzeros, 20000);
   EXPECT_GT(totals.cc, 0);
}

TYPED_TEST(SpgemmDevice, RandomLargerThanWarpWithinTolerance)
{
   Totals   totals;
   uint32_t seed = 6000;
   for (auto [n, k, m, da, db] : std::vector<std::tuple<int32_t, int32_t, int32_t, double, double>>{
            {2000, 2000, 2000, 0.002, 0.002},
            {1537, 1203, 911, 0.003, 0.004},
            {600, 600, 600, 0.04, 0.04},
            {257, 130, 299, 0.6, 0.6}}) // dense tiles: the tensor-core path in fp64, fp16
   {
      const CsrMatrix a = random_csr(n, k, da, Fill::random, ++seed);
      const CsrMatrix b = random_csr(k, m, db, Fill::random, ++seed);
      check_product<TypeParam>(a, b, Fill::random,
                               std::to_string(n) + "x" + std::to_string(k) + " * " +
                                   std::to_string(k) + "x" + std::to_string(m),
                               totals, this->stream_);
   }
   EXPECT_GT(totals.toleranced, 50000);
   EXPECT_LE(totals.worst, 1.0);
   EXPECT_GT(totals.nonzeros, 50000);
   if (roundoff<TypeParam>().store > roundoff<double>().store)
   {
      EXPECT_GT(totals.max_err, 0.0);
   }
   if (!std::is_same_v<TypeParam, float>) { EXPECT_GT(totals.tc, 0); }
}

TYPED_TEST(SpgemmDevice, EdgeMatricesExact)
{
   for (dev::SpgemmPath path : kKernelPaths)
   {
      Totals   totals;
      uint32_t seed = 7000;
      for (const NamedMatrix& e : edge_matrices())
      {
         const CsrMatrix& a = e.a;
         for (int32_t p : {a.ncols, 7, 1})
         {
            const CsrMatrix b = random_csr(a.ncols, p, 0.3, Fill::small_int, ++seed);
            check_product<TypeParam>(a, b, Fill::small_int,
                                     e.name + " * random " + std::to_string(a.ncols) + "x" +
                                         std::to_string(p),
                                     totals, this->stream_, path);
         }
         if (a.nrows == a.ncols)
            check_product<TypeParam>(a, a, Fill::small_int, e.name + " squared", totals,
                                     this->stream_, path);
         check_product<TypeParam>(a, transpose(a), Fill::small_int, e.name + " * its transpose",
                                  totals, this->stream_, path);
      }
      EXPECT_GT(totals.nonzeros, 1000);
   }
}

TYPED_TEST(SpgemmDevice, EmptyOperands)
{
   auto empty = [](int32_t nr, int32_t nc) {
      CsrMatrix z;
      z.nrows = nr;
      z.ncols = nc;
      z.row_ptr.assign(static_cast<size_t>(nr) + 1, 0);
      return z;
   };
   const std::vector<std::pair<CsrMatrix, CsrMatrix>> cases{
       {empty(0, 0), empty(0, 0)},
       {empty(5, 0), empty(0, 7)},
       {empty(3, 4), random_csr(4, 6, 0.5, Fill::small_int, 1)},
       {random_csr(6, 4, 0.5, Fill::small_int, 2), empty(4, 9)},
       {empty(0, 6), random_csr(6, 6, 0.5, Fill::small_int, 3)},
       {empty(1001, 999), random_csr(999, 1003, 0.01, Fill::small_int, 4)},
       {random_csr(1001, 999, 0.01, Fill::small_int, 5), empty(999, 1003)}};
   for (dev::SpgemmPath path : kKernelPaths)
   {
      Totals totals;
      for (const auto& [a, b] : cases)
      {
         const std::string what = std::to_string(a.nrows) + "x" + std::to_string(a.ncols) + " * " +
                                  std::to_string(b.nrows) + "x" + std::to_string(b.ncols);
         check_product<TypeParam>(a, b, Fill::small_int, what, totals, this->stream_, path);
         const auto gpu = gpu_product(amgt::csr_to_mbsr<TypeParam>(a.view()),
                                      amgt::csr_to_mbsr<TypeParam>(b.view()), this->stream_, path);
         EXPECT_EQ(gpu.c.num_tiles(), 0) << what;
         EXPECT_EQ(gpu.c.blk_ptr,
                   std::vector<int32_t>(static_cast<size_t>(gpu.c.block_rows()) + 1, 0))
             << what;
      }
      EXPECT_EQ(totals.tiles, 0);
   }
}

TYPED_TEST(SpgemmDevice, SingleEntryAndOneBitTiles)
{
   for (dev::SpgemmPath path : kKernelPaths)
   {
      Totals totals;
      // One entry in a partial last tile times one entry: one tile with one bit.
      const CsrMatrix a = from_entries(9, 9, {{6, 7, -2.0}});
      const CsrMatrix b = from_entries(9, 10, {{7, 9, 3.0}});
      check_product<TypeParam>(a, b, Fill::small_int, "single entry", totals, this->stream_, path);
      const auto one = gpu_product(amgt::csr_to_mbsr<TypeParam>(a.view()),
                                   amgt::csr_to_mbsr<TypeParam>(b.view()), this->stream_, path);
      ASSERT_EQ(one.c.num_tiles(), 1);
      EXPECT_EQ(one.c.blk_map[0], uint16_t{1u << (2 * 4 + 1)}); // (6,9) is (2,1) in tile (1,2)
      EXPECT_EQ(one.c.blk_col[0], 2);
      check_product<TypeParam>(from_entries(1, 1, {{0, 0, 3.0}}),
                               from_entries(1, 1, {{0, 0, -2.0}}), Fill::small_int, "1x1", totals,
                               this->stream_, path);

      // Permutation matrices: every stored tile of P holds one to four entries, mostly one.
      const int32_t        n = 3001;
      std::vector<int32_t> perm(n);
      std::iota(perm.begin(), perm.end(), 0);
      std::mt19937 rng(99);
      std::shuffle(perm.begin(), perm.end(), rng);
      std::vector<Entry> pe;
      for (int32_t i = 0; i < n; ++i)
         pe.push_back({i, perm[i], static_cast<double>(value_pm(rng, 3))});
      const CsrMatrix p  = from_entries(n, n, pe);
      const CsrMatrix ar = random_csr(n, n, 0.002, Fill::small_int, 98);
      check_product<TypeParam>(p, ar, Fill::small_int, "P * A", totals, this->stream_, path);
      check_product<TypeParam>(ar, p, Fill::small_int, "A * P", totals, this->stream_, path);
      check_product<TypeParam>(p, transpose(p), Fill::small_int, "P * P^T", totals, this->stream_,
                               path);
      EXPECT_GT(totals.nonzeros, 10000);
   }
}

TYPED_TEST(SpgemmDevice, DenseTilesUseTensorCoresInDouble)
{
   Totals totals;
   std::vector<dev::SpgemmStats> stats;
   const CsrMatrix d64 = random_csr(64, 64, 1.0, Fill::small_int, 21);
   stats.push_back(check_product<TypeParam>(d64, d64, Fill::small_int, "dense 64 squared", totals,
                                            this->stream_));
   const CsrMatrix d1 = random_csr(150, 130, 0.95, Fill::small_int, 22);
   const CsrMatrix d2 = random_csr(130, 61, 0.95, Fill::small_int, 23);
   stats.push_back(check_product<TypeParam>(d1, d2, Fill::small_int, "dense 150x130 * 130x61",
                                            totals, this->stream_));
   // Half of A's tiles full, half with one entry: both paths in one block row; odd numbers of
   // B tiles per row leave the second half of some mma operands empty.
   std::vector<Entry> mixed;
   std::mt19937       rng(24);
   for (int32_t bi = 0; bi < 50; ++bi)
      for (int32_t bj = 0; bj < 50; ++bj)
      {
         if ((bi * 7 + bj * 3) % 5 == 0)
            for (int r = 0; r < 4; ++r)
               for (int c = 0; c < 4; ++c)
                  mixed.push_back({4 * bi + r, 4 * bj + c, static_cast<double>(value_pm(rng, 3))});
         else if ((bi + bj) % 3 == 0)
            mixed.push_back({4 * bi + bj % 4, 4 * bj + bi % 4, static_cast<double>(value_pm(rng, 3))});
      }
   // 199 x 199: the last tile row and column are partial, their entries past 198 dropped.
   mixed.erase(std::remove_if(mixed.begin(), mixed.end(),
                              [](const Entry& x) { return x.row >= 199 || x.col >= 199; }),
               mixed.end());
   const CsrMatrix am = from_entries(199, 199, mixed);
   const CsrMatrix bm = random_csr(199, 213, 0.05, Fill::small_int, 25);
   stats.push_back(
       check_product<TypeParam>(am, bm, Fill::small_int, "mixed tiles", totals, this->stream_));
   stats.push_back(
       check_product<TypeParam>(am, am, Fill::small_int, "mixed tiles squared", totals, this->stream_));
   // Random values through the tensor cores: tolerance, not bits.
   const CsrMatrix r1 = random_csr(96, 96, 1.0, Fill::random, 26);
   stats.push_back(
       check_product<TypeParam>(r1, r1, Fill::random, "dense random", totals, this->stream_));

   // The name predates the fp16 path: fp64 (mma m8n8k4) and fp16 (mma m16n8k16, fp32
   // accumulation) both send the dense tiles to the tensor cores; fp32 never does.
   if (!std::is_same_v<TypeParam, float>)
   {
      for (const auto& s : stats) EXPECT_GT(s.tc_tile_products, 0);
      EXPECT_GT(stats[2].cc_tile_products, 0); // the one-entry tiles of the mixed matrix
   }
   else
   {
      EXPECT_EQ(totals.tc, 0);
   }
   EXPECT_GT(totals.cc + totals.tc, 1000);
   EXPECT_GT(totals.nonzeros, 20000);
}

TYPED_TEST(SpgemmDevice, EmptyBitmapProductsAreSkipped)
{
   for (dev::SpgemmPath path : kKernelPaths)
   {
      Totals totals;
      // Tile (0,0): A's only entries are in its column 0, B's only in its row 3: the tiles meet
      // but their product is empty. Tile (0,1) of A meets tile (1,1) of B for real.
      const CsrMatrix a = from_entries(8, 8,
                                       {{0, 0, 1.0}, {1, 0, 2.0}, {2, 0, -1.0}, {3, 0, 3.0}, {0, 5, 2.0}});
      const CsrMatrix b = from_entries(8, 8,
                                       {{3, 0, 1.0}, {3, 1, 1.0}, {3, 2, 2.0}, {3, 3, -1.0}, {5, 4, 3.0}});
      const auto st = check_product<TypeParam>(a, b, Fill::small_int, "partly empty", totals,
                                               this->stream_, path);
      EXPECT_EQ(st.intermediate_tiles, 2);
      EXPECT_EQ(st.tc_tile_products + st.cc_tile_products, 1);
      EXPECT_EQ(st.output_tiles, 1);

      // Large: A only in columns 0 mod 4, B only in rows 3 mod 4: every pair of tiles that
      // meets has an empty product, so C has no tile at all.
      std::mt19937       rng(31);
      std::vector<Entry> ea, eb;
      const int32_t      n = 2400;
      for (int32_t i = 0; i < n; ++i)
         for (int q = 0; q < 3; ++q)
         {
            ea.push_back({i, 4 * static_cast<int32_t>(rng() % (n / 4)), 1.0});
            eb.push_back({4 * static_cast<int32_t>(rng() % (n / 4)) + 3, i, 1.0});
         }
      // Repeated (row, col) pairs are summed by the conversion; harmless here.
      const CsrMatrix a0 = from_entries(n, n, ea), b3 = from_entries(n, n, eb);
      const auto      none = check_product<TypeParam>(a0, b3, Fill::small_int, "all products empty",
                                                      totals, this->stream_, path);
      EXPECT_GT(none.intermediate_tiles, 1000);
      EXPECT_EQ(none.output_tiles, 0);
      EXPECT_EQ(none.tc_tile_products + none.cc_tile_products, 0);

      // Columns 0,1 mod 4 against rows 1,3 mod 4: only k = 1 inside the tiles meets.
      std::vector<Entry> ea2, eb2;
      for (int32_t i = 0; i < n; ++i)
         for (int q = 0; q < 3; ++q)
         {
            ea2.push_back({i, 4 * static_cast<int32_t>(rng() % (n / 4)) + static_cast<int32_t>(rng() % 2),
                           static_cast<double>(value_pm(rng, 3))});
            eb2.push_back({4 * static_cast<int32_t>(rng() % (n / 4)) + 1 + 2 * static_cast<int32_t>(rng() % 2), i,
                           static_cast<double>(value_pm(rng, 3))});
         }
      const auto some = check_product<TypeParam>(from_entries(n, n, ea2), from_entries(n, n, eb2),
                                                 Fill::small_int, "some products empty", totals,
                                                 this->stream_, path);
      EXPECT_GT(some.output_tiles, 0);
      EXPECT_LT(some.tc_tile_products + some.cc_tile_products, some.intermediate_tiles);
      EXPECT_GT(totals.nonzeros, 1000);
   }
}

TYPED_TEST(SpgemmDevice, CancellationKeepsStructuralZeros)
{
   for (dev::SpgemmPath path : kKernelPaths)
   {
      Totals totals;
      // C(0,0) = A(0,1) B(1,0) + A(0,5) B(5,0) = 1*2 + 2*(-1) = 0 from two different A tiles.
      const CsrMatrix a = from_entries(8, 8, {{0, 1, 1.0}, {0, 5, 2.0}, {6, 6, 1.0}});
      const CsrMatrix b = from_entries(8, 8, {{1, 0, 2.0}, {5, 0, -1.0}, {1, 1, 3.0}, {6, 7, 1.0}});
      check_product<TypeParam>(a, b, Fill::small_int, "cancellation", totals, this->stream_, path);
      const auto gpu = gpu_product(amgt::csr_to_mbsr<TypeParam>(a.view()),
                                   amgt::csr_to_mbsr<TypeParam>(b.view()), this->stream_, path);
      ASSERT_GE(gpu.c.num_tiles(), 1);
      EXPECT_EQ(gpu.c.blk_col[0], 0);
      EXPECT_TRUE(gpu.c.blk_map[0] & 1u) << "the cancelled entry (0,0) must stay in the bitmap";
      const TypeParam zero = amgt::StorageTraits<TypeParam>::from_double(0.0);
      EXPECT_EQ(std::memcmp(&gpu.c.blk_val[0], &zero, sizeof(TypeParam)), 0) << "+0 expected";

      // Cancellation inside one dense tile pair (tensor cores in fp64 and fp16): row 0 of A is
      // (1,1,1,1), column 0 of B is (1,-1,2,-2).
      std::vector<Entry> ea, eb;
      for (int r = 0; r < 4; ++r)
         for (int c = 0; c < 4; ++c)
         {
            ea.push_back({r, c, r == 0 ? 1.0 : static_cast<double>(r + c)});
            const double col0[4] = {1.0, -1.0, 2.0, -2.0};
            eb.push_back({r, c, c == 0 ? col0[r] : static_cast<double>(r - c)});
         }
      check_product<TypeParam>(from_entries(4, 4, ea), from_entries(4, 4, eb), Fill::small_int,
                               "cancellation in a dense tile", totals, this->stream_, path);
      check_product<TypeParam>(from_entries(1, 2, {{0, 0, 1.0}, {0, 1, 1.0}}),
                               from_entries(2, 1, {{0, 0, 1.0}, {1, 0, -1.0}}), Fill::small_int,
                               "[1 1] * [1; -1]", totals, this->stream_, path);
   }
}

TYPED_TEST(SpgemmDevice, GalerkinShapes)
{
   // A n x n (n % 4 == 3), P n x nc, R = P^T: A*P (n x nc) and R*(A*P) (nc x nc), the second
   // product fed with the first one's device result, as the AMG setup runs them.
   Totals          totals;
   const CsrMatrix a = laplacian_2d(61, 59);
   CsrMatrix       p = random_csr(a.nrows, 917, 0.003, Fill::small_int, 41);
   for (double& v : p.val) v = v > 0 ? 1.0 : -1.0;
   const CsrMatrix r = transpose(p);
   check_product<TypeParam>(a, p, Fill::small_int, "A*P", totals, this->stream_);
   const CsrMatrix ap = amgt::csr_spgemm_ref(a.view(), p.view());
   check_product<TypeParam>(r, ap, Fill::small_int, "R*(AP)", totals, this->stream_);

   AllocCounter         counter;
   const dev::Allocator alloc = counting_allocator(counter);
   {
      const auto Am = amgt::csr_to_mbsr<TypeParam>(a.view());
      const auto Pm = amgt::csr_to_mbsr<TypeParam>(p.view());
      const auto Rm = amgt::csr_to_mbsr<TypeParam>(r.view());
      const auto dA = upload_mbsr(Am, alloc);
      const auto dP = upload_mbsr(Pm, alloc);
      const auto dR = upload_mbsr(Rm, alloc);
      const auto dAP  = dev::spgemm(dA, dP, this->stream_, alloc);
      const auto dRAP = dev::spgemm(dR, dAP, this->stream_, alloc);
      const auto rap  = dev::to_host(dRAP, this->stream_);
      const auto want = amgt::spgemm_ref(Rm, amgt::spgemm_ref(Am, Pm));
      EXPECT_EQ(rap.nrows, 917);
      EXPECT_EQ(rap.ncols, 917);
      EXPECT_EQ(rap.blk_ptr, want.blk_ptr);
      EXPECT_EQ(rap.blk_col, want.blk_col);
      EXPECT_EQ(rap.blk_map, want.blk_map);
      EXPECT_TRUE(same_bits(rap, want)); // small integers: exact in every precision
      EXPECT_GT(rap.num_tiles(), 1000);
   }
   EXPECT_EQ(counter.live, 0);

   // The same shapes with random values (tolerance).
   CsrMatrix pr = random_csr(a.nrows, 917, 0.003, Fill::random, 42);
   check_product<TypeParam>(a, pr, Fill::random, "A*P random", totals, this->stream_);
   check_product<TypeParam>(transpose(pr), amgt::csr_spgemm_ref(a.view(), pr.view()), Fill::random,
                            "R*(AP) random", totals, this->stream_);
   EXPECT_GT(totals.nonzeros, 10000);
}

TYPED_TEST(SpgemmDevice, AllSymbolicAndNumericBins)
{
   // Block rows 0..15 take 1, 2, 6, 12, 24, 48, 96, 192, 400 A tiles against full B rows of 32
   // tiles (bounds 32 .. 12800: every symbolic bin, including bin 7's window); the remaining
   // rows take 1 tile, every 7th none (empty block rows).
   const int32_t        n = 6002; // 1501 block rows, the last one partial
   std::vector<int32_t> a_tiles((n + 3) / 4, 1);
   const int32_t        steps[] = {2, 6, 12, 24, 48, 96, 192, 400};
   for (int32_t i = 0; i < 16; ++i) a_tiles[i] = steps[i % 8];
   for (size_t i = 16; i < a_tiles.size(); i += 7) a_tiles[i] = 0;
   const auto [a, b] = tiled_pair(n, a_tiles, 51, false);
   for (dev::SpgemmPath path : kKernelPaths)
   {
      Totals     totals;
      const auto st =
          check_product<TypeParam>(a, b, Fill::small_int, "bins", totals, this->stream_, path);
      ASSERT_GE(st.shared_symbolic_bins, 1);
      for (int bin = 0; bin < dev::kSymbolicBins; ++bin)
      {
         if (bin < st.shared_symbolic_bins || bin == dev::kSymbolicBins - 1)
            EXPECT_GT(st.symbolic_bin_rows[bin], 0) << "symbolic bin " << bin;
         else
            EXPECT_EQ(st.symbolic_bin_rows[bin], 0) << "symbolic bin " << bin << " was routed";
      }
      for (int bin = 0; bin < dev::kNumericBins; ++bin)
         EXPECT_GT(st.numeric_bin_rows[bin], 0) << "numeric bin " << bin;
      EXPECT_GT(totals.nonzeros, 20000);
   }
}

TYPED_TEST(SpgemmDevice, VeryLongBlockRowSpansSeveralWindows)
{
   // 140000 columns = 35000 block columns, more than one 32768-column window: block row 0
   // has 400 A tiles spread over all block columns, each meeting a B row of 32 tiles spread
   // the same way (12800 products, ~10700 distinct output tiles: bin 7, two symbolic windows
   // and ~42 numeric windows of 256 tiles).
   const int32_t        n       = 140000;
   std::vector<int32_t> a_tiles = {400, 1, 0, 3};
   const auto [a, b]            = tiled_pair(n, a_tiles, 61, true);
   for (dev::SpgemmPath path : kKernelPaths)
   {
      Totals     totals;
      const auto st =
          check_product<TypeParam>(a, b, Fill::small_int, "long row", totals, this->stream_, path);
      EXPECT_GT(st.symbolic_bin_rows[dev::kSymbolicBins - 1], 0);
      EXPECT_GT(st.output_tiles, 10000);
      EXPECT_EQ(st.tc_tile_products + st.cc_tile_products, 12800 + 4 * kBTiles);
      EXPECT_GT(st.numeric_bin_rows[dev::kNumericBins - 1], 0);
      EXPECT_GT(totals.nonzeros, 10000);
   }
}

TYPED_TEST(SpgemmDevice, Laplacian3dSquared)
{
   for (dev::SpgemmPath path : kKernelPaths)
   {
      Totals totals;
      for (auto [nx, ny, nz] : {std::tuple{20, 20, 20}, std::tuple{13, 11, 9}, std::tuple{31, 7, 5}})
      {
         const CsrMatrix a = laplacian_3d(nx, ny, nz);
         check_product<TypeParam>(a, a, Fill::small_int,
                                  "7-point " + std::to_string(nx) + "x" + std::to_string(ny) + "x" +
                                      std::to_string(nz) + " squared",
                                  totals, this->stream_, path);
      }
      EXPECT_GT(totals.nonzeros, 100000);
   }
}

TYPED_TEST(SpgemmDevice, DimensionMismatchThrows)
{
   AllocCounter         counter;
   const dev::Allocator alloc = counting_allocator(counter);
   {
      const auto dA = upload_mbsr(amgt::csr_to_mbsr<TypeParam>(
                                      random_csr(6, 5, 0.5, Fill::small_int, 4).view()),
                                  alloc);
      const auto dB = upload_mbsr(amgt::csr_to_mbsr<TypeParam>(
                                      random_csr(6, 6, 0.5, Fill::small_int, 5).view()),
                                  alloc);
      // 5 and 6 columns/rows both make two blocks: the check is on the scalar sizes.
      try
      {
         (void)dev::spgemm(dA, dB, this->stream_, alloc);
         FAIL() << "no exception";
      }
      catch (const amgt::Error& e)
      {
         EXPECT_NE(e.message().find("6 x 5"), std::string::npos) << e.what();
      }
   }
   EXPECT_EQ(counter.live, 0);
}

TYPED_TEST(SpgemmDevice, DeterministicAndDefaultStream)
{
   // Same inputs twice (once on the legacy default stream): identical structure always,
   // although rows are binned and hashed through atomics; identical bits whenever the ordered
   // kernel ran, tensor cores or not. The pairs kernel adds with atomics in no fixed order
   // (the contract allows the last bits to move): its default-stream run is held to the
   // tolerance instead. `a` has ~1 entry per tile (automatic: pairs kernel), `d` ~8 (ordered).
   const CsrMatrix a = random_csr(700, 700, 0.03, Fill::random, 71);
   const CsrMatrix d = random_csr(120, 700, 0.5, Fill::random, 72);
   Totals          totals;
   for (dev::SpgemmPath path : {dev::SpgemmPath::automatic, dev::SpgemmPath::cuda_core,
                                dev::SpgemmPath::tensor_core, dev::SpgemmPath::cuda_core_pairs})
   {
      SCOPED_TRACE(dev::to_string(path));
      for (const CsrMatrix* m : {&a, &d})
      {
         const auto A  = amgt::csr_to_mbsr<TypeParam>(m->view());
         const auto B  = amgt::csr_to_mbsr<TypeParam>(a.view());
         const auto r1 = gpu_product(A, B, this->stream_, path);
         const auto r2 = gpu_product(A, B, nullptr, path);
         EXPECT_EQ(r1.c.blk_ptr, r2.c.blk_ptr);
         EXPECT_EQ(r1.c.blk_col, r2.c.blk_col);
         EXPECT_EQ(r1.c.blk_map, r2.c.blk_map);
         EXPECT_EQ(r1.stats.pairs_kernel, r2.stats.pairs_kernel);
         EXPECT_GT(r1.c.num_tiles(), 0);
         if (!r1.stats.pairs_kernel)
            EXPECT_TRUE(same_bits(r1.c, r2.c));
         else
            check_product<TypeParam>(*m, a, Fill::random, "default stream", totals, nullptr, path);
      }
   }
   EXPECT_GT(totals.pairs, 0); // the pairs kernel did run on the default stream
}

// ---------------------------------------------------------------------------------------------
// Forced paths: every tile product through the tensor cores (fp64 mma m8n8k4, fp16 mma
// m16n8k16 with fp32 accumulation; fp32 runs the CUDA cores), through the ordered kernel's
// CUDA cores, or through the pairs kernel, on the shapes that stress the fp16 fragment packing
// and the pairs kernel's flat enumeration: partial tiles (n % 4 != 0), empty block rows and
// rows, one-bit and full tiles, B block rows longer than a warp (several 32-pair chunks, each
// up to four m16n8k16 steps of 8 pairs, the last one partly empty), block rows of A with more
// than 32 tiles (several 32-tile chunks of the pairs kernel), output rows longer than the
// numeric windows (numeric bin 2: B rows cut to each window's column range, slices often
// empty).

// Rows with i % 4 == 1 and all rows of block rows bi % 5 == 2 dropped.
CsrMatrix with_empty_rows(const CsrMatrix& a)
{
   std::vector<Entry> e;
   for (int32_t i = 0; i < a.nrows; ++i)
   {
      if (i % 4 == 1 || (i / 4) % 5 == 2) continue;
      for (int32_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p)
         e.push_back({i, a.col[p], value_at(a, static_cast<size_t>(p))});
   }
   return from_entries(a.nrows, a.ncols, e);
}

// The same pattern with Fill::random values.
CsrMatrix with_random_values(CsrMatrix a, uint32_t seed)
{
   std::mt19937 rng(seed);
   a.val.resize(a.col.size());
   for (double& v : a.val) v = draw_value(rng, Fill::random);
   return a;
}

struct ForcedCase
{
   std::string name;
   CsrMatrix   a, b;
};

// Random operands: one product per shape (rows of A, inner size, columns of B, densities of A
// and B), then a square with empty rows and a pair whose first 12 block rows of A hold 300
// tiles (output rows over several numeric windows).
using ProductShape = std::tuple<int32_t, int32_t, int32_t, double, double>;
std::vector<ForcedCase> random_forced_cases(uint32_t seed, const std::vector<ProductShape>& shapes)
{
   std::vector<ForcedCase> cases;
   for (auto [n, k, m, da, db] : shapes)
   {
      cases.push_back({std::to_string(n) + "x" + std::to_string(k) + " * " + std::to_string(k) +
                           "x" + std::to_string(m),
                       random_csr(n, k, da, Fill::random, ++seed),
                       random_csr(k, m, db, Fill::random, ++seed)});
   }
   const CsrMatrix e = with_empty_rows(random_csr(417, 417, 0.05, Fill::random, ++seed));
   cases.push_back({"empty rows 417 squared", e, e});
   std::vector<int32_t> a_tiles((6002 + 3) / 4, 2);
   for (int32_t i = 0; i < 12; ++i) a_tiles[static_cast<size_t>(i)] = 300;
   auto [ta, tb] = tiled_pair(6002, a_tiles, ++seed, false);
   cases.push_back({"long rows", with_random_values(std::move(ta), ++seed),
                    with_random_values(std::move(tb), ++seed)});
   return cases;
}

// Small-integer operands (every value in {-3..3}, sums far below 2048).
std::vector<ForcedCase> forced_cases_small_int()
{
   std::vector<ForcedCase> c;
   c.push_back({"random 2001x1999 * 1999x1203 sparse tiles",
                random_csr(2001, 1999, 0.002, Fill::small_int, 8001),
                random_csr(1999, 1203, 0.002, Fill::small_int, 8002)});
   // 75 and 76 block columns: B block rows of ~75 tiles, three chunks of 32, the last partial.
   c.push_back({"dense 301x299 * 299x302", random_csr(301, 299, 0.7, Fill::small_int, 8003),
                random_csr(299, 302, 0.7, Fill::small_int, 8004)});
   const CsrMatrix m = random_csr(417, 417, 0.05, Fill::small_int, 8005);
   c.push_back({"empty rows 417 squared", with_empty_rows(m), with_empty_rows(m)});
   c.push_back({"7-point 13x11x9 squared", laplacian_3d(13, 11, 9), laplacian_3d(13, 11, 9)});
   // Long output rows: 300 A tiles per block row against 32-tile B rows (numeric bin 2, several
   // 256-tile windows).
   std::vector<int32_t> a_tiles((6002 + 3) / 4, 2);
   for (int32_t i = 0; i < 12; ++i) a_tiles[static_cast<size_t>(i)] = 300;
   auto [ta, tb] = tiled_pair(6002, a_tiles, 8006, false);
   c.push_back({"long rows", std::move(ta), std::move(tb)});
   for (const NamedMatrix& e : edge_matrices())
   {
      if (e.a.nrows == e.a.ncols)
         c.push_back({e.name + " squared", e.a, e.a});
      c.push_back({e.name + " * its transpose", e.a, transpose(e.a)});
   }
   return c;
}

TYPED_TEST(SpgemmDevice, ForcedPathsSmallIntegersExact)
{
   constexpr bool has_tc = !std::is_same_v<TypeParam, float>;
   for (dev::SpgemmPath path : {dev::SpgemmPath::tensor_core, dev::SpgemmPath::cuda_core,
                                dev::SpgemmPath::cuda_core_pairs})
   {
      Totals totals;
      for (const ForcedCase& fc : forced_cases_small_int())
         check_product<TypeParam>(fc.a, fc.b, Fill::small_int, fc.name, totals, this->stream_,
                                  path);
      EXPECT_GT(totals.nonzeros, 100000);
      if (path == dev::SpgemmPath::cuda_core_pairs) { EXPECT_EQ(totals.ordered, 0); }
      else { EXPECT_EQ(totals.pairs, 0); }
      if (path == dev::SpgemmPath::tensor_core && has_tc)
      {
         EXPECT_GT(totals.tc, 100000);
         EXPECT_EQ(totals.cc, 0);
      }
      else
      {
         EXPECT_EQ(totals.tc, 0);
         EXPECT_GT(totals.cc, 100000);
      }
   }
}

TYPED_TEST(SpgemmDevice, ForcedPathsRandomWithinTolerance)
{
   constexpr bool has_tc = !std::is_same_v<TypeParam, float>;
   const std::vector<ForcedCase> cases =
       random_forced_cases(9000, {{2000, 2000, 2000, 0.002, 0.002},
                                  {1537, 1203, 911, 0.003, 0.004}, // partial tiles everywhere
                                  {600, 600, 600, 0.04, 0.04},
                                  {257, 130, 299, 0.6, 0.6},
                                  {301, 299, 302, 0.9, 0.9}}); // full tiles, B rows > a warp

   for (dev::SpgemmPath path : {dev::SpgemmPath::tensor_core, dev::SpgemmPath::cuda_core,
                                dev::SpgemmPath::automatic, dev::SpgemmPath::cuda_core_pairs})
   {
      Totals totals;
      for (const ForcedCase& fc : cases)
         check_product<TypeParam>(fc.a, fc.b, Fill::random, fc.name, totals, this->stream_, path);
      EXPECT_GT(totals.toleranced, 100000);
      EXPECT_LE(totals.worst, 1.0);
      EXPECT_GT(totals.nonzeros, 100000);
      if (roundoff<TypeParam>().store > roundoff<double>().store)
      {
         EXPECT_GT(totals.max_err, 0.0);
      }
      const bool pairs = path == dev::SpgemmPath::cuda_core_pairs;
      if (path == dev::SpgemmPath::tensor_core && has_tc) { EXPECT_EQ(totals.cc, 0); }
      if (path != dev::SpgemmPath::cuda_core && !pairs && has_tc) { EXPECT_GT(totals.tc, 0); }
      if (path == dev::SpgemmPath::cuda_core || pairs || !has_tc) { EXPECT_EQ(totals.tc, 0); }
      // automatic: the sparse cases (<= 0.04 density, ~1 entry per tile) take the pairs
      // kernel, the 0.6 and 0.9 ones (about half and nearly all tiles dense) the ordered one.
      if (path == dev::SpgemmPath::automatic)
      {
         EXPECT_GT(totals.pairs, 0);
         EXPECT_GT(totals.ordered, 0);
      }
      if (pairs) { EXPECT_EQ(totals.ordered, 0); }
   }
}

// The pairs kernel against spgemm_ref on the same inputs (values already in V), entry by
// entry: the two sum the same exact products, the kernel rounding each and adding in the
// atomics' order, the reference with FMAs in block-column order, so they may differ only
// within spgemm_pairs_vs_ref_tolerance. Shapes: sparse tiles larger than a warp, n % 4 != 0,
// block rows of A with more than 32 tiles and output rows over several numeric windows
// (bin 2), empty rows, and full tiles (many terms per entry: the most reordering).
TYPED_TEST(SpgemmDevice, PairsKernelCloseToReferenceOnSameInputs)
{
   using V = TypeParam;
   const std::vector<ForcedCase> cases = random_forced_cases(
       9200, {{2001, 1999, 1203, 0.003, 0.004}, {600, 600, 600, 0.04, 0.04}, {301, 299, 302, 0.9, 0.9}});

   const Roundoff r          = roundoff<V>();
   int64_t        total      = 0;
   double         worst      = 0.0;
   bool           long_rows  = false;
   for (const ForcedCase& fc : cases)
   {
      SCOPED_TRACE(fc.name);
      const auto A   = amgt::csr_to_mbsr<V>(fc.a.view());
      const auto B   = amgt::csr_to_mbsr<V>(fc.b.view());
      const auto ref = amgt::spgemm_ref(A, B);
      const auto gpu = gpu_product(A, B, this->stream_, dev::SpgemmPath::cuda_core_pairs);
      ASSERT_TRUE(gpu.stats.pairs_kernel);
      ASSERT_EQ(gpu.c.blk_ptr, ref.blk_ptr);
      ASSERT_EQ(gpu.c.blk_col, ref.blk_col);
      ASSERT_EQ(gpu.c.blk_map, ref.blk_map);
      EXPECT_EQ(gpu.stats.tc_tile_products, 0);
      EXPECT_EQ(gpu.stats.cc_tile_products, nonempty_pairs(A, B));
      long_rows = long_rows || gpu.stats.numeric_bin_rows[dev::kNumericBins - 1] > 0;
      // S~ = |A~||B~| from the values stored in V, tile by tile like C (all terms positive:
      // the same pattern).
      const CsrMatrix ah = abs_values(rounded_to<V>(fc.a));
      const CsrMatrix bh = abs_values(rounded_to<V>(fc.b));
      const CsrMatrix ab = amgt::csr_spgemm_ref(ah.view(), bh.view());
      const auto      S  = amgt::csr_to_mbsr<double>(ab.view());
      ASSERT_EQ(S.blk_ptr, ref.blk_ptr);
      ASSERT_EQ(S.blk_col, ref.blk_col);
      ASSERT_EQ(S.blk_map, ref.blk_map);
      const int k = max_row_nnz(fc.a);
      using T     = amgt::StorageTraits<V>;
      for (size_t p = 0; p < ref.blk_val.size(); ++p)
      {
         const double g = T::to_double(gpu.c.blk_val[p]);
         const double w = T::to_double(ref.blk_val[p]);
         if (!((ref.blk_map[p / 16] >> (p % 16)) & 1u))
         {
            ASSERT_EQ(std::memcmp(&gpu.c.blk_val[p], &ref.blk_val[p], sizeof(V)), 0)
                << "entry " << p << " is outside the bitmap and must be +0";
            continue;
         }
         ++total;
         const double tol = spgemm_pairs_vs_ref_tolerance(r, k, S.blk_val[p], g, w);
         ASSERT_LE(std::fabs(g - w), tol) << "entry " << p << ": got " << g << ", want " << w;
         if (tol > 0.0) worst = std::max(worst, std::fabs(g - w) / tol);
      }
   }
   EXPECT_GT(total, 100000);
   EXPECT_TRUE(long_rows) << "no output row took several numeric windows";
   std::printf("[ pairs vs ref ] %lld entries, largest |got - want| / tolerance %.3g\n",
               static_cast<long long>(total), worst);
}

// ---------------------------------------------------------------------------------------------
// The pairs kernel's window budget: a window of an output row is at most kCap tiles and at
// most kEntries stored entries of C (numeric_pairs_kernel, launch_pairs in
// spgemm_numeric_pairs.cu). The cases below are built so that the entry budget, not the tile count,
// cuts the windows in every numeric bin: full tiles (16 entries) make a bin-0 row of 32 tiles
// two windows, a bin-1 row of 128 tiles four, a bin-2 row of ~380 tiles six and a row of ~1500
// tiles ~24; banded operands make every window cut each B row on both sides (slices that
// start and end inside the row), and partly filled tiles make the budget end windows at tile
// boundaries that are not multiples of 16 entries. The tests check on the host that rows
// over the budgets exist, so a change of shapes cannot quietly stop exercising them.

// The kernel's entry budgets per numeric bin (launch_numeric), mirrored here only to check
// that the cases reach them.
constexpr int64_t kPairsEntryBudget[dev::kNumericBins] = {256, 512, 1024};
constexpr int32_t kNumericBinTiles[dev::kNumericBins - 1] = {32, 128}; // bin b: <= this many

// n x n operands on a block grid: A's block row I holds tiles at block columns a_cols[I], B's
// block row K at b_cols[K]; each position of such a tile holds an entry with probability
// `fill` (1: full tiles); entries past n are dropped (partial tiles). Values: A in {-3..3},
// B in {-2..2} (no zeros), so the sums stay small integers.
std::pair<CsrMatrix, CsrMatrix> tile_pattern_pair(int32_t n,
                                                  const std::vector<std::vector<int32_t>>& a_cols,
                                                  const std::vector<std::vector<int32_t>>& b_cols,
                                                  double fill, uint32_t seed)
{
   std::mt19937                           rng(seed);
   std::uniform_real_distribution<double> u(0.0, 1.0);
   const auto tiles = [&](const std::vector<std::vector<int32_t>>& cols, int max_abs) {
      std::vector<Entry> e;
      for (size_t bi = 0; bi < cols.size(); ++bi)
         for (int32_t bj : cols[bi])
            for (int32_t q = 0; q < 16; ++q)
            {
               const int32_t row = 4 * static_cast<int32_t>(bi) + q / 4, col = 4 * bj + q % 4;
               if (row < n && col < n && (fill >= 1.0 || u(rng) < fill))
                  e.push_back({row, col, static_cast<double>(value_pm(rng, max_abs))});
            }
      return from_entries(n, n, e);
   };
   return {tiles(a_cols, 3), tiles(b_cols, 2)};
}

// Full tiles, rows of every numeric bin: A's block rows take {1, 2, 4, 12, 0} tiles in turn at
// random block columns (row 0: 400), B's rows 32 tiles each.
std::pair<CsrMatrix, CsrMatrix> full_tile_rows(uint32_t seed)
{
   const int32_t bn = 1500, n = 4 * bn;
   std::mt19937  rng(seed);
   std::vector<std::vector<int32_t>> a_cols(bn), b_cols(bn);
   const int32_t                     per_row[] = {1, 2, 4, 12, 0};
   for (int32_t i = 0; i < bn; ++i)
   {
      a_cols[i] = distinct(i == 0 ? 400 : per_row[i % 5], bn, rng);
      b_cols[i] = distinct(kBTiles, bn, rng);
   }
   return tile_pattern_pair(n, a_cols, b_cols, 1.0, seed + 1);
}

// One column band per row: A's block row I holds tiles at I..I+5, B's block row K at K..K+L-1
// with L = 20, 100 or 300 by (K / 7) % 3 (clipped to the grid), so C's rows are contiguous
// bands of ~25, ~105 or ~305 tiles (bins 0, 1, 2) cut into budget-limited windows.
std::pair<CsrMatrix, CsrMatrix> banded_rows(int32_t n, double fill, uint32_t seed)
{
   const int32_t                     bn = (n + 3) / 4;
   std::vector<std::vector<int32_t>> a_cols(bn), b_cols(bn);
   const int32_t                     band[] = {20, 100, 300};
   for (int32_t i = 0; i < bn; ++i)
   {
      for (int32_t j = i; j < std::min(bn, i + 6); ++j) a_cols[i].push_back(j);
      for (int32_t j = i; j < std::min(bn, i + band[(i / 7) % 3]); ++j) b_cols[i].push_back(j);
   }
   return tile_pattern_pair(n, a_cols, b_cols, fill, seed);
}

struct BudgetCase
{
   ForcedCase fc;
   int        first_bin; // numeric bins from this one on have rows over their entry budget
};

std::vector<BudgetCase> entry_budget_cases(uint32_t seed)
{
   std::vector<BudgetCase> c;
   auto [fa, fb] = full_tile_rows(seed);
   c.push_back({{"full tiles, every bin", std::move(fa), std::move(fb)}, 0});
   auto [ba, bb] = banded_rows(2800, 1.0, seed + 2);
   c.push_back({{"full tiles, column bands", std::move(ba), std::move(bb)}, 0});
   // A tiles of ~2.4 entries: C's tiles hold ~2-8, so windows end wherever the budget falls;
   // bin-0 rows (~25 tiles) then fit in one window. n % 4 != 0: a partial last block row.
   auto [pa, pb] = banded_rows(2797, 0.15, seed + 3);
   c.push_back({{"partly filled tiles, column bands", std::move(pa), std::move(pb)}, 1});
   return c;
}

// Rows of C per numeric bin whose stored entries exceed that bin's budget (several windows
// cut by the entry budget).
template <class V>
std::vector<int64_t> rows_over_budget(const Mbsr<V>& c)
{
   std::vector<int64_t> over(dev::kNumericBins, 0);
   for (int32_t i = 0; i < c.block_rows(); ++i)
   {
      const int32_t tiles = c.blk_ptr[i + 1] - c.blk_ptr[i];
      int64_t       nnz   = 0;
      for (int32_t t = c.blk_ptr[i]; t < c.blk_ptr[i + 1]; ++t)
         nnz += amgt::tile_popcount(c.blk_map[t]);
      int bin = 0;
      while (bin < dev::kNumericBins - 1 && tiles > kNumericBinTiles[bin]) ++bin;
      over[bin] += nnz > kPairsEntryBudget[bin];
   }
   return over;
}

TYPED_TEST(SpgemmDevice, PairsKernelEntryBudgetSmallIntegersExact)
{
   Totals totals;
   for (const BudgetCase& bc : entry_budget_cases(9300))
   {
      const ForcedCase& fc = bc.fc;
      const auto st = check_product<TypeParam>(fc.a, fc.b, Fill::small_int, fc.name, totals,
                                               this->stream_, dev::SpgemmPath::cuda_core_pairs);
      EXPECT_TRUE(st.pairs_kernel);
      const auto ref  = amgt::spgemm_ref(amgt::csr_to_mbsr<TypeParam>(fc.a.view()),
                                         amgt::csr_to_mbsr<TypeParam>(fc.b.view()));
      const auto over = rows_over_budget(ref);
      for (int bin = bc.first_bin; bin < dev::kNumericBins; ++bin)
         EXPECT_GT(over[static_cast<size_t>(bin)], 0) << fc.name << ": bin " << bin;
   }
   EXPECT_EQ(totals.ordered, 0);
   EXPECT_GT(totals.nonzeros, 1000000);
}

TYPED_TEST(SpgemmDevice, PairsKernelEntryBudgetRandomWithinTolerance)
{
   Totals   totals;
   uint32_t seed = 9400;
   for (const BudgetCase& bc : entry_budget_cases(seed))
   {
      const ForcedCase& fc = bc.fc;
      seed += 2;
      check_product<TypeParam>(with_random_values(fc.a, seed),
                               with_random_values(fc.b, seed + 1), Fill::random, fc.name, totals,
                               this->stream_, dev::SpgemmPath::cuda_core_pairs);
   }
   EXPECT_EQ(totals.ordered, 0);
   EXPECT_GT(totals.toleranced, 1000000);
   EXPECT_LE(totals.worst, 1.0);
   if (roundoff<TypeParam>().store > roundoff<double>().store)
   {
      EXPECT_GT(totals.max_err, 0.0);
   }
}

// fp16 through the tensor cores against the CPU reference with the same (half) inputs: the
// only difference allowed is the fp32 summation inside the mma (spgemm_tensor_fp16_vs_ref_
// tolerance), and few entries may differ at all: a layout error would make most of them differ.
using SpgemmDeviceFp16 = SpgemmDevice<half_t>;

TEST_F(SpgemmDeviceFp16, TensorCoreCloseToReferenceOnSameInputs)
{
   const CsrMatrix a = random_csr(301, 299, 0.9, Fill::random, 9100);
   const CsrMatrix b = random_csr(299, 302, 0.9, Fill::random, 9101);
   const auto      A   = amgt::csr_to_mbsr<half_t>(a.view());
   const auto      B   = amgt::csr_to_mbsr<half_t>(b.view());
   const auto      ref = amgt::spgemm_ref(A, B);
   const auto      gpu = gpu_product(A, B, stream_, dev::SpgemmPath::tensor_core);
   ASSERT_EQ(gpu.c.blk_ptr, ref.blk_ptr);
   ASSERT_EQ(gpu.c.blk_col, ref.blk_col);
   ASSERT_EQ(gpu.c.blk_map, ref.blk_map);
   EXPECT_GT(gpu.stats.tc_tile_products, 0);
   EXPECT_EQ(gpu.stats.cc_tile_products, 0);
   // S = |A~||B~| from the half values, tile by tile like C (same pattern: all terms positive).
   const CsrMatrix ah = abs_values(rounded_to<half_t>(a));
   const CsrMatrix bh = abs_values(rounded_to<half_t>(b));
   const CsrMatrix ab = amgt::csr_spgemm_ref(ah.view(), bh.view());
   const auto      S  = amgt::csr_to_mbsr<double>(ab.view());
   ASSERT_EQ(S.blk_ptr, ref.blk_ptr);
   ASSERT_EQ(S.blk_col, ref.blk_col);
   ASSERT_EQ(S.blk_map, ref.blk_map);
   const int a_tiles = max_tiles_per_block_row(A), k = max_row_nnz(a);
   int64_t   differ = 0, total = 0;
   for (size_t p = 0; p < ref.blk_val.size(); ++p)
   {
      if (!((ref.blk_map[p / 16] >> (p % 16)) & 1u)) continue;
      const double g = amgt::half_to_double(gpu.c.blk_val[p]);
      const double w = amgt::half_to_double(ref.blk_val[p]);
      ++total;
      if (g == w) continue;
      ++differ;
      const double tol = spgemm_tensor_fp16_vs_ref_tolerance(a_tiles, k, S.blk_val[p], g, w);
      ASSERT_LE(std::fabs(g - w), tol) << "entry " << p;
   }
   EXPECT_GT(total, 50000);
   EXPECT_LT(differ, total / 10) << differ << " of " << total << " entries differ";
}

} // namespace
