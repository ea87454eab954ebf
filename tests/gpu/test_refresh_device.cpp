// AMGT_RESETUP's refresh of a device copy's values in place (rows_device.h refresh_rows_values,
// mbsr_device.h refresh_packed_values, both on the row-wise value pass csr_values_to) against
// its reference: a new copy made from the new values by the conversion itself (make_rows, csr_to_mbsr with the same options), bit for bit,
// in fp64, fp32 and fp16, scaled and unscaled, with and without 16-bit offsets, lent and owned
// values; the structure arrays untouched; copies the refresh does not cover refused.
// A GPU test that finds no GPU fails: it never passes by skipping.
#include "common/amg_products.h"
#include "common/csr_utils.h"
#include "common/error.h"
#include "common/random_matrix.h"
#include "common/storage_types.h"
#include "mbsr/mbsr_device.h"
#include "precision/range_device.h"
#include "rows/rows_device.h"

#include "gpu_test_util.h"

#include <gtest/gtest.h>

#include <cstring>
#include <type_traits>
#include <vector>

namespace {

using namespace amgt;
using namespace amgt::test;
using namespace amgt::test::gpu;
namespace dev = amgt::device;

template <class V>
class RefreshDevice : public GpuStreamTest
{
};
TYPED_TEST_SUITE(RefreshDevice, StorageTypes);

// The same structure with other values (every value changed, none zero).
CsrMatrix with_new_values(const CsrMatrix& a, uint32_t seed)
{
   CsrMatrix     b   = a;
   std::mt19937  rng(seed);
   for (double& v : b.val) v = draw_value(rng, Fill::random) * 3.0;
   return b;
}

template <class V>
std::vector<unsigned char> raw(const V* d, size_t n)
{
   std::vector<unsigned char> h(n * sizeof(V));
   if (n) EXPECT_EQ(dev::memcpy_blocking(h.data(), d, h.size(), dev::Copy::to_host), dev::kSuccess);
   return h;
}

void put_values(DeviceCsr& d, const CsrMatrix& a)
{
   ASSERT_EQ(dev::memcpy_blocking(d.val.get(), a.val.data(), a.val.size() * sizeof(double), dev::Copy::to_device),
             dev::kSuccess);
   ASSERT_EQ(dev::device_synchronize(), dev::kSuccess);
}

TYPED_TEST(RefreshDevice, RowsEqualANewBuildOfTheNewValues)
{
   using V                 = TypeParam;
   const CsrMatrix old_a   = stencil_3d(13, 11, 9, 27, Fill::random, 5);
   const CsrMatrix new_a   = with_new_values(old_a, 6);
   const auto      alloc   = dev::runtime_allocator();
   for (bool scaled : {false, true})
   {
      for (bool narrow : {false, true})
      {
         SCOPED_TRACE(std::string(scaled ? "scaled" : "unscaled") + (narrow ? ", 16-bit offsets" : ""));
         DeviceCsr           d(old_a);
         DeviceArray<double> u(static_cast<size_t>(old_a.nrows));
         if (scaled) dev::scaling_vector(d.view, u.get(), this->stream_);
         dev::DeviceRows<V> r = dev::make_rows<V>(d.view, scaled ? u.get() : nullptr, narrow, this->stream_, alloc);
         ASSERT_EQ(dev::stream_synchronize(this->stream_), dev::kSuccess);
         const std::vector<unsigned char> old_vals = raw(r.val, static_cast<size_t>(r.nnz));
         const std::vector<int16_t> old_col16 = r.col16.size() ? download(r.col16.get(), r.col16.size()) : std::vector<int16_t>{};

         put_values(d, new_a);
         if (scaled) dev::scaling_vector(d.view, u.get(), this->stream_);
         dev::refresh_rows_values<V>(r, d.view, scaled ? u.get() : nullptr, this->stream_);
         const dev::DeviceRows<V> fresh =
            dev::make_rows<V>(d.view, scaled ? u.get() : nullptr, narrow, this->stream_, alloc);
         ASSERT_EQ(dev::stream_synchronize(this->stream_), dev::kSuccess);

         const bool lent = std::is_same_v<V, double> && !scaled;
         EXPECT_EQ(r.own_val.size() == 0, lent);
         const std::vector<unsigned char> got = raw(r.val, static_cast<size_t>(r.nnz));
         EXPECT_EQ(got, raw(fresh.val, static_cast<size_t>(fresh.nnz)));
         EXPECT_NE(got, old_vals); // the values did change
         EXPECT_EQ(r.narrow, fresh.narrow);
         if (r.narrow) EXPECT_EQ(download(r.col16.get(), r.col16.size()), old_col16);
         EXPECT_EQ(r.row_ptr, d.view.row_ptr);
         EXPECT_EQ(r.col, d.view.col);
      }
   }
}

TYPED_TEST(RefreshDevice, EntryOrderMbsrEqualsANewConversionOfTheNewValues)
{
   using V               = TypeParam;
   const CsrMatrix old_a = shuffled_rows(stencil_3d(12, 10, 9, 7, Fill::random, 7), 11);
   const CsrMatrix new_a = with_new_values(old_a, 8);
   const auto      alloc = dev::runtime_allocator();
   for (bool scaled : {false, true})
   {
      const bool lend = std::is_same_v<V, double> && !scaled;
      SCOPED_TRACE(std::string(scaled ? "scaled" : "unscaled") + (lend ? ", lent" : ""));
      dev::ConvertOptions opt = dev::spmv_copy_options(true, lend);
      DeviceCsr           d(old_a);
      DeviceArray<double> u(static_cast<size_t>(old_a.nrows)), w(old_a.val.size());
      auto                source = [&] {
         if (!scaled) return d.view;
         dev::scaling_vector(d.view, u.get(), this->stream_);
         dev::scaled_values(d.view, u.get(), w.get(), this->stream_);
         CsrView sv = d.view;
         sv.val     = w.get();
         return sv;
      };
      dev::ConversionInfo   info;
      dev::DeviceMbsr<V>    m = dev::csr_to_mbsr<V>(source(), this->stream_, alloc, opt, &info);
      ASSERT_TRUE(info.hashed);
      ASSERT_TRUE(m.entry_order);
      const int64_t nnz = static_cast<int64_t>(old_a.val.size());
      const std::vector<unsigned char> old_vals = raw(m.packed_values(), static_cast<size_t>(nnz));
      const std::vector<uint16_t>      meta     = download(m.packed_meta.get(), m.packed_meta.size());

      put_values(d, new_a);
      // the fresh copy as the library converts one (scaled: scaled_values' output converted);
      // the refresh reads the CSR itself and scales on the way
      const CsrView now = source();
      dev::refresh_packed_values<V>(m, d.view, scaled ? u.get() : nullptr, this->stream_);
      const dev::DeviceMbsr<V> fresh = dev::csr_to_mbsr<V>(now, this->stream_, alloc, opt);
      ASSERT_EQ(dev::stream_synchronize(this->stream_), dev::kSuccess);

      const std::vector<unsigned char> got = raw(m.packed_values(), static_cast<size_t>(nnz));
      EXPECT_EQ(got, raw(fresh.packed_values(), static_cast<size_t>(nnz)));
      EXPECT_NE(got, old_vals);
      EXPECT_EQ(download(m.packed_meta.get(), m.packed_meta.size()), meta);
      EXPECT_EQ(download(m.packed_meta.get(), m.packed_meta.size()),
                download(fresh.packed_meta.get(), fresh.packed_meta.size()));
   }
}

TYPED_TEST(RefreshDevice, CopiesItDoesNotCoverAreRefused)
{
   using V             = TypeParam;
   const CsrMatrix a   = stencil_3d(8, 8, 8, 7, Fill::random, 9);
   const auto      alloc = dev::runtime_allocator();
   DeviceCsr       d(a);
   // bitmap order (and the dense layout): the values are not in the CSR's order
   dev::DeviceMbsr<V> bitmap = dev::csr_to_mbsr<V>(d.view, this->stream_, alloc, dev::spmv_copy_options(false, false));
   EXPECT_THROW(dev::refresh_packed_values<V>(bitmap, d.view, nullptr, this->stream_), amgt::Error);
   dev::DeviceMbsr<V> dense = dev::csr_to_mbsr<V>(d.view, this->stream_, alloc);
   EXPECT_THROW(dev::refresh_packed_values<V>(dense, d.view, nullptr, this->stream_), amgt::Error);
   // a row-wise copy of other arrays, or scaled otherwise
   dev::DeviceRows<V> r = dev::make_rows<V>(d.view, nullptr, false, this->stream_, alloc);
   DeviceCsr          other(a);
   EXPECT_THROW(dev::refresh_rows_values<V>(r, other.view, nullptr, this->stream_), amgt::Error);
   DeviceArray<double> u(static_cast<size_t>(a.nrows));
   dev::scaling_vector(d.view, u.get(), this->stream_);
   EXPECT_THROW(dev::refresh_rows_values<V>(r, d.view, u.get(), this->stream_), amgt::Error);
   ASSERT_EQ(dev::stream_synchronize(this->stream_), dev::kSuccess);
}

} // namespace
