// The row sums of a CSR block on the GPU (csr/row_sums_device.h) against the CPU reference
// (csr/row_sums.h) with hypre's warp width: equal exactly, on blocks of every group width (rows
// of 0 to 150 entries: several of hypre's lane rounds), sums and sums of magnitudes, set and
// add, with and without the C/F filter, rows whose sum depends on the order, a block without
// columns, negative zeros and rows either side of a warp's entries; nothing written past the
// output; bad input refused. The weak row sums likewise.
#include "gpu_test_util.h"

#include "common/error.h"
#include "common/row_sums_case.h"
#include "csr/row_sums.h"
#include "csr/row_sums_device.h"

#include <cstring>

namespace {

using namespace amgt;
using namespace amgt::test;
using namespace amgt::test::gpu;

constexpr double kMark = 12345.678; // the guard entry after the output

class RowSumsDevice : public GpuStreamTest
{
protected:
   void check(const RowSumsCase& c)
   {
      std::vector<double> want = c.out;
      row_sums_ref(c.view(want.data()), device::row_sums_warp());

      std::vector<double> start = c.out;
      start.push_back(kMark);
      DeviceArray<int32_t> ia(c.ia), ja(c.ja), cfi(c.cf_i), cfj(c.cf_j);
      DeviceArray<double>  a(c.a), out(start);
      RowSums              m = c.view(out.get());
      m.ia                   = c.ncols > 0 ? ia.get() : nullptr; // a block without columns: not read
      m.ja                   = ja.get();
      m.a                    = a.get();
      m.cf_i                 = c.with_cf ? cfi.get() : nullptr;
      m.cf_j                 = c.with_cf ? cfj.get() : nullptr;
      device::row_sums(m, stream_);
      ASSERT_NO_THROW(device::synchronize(stream_));
      std::vector<double> got = out.to_host();
      EXPECT_EQ(got.back(), kMark) << "wrote past the output";
      got.pop_back();
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i)
      {
         // bit for bit (the sign of a zero too)
         ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(double)), 0)
            << "row " << i << ": " << got[i] << " against " << want[i];
      }
   }
};

TEST_F(RowSumsDevice, EqualsTheReferenceExactly)
{
   for (unsigned seed = 1; seed <= 32; ++seed)
   {
      const int32_t per_row = 1 + static_cast<int32_t>(seed * 7 % 75);
      const int32_t nrows   = 40 + static_cast<int32_t>(seed * 211 % 4000);
      const int32_t ncols   = 1 + static_cast<int32_t>(seed * 13 % 3000);
      SCOPED_TRACE("seed " + std::to_string(seed) + " rows " + std::to_string(nrows) + " per row " +
                   std::to_string(per_row));
      check(make_row_sums_case(nrows, ncols, per_row, seed));
      if (HasFatalFailure()) return;
   }
}

TEST_F(RowSumsDevice, OrderSensitiveRows)
{
   // large terms of opposite signs at every lane distance among ones
   RowSumsCase c;
   c.nrows = 200;
   c.ncols = 200;
   c.set   = 1;
   for (int32_t r = 0; r < c.nrows; ++r)
   {
      const int32_t len = 2 + r % 140;
      for (int32_t k = 0; k < len; ++k)
      {
         c.ja.push_back((r + k) % c.ncols);
         c.a.push_back(k == r % 9 ? 1e16 : k == 1 + r % 13 + r % 9 ? -1e16 : 1.0);
      }
      c.ia.push_back(static_cast<int32_t>(c.ja.size()));
      c.out.push_back(0.0);
   }
   check(c);
   c.type = 1;
   c.set  = 0;
   check(c);
}

// Rows of negative zeros (a sum of -0 terms is +0 in hypre's order, 0.0 + -0.0 first), rows whose
// every entry the C/F filter drops, and rows of 31 to 34 entries, either side of the short-row
// path's bound (a warp's entries), with mean rows that pick groups of 4 and of 32 lanes
TEST_F(RowSumsDevice, SignedZerosFilteredRowsAndTheWarpBound)
{
   for (int32_t base : {1, 31})
   {
      RowSumsCase c;
      c.nrows   = 120;
      c.ncols   = 64;
      c.with_cf = true;
      for (int32_t r = 0; r < c.nrows; ++r)
      {
         const int32_t len = r % 4 == 3 ? 0 : base + r % 4; // 31..33 (or 1..3) and empty rows
         for (int32_t k = 0; k < len; ++k)
         {
            c.ja.push_back((r * 7 + k) % c.ncols);
            c.a.push_back(r % 3 == 0 ? -0.0 : (k % 5 == 0 ? -0.0 : 0.5 - k));
         }
         c.ia.push_back(static_cast<int32_t>(c.ja.size()));
         c.cf_i.push_back(r % 5 == 0 ? 7 : (r % 2 ? 1 : -1)); // 7: no column matches
         c.out.push_back(r % 2 ? -0.0 : 1.5);
      }
      for (int32_t j = 0; j < c.ncols; ++j) c.cf_j.push_back(j % 3 == 0 ? 1 : -1);
      if (base == 31) // one row of 34 entries: two of hypre's lane rounds
      {
         for (int32_t k = 0; k < 34; ++k)
         {
            c.ja.push_back(k);
            c.a.push_back(k % 2 ? -0.0 : 0.25);
         }
         c.ia.push_back(static_cast<int32_t>(c.ja.size()));
         c.cf_i.push_back(1);
         c.out.push_back(0.0);
         ++c.nrows;
      }
      for (int type : {0, 1})
      {
         for (int set : {1, 0})
         {
            SCOPED_TRACE("rows from " + std::to_string(base) + " type " + std::to_string(type) + " set " +
                         std::to_string(set));
            c.type = type;
            c.set  = set;
            c.with_cf = true;
            check(c);
            if (HasFatalFailure()) return;
            c.with_cf = false;
            check(c);
            if (HasFatalFailure()) return;
         }
      }
   }
}

// Blocks whose mean row holds at most 8 entries (a thread a row): rows of 0 to 17 entries, either
// side of the 8- and 16-slot bounds, with a few long rows (33 to 150 entries: the warp's rounds)
// among them, up to all of a warp's rows long; terms that show the order; negative zeros; with
// and without the C/F filter, sums and magnitudes, set and add
TEST_F(RowSumsDevice, ThreadRowsWithLongRowsAmongThem)
{
   for (int32_t long_every : {97, 13, 1})
   {
      RowSumsCase c;
      c.ncols = 500;
      c.nrows = long_every == 1 ? 40 : 3000;
      for (int32_t r = 0; r < c.nrows; ++r)
      {
         const bool    long_row = r % long_every == 0;
         const int32_t len      = long_row ? 33 + (r * 37) % 118 : (r % 5 == 4 ? r % 18 : r % 9);
         for (int32_t k = 0; k < len; ++k)
         {
            c.ja.push_back((r * 11 + k * 3) % c.ncols);
            c.a.push_back(k % 7 == 0 ? -0.0 : (k == r % 6 ? 1e16 : (k == 1 + r % 5 ? -1e16 : 0.25 * k)));
         }
         c.ia.push_back(static_cast<int32_t>(c.ja.size()));
         c.cf_i.push_back(r % 3 == 0 ? 1 : -1);
         c.out.push_back(r % 2 ? -0.0 : 2.5);
      }
      for (int32_t j = 0; j < c.ncols; ++j) c.cf_j.push_back(j % 4 == 0 ? -1 : 1);
      if (long_every != 97)
      {
         // long rows every 13th or every row: the mean is long too, so a hint of a short mean
         // (the kernels read nnz only to choose their width) sends the block to the thread kernel
         c.nnz_hint = 4 * c.nrows;
      }
      const int64_t hint = c.nnz_hint >= 0 ? c.nnz_hint : static_cast<int64_t>(c.ja.size());
      ASSERT_LE((hint + c.nrows - 1) / c.nrows, 8) << "the case must take the thread-a-row kernel";
      for (int type : {0, 1})
      {
         for (int set : {1, 0})
         {
            for (bool cf : {true, false})
            {
               SCOPED_TRACE("long every " + std::to_string(long_every) + " type " + std::to_string(type) +
                            " set " + std::to_string(set) + " cf " + std::to_string(cf));
               c.type    = type;
               c.set     = set;
               c.with_cf = cf;
               check(c);
               if (HasFatalFailure()) return;
            }
         }
      }
   }
}

TEST_F(RowSumsDevice, BlockWithoutColumns)
{
   for (int set : {0, 1})
   {
      RowSumsCase c;
      c.nrows = 3000;
      c.ncols = 0;
      c.set   = set;
      for (int32_t r = 0; r < c.nrows; ++r)
      {
         c.ia.push_back(0);
         c.out.push_back(r % 3 == 0 ? -0.0 : 0.25 * r);
      }
      check(c);
   }
}

TEST_F(RowSumsDevice, BadInputRefusedBeforeAnyLaunch)
{
   const RowSumsCase c = make_row_sums_case(30, 30, 4, 2);
   RowSums           m = c.view(nullptr);
   EXPECT_THROW(device::row_sums(m, stream_), Error);
   m      = c.view(nullptr);
   m.type = 2;
   EXPECT_THROW(device::row_sums(m, stream_), Error);
   EXPECT_NO_THROW(device::row_sums(RowSums{}, stream_));
   EXPECT_NO_THROW(device::synchronize(stream_));
}

class WeakRowSumsDevice : public GpuStreamTest
{
protected:
   void check(const WeakRowSumsCase& c)
   {
      std::vector<double> want = c.rs;
      weak_row_sums_ref(c.view(want.data()), device::row_sums_warp());

      std::vector<double> start = c.rs;
      start.push_back(kMark);
      DeviceArray<int32_t> cf(c.cf_marker), di(c.diag_i), oi(c.offd_i), sd(c.soc_diag_j), so(c.soc_offd_j);
      DeviceArray<double>  da(c.diag_a), oa(c.offd_a), rs(start);
      WeakRowSums          m = c.view(rs.get());
      m.cf_marker            = cf.get();
      m.diag_i               = di.get();
      m.diag_a               = da.get();
      m.soc_diag_j           = sd.get();
      m.offd_i               = oi.get();
      m.offd_a               = oa.get();
      m.soc_offd_j           = so.get();
      device::weak_row_sums(m, stream_);
      ASSERT_NO_THROW(device::synchronize(stream_));
      std::vector<double> got = rs.to_host();
      EXPECT_EQ(got.back(), kMark) << "wrote past the output";
      got.pop_back();
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i)
      {
         ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(double)), 0)
            << "row " << i << ": " << got[i] << " against " << want[i];
      }
   }
};

TEST_F(WeakRowSumsDevice, EqualsTheReferenceExactly)
{
   for (unsigned seed = 1; seed <= 24; ++seed)
   {
      const int32_t per_row = 1 + static_cast<int32_t>(seed * 11 % 70);
      const int32_t nrows   = 30 + static_cast<int32_t>(seed * 307 % 5000);
      SCOPED_TRACE("seed " + std::to_string(seed) + " rows " + std::to_string(nrows) + " per row " +
                   std::to_string(per_row));
      check(make_weak_row_sums_case(nrows, per_row, seed % 3 != 0, seed));
      if (HasFatalFailure()) return;
   }
}

TEST_F(WeakRowSumsDevice, BadInputRefusedBeforeAnyLaunch)
{
   const WeakRowSumsCase c = make_weak_row_sums_case(30, 4, true, 5);
   EXPECT_THROW(device::weak_row_sums(c.view(nullptr), stream_), Error);
   EXPECT_NO_THROW(device::weak_row_sums(WeakRowSums{}, stream_));
   EXPECT_NO_THROW(device::synchronize(stream_));
}

} // namespace
