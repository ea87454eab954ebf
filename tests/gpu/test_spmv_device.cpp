// GPU SpMV (every path, every storage precision) against the CPU references: spmv_ref on the
// CPU-converted mBSR (bit for bit on small-integer inputs) and csr_spmv_ref in fp64 (within
// the bound of tests/common/tolerances.h on random inputs). The GPU matrix comes from the GPU
// conversion (device::csr_to_mbsr), the oracle's from the CPU one.
//
// Every device vector is allocated with exactly the length the call may touch (x: ncols,
// y: nrows plus a tail of sentinels that must survive), so compute-sanitizer reports any
// access past n; without it, the sentinels still show writes past nrows.
#include "common/csr_utils.h"
#include "common/error.h"
#include "common/random_matrix.h"
#include "common/spmv_inputs.h"
#include "common/tolerances.h"
#include "mbsr/mbsr.h"
#include "mbsr/mbsr_device.h"
#include "spmv/spmv.h"
#include "spmv/spmv_device.h"

#include "gpu_test_util.h"

#include <cuda_runtime.h>
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

namespace {

using namespace amgt;
using namespace amgt::test;
using namespace amgt::test::gpu;
namespace dev = amgt::device;

const double  kNaN      = std::numeric_limits<double>::quiet_NaN();
const double  kSentinel = -12345.0;
constexpr int kTail     = 5; // sentinels after y

const std::vector<dev::SpmvPath> kPaths{dev::SpmvPath::automatic, dev::SpmvPath::cuda_core,
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
   EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
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
   EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
   EXPECT_EQ(cudaGetLastError(), cudaSuccess);
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
CsrMatrix tiles_per_block_row(const std::vector<int>& lens, Fill fill, uint32_t seed)
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
CsrMatrix block_tridiagonal(int32_t n, Fill fill, uint32_t seed)
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
CsrMatrix wide_row(Fill fill, uint32_t seed)
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

CsrMatrix irregular(Fill fill, uint32_t seed)
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
CsrMatrix far_apart(Fill fill, uint32_t seed)
{
   std::mt19937       rng(seed);
   std::vector<Entry> e;
   for (int32_t j = 0; j < 700; j += 3) e.push_back({0, j, draw_value(rng, fill)});
   for (int32_t j = 1; j < 700; j += 2) e.push_back({9998, j, draw_value(rng, fill)});
   return from_entries(9999, 701, e);
}

// (|A| 1)_i max_j |x_j| for the underflow term of the fp16 tensor-core bound; absx = |x|.
std::vector<double> abs_a_times_max(const CsrMatrix& a, const std::vector<double>& absx)
{
   const double        xmax = absx.empty() ? 0.0 : *std::max_element(absx.begin(), absx.end());
   std::vector<double> ones(static_cast<size_t>(a.ncols), 1.0), r(static_cast<size_t>(a.nrows), 0.0);
   csr_spmv_ref(abs_values(a).view(), 1.0, ones.data(), 0.0, r.data());
   for (double& v : r) v *= xmax;
   return r;
}

// Square, with long block rows (the balanced path's chunks): rows 0..3 hold 1500 entries,
// row 1001 2000, the others 3; 2003 rows (a partial last tile).
CsrMatrix long_rows_square(Fill fill, uint32_t seed)
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

std::vector<NamedMatrix> exact_cases()
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
using StorageTypes = ::testing::Types<double, float, half_t>;
TYPED_TEST_SUITE(SpmvDevice, StorageTypes);

// Small-integer inputs: every product and partial sum is an exact integer in every precision
// and every summation order, so the GPU must equal spmv_ref bit for bit. beta == 0 runs with
// NaN in y (it must not survive), alpha == 0 with NaN in x (it must not be read).
TYPED_TEST(SpmvDevice, ExactOnSmallIntegerInputs)
{
   using V           = TypeParam;
   auto alloc        = dev::runtime_allocator();
   int  nonzero_runs = 0;
   for (const NamedMatrix& c : exact_cases())
   {
      const CsrMatrix& a = c.a;
      // |sum| <= 9 k must stay below 2^24 (float accumulators): exact in every order.
      ASSERT_LT(9.0 * max_row_nnz(a), 16777216.0) << c.name;
      const Mbsr<V>            hm = csr_to_mbsr<V>(a.view());
      const dev::DeviceMbsr<V> dm = upload<V>(a);
      const std::vector<double> x  = random_vector(a.ncols, Fill::small_int, 41);
      const std::vector<double> xn(x.size(), kNaN);
      for (dev::SpmvPath path : kPaths)
      {
         const dev::SpmvPlan<V> plan = dev::make_spmv_plan(dm, nullptr, alloc, path);
         ASSERT_NE(plan.path, dev::SpmvPath::automatic);
         for (const AlphaBeta& ab : kExactCombos)
         {
            SCOPED_TRACE(c.name + " path=" + dev::to_string(path) + "->" + dev::to_string(plan.path) +
                         " alpha=" + std::to_string(ab.alpha) + " beta=" + std::to_string(ab.beta));
            const std::vector<double>& xs = ab.alpha == 0.0 ? xn : x;
            const std::vector<double>  y0 = ab.beta == 0.0
                                                ? std::vector<double>(static_cast<size_t>(a.nrows), kNaN)
                                                : random_vector(a.nrows, Fill::small_int, 42);
            std::vector<double> ref = y0;
            spmv_ref(hm, ab.alpha, xs.data(), ab.beta, ref.data());
            const std::vector<double> y = gpu_spmv(dm, plan, ab.alpha, xs, ab.beta, y0);
            ASSERT_EQ(y.size(), ref.size());
            bool ref_nonzero = false, gpu_nonzero = false;
            for (size_t i = 0; i < y.size(); ++i)
            {
               ASSERT_TRUE(std::isfinite(y[i])) << "row " << i;
               ASSERT_EQ(bits_of(y[i]), bits_of(ref[i])) << "row " << i << ": " << y[i] << " vs " << ref[i];
               ref_nonzero = ref_nonzero || ref[i] != 0.0;
               gpu_nonzero = gpu_nonzero || y[i] != 0.0;
            }
            EXPECT_EQ(gpu_nonzero, ref_nonzero) << "all-zero output where the reference is not";
            nonzero_runs += gpu_nonzero;
         }
      }
   }
   EXPECT_GT(nonzero_runs, 500);
}

// Each value layout alone: the plan packs dense values itself, or reads the conversion's packed
// layout; bit for bit the reference on small integers on every CUDA-core path. tensor_core
// needs the dense layout and says so.
TYPED_TEST(SpmvDevice, EveryLayoutExactOnSmallIntegerInputs)
{
   using V    = TypeParam;
   auto alloc = dev::runtime_allocator();
   int  runs  = 0;
   for (const NamedMatrix& c : exact_cases())
   {
      const CsrMatrix& a  = c.a;
      const Mbsr<V>    hm = csr_to_mbsr<V>(a.view());
      const std::vector<double> x  = random_vector(a.ncols, Fill::small_int, 43);
      const std::vector<double> y0 = random_vector(a.nrows, Fill::small_int, 44);
      std::vector<double>       ref = y0;
      spmv_ref(hm, 1.5, x.data(), -2.0, ref.data());
      for (Layout layout : {Layout::dense, Layout::packed})
      {
         const dev::DeviceMbsr<V> dm = upload<V>(a, layout);
         if (layout == Layout::dense) EXPECT_FALSE(dm.has_packed());
         if (layout == Layout::packed && dm.num_tiles > 0) EXPECT_NE(dm.has_packed(), dm.has_dense());
         for (dev::SpmvPath path : kPaths)
         {
            SCOPED_TRACE(c.name + (layout == Layout::dense ? " dense" : " packed") + " path=" + dev::to_string(path));
            // fp32 has no tensor-core path: its tensor_core plan is cuda_core, which needs no
            // dense values
            if (path == dev::SpmvPath::tensor_core && !dm.has_dense() && !std::is_same_v<V, float>)
            {
               EXPECT_THROW(dev::make_spmv_plan(dm, nullptr, alloc, path), amgt::Error);
               continue;
            }
            const dev::SpmvPlan<V>    plan = dev::make_spmv_plan(dm, nullptr, alloc, path);
            // the plan packs only what the matrix lacks
            EXPECT_EQ(plan.packed_val.size() > 0, !dm.has_packed() && plan.path != dev::SpmvPath::tensor_core &&
                                                      plan.stats.nnz > 0);
            const std::vector<double> y    = gpu_spmv(dm, plan, 1.5, x, -2.0, y0);
            ASSERT_EQ(y.size(), ref.size());
            for (size_t i = 0; i < y.size(); ++i)
               ASSERT_EQ(bits_of(y[i]), bits_of(ref[i])) << "row " << i << ": " << y[i] << " vs " << ref[i];
            ++runs;
         }
      }
   }
   EXPECT_GT(runs, 20);
}

// Random inputs: within the bound of tests/common/tolerances.h against the fp64 CSR oracle,
// and within the summation-order bound against spmv_ref (same rounded values and x; each
// result is within gamma_k(u_a)(1+u_s)^2 S of the exact sum of rounded products, so the two
// differ by at most twice that, plus the final combination's 12 u_d |alpha| S + 6 u_d |beta
// y0| as derived in tolerances.h).
TYPED_TEST(SpmvDevice, WithinToleranceOnRandomInputs)
{
   using V          = TypeParam;
   const Roundoff r = roundoff<V>();
   auto     alloc   = dev::runtime_allocator();
   double   worst = 0.0, worst_order = 0.0, max_err = 0.0;
   int64_t  rows_checked = 0;
   uint32_t seed         = 900;
   std::vector<NamedMatrix> cases{
      {"random_1000", random_csr(1000, 1000, 0.005, Fill::random, 201)},
      {"rect_4001x2999", random_csr(4001, 2999, 0.002, Fill::random, 202)},
      {"rect_2999x4001", random_csr(2999, 4001, 0.003, Fill::random, 203)},
      {"denser_130", random_csr(130, 130, 0.3, Fill::random, 204)},
      {"block_tridiagonal_2002", block_tridiagonal(2002, Fill::random, 205)},
      {"irregular", irregular(Fill::random, 206)},
      {"budget_edges", tiles_per_block_row({64, 64, 32, 32, 65, 63, 1, 0, 0, 128, 129, 1, 200, 0, 5, 64},
                                           Fill::random, 207)}};
   for (const NamedMatrix& c : cases)
   {
      const CsrMatrix& a = c.a;
      ASSERT_GT(nnz_of(a), 0);
      const Mbsr<V>             hm = csr_to_mbsr<V>(a.view());
      const dev::DeviceMbsr<V>  dm = upload<V>(a);
      const int                 k  = max_row_nnz(a);
      const int                 tiles = mbsr_stats(hm).max_tiles_per_block_row;
      const std::vector<double> x  = random_vector(a.ncols, Fill::random, ++seed);
      std::vector<double>       absx(x.size()), ax(static_cast<size_t>(a.nrows));
      for (size_t j = 0; j < x.size(); ++j) absx[j] = std::fabs(x[j]);
      csr_spmv_ref(abs_values(a).view(), 1.0, absx.data(), 0.0, ax.data());
      const std::vector<double> axmax = abs_a_times_max(a, absx);
      for (dev::SpmvPath path : kPaths)
      {
         const dev::SpmvPlan<V> plan = dev::make_spmv_plan(dm, nullptr, alloc, path);
         for (const AlphaBeta& ab : {AlphaBeta{1.0, 0.0}, AlphaBeta{1.5, -0.7}, AlphaBeta{-1.0, 1.0}})
         {
            SCOPED_TRACE(c.name + " path=" + dev::to_string(plan.path) + " alpha=" +
                         std::to_string(ab.alpha) + " beta=" + std::to_string(ab.beta));
            const std::vector<double> y0 = ab.beta == 0.0
                                               ? std::vector<double>(static_cast<size_t>(a.nrows), kNaN)
                                               : random_vector(a.nrows, Fill::random, ++seed);
            std::vector<double> oracle = y0, ref = y0;
            csr_spmv_ref(a.view(), ab.alpha, x.data(), ab.beta, oracle.data());
            spmv_ref(hm, ab.alpha, x.data(), ab.beta, ref.data());
            const std::vector<double> y = gpu_spmv(dm, plan, ab.alpha, x, ab.beta, y0);
            bool any_nonzero = false;
            for (int32_t i = 0; i < a.nrows; ++i)
            {
               const double y0i = ab.beta == 0.0 ? 0.0 : y0[static_cast<size_t>(i)];
               const bool   tc16 = std::is_same_v<V, half_t> && plan.path == dev::SpmvPath::tensor_core;
               const double tol_ref = spmv_tolerance(r, k, ab.alpha, ax[i], ab.beta, y0i);
               // fp16 tensor_core rounds x to half (spmv_tensor_kernels.cuh): its own bound
               // against the oracle, and against spmv_ref the sum of both bounds.
               const double tol = tc16 ? spmv_tensor_fp16_tolerance(tiles, ab.alpha, ax[i], axmax[i], ab.beta, y0i)
                                       : tol_ref;
               const double order_tol =
                  tc16 ? tol + tol_ref
                       : kSlack * (2 * gamma_k(k, r.acc) * (1 + r.store) * (1 + r.store) * std::fabs(ab.alpha) * ax[i] +
                                   12 * kUnitDouble * std::fabs(ab.alpha) * ax[i] + 6 * kUnitDouble * std::fabs(ab.beta * y0i));
               const double err       = std::fabs(y[i] - oracle[i]);
               const double err_order = std::fabs(y[i] - ref[i]);
               ASSERT_LE(err, tol) << "row " << i << ": " << y[i] << " vs oracle " << oracle[i];
               ASSERT_LE(err_order, order_tol) << "row " << i << ": " << y[i] << " vs spmv_ref " << ref[i];
               if (tol > 0) worst = std::max(worst, err / tol);
               if (order_tol > 0) worst_order = std::max(worst_order, err_order / order_tol);
               max_err     = std::max(max_err, err);
               any_nonzero = any_nonzero || y[i] != 0.0;
               ++rows_checked;
            }
            EXPECT_TRUE(any_nonzero) << "A*x came out all zero";
         }
      }
   }
   EXPECT_GT(rows_checked, 100000);
   EXPECT_LE(worst, 1.0);
   EXPECT_LE(worst_order, 1.0);
   // Reduced precision must show against the fp64 oracle (values and x really rounded).
   if (r.store > roundoff<double>().store) { EXPECT_GT(max_err, 0.0); }
}

// The plan measures the matrix like mbsr_stats and chooses as documented.
TYPED_TEST(SpmvDevice, PlanStatisticsAndChoice)
{
   using V    = TypeParam;
   auto alloc = dev::runtime_allocator();
   struct Case
   {
      std::string   name;
      CsrMatrix     a;
      dev::SpmvPath expected; // automatic choice for fp64
   };
   const std::vector<Case> cases{
      {"laplacian", laplacian_2d(61, 67), dev::SpmvPath::automatic},
      {"block_tridiagonal", block_tridiagonal(2002, Fill::small_int, 1),
       dev::kSpmvAutoTensorCore ? dev::SpmvPath::tensor_core : dev::SpmvPath::cuda_core}, // full tiles
      {"irregular", irregular(Fill::small_int, 2), dev::SpmvPath::cuda_core_balanced},
      {"wide_row", wide_row(Fill::small_int, 3), dev::SpmvPath::cuda_core_balanced},
      {"no_entries", from_entries(9, 5, {}), dev::SpmvPath::cuda_core}};
   // automatic in the table: the rule applied to the CPU reference's statistics
   for (const Case& c : cases)
   {
      SCOPED_TRACE(c.name);
      const Mbsr<V>            hm = csr_to_mbsr<V>(c.a.view());
      const MbsrStats          hs = mbsr_stats(hm);
      const dev::DeviceMbsr<V> dm = upload<V>(c.a);
      const dev::SpmvPlan<V>   p  = dev::make_spmv_plan(dm, nullptr, alloc);
      EXPECT_EQ(p.stats.tiles, hs.tiles);
      EXPECT_EQ(p.stats.nnz, hs.nnz);
      EXPECT_EQ(p.stats.dense_tiles, hs.dense_tiles);
      EXPECT_EQ(p.stats.max_tiles_per_block_row, hs.max_tiles_per_block_row);
      EXPECT_EQ(p.fill, hs.fill);
      EXPECT_EQ(dev::choose_spmv_path(StorageTraits<V>::precision, p.stats), p.path);
      dev::SpmvPath expected = c.expected;
      if (expected == dev::SpmvPath::automatic)
      {
         expected = hs.fill >= dev::kSpmvTileMinFill &&
                            static_cast<double>(hs.tiles) / hm.block_rows() <= dev::kSpmvTileMaxMeanTiles
                        ? (hs.fill >= kDenseTileNnz ? dev::SpmvPath::cuda_core : dev::SpmvPath::cuda_core_tiles)
                        : dev::SpmvPath::cuda_core_entries;
      }
      if (expected == dev::SpmvPath::tensor_core && std::is_same_v<V, float>)
      {
         expected = dev::SpmvPath::cuda_core; // no fp32 tensor-core path
      }
      EXPECT_EQ(p.path, expected) << dev::to_string(p.path);
      for (dev::SpmvPath forced : {dev::SpmvPath::cuda_core, dev::SpmvPath::cuda_core_balanced,
                                   dev::SpmvPath::tensor_core, dev::SpmvPath::cuda_core_tiles,
                                   dev::SpmvPath::cuda_core_entries})
      {
         const dev::SpmvPlan<V> f = dev::make_spmv_plan(dm, nullptr, alloc, forced);
         const bool falls_back = forced == dev::SpmvPath::tensor_core && std::is_same_v<V, float>;
         // cuda_core_entries on block rows longer than its 12-bit tile index: the automatic path
         const bool too_long = forced == dev::SpmvPath::cuda_core_entries &&
                               hs.max_tiles_per_block_row > dev::kSpmvEntryMaxTiles;
         EXPECT_EQ(f.path, falls_back ? dev::SpmvPath::cuda_core : too_long ? p.path : forced);
         if (c.name == "wide_row" && forced == dev::SpmvPath::cuda_core_entries) EXPECT_TRUE(too_long);
      }
   }
   // The documented rule on hand-made statistics.
   dev::SpmvStats st;
   st.tiles = 1000, st.nnz = 2500, st.dense_tiles = 0, st.mean_tiles_per_block_row = 10.0;
   st.max_tiles_per_block_row = 64; // not longer than one budget; fill 2.5
   EXPECT_EQ(dev::choose_spmv_path(Precision::fp64, st), dev::SpmvPath::cuda_core_entries);
   st.max_tiles_per_block_row = 65;
   EXPECT_EQ(dev::choose_spmv_path(Precision::fp16, st), dev::SpmvPath::cuda_core_balanced);
   st.mean_tiles_per_block_row = 20.0; // 65 < 4 * mean: not irregular enough
   EXPECT_EQ(dev::choose_spmv_path(Precision::fp32, st), dev::SpmvPath::cuda_core_entries);
   st.nnz = 4000, st.mean_tiles_per_block_row = 8.0, st.max_tiles_per_block_row = 9; // fill 4
   EXPECT_EQ(dev::choose_spmv_path(Precision::fp64, st), dev::SpmvPath::cuda_core_tiles);
   st.nnz = 10000; // fill 10: dense tiles in short rows, a lane per tile row
   EXPECT_EQ(dev::choose_spmv_path(Precision::fp16, st), dev::SpmvPath::cuda_core);
   st.nnz = 9990; // fill 9.99
   EXPECT_EQ(dev::choose_spmv_path(Precision::fp64, st), dev::SpmvPath::cuda_core_tiles);
   st.nnz = 4000;
   st.mean_tiles_per_block_row = 8.5; // longer rows: one entry per lane
   EXPECT_EQ(dev::choose_spmv_path(Precision::fp64, st), dev::SpmvPath::cuda_core_entries);
   st.nnz = 3400, st.mean_tiles_per_block_row = 4.0; // fill 3.4 < kSpmvTileMinFill
   EXPECT_EQ(dev::choose_spmv_path(Precision::fp32, st), dev::SpmvPath::cuda_core_entries);
   // beyond the 12-bit tile index of cuda_core_entries, without being irregular
   st.mean_tiles_per_block_row = 2000.0, st.max_tiles_per_block_row = dev::kSpmvEntryMaxTiles + 1;
   EXPECT_EQ(dev::choose_spmv_path(Precision::fp64, st), dev::SpmvPath::cuda_core);
   st.nnz = 16000, st.dense_tiles = 1000, st.mean_tiles_per_block_row = 10.0, st.max_tiles_per_block_row = 20;
   EXPECT_EQ(dev::choose_spmv_path(Precision::fp64, st),
             dev::kSpmvAutoTensorCore ? dev::SpmvPath::tensor_core : dev::SpmvPath::cuda_core_entries);
   EXPECT_EQ(dev::choose_spmv_path(Precision::fp32, st), dev::SpmvPath::cuda_core_entries);
   st = dev::SpmvStats{};
   EXPECT_EQ(dev::choose_spmv_path(Precision::fp64, st), dev::SpmvPath::cuda_core); // no tiles
   EXPECT_EQ(dev::spmv_group_lanes(3.0), 4);
   EXPECT_EQ(dev::spmv_group_lanes(26.0), 8);
   EXPECT_EQ(dev::spmv_group_lanes(1000.0), 32);
   EXPECT_EQ(dev::spmv_tile_lanes(4.0), 4);
   EXPECT_EQ(dev::spmv_tile_lanes(26.0), 16);
   EXPECT_EQ(dev::spmv_tile_lanes(1000.0), 32);
   EXPECT_STREQ(dev::to_string(dev::SpmvPath::cuda_core_tiles), "cuda_core_tiles");
   EXPECT_STREQ(dev::to_string(dev::SpmvPath::cuda_core_entries), "cuda_core_entries");
   EXPECT_EQ(dev::spmv_entry_lanes(12.0, 1000000), 4);     // short rows, many of them
   EXPECT_EQ(dev::spmv_entry_lanes(106.0, 250000), 8);     // 27-point fine level
   EXPECT_EQ(dev::spmv_entry_lanes(310.0, 61500), 32);     // long coarse rows
   EXPECT_EQ(dev::spmv_entry_lanes(14.0, 4700), 32);       // few rows: fill the device
   EXPECT_EQ(dev::spmv_entry_lanes(50.0, 100000), 8);      // 4 lanes would be 400k threads
   EXPECT_STREQ(dev::to_string(dev::SpmvPath::cuda_core_balanced), "cuda_core_balanced");
   EXPECT_STREQ(dev::to_string(dev::SpmvPath::tensor_core), "tensor_core");
}

// The CUDA-core paths read x only where a bit is set: NaN in every x entry that no stored
// entry multiplies changes nothing. (tensor_core multiplies the zeros of a dense tile too,
// so a NaN in a column of one of its tiles spreads to that tile's rows: documented in
// spmv_tensor_kernels.cuh, and not asserted here.)
TYPED_TEST(SpmvDevice, CudaCorePathsReadOnlyStoredColumns)
{
   using V           = TypeParam;
   auto            alloc = dev::runtime_allocator();
   const CsrMatrix a     = random_csr(997, 1001, 0.004, Fill::small_int, 301);
   std::vector<bool> used(static_cast<size_t>(a.ncols), false);
   for (int32_t j : a.col) used[static_cast<size_t>(j)] = true;
   std::vector<double> x = random_vector(a.ncols, Fill::small_int, 302);
   int                 poisoned = 0;
   for (size_t j = 0; j < x.size(); ++j)
      if (!used[j]) x[j] = kNaN, ++poisoned;
   ASSERT_GT(poisoned, 10);
   const Mbsr<V>            hm = csr_to_mbsr<V>(a.view());
   const dev::DeviceMbsr<V> dm = upload<V>(a);
   std::vector<double>      ref(static_cast<size_t>(a.nrows), 0.0);
   spmv_ref(hm, 1.0, x.data(), 0.0, ref.data());
   for (dev::SpmvPath path : {dev::SpmvPath::cuda_core, dev::SpmvPath::cuda_core_balanced})
   {
      SCOPED_TRACE(dev::to_string(path));
      const dev::SpmvPlan<V>    plan = dev::make_spmv_plan(dm, nullptr, alloc, path);
      const std::vector<double> y    = gpu_spmv(dm, plan, 1.0, x, 0.0, std::vector<double>(ref.size(), kNaN));
      for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(bits_of(y[i]), bits_of(ref[i])) << "row " << i;
   }
}

// The solve loop calls spmv many times with one plan: results are reproducible bit for bit
// (no atomics; the balanced path's split rows are summed in warp order).
TYPED_TEST(SpmvDevice, RepeatedCallsAreDeterministic)
{
   using V                     = TypeParam;
   auto                     alloc = dev::runtime_allocator();
   const CsrMatrix          a     = irregular(Fill::random, 401);
   const dev::DeviceMbsr<V> dm    = upload<V>(a);
   const std::vector<double> x    = random_vector(a.ncols, Fill::random, 402);
   const std::vector<double> y0   = random_vector(a.nrows, Fill::random, 403);
   for (dev::SpmvPath path : kPaths)
   {
      SCOPED_TRACE(dev::to_string(path));
      const dev::SpmvPlan<V>    plan  = dev::make_spmv_plan(dm, nullptr, alloc, path);
      const std::vector<double> first = gpu_spmv(dm, plan, 1.5, x, -0.5, y0);
      for (int rep = 0; rep < 3; ++rep)
      {
         const std::vector<double> again = gpu_spmv(dm, plan, 1.5, x, -0.5, y0);
         for (size_t i = 0; i < first.size(); ++i) ASSERT_EQ(bits_of(again[i]), bits_of(first[i])) << "row " << i;
      }
   }
}

// spmv allocates nothing, copies nothing and never synchronises: it can be captured into a
// CUDA graph in global capture mode (where cudaMalloc, cudaMemcpy and stream synchronisation
// are errors) and the replayed graph gives the reference result.
TYPED_TEST(SpmvDevice, CapturableIntoCudaGraph)
{
   using V                      = TypeParam;
   auto                      alloc = dev::runtime_allocator();
   const CsrMatrix           a     = irregular(Fill::small_int, 501);
   const Mbsr<V>             hm    = csr_to_mbsr<V>(a.view());
   const dev::DeviceMbsr<V>  dm    = upload<V>(a);
   const std::vector<double> x     = random_vector(a.ncols, Fill::small_int, 502);
   const std::vector<double> y0    = random_vector(a.nrows, Fill::small_int, 503);
   std::vector<double>       ref   = y0;
   spmv_ref(hm, 2.0, x.data(), -1.0, ref.data());
   cudaStream_t s = nullptr;
   ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
   for (dev::SpmvPath path : kPaths)
   {
      SCOPED_TRACE(dev::to_string(path));
      const dev::SpmvPlan<V> plan = dev::make_spmv_plan(dm, s, alloc, path);
      DeviceArray<double>       dx(x), dy(y0);
      cudaGraph_t            graph = nullptr;
      ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
      bool threw = false;
      try
      {
         dev::spmv(dm, plan, 2.0, dx.get(), -1.0, dy.get(), s);
      }
      catch (const std::exception& e)
      {
         threw = true;
         ADD_FAILURE() << "spmv under graph capture: " << e.what();
      }
      ASSERT_EQ(cudaStreamEndCapture(s, &graph), cudaSuccess);
      ASSERT_FALSE(threw);
      cudaGraphExec_t exec = nullptr;
      ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
      ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
      const std::vector<double> y = dy.to_host();
      for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(bits_of(y[i]), bits_of(ref[i])) << "row " << i;
      cudaGraphExecDestroy(exec);
      cudaGraphDestroy(graph);
   }
   cudaStreamDestroy(s);
   EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TYPED_TEST(SpmvDevice, EmptyShapesAndNullVectors)
{
   using V    = TypeParam;
   auto alloc = dev::runtime_allocator();
   // No rows: nothing to do, null vectors accepted.
   const dev::DeviceMbsr<V> none = upload<V>(from_entries(0, 0, {}));
   const dev::DeviceMbsr<V> wide = upload<V>(from_entries(0, 9, {}));
   for (dev::SpmvPath path : kPaths)
   {
      SCOPED_TRACE(dev::to_string(path));
      const dev::SpmvPlan<V> p0 = dev::make_spmv_plan(none, nullptr, alloc, path);
      EXPECT_NO_THROW(dev::spmv(none, p0, 1.0, nullptr, 0.0, nullptr, nullptr));
      const dev::SpmvPlan<V> p1 = dev::make_spmv_plan(wide, nullptr, alloc, path);
      EXPECT_NO_THROW(dev::spmv(wide, p1, 1.0, nullptr, 1.0, nullptr, nullptr));
   }
   // alpha == 0 does not need x at all.
   const CsrMatrix          a  = random_csr(10, 10, 0.5, Fill::small_int, 8);
   const dev::DeviceMbsr<V> dm = upload<V>(a);
   const std::vector<double> y0 = random_vector(10, Fill::small_int, 9);
   for (dev::SpmvPath path : kPaths)
   {
      const dev::SpmvPlan<V> plan = dev::make_spmv_plan(dm, nullptr, alloc, path);
      DeviceArray<double>       dy(y0);
      dev::spmv(dm, plan, 0.0, nullptr, 2.0, dy.get(), nullptr);
      const std::vector<double> y = dy.to_host();
      for (int i = 0; i < 10; ++i) EXPECT_EQ(y[i], 2.0 * y0[i]);
   }
   EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TYPED_TEST(SpmvDevice, PlanOfAnotherMatrixIsRejected)
{
   using V                     = TypeParam;
   auto                     alloc = dev::runtime_allocator();
   const dev::DeviceMbsr<V> a     = upload<V>(random_csr(40, 40, 0.1, Fill::small_int, 1));
   const dev::DeviceMbsr<V> b     = upload<V>(random_csr(44, 40, 0.1, Fill::small_int, 2));
   const dev::SpmvPlan<V>   pa    = dev::make_spmv_plan(a, nullptr, alloc);
   DeviceArray<double>         dx(std::vector<double>(40, 1.0)), dy(std::vector<double>(44, 0.0));
   EXPECT_THROW(dev::spmv(b, pa, 1.0, dx.get(), 0.0, dy.get(), nullptr), amgt::Error);
   EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

// ---- unscaling: y = alpha diag(u) A diag(u) x + beta y ------------------------------------

std::vector<NamedMatrix> square_cases(Fill fill)
{
   std::vector<NamedMatrix> c;
   if (fill == Fill::small_int)
      for (const NamedMatrix& m : edge_matrices())
         if (m.a.nrows == m.a.ncols) c.push_back(m);
   c.push_back({"random_1000", random_csr(1000, 1000, 0.005, fill, 601)});
   c.push_back({"random_1001", random_csr(1001, 1001, 0.006, fill, 602)}); // n % 4 = 1
   c.push_back({"laplacian_61x67", fill == Fill::small_int ? laplacian_2d(61, 67)
                                                             : random_csr(4087, 4087, 0.001, fill, 603)});
   c.push_back({"dense_66x66", random_csr(66, 66, 1.0, fill, 604)});
   c.push_back({"block_tridiagonal_2002", block_tridiagonal(2002, fill, 605)}); // n % 4 = 2
   c.push_back({"long_rows_2003", long_rows_square(fill, 606)});                 // n % 4 = 3
   return c;
}

// Powers of two 2^-2..2^2: with small-integer A and x every partial sum stays exact (also the
// fp16 tensor path's scaled x: x_j u_j 2^e is an integer below 2^11).
std::vector<double> pow2_vector(int32_t n, uint32_t seed)
{
   std::vector<double> u(static_cast<size_t>(n));
   for (int32_t i = 0; i < n; ++i)
      u[static_cast<size_t>(i)] = std::ldexp(1.0, static_cast<int>((seed + 7u * static_cast<uint32_t>(i)) % 5) - 2);
   return u;
}

TYPED_TEST(SpmvDevice, UnscaleExactOnSmallIntegerInputs)
{
   using V           = TypeParam;
   auto alloc        = dev::runtime_allocator();
   int  nonzero_runs = 0;
   for (const NamedMatrix& c : square_cases(Fill::small_int))
   {
      const CsrMatrix&          a  = c.a;
      const Mbsr<V>             hm = csr_to_mbsr<V>(a.view());
      const dev::DeviceMbsr<V>  dm = upload<V>(a);
      const std::vector<double> x  = random_vector(a.ncols, Fill::small_int, 41);
      const std::vector<double> xn(x.size(), kNaN);
      const std::vector<double> u  = pow2_vector(a.nrows, 3);
      for (dev::SpmvPath path : kPaths)
      {
         const dev::SpmvPlan<V> plan = dev::make_spmv_plan(dm, nullptr, alloc, path);
         for (const AlphaBeta& ab : kExactCombos)
         {
            SCOPED_TRACE(c.name + " path=" + dev::to_string(plan.path) + " alpha=" + std::to_string(ab.alpha) +
                         " beta=" + std::to_string(ab.beta));
            const std::vector<double>& xs = ab.alpha == 0.0 ? xn : x;
            const std::vector<double>  y0 = ab.beta == 0.0
                                                ? std::vector<double>(static_cast<size_t>(a.nrows), kNaN)
                                                : random_vector(a.nrows, Fill::small_int, 42);
            std::vector<double> ref = y0;
            spmv_ref(hm, ab.alpha, xs.data(), ab.beta, ref.data(), u.empty() ? nullptr : u.data());
            const std::vector<double> y = gpu_spmv(dm, plan, ab.alpha, xs, ab.beta, y0, u);
            bool gpu_nonzero = false, ref_nonzero = false;
            for (size_t i = 0; i < y.size(); ++i)
            {
               ASSERT_TRUE(std::isfinite(y[i])) << "row " << i;
               ASSERT_EQ(bits_of(y[i]), bits_of(ref[i])) << "row " << i << ": " << y[i] << " vs " << ref[i];
               gpu_nonzero = gpu_nonzero || y[i] != 0.0;
               ref_nonzero = ref_nonzero || ref[i] != 0.0;
            }
            EXPECT_EQ(gpu_nonzero, ref_nonzero) << "all-zero output where the reference is not";
            nonzero_runs += gpu_nonzero;
         }
      }
   }
   EXPECT_GT(nonzero_runs, 300);
}

// Random A, x and u in [0.5, 2): against spmv_ref with the same u (summation order only, plus
// the unscaling's double roundings) and against the fp64 oracle (tolerances.h).
TYPED_TEST(SpmvDevice, UnscaleWithinToleranceOnRandomInputs)
{
   using V          = TypeParam;
   const Roundoff r = roundoff<V>();
   auto     alloc   = dev::runtime_allocator();
   double   worst   = 0.0;
   int64_t  rows    = 0;
   uint32_t seed    = 1900;
   for (const NamedMatrix& c : square_cases(Fill::random))
   {
      const CsrMatrix&          a     = c.a;
      const Mbsr<V>             hm    = csr_to_mbsr<V>(a.view());
      const dev::DeviceMbsr<V>  dm    = upload<V>(a);
      const int                 k     = max_row_nnz(a);
      const int                 tiles = mbsr_stats(hm).max_tiles_per_block_row;
      const std::vector<double> x     = random_vector(a.ncols, Fill::random, ++seed);
      std::vector<double>       u     = random_vector(a.nrows, Fill::random, ++seed);
      for (double& v : u) v = std::fabs(v);
      std::vector<double> xs(x.size()), absxs(x.size()), s(static_cast<size_t>(a.nrows));
      for (size_t j = 0; j < x.size(); ++j) xs[j] = x[j] * u[j], absxs[j] = std::fabs(xs[j]);
      csr_spmv_ref(abs_values(a).view(), 1.0, absxs.data(), 0.0, s.data());
      std::vector<double> axmax = abs_a_times_max(a, absxs);
      for (int32_t i = 0; i < a.nrows; ++i) s[i] *= u[i], axmax[i] *= u[i];
      for (dev::SpmvPath path : kPaths)
      {
         const dev::SpmvPlan<V> plan = dev::make_spmv_plan(dm, nullptr, alloc, path);
         const bool             tc16 = std::is_same_v<V, half_t> && plan.path == dev::SpmvPath::tensor_core;
         for (const AlphaBeta& ab : {AlphaBeta{1.0, 0.0}, AlphaBeta{1.5, -0.7}})
         {
            SCOPED_TRACE(c.name + " path=" + dev::to_string(plan.path) + " alpha=" + std::to_string(ab.alpha));
            const std::vector<double> y0 = ab.beta == 0.0
                                               ? std::vector<double>(static_cast<size_t>(a.nrows), kNaN)
                                               : random_vector(a.nrows, Fill::random, ++seed);
            std::vector<double> oracle(static_cast<size_t>(a.nrows), 0.0), ref = y0;
            csr_spmv_ref(a.view(), 1.0, xs.data(), 0.0, oracle.data());
            for (int32_t i = 0; i < a.nrows; ++i)
            {
               const double ax = oracle[i] * u[i];
               oracle[i]       = ab.beta == 0.0 ? ab.alpha * ax : ab.alpha * ax + ab.beta * y0[i];
            }
            spmv_ref(hm, ab.alpha, x.data(), ab.beta, ref.data(), u.data());
            const std::vector<double> y = gpu_spmv(dm, plan, ab.alpha, x, ab.beta, y0, u);
            for (int32_t i = 0; i < a.nrows; ++i)
            {
               const double y0i     = ab.beta == 0.0 ? 0.0 : y0[i];
               const double extra   = spmv_unscale_extra(ab.alpha, s[i]);
               const double tol_ref = spmv_tolerance(r, k, ab.alpha, s[i], ab.beta, y0i) + extra;
               const double tol     = tc16 ? spmv_tensor_fp16_tolerance(tiles, ab.alpha, s[i], axmax[i], ab.beta, y0i) + extra
                                           : tol_ref;
               // Same rounded inputs as spmv_ref except in the fp16 tensor path: order only.
               const double order_tol =
                  tc16 ? tol + tol_ref
                       : kSlack * (2 * gamma_k(k, r.acc) * (1 + r.store) * (1 + r.store) * std::fabs(ab.alpha) * s[i] +
                                   12 * kUnitDouble * std::fabs(ab.alpha) * s[i] + 6 * kUnitDouble * std::fabs(ab.beta * y0i)) +
                             extra;
               ASSERT_LE(std::fabs(y[i] - oracle[i]), tol) << "row " << i << ": " << y[i] << " vs oracle " << oracle[i];
               ASSERT_LE(std::fabs(y[i] - ref[i]), order_tol) << "row " << i << ": " << y[i] << " vs spmv_ref " << ref[i];
               if (tol > 0) worst = std::max(worst, std::fabs(y[i] - oracle[i]) / tol);
               ++rows;
            }
         }
      }
   }
   EXPECT_GT(rows, 50000);
   EXPECT_LE(worst, 1.0);
}

TYPED_TEST(SpmvDevice, UnscaleNeedsSquareMatrix)
{
   using V                     = TypeParam;
   auto                     alloc = dev::runtime_allocator();
   const dev::DeviceMbsr<V> a     = upload<V>(random_csr(40, 44, 0.1, Fill::small_int, 1));
   for (dev::SpmvPath path : kPaths)
   {
      const dev::SpmvPlan<V> p = dev::make_spmv_plan(a, nullptr, alloc, path);
      DeviceArray<double>       dx(std::vector<double>(44, 1.0)), dy(std::vector<double>(40, 0.0)),
          du(std::vector<double>(44, 1.0));
      EXPECT_THROW(dev::spmv(a, p, 1.0, dx.get(), 0.0, dy.get(), nullptr, du.get()), amgt::Error);
   }
   EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

// ---- fp16: coarse residuals of 1e-9 and below must not underflow ------------------------

class SpmvDeviceFp16 : public GpuTest
{
};

// x of magnitude 1e-9 (all below half's smallest subnormal), and x mixing magnitudes 1..1e-12
// inside the same tile pieces: every path within its bound of the fp64 oracle, nonzero rows
// where the oracle's are, and the CUDA-core paths within the summation-order bound of
// spmv_ref. The tensor path forced on a matrix of dense tiles.
TEST_F(SpmvDeviceFp16, TinyXDoesNotUnderflow)
{
   using V          = half_t;
   const Roundoff r = roundoff<V>();
   auto           alloc = dev::runtime_allocator();
   for (const NamedMatrix& c : {NamedMatrix{"block_tridiagonal_2002", block_tridiagonal(2002, Fill::random, 801)},
                                NamedMatrix{"random_1001", random_csr(1001, 1001, 0.01, Fill::random, 802)}})
   {
      const CsrMatrix&         a     = c.a;
      const Mbsr<V>            hm    = csr_to_mbsr<V>(a.view());
      const dev::DeviceMbsr<V> dm    = upload<V>(a);
      const int                k     = max_row_nnz(a);
      const int                tiles = mbsr_stats(hm).max_tiles_per_block_row;
      for (int mixed = 0; mixed < 2; ++mixed)
      {
         std::vector<double> x = random_vector(a.ncols, Fill::random, 803);
         for (size_t j = 0; j < x.size(); ++j) x[j] *= mixed ? std::pow(10.0, -static_cast<double>(j % 13)) : 1.0e-9;
         std::vector<double> absx(x.size()), ax(static_cast<size_t>(a.nrows)), oracle(ax.size()), ref(ax.size());
         for (size_t j = 0; j < x.size(); ++j) absx[j] = std::fabs(x[j]);
         csr_spmv_ref(abs_values(a).view(), 1.0, absx.data(), 0.0, ax.data());
         const std::vector<double> axmax = abs_a_times_max(a, absx);
         csr_spmv_ref(a.view(), 1.0, x.data(), 0.0, oracle.data());
         spmv_ref(hm, 1.0, x.data(), 0.0, ref.data());
         for (dev::SpmvPath path : kPaths)
         {
            const dev::SpmvPlan<V> plan = dev::make_spmv_plan(dm, nullptr, alloc, path);
            SCOPED_TRACE(c.name + " mixed=" + std::to_string(mixed) + " path=" + dev::to_string(plan.path));
            const bool tc16 = plan.path == dev::SpmvPath::tensor_core;
            const std::vector<double> y =
               gpu_spmv(dm, plan, 1.0, x, 0.0, std::vector<double>(static_cast<size_t>(a.nrows), kNaN));
            int nonzero = 0;
            for (int32_t i = 0; i < a.nrows; ++i)
            {
               const double tol = tc16 ? spmv_tensor_fp16_tolerance(tiles, 1.0, ax[i], axmax[i], 0.0, 0.0)
                                       : spmv_tolerance(r, k, 1.0, ax[i], 0.0, 0.0);
               ASSERT_LE(std::fabs(y[i] - oracle[i]), tol) << "row " << i << ": " << y[i] << " vs " << oracle[i];
               if (!tc16)
               {
                  const double order_tol = kSlack * (2 * gamma_k(k, r.acc) * (1 + r.store) * (1 + r.store) * ax[i] +
                                                     12 * kUnitDouble * ax[i]);
                  ASSERT_LE(std::fabs(y[i] - ref[i]), order_tol) << "row " << i;
               }
               // (Mixed magnitudes: the tensor path may round a term 2^-35 below its piece's
               // largest to 0, within its bound, so only the uniform case asserts this there.)
               if (oracle[i] != 0.0 && !(tc16 && mixed))
               {
                  ASSERT_NE(y[i], 0.0) << "row " << i << " underflowed to 0";
               }
               nonzero += y[i] != 0.0;
            }
            EXPECT_GT(nonzero, a.nrows / 2);
         }
      }
   }
}

} // namespace
