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

#include "spgemm_test_util.h"

namespace {

using namespace amgt::test;
using namespace amgt::test::gpu;

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

} // namespace
