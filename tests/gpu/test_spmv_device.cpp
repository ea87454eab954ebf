// GPU SpMV (every path, every storage precision) against the CPU references: spmv_ref on the
// CPU-converted mBSR (bit for bit on small-integer inputs) and csr_spmv_ref in fp64 (within
// the bound of tests/common/tolerances.h on random inputs). The GPU matrix comes from the GPU
// conversion (device::csr_to_mbsr), the oracle's from the CPU one.
//
// Every device vector is allocated with exactly the length the call may touch (x: ncols,
// y: nrows plus a tail of sentinels that must survive), so compute-sanitizer reports any
// access past n; without it, the sentinels still show writes past nrows.

#include "spmv_test_util.h"

namespace {

using namespace amgt;
using namespace amgt::test;
using namespace amgt::test::gpu;

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
// device graph (a CUDA graph, a HIP graph on AMD) in global capture mode (where allocation,
// blocking copies and stream synchronisation are errors) and the replayed graph gives the
// reference result.
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
   device::Stream s = nullptr;
   ASSERT_EQ(device::stream_create_non_blocking(&s), device::kSuccess);
   for (dev::SpmvPath path : kPaths)
   {
      SCOPED_TRACE(dev::to_string(path));
      const dev::SpmvPlan<V> plan = dev::make_spmv_plan(dm, s, alloc, path);
      DeviceArray<double>       dx(x), dy(y0);
      device::Graph            graph = nullptr;
      ASSERT_EQ(device::stream_begin_capture(s), device::kSuccess);
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
      ASSERT_EQ(device::stream_end_capture(s, &graph), device::kSuccess);
      ASSERT_FALSE(threw);
      device::GraphExec exec = nullptr;
      ASSERT_EQ(device::graph_instantiate(&exec, graph), device::kSuccess);
      ASSERT_EQ(device::graph_launch(exec, s), device::kSuccess);
      ASSERT_EQ(device::stream_synchronize(s), device::kSuccess);
      const std::vector<double> y = dy.to_host();
      for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(bits_of(y[i]), bits_of(ref[i])) << "row " << i;
      (void)device::graph_exec_destroy(exec);
      (void)device::graph_destroy(graph);
   }
   (void)device::stream_destroy(s);
   EXPECT_EQ(device::last_error(), device::kSuccess);
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
   EXPECT_EQ(device::last_error(), device::kSuccess);
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
   EXPECT_EQ(device::last_error(), device::kSuccess);
}

} // namespace
