// GPU CSR <-> mBSR conversion against the CPU reference: structure and values bit for bit.
#include "mbsr/mbsr.h"
#include "mbsr/mbsr_device.h"
#include "common/error.h"
#include "common/precision.h"

#include "conversion_inputs.h"
#include "gpu_test_util.h"

#include "device/backend.h"
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace amgt;
using namespace amgt::test::gpu;
using amgt::test::gpu::block_rows_of;
using amgt::test::gpu::conversion_csr;

// The packed layout of a device matrix against the CPU reference (packed_layout), bit for bit.
template <class V>
void expect_packed_equal(const device::DeviceMbsr<V>& dm, const Mbsr<V>& ref)
{
   ASSERT_EQ(device::device_synchronize(), device::kSuccess);
   const PackedLayout<V> want = packed_layout(ref);
   ASSERT_TRUE(dm.has_packed());
   ASSERT_EQ(dm.packed_val.size(), want.val.size());
   const std::vector<V>       val  = download(dm.packed_val.get(), dm.packed_val.size());
   const std::vector<int64_t> row  = download(dm.packed_row.get(), dm.packed_row.size());
   EXPECT_EQ(row, want.row);
   if (!val.empty()) EXPECT_EQ(std::memcmp(val.data(), want.val.data(), val.size() * sizeof(V)), 0);
   if (dm.packed_meta.size() > 0 || !want.meta.empty())
   {
      EXPECT_EQ(download(dm.packed_meta.get(), dm.packed_meta.size()), want.meta);
   }
}

// The structure (blk_ptr, blk_col, blk_map) and the summary of a device matrix against the
// CPU reference.
template <class V>
void expect_structure_equal(const device::DeviceMbsr<V>& dm, const Mbsr<V>& ref)
{
   ASSERT_EQ(device::device_synchronize(), device::kSuccess);
   EXPECT_EQ(dm.num_tiles, ref.num_tiles());
   EXPECT_EQ(download(dm.blk_ptr.get(), dm.blk_ptr.size()), ref.blk_ptr);
   EXPECT_EQ(download(dm.blk_col.get(), dm.blk_col.size()), ref.blk_col);
   EXPECT_EQ(download(dm.blk_map.get(), dm.blk_map.size()), ref.blk_map);
   if (dm.summary.known)
   {
      const MbsrStats st = mbsr_stats(ref);
      EXPECT_EQ(dm.summary.nnz, st.nnz);
      EXPECT_EQ(dm.summary.dense_tiles, st.dense_tiles);
      EXPECT_EQ(dm.summary.max_tiles_per_block_row, st.max_tiles_per_block_row);
   }
}

// The device conversion of a against the CPU reference, bit for bit, in every layout the
// options ask for; returns the device copy (and what the conversion did, in info).
template <class V>
device::DeviceMbsr<V> check_conversion(const CsrMatrix& a, const device::Allocator& alloc,
                                       const device::ConvertOptions& opt = {},
                                       device::ConversionInfo* info = nullptr)
{
   const DeviceCsr       d(a, Empty::one);
   device::DeviceMbsr<V> dm  = device::csr_to_mbsr<V>(d.view, nullptr, alloc, opt, info);
   const Mbsr<V>         ref = csr_to_mbsr<V>(a.view());
   expect_structure_equal(dm, ref);
   if (opt.dense) EXPECT_TRUE(dm.has_dense());
   if (dm.has_dense())
   {
      const Mbsr<V> got = device::to_host(dm, nullptr);
      EXPECT_EQ(got.blk_val.size(), ref.blk_val.size());
      if (got.blk_val.size() == ref.blk_val.size())
      {
         EXPECT_EQ(std::memcmp(got.blk_val.data(), ref.blk_val.data(), got.blk_val.size() * sizeof(V)), 0);
      }
   }
   if (dm.has_packed()) expect_packed_equal(dm, ref);
   EXPECT_TRUE(dm.has_dense() || dm.has_packed());
   return dm;
}

// An entry-order conversion of a against the reference's tiles: each CSR entry's decode names its
// tile (by rank in the block row) and its bit; with values, its stored value is the CSR's
// rounded once to V (without: the values are lent, nothing to compare).
template <class V>
void expect_entry_decodes(const CsrMatrix& a, const Mbsr<V>& ref, const device::DeviceMbsr<V>& dm, bool values)
{
   const auto meta = download(dm.packed_meta.get(), dm.packed_meta.size());
   const auto val  = download(dm.packed_val.get(), dm.packed_val.size());
   ASSERT_EQ(meta.size(), a.col.size());
   if (values) { ASSERT_EQ(val.size(), a.col.size()); }
   for (int32_t i = 0; i < a.nrows; ++i)
   {
      const int32_t b = i / 4;
      for (int32_t e = a.row_ptr[i]; e < a.row_ptr[i + 1]; ++e)
      {
         const int tile = meta[e] >> 4, bit = meta[e] & 15;
         ASSERT_LT(ref.blk_ptr[b] + tile, ref.blk_ptr[b + 1]);
         ASSERT_EQ(ref.blk_col[ref.blk_ptr[b] + tile], a.col[e] / 4) << "entry " << e;
         ASSERT_EQ(bit, 4 * (i % 4) + a.col[e] % 4) << "entry " << e;
         if (!values) continue;
         const V want = StorageTraits<V>::from_double(a.val[e]);
         ASSERT_EQ(std::memcmp(&val[e], &want, sizeof(V)), 0) << "entry " << e;
      }
   }
}

// Every layout choice of the conversion (dense, packed, both), each against the reference;
// returns whether the hashed conversion ran (the same answer for all three).
template <class V>
bool check_all_layouts(const CsrMatrix& a)
{
   auto   alloc  = device::runtime_allocator();
   bool   hashed = false;
   for (auto [dense, packed] : {std::pair{true, false}, std::pair{false, true}, std::pair{true, true}})
   {
      SCOPED_TRACE(std::string("dense=") + (dense ? "1" : "0") + " packed=" + (packed ? "1" : "0"));
      device::ConvertOptions opt;
      opt.dense  = dense;
      opt.packed = packed;
      device::ConversionInfo info;
      check_conversion<V>(a, alloc, opt, &info);
      if (info.hashed) { EXPECT_STREQ(info.reason, ""); }
      else { EXPECT_STRNE(info.reason, ""); }
      hashed = info.hashed;
   }
   return hashed;
}

template <class V>
void check_roundtrip(const CsrMatrix& a)
{
   check_all_layouts<V>(a);
   auto alloc = device::runtime_allocator();
   auto dm    = check_conversion<V>(a, alloc);
   const Mbsr<V> ref = csr_to_mbsr<V>(a.view());

   int64_t nnz = device::mbsr_nnz(dm, nullptr, alloc);
   EXPECT_EQ(nnz, static_cast<int64_t>(a.col.size()));
   const DeviceArray<int32_t> c_ptr(static_cast<size_t>(a.nrows) + 1, Empty::one);
   const DeviceArray<int32_t> c_col(static_cast<size_t>(nnz), Empty::one);
   const DeviceArray<double>  c_val(static_cast<size_t>(nnz), Empty::one);
   device::mbsr_to_csr(dm, c_ptr.get(), c_col.get(), c_val.get(), nullptr, alloc);
   CsrMatrix back = mbsr_to_csr(ref);
   EXPECT_EQ(c_ptr.to_host(), back.row_ptr);
   EXPECT_EQ(c_col.to_host(), back.col);
   EXPECT_EQ(c_val.to_host(), back.val);
   EXPECT_EQ(device::last_error(), device::kSuccess);
}

class DeviceConversion : public GpuTest
{
};

TEST_F(DeviceConversion, RandomMatricesAllPrecisions)
{
   for (auto [n, m, d] : {std::tuple{1000, 1000, 0.01}, std::tuple{333, 257, 0.05},
                          std::tuple{37, 41, 0.3}, std::tuple{4096, 4096, 0.002},
                          // block rows of ~40k entries: the segmented sort's large-segment path
                          std::tuple{8, 200000, 0.05}})
   {
      CsrMatrix a = conversion_csr(n, m, d, 7u + n, false);
      ASSERT_GT(a.col.size(), 32u);
      check_roundtrip<double>(a);
      check_roundtrip<float>(a);
      check_roundtrip<half_t>(a);
   }
}

TEST_F(DeviceConversion, EdgeCases)
{
   CsrMatrix empty;
   empty.nrows = empty.ncols = 5;
   empty.row_ptr.assign(6, 0);
   check_roundtrip<double>(empty);

   CsrMatrix one; // single entry in a partial last tile
   one.nrows = one.ncols = 7;
   one.row_ptr = {0, 0, 0, 0, 0, 0, 0, 1};
   one.col     = {6};
   one.val     = {2.5};
   check_roundtrip<double>(one);

   CsrMatrix dense = conversion_csr(8, 8, 1.0, 3, true); // full tiles
   check_roundtrip<double>(dense);
   check_roundtrip<half_t>(dense);

   CsrMatrix zero_rows;
   zero_rows.nrows = 0;
   zero_rows.ncols = 3;
   zero_rows.row_ptr = {0};
   check_roundtrip<float>(zero_rows);
}

TEST_F(DeviceConversion, OutOfRangeColumnIsRejected)
{
   CsrMatrix a = conversion_csr(64, 64, 0.1, 11, true);
   ASSERT_FALSE(a.col.empty());
   a.col[a.col.size() / 2] = 64;
   const DeviceCsr d(a, Empty::one);
   EXPECT_THROW(device::csr_to_mbsr<double>(d.view, nullptr, device::runtime_allocator()), amgt::Error);
   EXPECT_EQ(device::last_error(), device::kSuccess);
}

// Duplicate (row, column) entries, unsorted, are summed in input order as the CPU reference
// sums them: values chosen so that another order rounds differently.
TEST_F(DeviceConversion, DuplicatesSummedInInputOrder)
{
   CsrMatrix a;
   a.nrows = 9;
   a.ncols = 11;
   a.row_ptr = {0};
   std::mt19937 rng(5);
   for (int i = 0; i < a.nrows; ++i)
   {
      const int    j    = (3 * i + 1) % a.ncols;
      const double v[5] = {1e16, 1.0, -1e16, 1.0, 0.25 * i};
      for (int k = 0; k < 5; ++k)
      {
         a.col.push_back(j);
         a.val.push_back(v[k]);
         a.col.push_back(static_cast<int>(rng() % a.ncols)); // interleaved other entries
         a.val.push_back(1.0 + k);
      }
      a.row_ptr.push_back(static_cast<int>(a.col.size()));
   }
   check_conversion<double>(a, device::runtime_allocator());
   const Mbsr<double> ref = csr_to_mbsr<double>(a.view());
   // the sum in input order is 1 + 0.25 i (1e16 + 1 rounds to 1e16; the second 1 survives)
   const CsrMatrix back = mbsr_to_csr(ref);
   bool seen = false;
   for (int i = 0; i < a.nrows; ++i)
      for (int k = back.row_ptr[i]; k < back.row_ptr[i + 1]; ++k)
         if (back.col[k] == (3 * i + 1) % a.ncols && back.val[k] == 1.0 + 0.25 * i) seen = true;
   EXPECT_TRUE(seen);
}

// A row pointer that decreases or does not end at nnz is refused before anything is indexed
// by it (the conversion walks rows and sorts block-row segments taken from it).
TEST_F(DeviceConversion, InvalidRowPointerIsRejected)
{
   const CsrMatrix a = conversion_csr(64, 64, 0.1, 12, true);
   ASSERT_GT(a.col.size(), 10u);
   for (int variant = 0; variant < 3; ++variant)
   {
      std::vector<int32_t> ptr(a.row_ptr.begin(), a.row_ptr.end());
      if (variant == 0) std::swap(ptr[10], ptr[20]);   // decreasing
      if (variant == 1) ptr.back() += 1000;            // past nnz
      if (variant == 2) ptr.front() = 1;               // not starting at 0
      const DeviceCsr d(a, Empty::one, &ptr);
      EXPECT_THROW(device::csr_to_mbsr<double>(d.view, nullptr, device::runtime_allocator()), amgt::Error)
          << "variant " << variant;
      EXPECT_EQ(device::last_error(), device::kSuccess);
   }
}

TEST_F(DeviceConversion, HashedTiersAgainstTheReference)
{
   const CsrMatrix a =
       block_rows_of({0, 1, 8, 9, 16, 17, 32, 33, 128, 129, 300, 512, 513, 2000, 4096, 7, 0, 3}, 1500, 21);
   ASSERT_EQ(check_all_layouts<double>(a), true);
   EXPECT_TRUE(check_all_layouts<float>(a));
   EXPECT_TRUE(check_all_layouts<half_t>(a));
   device::ConversionInfo info;
   device::ConvertOptions opt;
   opt.packed = true;
   check_conversion<double>(a, device::runtime_allocator(), opt, &info);
   ASSERT_TRUE(info.hashed);
   // non-empty block rows per tier (entries <= 32, <= 128, <= 512, <= 4096): {1, 8, 9, 16, 17,
   // 32, 7, 3 (partial)}, {33, 128}, {129, 300, 512}, {513, 2000, 4096}
   const int64_t want[device::kConversionTiers] = {8, 2, 3, 3};
   for (int k = 0; k < device::kConversionTiers; ++k) EXPECT_EQ(info.tier_rows[k], want[k]) << "tier " << k;
}

// Pass 2 ranks a block row's tiles by counting when they are few (at most 2 a thread: 128 in
// tier 1, 64 threads, which never sorts; 256 in tier 2, 128 threads; 512 in tier 3, 256 threads)
// and by a bitonic sort above that: both ways in tiers 2 and 3. 1500 block columns; expected distinct tiles of E random positions
// 1500 (1 - (1 - 1/1500)^E): E = 200 -> ~187, 300 -> ~272 (tier 2, counting up to 256, so
// sorted), 129 -> ~124, 600 -> ~495 (tier 3, counting up to 512), 1500 -> ~948 and 4096 ->
// ~1400 (tier 3, sorted). The exact counts are checked against the reference's.
TEST_F(DeviceConversion, HashedTileRankingByCountingAndBySorting)
{
   const CsrMatrix a = block_rows_of({200, 300, 129, 600, 1500, 4096, 40, 100}, 6000, 25);
   const Mbsr<double> ref = csr_to_mbsr<double>(a.view());
   int counted = 0, sorted = 0;
   for (int32_t b = 0; b < ref.block_rows(); ++b)
   {
      const int32_t E = a.row_ptr[std::min(4 * b + 4, a.nrows)] - a.row_ptr[4 * b];
      const int32_t D = ref.blk_ptr[b + 1] - ref.blk_ptr[b];
      const int     cap = E <= 32 ? 0 : E <= 128 ? 2 * 64 : E <= 512 ? 2 * 128 : 2 * 256;
      if (E > 32) (D <= cap ? counted : sorted) += 1;
   }
   EXPECT_GE(counted, 4); // 200, 129, 600, 40, 100
   EXPECT_GE(sorted, 3);  // 300, 1500, 4096
   EXPECT_TRUE(check_all_layouts<double>(a));
   EXPECT_TRUE(check_all_layouts<float>(a));
   EXPECT_TRUE(check_all_layouts<half_t>(a));
   for (const bool lend : {false, true})
   {
      device::ConvertOptions opt;
      opt.dense       = false;
      opt.packed      = true;
      opt.entry_order = true;
      opt.lend_values = lend;
      device::ConversionInfo info;
      const DeviceCsr        d(a, Empty::one);
      const auto             dm = device::csr_to_mbsr<double>(d.view, nullptr, device::runtime_allocator(), opt, &info);
      ASSERT_TRUE(info.hashed);
      expect_structure_equal(dm, ref);
      expect_entry_decodes(a, ref, dm, /*values=*/!lend);
   }
}

// Past the last tier, with duplicates, or on request: the sorted conversion, same results.
TEST_F(DeviceConversion, SortedFallbacks)
{
   const CsrMatrix longer = block_rows_of({3, 4097, 10}, 1500, 22);
   EXPECT_FALSE(check_all_layouts<double>(longer));
   EXPECT_FALSE(check_all_layouts<half_t>(longer));

   const CsrMatrix plain = block_rows_of({3, 40, 10}, 100, 23);
   device::ConversionInfo info;
   device::ConvertOptions opt;
   opt.path   = device::ConversionPath::sorted;
   opt.packed = true;
   const auto dm = check_conversion<double>(plain, device::runtime_allocator(), opt, &info);
   EXPECT_FALSE(info.hashed);
   EXPECT_TRUE(dm.has_dense()); // the sorted conversion always builds the dense layout
   EXPECT_TRUE(check_all_layouts<double>(plain));
}

TEST_F(DeviceConversion, DuplicatesGoToTheSortedConversion)
{
   CsrMatrix a = block_rows_of({3, 40, 10}, 100, 24);
   a.col.push_back(a.col.back()); // the last row repeats its last column
   a.val.push_back(0.5);
   a.row_ptr.back() += 1;
   EXPECT_FALSE(check_all_layouts<double>(a));
}

// One pass (no dense layout: tiles to a scratch at each block row's first CSR entry, then
// compacted) and two passes give the same matrix, equal to the reference bit for bit, in every
// tier, precision and packed order, with the tiles ranked by block column or in first-seen
// order (ConvertOptions::sorted_tiles = false: the reference reorder_tiles_first_seen, block
// rows of tier 0 sorted); the dense layout always takes two passes.
template <class V>
void check_one_and_two_passes(const CsrMatrix& a)
{
   {
      device::ConvertOptions dense;
      dense.packed       = true;  // dense and packed: two passes whatever one_pass says
      dense.sorted_tiles = false; // ignored with the dense layout: ranked (the SpGEMM needs it)
      device::ConversionInfo info;
      const auto dm = check_conversion<V>(a, device::runtime_allocator(), dense, &info); // the sorted reference
      EXPECT_TRUE(info.hashed);
      EXPECT_FALSE(info.one_pass);
      EXPECT_TRUE(dm.tiles_sorted);
   }
   const Mbsr<V> sorted_ref = csr_to_mbsr<V>(a.view());
   const Mbsr<V> seen_ref   = reorder_tiles_first_seen(sorted_ref, a.view(), device::kSortedTilesMaxEntries);
   for (const bool entry_order : {false, true})
   {
      for (const bool one_pass : {true, false})
      {
         for (const bool sorted : {true, false})
         {
            SCOPED_TRACE(std::string("entry_order=") + (entry_order ? "1" : "0") + " one_pass=" +
                         (one_pass ? "1" : "0") + " sorted=" + (sorted ? "1" : "0"));
            device::ConvertOptions opt;
            opt.dense        = false;
            opt.packed       = true;
            opt.entry_order  = entry_order;
            opt.one_pass     = one_pass;
            opt.sorted_tiles = sorted;
            device::ConversionInfo info;
            const DeviceCsr        d(a, Empty::one);
            const auto dm = device::csr_to_mbsr<V>(d.view, nullptr, device::runtime_allocator(), opt, &info);
            ASSERT_TRUE(info.hashed) << info.reason;
            EXPECT_EQ(info.one_pass, one_pass);
            EXPECT_EQ(dm.tiles_sorted, sorted);
            const Mbsr<V>& ref = sorted ? sorted_ref : seen_ref;
            expect_structure_equal(dm, ref); // with the summary: dense tiles, the longest block row
            ASSERT_TRUE(dm.summary.known);
            if (!entry_order) expect_packed_equal(dm, ref);
            else { expect_entry_decodes(a, ref, dm, /*values=*/true); } // not lent: the values were copied
         }
      }
   }
}

TEST_F(DeviceConversion, OnePassEqualsTwoPassesInEveryTier)
{
   // tiers 0-3 by entries a block row, ranking by counting and by sorting, empty block rows
   const CsrMatrix a = block_rows_of({0, 1, 8, 9, 16, 17, 32, 33, 128, 129, 300, 512, 513, 2000, 4096, 7, 0, 3}, 1500, 41);
   check_one_and_two_passes<double>(a);
   // its long block rows' tiles are not first seen in ascending order: the unsorted checks are
   // not the sorted ones twice
   const Mbsr<double> ascending = csr_to_mbsr<double>(a.view());
   EXPECT_NE(reorder_tiles_first_seen(ascending, a.view(), device::kSortedTilesMaxEntries).blk_col, ascending.blk_col);
   check_one_and_two_passes<float>(a);
   check_one_and_two_passes<half_t>(a);
   // many short block rows (tier 0 walks them in fours) and a random matrix
   check_one_and_two_passes<double>(conversion_csr(4003, 3001, 0.002, 42, false));
   check_one_and_two_passes<float>(conversion_csr(203, 190, 0.3, 43, false));
   EXPECT_EQ(device::last_error(), device::kSuccess);
}

// One pass finds duplicates and bad columns itself (there is no pass 1): a duplicate in any
// tier sends the matrix to the sorted conversion with what one pass wrote discarded, a
// column out of range is refused, and nothing is left on the device's error state.
TEST_F(DeviceConversion, OnePassFindsDuplicatesAndBadColumns)
{
   device::ConvertOptions opt;
   opt.dense  = false;
   opt.packed = true;
   for (const int32_t E : {10, 100, 400, 3000}) // tiers 0, 1, 2, 3
   {
      SCOPED_TRACE("block row of " + std::to_string(E) + " entries");
      CsrMatrix a = block_rows_of({3, E, 10}, 1500, 44);
      // the fullest row of the second block row repeats its first entry's column at its end
      int32_t row = 4;
      for (int32_t i = 5; i < 8; ++i)
         if (a.row_ptr[i + 1] - a.row_ptr[i] > a.row_ptr[row + 1] - a.row_ptr[row]) row = i;
      const int32_t first = a.row_ptr[row];
      ASSERT_LT(first, a.row_ptr[row + 1]);
      a.col.insert(a.col.begin() + a.row_ptr[row + 1], a.col[first]);
      a.val.insert(a.val.begin() + a.row_ptr[row + 1], 0.5);
      for (int32_t i = row + 1; i <= a.nrows; ++i) a.row_ptr[i] += 1;
      device::ConversionInfo info;
      const auto dm = check_conversion<double>(a, device::runtime_allocator(), opt, &info);
      EXPECT_FALSE(info.hashed);
      EXPECT_FALSE(info.one_pass);
      EXPECT_STRNE(info.reason, "");
      EXPECT_EQ(device::mbsr_nnz(dm, nullptr, device::runtime_allocator()), static_cast<int64_t>(a.col.size()) - 1);

      CsrMatrix bad = block_rows_of({3, E, 10}, 1500, 45);
      bad.col[bad.row_ptr[4]] = bad.ncols; // out of range: the second block row's first entry
      const DeviceCsr d(bad, Empty::one);
      EXPECT_THROW(device::csr_to_mbsr<double>(d.view, nullptr, device::runtime_allocator(), opt), amgt::Error);
      EXPECT_EQ(device::last_error(), device::kSuccess);
   }
}

// The summary (counted by the hashed conversion) serves mbsr_nnz without a pass.
TEST_F(DeviceConversion, SummaryOfTheHashedConversion)
{
   const CsrMatrix a     = conversion_csr(203, 190, 0.3, 31, false);
   auto            alloc = device::runtime_allocator();
   device::ConvertOptions opt;
   opt.dense  = false;
   opt.packed = true;
   const auto dm = check_conversion<double>(a, alloc, opt);
   ASSERT_TRUE(dm.summary.known);
   EXPECT_FALSE(dm.has_dense());
   EXPECT_EQ(device::mbsr_nnz(dm, nullptr, alloc), static_cast<int64_t>(a.col.size()));
}

} // namespace
