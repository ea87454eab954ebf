// The row-wise layout on the GPU (rows/rows_device.h) against its CPU reference
// (rows/rows.h): bit for bit on small-integer inputs, within the SpMV bound otherwise; the
// fill sample against the exact mBSR count; nothing read or written past the arrays.
#include "common/csr_utils.h"
#include "common/storage_types.h"
#include "common/error.h"
#include "common/random_matrix.h"
#include "common/spmv_inputs.h"
#include "common/tolerances.h"
#include "gpu_test_util.h"
#include "mbsr/mbsr.h"
#include "precision/policy.h"
#include "rows/rows.h"
#include "rows/rows_device.h"
#include "spmv/spmv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <memory>
#include <vector>

namespace {

using namespace amgt;
using namespace amgt::test;
using namespace amgt::test::gpu;
namespace dev = amgt::device;

const double kNaN = std::numeric_limits<double>::quiet_NaN();



// Rows of 0..70 entries (every lane count of the SpMV is exercised by some case).
CsrMatrix ragged(int32_t n, Fill fill, uint32_t seed)
{
   std::mt19937       rng(seed);
   std::vector<Entry> e;
   for (int32_t i = 0; i < n; ++i)
   {
      const int len = static_cast<int>(rng() % 71);
      for (int k = 0; k < len; ++k) e.push_back({i, static_cast<int32_t>(rng() % n), draw_value(rng, fill)});
   }
   return from_entries(n, n, e);
}

std::vector<NamedMatrix> cases(Fill fill)
{
   std::vector<NamedMatrix> c = edge_matrices();
   c.push_back({"random_2000", random_csr(2000, 2000, 0.004, fill, 41)});
   c.push_back({"rect_3001x1999", random_csr(3001, 1999, 0.003, fill, 42)});
   c.push_back({"denser_200", random_csr(200, 200, 0.3, fill, 43)});
   c.push_back({"laplacian_101x37", laplacian_2d(101, 37)});
   c.push_back({"ragged_3000", ragged(3000, fill, 44)});
   c.push_back({"band_narrow", band(70001, kNarrowSpan, fill, 45)});
   c.push_back({"band_wide", band(70001, kNarrowSpan + 1, fill, 46)});
   return c;
}


// y after rows_spmv, with a guard of NaN after the last row: the kernel must not touch it.
template <class V>
std::vector<double> gpu_rows_spmv(const dev::DeviceRows<V>& m, double alpha, const std::vector<double>& x,
                                  double beta, const std::vector<double>& y0, const double* u_dev = nullptr)
{
   constexpr size_t    kGuard = 64;
   std::vector<double> yg     = y0;
   yg.resize(y0.size() + kGuard, kNaN);
   DeviceArray<double> dx(x), dy(yg);
   dev::rows_spmv<V>(m, alpha, dx.get(), beta, dy.get(), nullptr, u_dev);
   EXPECT_EQ(device::device_synchronize(), device::kSuccess);
   std::vector<double> y = dy.to_host();
   for (size_t i = y0.size(); i < y.size(); ++i) EXPECT_TRUE(std::isnan(y[i])) << "wrote past y at " << i;
   y.resize(y0.size());
   return y;
}

template <class V>
class RowsDevice : public GpuTest
{
};
TYPED_TEST_SUITE(RowsDevice, StorageTypes);

TYPED_TEST(RowsDevice, ExactOnSmallIntegerInputs)
{
   using V      = TypeParam;
   int  nonzero = 0;
   for (const NamedMatrix& c : cases(Fill::small_int))
   {
      const CsrMatrix& a = c.a;
      DeviceCsr        da(a);
      for (bool narrow : {false, true})
      {
         AllocCounter counter;
         {
            const dev::DeviceRows<V> dm = dev::make_rows<V>(da.view, nullptr, narrow, nullptr, counting_allocator(counter));
            const Rows<V>            hm = rows_from_csr<V>(a.view(), narrow);
            if (narrow && nnz_of(a) > 0)
            {
               EXPECT_EQ(dev::rows_narrow(dm, nullptr), hm.narrow) << c.name;
               // the offsets are kept only where the SpMV reads them
               EXPECT_EQ(dm.col16.size(), hm.narrow ? static_cast<size_t>(nnz_of(a)) : size_t{0}) << c.name;
               EXPECT_TRUE(dm.tried_narrow()) << c.name;
            }
            const std::vector<double> x = random_vector(a.ncols, Fill::small_int, 51);
            const std::vector<double> xn(x.size(), kNaN);
            for (const AlphaBeta& ab : kExactCombos)
            {
               SCOPED_TRACE(c.name + " narrow=" + std::to_string(narrow) + " alpha=" + std::to_string(ab.alpha) +
                            " beta=" + std::to_string(ab.beta));
               const std::vector<double>& xs = ab.alpha == 0.0 ? xn : x;
               const std::vector<double>  y0 = ab.beta == 0.0 ? std::vector<double>(static_cast<size_t>(a.nrows), kNaN)
                                                              : random_vector(a.nrows, Fill::small_int, 52);
               std::vector<double> ref = y0;
               rows_spmv_ref(hm, ab.alpha, xs.data(), ab.beta, ref.data());
               const std::vector<double> y = gpu_rows_spmv(dm, ab.alpha, xs, ab.beta, y0);
               bool any = false;
               for (size_t i = 0; i < y.size(); ++i)
               {
                  ASSERT_EQ(bits_of(y[i]), bits_of(ref[i])) << "row " << i << ": " << y[i] << " vs " << ref[i];
                  any = any || y[i] != 0.0;
               }
               nonzero += any;
            }
         }
         EXPECT_EQ(counter.live, 0) << "every buffer comes back";
      }
   }
   EXPECT_GT(nonzero, 100);
}

TYPED_TEST(RowsDevice, WithinToleranceOnRandomInputs)
{
   using V          = TypeParam;
   const Roundoff r = roundoff<V>();
   double   max_err = 0.0;
   for (const NamedMatrix& c : cases(Fill::random))
   {
      const CsrMatrix& a = c.a;
      if (nnz_of(a) == 0) continue;
      DeviceCsr                 da(a);
      const dev::DeviceRows<V>  dm = dev::make_rows<V>(da.view, nullptr, true, nullptr, dev::runtime_allocator());
      const Rows<V>             hm = rows_from_csr<V>(a.view(), true);
      const std::vector<double> x  = random_vector(a.ncols, Fill::random, 61);
      std::vector<double>       absx(x.size()), ax(static_cast<size_t>(a.nrows));
      for (size_t j = 0; j < x.size(); ++j) absx[j] = std::fabs(x[j]);
      csr_spmv_ref(abs_values(a).view(), 1.0, absx.data(), 0.0, ax.data());
      const std::vector<double> y0 = random_vector(a.nrows, Fill::random, 62);
      std::vector<double>       oracle = y0, ref = y0;
      csr_spmv_ref(a.view(), 1.5, x.data(), -0.7, oracle.data());
      rows_spmv_ref(hm, 1.5, x.data(), -0.7, ref.data());
      const std::vector<double> y = gpu_rows_spmv(dm, 1.5, x, -0.7, y0);
      const int k = max_row_nnz(a);
      for (int32_t i = 0; i < a.nrows; ++i)
      {
         const double tol = spmv_tolerance(r, k, 1.5, ax[i], -0.7, y0[i]);
         ASSERT_LE(std::fabs(y[i] - oracle[i]), tol) << c.name << " row " << i;
         // against the reference: the two summation orders, each within the bound
         ASSERT_LE(std::fabs(y[i] - ref[i]), 2 * tol) << c.name << " row " << i;
         max_err = std::max(max_err, std::fabs(y[i] - oracle[i]));
      }
   }
   if (r.store > roundoff<double>().store) { EXPECT_GT(max_err, 0.0); }
}

// Scaled storage (values a_ij / (u_i u_j), built on the device) with unscale: the device
// scaling equals the reference's bit for bit, so the SpMV's bound is the reference's.
TYPED_TEST(RowsDevice, ScaledValuesAndUnscale)
{
   using V                     = TypeParam;
   const Roundoff r            = roundoff<V>();
   const CsrMatrix a           = laplacian_2d(211, 97);
   const std::vector<double> u = scaling_vector(a.view());
   DeviceCsr                 da(a);
   DeviceArray<double>       du(u);
   const dev::DeviceRows<V>  dm = dev::make_rows<V>(da.view, du.get(), true, nullptr, dev::runtime_allocator());
   const Rows<V>             hm = rows_from_csr<V>(a.view(), true, &u);
   ASSERT_TRUE(dm.scaled);
   ASSERT_NE(dm.own_val.size(), 0u);
   std::vector<V> dv = download(dm.own_val.get(), dm.own_val.size());
   for (size_t k = 0; k < dv.size(); ++k)
   {
      ASSERT_EQ(StorageTraits<V>::to_double(dv[k]), StorageTraits<V>::to_double(hm.val[k])) << "value " << k;
   }
   const std::vector<double> x  = random_vector(a.ncols, Fill::random, 71);
   const std::vector<double> y0(static_cast<size_t>(a.nrows), kNaN);
   std::vector<double>       ref = y0;
   rows_spmv_ref(hm, 1.0, x.data(), 0.0, ref.data(), u.data());
   const std::vector<double> y = gpu_rows_spmv(dm, 1.0, x, 0.0, y0, du.get());
   for (size_t i = 0; i < y.size(); ++i)
   {
      // |u_i| (|A-hat| |u o x|)_i <= 8 * 2 on this Laplacian, 5 entries per row
      const double tol = 2 * spmv_tolerance(r, 5, 1.0, 16.0, 0.0, 0.0) + spmv_unscale_extra(1.0, 16.0);
      ASSERT_LE(std::fabs(y[i] - ref[i]), tol) << "row " << i;
   }
}

// make_rows with settle_later: the copy stays unsettled until settle_rows (its SpMV refused
// until then), and then equals the copy whose build was waited for: the same offsets kept or
// released, the same SpMV bit for bit; a copy destroyed unsettled gives every buffer back.
TYPED_TEST(RowsDevice, SettledLaterEqualsWaited)
{
   using V     = TypeParam;
   int pending = 0, released = 0;
   for (const NamedMatrix& c : cases(Fill::small_int))
   {
      const CsrMatrix& a = c.a;
      DeviceCsr        da(a);
      AllocCounter     counter;
      {
         const dev::DeviceRows<V> waited = dev::make_rows<V>(da.view, nullptr, true, nullptr, counting_allocator(counter));
         dev::DeviceRows<V> later = dev::make_rows<V>(da.view, nullptr, true, nullptr, counting_allocator(counter), 0.0, true);
         const Rows<V>      hm    = rows_from_csr<V>(a.view(), true);
         ASSERT_TRUE(waited.settled()) << c.name;
         if (nnz_of(a) > 0)
         {
            ASSERT_FALSE(later.settled()) << c.name;
            EXPECT_THROW(dev::rows_spmv<V>(later, 1.0, nullptr, 0.0, nullptr, nullptr), Error) << c.name;
            EXPECT_THROW((void)dev::rows_narrow(later, nullptr), Error) << c.name;
            ++pending;
         }
         dev::settle_rows(later);
         dev::settle_rows(later); // a settled copy: nothing
         ASSERT_TRUE(later.settled()) << c.name;
         EXPECT_EQ(dev::rows_narrow(later, nullptr), dev::rows_narrow(waited, nullptr)) << c.name;
         EXPECT_EQ(dev::rows_narrow(later, nullptr), nnz_of(a) > 0 && hm.narrow) << c.name;
         EXPECT_EQ(later.col16.size(), waited.col16.size()) << c.name;
         EXPECT_EQ(later.wide.size(), 0u) << c.name << ": the flag goes once read";
         released += nnz_of(a) > 0 && !hm.narrow;
         const std::vector<double> x = random_vector(a.ncols, Fill::small_int, 53);
         const std::vector<double> y0 = random_vector(a.nrows, Fill::small_int, 54);
         const std::vector<double> yw = gpu_rows_spmv(waited, 1.5, x, -2.0, y0);
         const std::vector<double> yl = gpu_rows_spmv(later, 1.5, x, -2.0, y0);
         for (size_t i = 0; i < yw.size(); ++i) ASSERT_EQ(bits_of(yl[i]), bits_of(yw[i])) << c.name << " row " << i;
         // destroyed before it was settled: waits for its copy, then releases its buffers
         const dev::DeviceRows<V> dropped =
            dev::make_rows<V>(da.view, nullptr, true, nullptr, counting_allocator(counter), 0.0, true);
      }
      EXPECT_EQ(device::device_synchronize(), device::kSuccess);
      EXPECT_EQ(counter.live, 0) << c.name << ": every buffer comes back";
   }
   EXPECT_GT(pending, 10);
   EXPECT_GT(released, 0) << "some case has an offset beyond 16 bits (band_wide)";
}

// ReadBack: values copied without a wait come back right, also with more posted at once than
// the page-locked slab holds (those wait at once); the slab's words come back when settled.
TEST(ReadBackDevice, ValuesBeyondTheSlab)
{
   const int            n = dev::kReadBackSlots + 100;
   std::vector<int32_t> h(static_cast<size_t>(n));
   for (int i = 0; i < n; ++i) h[static_cast<size_t>(i)] = 7 * i - 3000;
   DeviceArray<int32_t> d(h);
   std::vector<dev::ReadBack> backs(static_cast<size_t>(n));
   int                        waited = 0;
   for (int i = 0; i < n; ++i)
   {
      EXPECT_FALSE(backs[static_cast<size_t>(i)].posted());
      backs[static_cast<size_t>(i)].post(d.get() + i, nullptr);
      EXPECT_TRUE(backs[static_cast<size_t>(i)].posted());
      waited += backs[static_cast<size_t>(i)].waited();
   }
   EXPECT_GE(waited, n - dev::kReadBackSlots) << "the slab holds kReadBackSlots words";
   EXPECT_LT(waited, n) << "page-locked words were used";
   for (int i = n - 1; i >= 0; --i) EXPECT_EQ(backs[static_cast<size_t>(i)].value(), h[static_cast<size_t>(i)]);
   // moved, read again, posted again: the same value, then the new one
   dev::ReadBack moved = std::move(backs[5]);
   EXPECT_FALSE(backs[5].posted());
   EXPECT_EQ(moved.value(), h[5]);
   moved.post(d.get() + 6, nullptr);
   EXPECT_EQ(moved.value(), h[6]);
   backs.clear();
   dev::ReadBack again;
   again.post(d.get() + 1, nullptr);
   EXPECT_FALSE(again.waited()) << "the words came back to the slab";
   EXPECT_EQ(again.value(), h[1]);
   dev::ReadBack none;
   EXPECT_THROW((void)none.value(), Error);
}

// fp64 without scaling or offsets reads the CSR's own arrays: nothing allocated.
TEST(RowsDeviceFp64, BorrowsTheCsrArrays)
{
   const CsrMatrix a = laplacian_2d(50, 40);
   DeviceCsr       da(a);
   AllocCounter    counter;
   const dev::DeviceRows<double> dm =
      dev::make_rows<double>(da.view, nullptr, false, nullptr, counting_allocator(counter));
   EXPECT_EQ(counter.total, 0);
   EXPECT_EQ(dm.val, da.view.val);
   EXPECT_EQ(dm.col, da.view.col);
   EXPECT_EQ(dm.row_ptr, da.view.row_ptr);
   EXPECT_EQ(dm.lanes, dev::rows_lanes(static_cast<double>(nnz_of(a)) / a.nrows));
}

// The exact span (the planner's check where the layout depends on 16-bit offsets) against the
// reference, on every test matrix: the bands on either side of kNarrowSpan, ragged rows, the
// edge cases (no rows, no entries).
TEST(RowsDeviceSpan, ExactSpanMatchesTheReference)
{
   int checked = 0;
   for (const NamedMatrix& c : cases(Fill::small_int))
   {
      DeviceCsr da(c.a);
      EXPECT_EQ(dev::max_span(da.view, nullptr, dev::runtime_allocator()), max_span(c.a.view())) << c.name;
      ++checked;
   }
   EXPECT_GT(checked, 10);
   const CsrMatrix wide = band(70001, kNarrowSpan + 1, Fill::small_int, 47);
   DeviceCsr       dw(wide);
   EXPECT_EQ(dev::max_span(dw.view, nullptr, dev::runtime_allocator()), kNarrowSpan + 1);
}

TEST(RowsDeviceRules, LanesFollowTheRowLength)
{
   EXPECT_EQ(dev::rows_lanes(0.0), 1);
   EXPECT_EQ(dev::rows_lanes(7.0), 1);
   EXPECT_EQ(dev::rows_lanes(8.0), 1);
   EXPECT_EQ(dev::rows_lanes(9.0), 2);
   EXPECT_EQ(dev::rows_lanes(16.0), 2);
   EXPECT_EQ(dev::rows_lanes(26.5), 2);       // regular long rows: 16 per lane
   EXPECT_EQ(dev::rows_lanes(26.5, 0.8), 4);  // irregular: 8 per lane
   EXPECT_EQ(dev::rows_lanes(70.0), 8);
   EXPECT_EQ(dev::rows_lanes(500.0), 32);
   // x beyond the L2 cache: rows of more than 16 entries (more than 4 unless wide) get twice
   // the lanes, up to 32
   EXPECT_EQ(dev::rows_lanes(3.5, 0.0, true), 1);
   EXPECT_EQ(dev::rows_lanes(7.0, 0.0, true), 2);
   EXPECT_EQ(dev::rows_lanes(16.0, 0.0, true), 4);
   EXPECT_EQ(dev::rows_lanes(26.5, 0.0, true), 4);
   EXPECT_EQ(dev::rows_lanes(26.5, 0.8, true), 8);
   EXPECT_EQ(dev::rows_lanes(500.0, 0.0, true), 32);
   // wide (a restriction): twice the lanes; x beyond L2 adds its doubling only for rows > 16
   EXPECT_EQ(dev::rows_lanes(10.0, 0.0, false, true), 4);
   EXPECT_EQ(dev::rows_lanes(10.0, 0.0, true, true), 4);
   EXPECT_EQ(dev::rows_lanes(26.9, 0.0, false, true), 4);
   EXPECT_EQ(dev::rows_lanes(46.0, 0.0, true, true), 16);
   EXPECT_EQ(dev::rows_lanes(500.0, 0.0, true, true), 32);
   EXPECT_TRUE(dev::rows_wide(100, 200));
   EXPECT_FALSE(dev::rows_wide(100, 199));
   EXPECT_FALSE(dev::rows_wide(200, 100));
   // the build: a row in one step (the smallest power of two >= the mean row length)
   EXPECT_EQ(dev::rows_build_lanes(0.0), 1);
   EXPECT_EQ(dev::rows_build_lanes(1.0), 1);
   EXPECT_EQ(dev::rows_build_lanes(3.1), 4);
   EXPECT_EQ(dev::rows_build_lanes(7.0), 8);
   EXPECT_EQ(dev::rows_build_lanes(8.0), 8);
   EXPECT_EQ(dev::rows_build_lanes(26.7), 32);
   EXPECT_EQ(dev::rows_build_lanes(500.0), 32);
}

// make_rows asks the device: a matrix whose x (ncols doubles) passes the L2 cache gets the
// doubled lanes, the same rows with few columns do not (both are wide: twice the lanes on top);
// the SpMV is right either way.
TEST(RowsDeviceRules, LanesDoubleWhereXPassesTheL2Cache)
{
   int dev = 0, l2 = 0;
   ASSERT_EQ(amgt::device::current_device(&dev), amgt::device::kSuccess);
   ASSERT_EQ(amgt::device::l2_bytes(&l2, dev), amgt::device::kSuccess);
   ASSERT_GT(l2, 0);
   EXPECT_FALSE(dev::x_beyond_l2(1000));
   EXPECT_TRUE(dev::x_beyond_l2(int64_t{l2} / 8 + 1));
   EXPECT_FALSE(dev::x_beyond_l2(int64_t{l2} / 8));
   const int32_t wide_cols = l2 / 8 + 4096;
   for (const int32_t ncols : {int32_t{4096}, wide_cols})
   {
      SCOPED_TRACE(ncols);
      // 64 rows of 24 entries spread over the columns (integers: exact in fp64)
      std::vector<Entry> e;
      for (int32_t i = 0; i < 64; ++i)
         for (int32_t k = 0; k < 24; ++k)
            e.push_back({i, static_cast<int32_t>((static_cast<int64_t>(i) * 977 + static_cast<int64_t>(k) * (ncols / 24)) % ncols),
                         static_cast<double>(1 + (i + k) % 5)});
      const CsrMatrix a = from_entries(64, ncols, e);
      DeviceCsr       da(a);
      const dev::DeviceRows<double> r = dev::make_rows<double>(da.view, nullptr, false, nullptr, dev::runtime_allocator());
      // 24 entries a row: 2 lanes; both matrices are wide (64 rows), so twice that; x beyond L2
      // doubles again
      EXPECT_EQ(r.lanes, ncols == wide_cols ? 8 : 4);
      std::vector<double> x(static_cast<size_t>(ncols));
      for (int32_t j = 0; j < ncols; ++j) x[j] = static_cast<double>(j % 7) - 3.0;
      DeviceArray<double> dx(x), dy(std::vector<double>(64, 0.0));
      dev::rows_spmv<double>(r, 1.0, dx.get(), 0.0, dy.get(), nullptr);
      const std::vector<double> y = dy.to_host();
      for (int32_t i = 0; i < 64; ++i)
      {
         double want = 0.0;
         for (int32_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) want += a.val[k] * x[a.col[k]];
         EXPECT_EQ(y[i], want) << "row " << i;
      }
   }
}

// With every block row sampled, the estimate is the exact count of mBSR (duplicates once per
// tile) and the span the exact largest |col - row|.
TEST(RowsDeviceFill, SampleOfEveryBlockRowIsExact)
{
   std::vector<NamedMatrix> c = edge_matrices();
   c.push_back({"random_2000", random_csr(2000, 2000, 0.004, Fill::small_int, 81)});
   c.push_back({"laplacian_101x37", laplacian_2d(101, 37)});
   c.push_back({"ragged_3000", ragged(3000, Fill::small_int, 82)});
   // block rows of 40-500 entries (the hash table's probing across its whole range) and of
   // more than kFillSampleMaxEntries (span only)
   c.push_back({"wide_600x2000", random_csr(600, 2000, 0.03, Fill::small_int, 83)});
   c.push_back({"wide_300x1200", random_csr(300, 1200, 0.1, Fill::small_int, 84)});
   c.push_back({"wider_64x3000", random_csr(64, 3000, 0.2, Fill::small_int, 85)});
   int checked = 0;
   for (const NamedMatrix& m : c)
   {
      const CsrMatrix& a = m.a;
      if (nnz_of(a) == 0 || a.nrows == 0) continue;
      DeviceCsr          da(a);
      AllocCounter       counter;
      const dev::FillEstimate e = dev::estimate_fill(da.view, nullptr, counting_allocator(counter), 1 << 20);
      EXPECT_EQ(counter.live, 0);
      const Mbsr<double> hm = csr_to_mbsr<double>(a.view());
      int64_t            span = 0;
      for (int32_t i = 0; i < a.nrows; ++i)
         for (int32_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) span = std::max<int64_t>(span, std::abs(a.col[k] - i));
      int64_t counted_entries = 0, counted_tiles = 0, counted_rows = 0;
      for (int32_t b = 0; b < hm.block_rows(); ++b)
      {
         const int32_t r0 = 4 * b, r1 = std::min(r0 + 4, a.nrows);
         if (a.row_ptr[r1] - a.row_ptr[r0] > dev::kFillSampleMaxEntries) continue;
         counted_entries += a.row_ptr[r1] - a.row_ptr[r0];
         counted_tiles += hm.blk_ptr[b + 1] - hm.blk_ptr[b];
         ++counted_rows;
      }
      EXPECT_EQ(e.block_rows, counted_rows) << m.name;
      EXPECT_EQ(e.entries, counted_entries) << m.name;
      EXPECT_EQ(e.tiles, counted_tiles) << m.name;
      EXPECT_EQ(e.max_span, span) << m.name;
      double sq = 0.0;
      for (int32_t i = 0; i < a.nrows; ++i) sq += double(a.row_ptr[i + 1] - a.row_ptr[i]) * (a.row_ptr[i + 1] - a.row_ptr[i]);
      EXPECT_EQ(e.rows, a.nrows) << m.name;
      EXPECT_EQ(e.row_sum, static_cast<double>(nnz_of(a))) << m.name;
      EXPECT_EQ(e.row_sq, sq) << m.name;
      ++checked;
   }
   EXPECT_GT(checked, 18);
}

// The setup survey's batch (estimate_fills): every matrix's estimate equals its own
// estimate_fill (the same kernel), with one allocation released and empty matrices skipped.
TEST(RowsDeviceFill, BatchEqualsOneByOne)
{
   std::vector<NamedMatrix> c = edge_matrices();
   c.push_back({"random_2000", random_csr(2000, 2000, 0.004, Fill::small_int, 91)});
   c.push_back({"laplacian_400x300", laplacian_2d(400, 300)});
   c.push_back({"wider_64x3000", random_csr(64, 3000, 0.2, Fill::small_int, 92)});
   std::vector<std::unique_ptr<DeviceCsr>> held;
   std::vector<CsrView> views;
   for (const NamedMatrix& m : c)
   {
      held.push_back(std::make_unique<DeviceCsr>(m.a));
      views.push_back(held.back()->view);
   }
   for (int32_t samples : {256, 1 << 20})
   {
      AllocCounter                          counter;
      const std::vector<dev::FillEstimate> all = dev::estimate_fills(views, nullptr, counting_allocator(counter), samples);
      EXPECT_EQ(counter.live, 0);
      ASSERT_EQ(all.size(), views.size());
      for (size_t i = 0; i < views.size(); ++i)
      {
         const dev::FillEstimate one = dev::estimate_fill(views[i], nullptr, dev::runtime_allocator(), samples);
         EXPECT_EQ(all[i].block_rows, one.block_rows) << c[i].name;
         EXPECT_EQ(all[i].entries, one.entries) << c[i].name;
         EXPECT_EQ(all[i].tiles, one.tiles) << c[i].name;
         EXPECT_EQ(all[i].max_span, one.max_span) << c[i].name;
         EXPECT_EQ(all[i].rows, one.rows) << c[i].name;
         EXPECT_EQ(all[i].row_sum, one.row_sum) << c[i].name;
         EXPECT_EQ(all[i].row_sq, one.row_sq) << c[i].name;
      }
   }
   EXPECT_TRUE(dev::estimate_fills({}, nullptr, dev::runtime_allocator()).empty());
}

// A sample of a few block rows of a regular matrix gives its fill.
TEST(RowsDeviceFill, SampleOfARegularMatrix)
{
   const CsrMatrix         a = laplacian_2d(400, 300);
   DeviceCsr               da(a);
   const dev::FillEstimate e = dev::estimate_fill(da.view, nullptr, dev::runtime_allocator(), 256);
   EXPECT_EQ(e.block_rows, 256);
   const Mbsr<double> hm = csr_to_mbsr<double>(a.view());
   const double exact = static_cast<double>(nnz_of(a)) / hm.num_tiles();
   EXPECT_NEAR(e.fill(), exact, 0.05 * exact);
   EXPECT_EQ(e.max_span, 400);
   EXPECT_EQ(e.rows, 4 * 256);
   EXPECT_NEAR(e.row_sum / e.rows, static_cast<double>(nnz_of(a)) / a.nrows, 0.2);
   EXPECT_LT(e.row_cv(), 0.2); // a stencil: rows of 3..5 entries
}

TEST(RowsDeviceErrors, BadInputIsRefused)
{
   const CsrMatrix a = random_csr(5, 7, 0.5, Fill::small_int, 3);
   DeviceCsr       da(a);
   DeviceArray<double> du(std::vector<double>(5, 1.0));
   EXPECT_THROW(dev::make_rows<float>(da.view, du.get(), true, nullptr, dev::runtime_allocator()), amgt::Error);
   const dev::DeviceRows<float> m = dev::make_rows<float>(da.view, nullptr, true, nullptr, dev::runtime_allocator());
   DeviceArray<double> y(5);
   EXPECT_THROW(dev::rows_spmv<float>(m, 1.0, nullptr, 0.0, y.get(), nullptr), amgt::Error);
   EXPECT_THROW(dev::rows_spmv<float>(m, 1.0, y.get(), 0.0, y.get(), nullptr, du.get()), amgt::Error);
}

} // namespace
