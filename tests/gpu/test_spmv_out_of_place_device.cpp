// The out-of-place SpMV (y = alpha*A*x + beta*b, b read where it is) of every path and
// layout against the in-place reference on y = b, bit for bit on small-integer inputs; and
// the smoother's sweep from u = 0 (smooth/jacobi_device.h) against its CPU reference.
// What they replace in hypre: the copy b -> y before each residual and smoother product.
#include "spmv_test_util.h"

#include "rows/rows.h"
#include "rows/rows_device.h"
#include "smooth/jacobi.h"
#include "smooth/jacobi_device.h"

namespace {

using namespace amgt;
using namespace amgt::test;
using namespace amgt::test::gpu;

TYPED_TEST_SUITE(SpmvDevice, StorageTypes);

// y0 poisoned with NaN (an out-of-place product never reads y), b small integers (NaN where
// beta == 0: b is not read then either). With b_is_y the same buffer serves as both.
template <class V, class Run>
std::vector<double> run_out_of_place(int32_t nrows, const std::vector<double>& b, bool b_is_y, Run run)
{
   std::vector<double> y0(b);
   if (!b_is_y) std::fill(y0.begin(), y0.end(), kNaN);
   y0.insert(y0.end(), kTail, kSentinel);
   std::vector<double> bb(b);
   bb.insert(bb.end(), kTail, kSentinel);
   DeviceArray<double> dy(y0), db(bb);
   run(dy.get(), b_is_y ? dy.get() : db.get());
   EXPECT_EQ(device::device_synchronize(), device::kSuccess);
   std::vector<double> y = dy.to_host();
   const std::vector<double> b_after = db.to_host();
   for (size_t i = 0; i < b_after.size(); ++i)
      EXPECT_EQ(bits_of(b_after[i]), bits_of(bb[i])) << "b changed at " << i;
   for (size_t i = static_cast<size_t>(nrows); i < y.size(); ++i)
      EXPECT_EQ(bits_of(y[i]), bits_of(kSentinel)) << "wrote y[" << i << "] past nrows";
   y.resize(static_cast<size_t>(nrows));
   return y;
}

TYPED_TEST(SpmvDevice, OutOfPlaceEqualsInPlaceOnEveryPath)
{
   using V      = TypeParam;
   auto alloc   = dev::runtime_allocator();
   int  checked = 0, nonzero = 0;
   for (const NamedMatrix& c : exact_cases())
   {
      const CsrMatrix&          a  = c.a;
      const Mbsr<V>             hm = csr_to_mbsr<V>(a.view());
      const dev::DeviceMbsr<V>  dm = upload<V>(a);
      const std::vector<double> x  = random_vector(a.ncols, Fill::small_int, 71);
      const std::vector<double> xn(x.size(), kNaN);
      const std::vector<double> u  = a.nrows == a.ncols ? std::vector<double>(static_cast<size_t>(a.nrows), 2.0)
                                                        : std::vector<double>{};
      DeviceArray<double>       dx(x), dxn(xn), du(u);
      for (dev::SpmvPath path : kPaths)
      {
         const dev::SpmvPlan<V> plan = dev::make_spmv_plan(dm, nullptr, alloc, path);
         for (const AlphaBeta& ab : kExactCombos)
         {
            for (bool unscaled : {false, true})
            {
               if (unscaled && u.empty()) continue;
               for (bool b_is_y : {false, true})
               {
                  SCOPED_TRACE(c.name + " path=" + dev::to_string(plan.path) + " alpha=" + std::to_string(ab.alpha) +
                               " beta=" + std::to_string(ab.beta) + " unscaled=" + std::to_string(unscaled) +
                               " b_is_y=" + std::to_string(b_is_y));
                  const std::vector<double> b = ab.beta == 0.0 && !b_is_y
                                                   ? std::vector<double>(static_cast<size_t>(a.nrows), kNaN)
                                                   : random_vector(a.nrows, Fill::small_int, 72);
                  std::vector<double> ref = b;
                  spmv_ref(hm, ab.alpha, ab.alpha == 0.0 ? xn.data() : x.data(), ab.beta, ref.data(),
                           unscaled ? u.data() : nullptr);
                  const double*             xd = ab.alpha == 0.0 ? dxn.get() : dx.get();
                  const std::vector<double> y  = run_out_of_place<V>(a.nrows, b, b_is_y, [&](double* yd, double* bd) {
                     dev::spmv(dm, plan, ab.alpha, xd, ab.beta, yd, nullptr, unscaled ? du.get() : nullptr, bd);
                  });
                  for (size_t i = 0; i < y.size(); ++i)
                  {
                     ASSERT_EQ(bits_of(y[i]), bits_of(ref[i])) << "row " << i << ": " << y[i] << " vs " << ref[i];
                     nonzero += y[i] != 0.0;
                  }
                  ++checked;
               }
            }
         }
      }
   }
   EXPECT_GT(checked, 100);
   EXPECT_GT(nonzero, 0) << "every output was zero";
}

TYPED_TEST(SpmvDevice, RowWiseOutOfPlaceEqualsInPlace)
{
   using V      = TypeParam;
   int  nonzero = 0, checked = 0;
   for (const NamedMatrix& c : exact_cases())
   {
      const CsrMatrix& a = c.a;
      DeviceCsr        da(a);
      for (bool narrow : {false, true})
      {
         const dev::DeviceRows<V>  dm = dev::make_rows<V>(da.view, nullptr, narrow, nullptr, dev::runtime_allocator());
         const Rows<V>             hm = rows_from_csr<V>(a.view(), narrow);
         const std::vector<double> x  = random_vector(a.ncols, Fill::small_int, 73);
         DeviceArray<double>       dx(x);
         for (const AlphaBeta& ab : kExactCombos)
         {
            if (ab.alpha == 0.0) continue; // the prologue's scaling, shared with the mBSR test above
            SCOPED_TRACE(c.name + " narrow=" + std::to_string(narrow) + " alpha=" + std::to_string(ab.alpha) +
                         " beta=" + std::to_string(ab.beta));
            const std::vector<double> b = ab.beta == 0.0 ? std::vector<double>(static_cast<size_t>(a.nrows), kNaN)
                                                         : random_vector(a.nrows, Fill::small_int, 74);
            std::vector<double> ref = b;
            rows_spmv_ref(hm, ab.alpha, x.data(), ab.beta, ref.data());
            const std::vector<double> y = run_out_of_place<V>(a.nrows, b, false, [&](double* yd, double* bd) {
               dev::rows_spmv<V>(dm, ab.alpha, dx.get(), ab.beta, yd, nullptr, nullptr, bd);
            });
            for (size_t i = 0; i < y.size(); ++i)
            {
               ASSERT_EQ(bits_of(y[i]), bits_of(ref[i])) << "row " << i;
               nonzero += y[i] != 0.0;
            }
            ++checked;
         }
      }
   }
   EXPECT_GT(checked, 50);
   EXPECT_GT(nonzero, 0);
}

// ---- the smoother's sweep from u = 0 ----------------------------------------------------

class JacobiDevice : public GpuTest
{
};

TEST_F(JacobiDevice, FromZeroEqualsReferenceBitForBit)
{
   const double inf = std::numeric_limits<double>::infinity();
   for (int64_t n : {int64_t{1}, int64_t{255}, int64_t{256}, int64_t{257}, int64_t{100003}})
   {
      std::mt19937                           rng(static_cast<uint32_t>(n));
      std::uniform_real_distribution<double> val(-10.0, 10.0), pos(0.5, 30.0);
      std::vector<double>                    f(static_cast<size_t>(n)), l1(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i)
      {
         f[static_cast<size_t>(i)]  = val(rng);
         l1[static_cast<size_t>(i)] = pos(rng);
      }
      // special values where they fit: -0 (hypre's u = 0 + -0 is +0), a zero l1, Inf, tiny
      const std::vector<std::pair<double, double>> special{{-0.0, 2.0}, {1.0, 0.0}, {inf, 3.0}, {1e-310, 7.0}};
      for (size_t k = 0; k < special.size() && k < f.size(); ++k)
      {
         f[k]  = special[k].first;
         l1[k] = special[k].second;
      }
      for (double w : {1.0, 2.0 / 3.0})
      {
         SCOPED_TRACE("n=" + std::to_string(n) + " w=" + std::to_string(w));
         std::vector<double> ru(f.size()), rv(f.size());
         jacobi_from_zero_ref(n, w, f.data(), l1.data(), ru.data(), rv.data());
         std::vector<double> guard(f.size() + kTail, kSentinel);
         DeviceArray<double> df(f), dl(l1), du(guard), dv(guard);
         dev::jacobi_from_zero(n, w, df.get(), dl.get(), du.get(), dv.get(), nullptr);
         ASSERT_EQ(device::device_synchronize(), device::kSuccess);
         const std::vector<double> gu = du.to_host(), gv = dv.to_host();
         for (size_t i = 0; i < f.size(); ++i)
         {
            ASSERT_EQ(bits_of(gu[i]), bits_of(ru[i])) << "u " << i;
            ASSERT_EQ(bits_of(gv[i]), bits_of(rv[i])) << "vtemp " << i;
         }
         for (size_t i = f.size(); i < gu.size(); ++i)
         {
            ASSERT_EQ(bits_of(gu[i]), bits_of(kSentinel)) << "wrote u past n";
            ASSERT_EQ(bits_of(gv[i]), bits_of(kSentinel)) << "wrote vtemp past n";
         }
         // n = 1 holds only the -0 special (u = +0); longer inputs have random nonzero entries
         if (f.size() > special.size()) EXPECT_NE(gu[f.size() - 1], 0.0);
      }
   }
}

TEST_F(JacobiDevice, EmptyAndNullInputs)
{
   EXPECT_NO_THROW(dev::jacobi_from_zero(0, 1.0, nullptr, nullptr, nullptr, nullptr, nullptr));
   DeviceArray<double> a(std::vector<double>{1.0});
   EXPECT_THROW(dev::jacobi_from_zero(1, 1.0, a.get(), a.get(), nullptr, a.get(), nullptr), amgt::Error);
   EXPECT_EQ(device::device_synchronize(), device::kSuccess);
}

} // namespace
