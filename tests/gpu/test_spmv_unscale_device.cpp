// GPU SpMV with unscaling (y = alpha diag(u) A diag(u) x + beta y) and fp16 on tiny x; the
// inputs, sentinels and oracles are those of test_spmv_device.cpp (spmv_test_util.h).

#include "spmv_test_util.h"

namespace {

using namespace amgt;
using namespace amgt::test;
using namespace amgt::test::gpu;

TYPED_TEST_SUITE(SpmvDevice, StorageTypes);

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
   EXPECT_EQ(device::last_error(), device::kSuccess);
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
