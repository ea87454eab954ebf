// GPU SpGEMM with each numeric path forced (tensor cores, ordered CUDA cores, pairs kernel),
// the pairs kernel's entry budget per window, and fp16 tensor cores against the reference;
// the checks and the oracles are those of test_spgemm_device.cpp (spgemm_test_util.h).

#include "spgemm_test_util.h"

namespace {

using namespace amgt::test;
using namespace amgt::test::gpu;
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

TYPED_TEST_SUITE(SpgemmDevice, StorageTypes);

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
