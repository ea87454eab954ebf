// The entry-order conversion (mbsr_device.h, ConvertOptions::entry_order) against the CPU
// reference: the tiles (blk_ptr, blk_col, blk_map) equal csr_to_mbsr's bit for bit (with
// sorted_tiles = false, in first-seen order: reorder_tiles_first_seen's); every CSR
// entry's decode, written at the entry's own position, names its tile and its place in the
// tile; the values are the CSR's own array (fp64, lent: nothing copied) or the CSR's values
// rounded once, in CSR order; the SpMV (the entries kernel, the only one the plan allows)
// equals spmv_ref bit for bit on small-integer inputs; what needs the sorted conversion
// (duplicates, block rows past 4096 entries) comes back in bitmap order.
#include "mbsr/mbsr.h"
#include "mbsr/mbsr_device.h"
#include "spmv/spmv.h"
#include "spmv/spmv_device.h"
#include "common/error.h"
#include "common/spmv_inputs.h"
#include "common/storage_types.h"

#include "conversion_inputs.h"
#include "gpu_test_util.h"

#include "device/backend.h"
#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace amgt;
using namespace amgt::test::gpu;
using amgt::test::bits_of;

device::ConvertOptions entry_order_options(bool lend, bool sorted = true)
{
   device::ConvertOptions opt;
   opt.dense        = false;
   opt.packed       = true;
   opt.entry_order  = true;
   opt.lend_values  = lend;
   opt.sorted_tiles = sorted;
   return opt;
}

// y = 2 A x - y0 on the device copy against spmv_ref of the reference, bit for bit (small
// integers: exact in every precision and summation order); adds the nonzero results to nonzero.
template <class V>
void expect_spmv_equals_reference(const device::DeviceMbsr<V>& dm, const device::SpmvPlan<V>& plan,
                                  const Mbsr<V>& ref, int& nonzero)
{
   std::vector<double> x(static_cast<size_t>(ref.ncols)), y0(static_cast<size_t>(ref.nrows));
   for (size_t j = 0; j < x.size(); ++j) x[j] = static_cast<double>(static_cast<int>(j % 7) - 3);
   for (size_t i = 0; i < y0.size(); ++i) y0[i] = static_cast<double>(static_cast<int>(i % 5) - 2);
   std::vector<double> want = y0;
   spmv_ref(ref, 2.0, x.data(), -1.0, want.data());
   const DeviceArray<double> dx(x), dy(y0);
   device::spmv<V>(dm, plan, 2.0, dx.get(), -1.0, dy.get(), nullptr);
   EXPECT_EQ(device::device_synchronize(), device::kSuccess);
   const std::vector<double> y = dy.to_host();
   for (size_t i = 0; i < y.size(); ++i)
   {
      ASSERT_EQ(y[i], want[i]) << "row " << i;
      nonzero += y[i] != 0.0;
   }
}

// One conversion in entry order, checked against the reference; then its SpMV. Adds the
// number of nonzero results to nonzero (the check is not vacuous). sorted: the tiles equal
// the reference's array for array; else (ConvertOptions::sorted_tiles = false) the
// reference's in first-seen order (reorder_tiles_first_seen), and the decodes below must name
// each entry's own tile in that order.
template <class V>
void check_entry_order(const CsrMatrix& a, bool lend, bool sorted, const std::string& name, int& nonzero)
{
   SCOPED_TRACE(name + (lend ? " lent" : " copied") + (sorted ? " sorted" : " unsorted tiles"));
   const DeviceCsr        d(a, Empty::one);
   AllocCounter           counter;
   device::ConversionInfo info;
   {
      const device::DeviceMbsr<V> dm = device::csr_to_mbsr<V>(d.view, nullptr, counting_allocator(counter),
                                                              entry_order_options(lend, sorted), &info);
      EXPECT_EQ(device::device_synchronize(), device::kSuccess);
      EXPECT_TRUE(info.hashed) << info.reason;
      const Mbsr<V> ref = sorted ? csr_to_mbsr<V>(a.view())
                                 : reorder_tiles_first_seen(csr_to_mbsr<V>(a.view()), a.view(),
                                                            device::kSortedTilesMaxEntries);
      EXPECT_EQ(dm.num_tiles, ref.num_tiles());
      const std::vector<int32_t>  blk_ptr = download(dm.blk_ptr.get(), dm.blk_ptr.size());
      const std::vector<int32_t>  blk_col = download(dm.blk_col.get(), dm.blk_col.size());
      const std::vector<uint16_t> blk_map = download(dm.blk_map.get(), dm.blk_map.size());
      EXPECT_EQ(blk_ptr, ref.blk_ptr);
      const int64_t nnz = static_cast<int64_t>(a.col.size());
      EXPECT_EQ(dm.tiles_sorted, sorted || nnz == 0);
      EXPECT_EQ(blk_col, ref.blk_col);
      EXPECT_EQ(blk_map, ref.blk_map);
      if (nnz == 0) return; // nothing to order (the conversion of an empty matrix)
      EXPECT_FALSE(dm.has_dense());
      EXPECT_TRUE(dm.entry_order);

      // block row b's entries start where its first CSR row does
      const std::vector<int64_t> row = download(dm.packed_row.get(), dm.packed_row.size());
      ASSERT_EQ(row.size(), static_cast<size_t>(dm.block_rows) + 1);
      for (int32_t b = 0; b <= dm.block_rows; ++b)
         ASSERT_EQ(row[static_cast<size_t>(b)], a.row_ptr[static_cast<size_t>(std::min(4 * b, a.nrows))]) << "block row " << b;

      // every entry's decode, at its CSR position
      const std::vector<uint16_t> meta = download(dm.packed_meta.get(), dm.packed_meta.size());
      ASSERT_EQ(meta.size(), static_cast<size_t>(nnz));
      for (int32_t i = 0; i < a.nrows; ++i)
      {
         const int32_t b = i / 4;
         for (int32_t e = a.row_ptr[static_cast<size_t>(i)]; e < a.row_ptr[static_cast<size_t>(i) + 1]; ++e)
         {
            const int32_t c = a.col[static_cast<size_t>(e)];
            const int     t = meta[static_cast<size_t>(e)] >> 4;
            ASSERT_LT(blk_ptr[static_cast<size_t>(b)] + t, blk_ptr[static_cast<size_t>(b) + 1]) << "entry " << e;
            ASSERT_EQ(blk_col[static_cast<size_t>(blk_ptr[static_cast<size_t>(b)] + t)], c / 4) << "entry " << e;
            ASSERT_EQ(meta[static_cast<size_t>(e)] & 15, 4 * (i % 4) + c % 4) << "entry " << e;
         }
      }

      // the values: the CSR's own array when lent in fp64, else its values rounded once
      if (lend && std::is_same_v<V, double>)
      {
         EXPECT_EQ(dm.packed_values(), reinterpret_cast<const V*>(d.view.val));
         EXPECT_EQ(dm.packed_val.size(), 0u);
      }
      else
      {
         EXPECT_EQ(dm.packed_lent, nullptr);
         const std::vector<V> val = download(dm.packed_val.get(), dm.packed_val.size());
         ASSERT_EQ(val.size(), static_cast<size_t>(nnz));
         for (size_t e = 0; e < val.size(); ++e)
            // widening to double is exact and one to one: equal widenings, equal stored bits
            ASSERT_EQ(bits_of(StorageTraits<V>::to_double(val[e])),
                      bits_of(StorageTraits<V>::to_double(StorageTraits<V>::from_double(a.val[e]))))
               << "value " << e;
      }

      // the SpMV: the entries kernel, whatever the plan would have chosen for bitmap order
      const device::SpmvPlan<V> plan = device::make_spmv_plan<V>(dm, nullptr, counting_allocator(counter));
      EXPECT_EQ(plan.path, device::SpmvPath::cuda_core_entries);
      EXPECT_THROW(device::make_spmv_plan<V>(dm, nullptr, counting_allocator(counter), device::SpmvPath::cuda_core_tiles),
                   amgt::Error);
      expect_spmv_equals_reference(dm, plan, ref, nonzero);
   }
   EXPECT_EQ(counter.live, 0) << "every buffer comes back";
}

// Small integers, so that every precision holds the values exactly and the SpMV is exact.
CsrMatrix small_int_values(CsrMatrix a)
{
   for (size_t e = 0; e < a.val.size(); ++e) a.val[e] = static_cast<double>(static_cast<int>(e % 7) - 3);
   return a;
}

template <class V>
class EntryOrder : public GpuTest
{
};
using amgt::test::StorageTypes;
TYPED_TEST_SUITE(EntryOrder, StorageTypes);

// Every tier of the hashed conversion (entries per block row up to 4096, a partial last block
// row, empty block rows) and random matrices with unsorted columns and empty rows.
TYPED_TEST(EntryOrder, TilesDecodesValuesAndSpmvAgainstTheReference)
{
   using V = TypeParam;
   const std::vector<std::pair<std::string, CsrMatrix>> cases = {
      {"tiers", small_int_values(block_rows_of({0, 1, 8, 9, 16, 17, 32, 33, 128, 129, 300, 512, 513, 2000, 4096, 7, 0, 3},
                                               1500, 31))},
      {"random_1000", conversion_csr(1000, 1000, 0.01, 32, true)},
      {"random_333x257", conversion_csr(333, 257, 0.05, 33, true)},
      {"dense_rows_61x70", conversion_csr(61, 70, 0.6, 34, true)},
      {"empty_5x5", CsrMatrix{5, 5, {0, 0, 0, 0, 0, 0}, {}, {}}},
   };
   int nonzero = 0;
   for (const auto& [name, a] : cases)
   {
      for (bool lend : {true, false})
         for (bool sorted : {true, false}) check_entry_order<V>(a, lend, sorted, name, nonzero);
   }
   EXPECT_GT(nonzero, 2000);
}

// The bitmap-order copy with its tiles in first-seen order (what the library converts in
// fp32/fp16): every CUDA-core SpMV path equals spmv_ref bit for bit on small-integer inputs
// (the packed entries follow the tiles' order; the kernels take any order).
TYPED_TEST(EntryOrder, FirstSeenBitmapOrderSpmvOnEveryCudaCorePath)
{
   using V = TypeParam;
   const std::vector<std::pair<std::string, CsrMatrix>> cases = {
      {"tiers", small_int_values(block_rows_of({0, 1, 8, 9, 16, 17, 32, 33, 128, 129, 300, 512, 513, 2000, 4096, 7, 0, 3},
                                               1500, 31))},
      {"random_1000", small_int_values(conversion_csr(1000, 1000, 0.01, 32, true))},
      {"dense_rows_61x70", small_int_values(conversion_csr(61, 70, 0.6, 34, true))},
   };
   int nonzero = 0;
   for (const auto& [name, a] : cases)
   {
      SCOPED_TRACE(name);
      const DeviceCsr        d(a, Empty::one);
      device::ConvertOptions opt;
      opt.dense        = false;
      opt.packed       = true;
      opt.sorted_tiles = false;
      device::ConversionInfo info;
      const device::DeviceMbsr<V> dm = device::csr_to_mbsr<V>(d.view, nullptr, device::runtime_allocator(), opt, &info);
      ASSERT_TRUE(info.hashed) << info.reason;
      EXPECT_FALSE(dm.tiles_sorted);
      EXPECT_FALSE(dm.entry_order);
      const Mbsr<V> ref = csr_to_mbsr<V>(a.view());
      for (const device::SpmvPath path : {device::SpmvPath::automatic, device::SpmvPath::cuda_core,
                                          device::SpmvPath::cuda_core_balanced, device::SpmvPath::cuda_core_tiles,
                                          device::SpmvPath::cuda_core_entries})
      {
         SCOPED_TRACE(device::to_string(path));
         const device::SpmvPlan<V> plan = device::make_spmv_plan<V>(dm, nullptr, device::runtime_allocator(), path);
         expect_spmv_equals_reference(dm, plan, ref, nonzero);
      }
   }
   EXPECT_GT(nonzero, 1000);
}

// Duplicates and block rows past 4096 entries take the sorted conversion: bitmap order, the
// dense layout, no decode in entry order; the plan chooses its path as for any matrix.
TEST(EntryOrderFallback, SortedConversionKeepsBitmapOrder)
{
   CsrMatrix dup = small_int_values(block_rows_of({3, 40, 10}, 100, 35));
   dup.col.push_back(dup.col.back());
   dup.val.push_back(1.0);
   dup.row_ptr.back() += 1;
   const CsrMatrix longer = small_int_values(block_rows_of({3, 4097, 10}, 1500, 36));
   for (const CsrMatrix* a : {static_cast<const CsrMatrix*>(&dup), &longer})
   {
      const DeviceCsr             d(*a, Empty::one);
      device::ConversionInfo      info;
      const device::DeviceMbsr<double> dm =
         device::csr_to_mbsr<double>(d.view, nullptr, device::runtime_allocator(), entry_order_options(true, false), &info);
      EXPECT_FALSE(info.hashed);
      EXPECT_FALSE(dm.entry_order);
      EXPECT_TRUE(dm.tiles_sorted); // the sorted conversion ignores sorted_tiles
      EXPECT_EQ(dm.packed_lent, nullptr);
      EXPECT_TRUE(dm.has_dense());
      const device::SpmvPlan<double> plan = device::make_spmv_plan<double>(dm, nullptr, device::runtime_allocator());
      std::vector<double> x(static_cast<size_t>(a->ncols), 1.0), want(static_cast<size_t>(a->nrows), 0.0);
      csr_spmv_ref(a->view(), 1.0, x.data(), 0.0, want.data());
      const DeviceArray<double> dx(x), dy(std::vector<double>(static_cast<size_t>(a->nrows), 0.0));
      device::spmv<double>(dm, plan, 1.0, dx.get(), 0.0, dy.get(), nullptr);
      EXPECT_EQ(dy.to_host(), want);
   }
}

} // namespace
