// CSR <-> mBSR conversion: exact round trips, the format's invariants, statistics, and
// rejection of malformed input.
#include "common/csr_utils.h"
#include "common/storage_types.h"
#include "common/error.h"
#include "common/random_matrix.h"
#include "mbsr/mbsr.h"

#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <set>
#include <string>
#include <utility>

namespace {

using amgt::CsrMatrix;
using amgt::CsrView;
using amgt::half_t;
using amgt::Mbsr;
using namespace amgt::test;

template <class V>
double value_of(const Mbsr<V>& m, size_t t, int bit)
{
   return amgt::StorageTraits<V>::to_double(m.blk_val[t * 16 + static_cast<size_t>(bit)]);
}

// The invariants of mbsr.h, checked here with plain loops (independently of validate_mbsr).
template <class V>
void expect_well_formed(const Mbsr<V>& m)
{
   const int32_t brows = (m.nrows + 3) / 4, bcols = (m.ncols + 3) / 4;
   ASSERT_EQ(m.block_rows(), brows);
   ASSERT_EQ(m.block_cols(), bcols);
   ASSERT_EQ(m.blk_ptr.size(), static_cast<size_t>(brows) + 1);
   ASSERT_EQ(m.blk_ptr.front(), 0);
   ASSERT_EQ(static_cast<size_t>(m.blk_ptr.back()), m.blk_col.size());
   ASSERT_EQ(m.blk_map.size(), m.blk_col.size());
   ASSERT_EQ(m.blk_val.size(), 16 * m.blk_col.size());
   for (int32_t bi = 0; bi < brows; ++bi)
   {
      ASSERT_LE(m.blk_ptr[bi], m.blk_ptr[bi + 1]);
      for (int32_t t = m.blk_ptr[bi]; t < m.blk_ptr[bi + 1]; ++t)
      {
         ASSERT_GE(m.blk_col[t], 0);
         ASSERT_LT(m.blk_col[t], bcols);
         if (t > m.blk_ptr[bi]) { ASSERT_LT(m.blk_col[t - 1], m.blk_col[t]) << "block row " << bi; }
         ASSERT_NE(m.blk_map[t], 0) << "stored tile without entries";
         for (int bit = 0; bit < 16; ++bit)
         {
            const int  i = bi * 4 + bit / 4, j = m.blk_col[t] * 4 + bit % 4;
            const bool set = (m.blk_map[t] >> bit) & 1u;
            if (set)
            {
               ASSERT_LT(i, m.nrows) << "bit past the last row";
               ASSERT_LT(j, m.ncols) << "bit past the last column";
            }
            else
            {
               ASSERT_EQ(value_of(m, static_cast<size_t>(t), bit), 0.0)
                   << "value under a clear bit";
            }
         }
      }
   }
}

void expect_same_csr(const CsrMatrix& got, const CsrMatrix& want, const std::string& what)
{
   ASSERT_EQ(got.nrows, want.nrows) << what;
   ASSERT_EQ(got.ncols, want.ncols) << what;
   ASSERT_EQ(got.row_ptr, want.row_ptr) << what;
   ASSERT_EQ(got.col, want.col) << what;
   ASSERT_EQ(got.val.size(), want.col.size()) << what;
   for (size_t p = 0; p < got.val.size(); ++p)
      ASSERT_EQ(got.val[p], value_at(want, p)) << what << ": entry " << p;
}

int64_t distinct_tiles(const CsrMatrix& a)
{
   std::set<std::pair<int32_t, int32_t>> tiles;
   for (int32_t i = 0; i < a.nrows; ++i)
      for (int32_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) tiles.insert({i / 4, a.col[p] / 4});
   return static_cast<int64_t>(tiles.size());
}

template <class V>
void check_round_trip(const CsrMatrix& a, const std::string& name)
{
   const Mbsr<V> m = amgt::csr_to_mbsr<V>(a.view());
   expect_well_formed(m);
   EXPECT_NO_THROW(amgt::validate_mbsr(m)) << name;
   const CsrMatrix want = rounded_to<V>(canonical(a));
   EXPECT_EQ(m.nrows, a.nrows);
   EXPECT_EQ(m.ncols, a.ncols);
   EXPECT_EQ(m.nnz(), nnz_of(want)) << name;
   EXPECT_EQ(m.num_tiles(), distinct_tiles(a)) << name;
   expect_same_csr(amgt::mbsr_to_csr(m), want, name);
}

template <class V>
class MbsrTyped : public ::testing::Test
{};
TYPED_TEST_SUITE(MbsrTyped, StorageTypes);

TYPED_TEST(MbsrTyped, RoundTripEdgeMatrices)
{
   int64_t total = 0;
   for (const NamedMatrix& e : edge_matrices())
   {
      SCOPED_TRACE(e.name);
      check_round_trip<TypeParam>(e.a, e.name);
      total += nnz_of(e.a);
   }
   EXPECT_GT(total, 500);
}

TYPED_TEST(MbsrTyped, RoundTripRandom)
{
   uint32_t seed = 100;
   for (int32_t n : {1, 2, 3, 4, 5, 8, 17, 64, 131})
      for (double density : {0.02, 0.2, 0.9})
         for (Fill fill : {Fill::small_int, Fill::random})
         {
            const CsrMatrix a = random_csr(n, n + 3, density, fill, ++seed);
            SCOPED_TRACE("n=" + std::to_string(n) + " density=" + std::to_string(density));
            check_round_trip<TypeParam>(a, "random");
         }
   const CsrMatrix big = random_csr(200, 200, 0.05, Fill::random, 7);
   ASSERT_GT(nnz_of(big), 1000);
   check_round_trip<TypeParam>(big, "random 200");
}

TYPED_TEST(MbsrTyped, StoredZerosKeepTheirBits)
{
   CsrMatrix a = from_entries(5, 5, {{0, 0, 0.0}, {1, 2, 1.0}, {4, 4, 0.0}, {3, 1, -0.0}});
   const Mbsr<TypeParam> m = amgt::csr_to_mbsr<TypeParam>(a.view());
   EXPECT_EQ(m.nnz(), 4);
   ASSERT_EQ(m.num_tiles(), 2);
   EXPECT_EQ(m.blk_map[0], (1u << 0) | (1u << 6) | (1u << 13)); // (0,0), (1,2), (3,1)
   EXPECT_EQ(m.blk_map[1], 1u);                                 // (4,4) alone in tile (1,1)
   const CsrMatrix back = amgt::mbsr_to_csr(m);
   EXPECT_EQ(back.col, (std::vector<int32_t>{0, 2, 1, 4}));
   EXPECT_EQ(back.val, (std::vector<double>{0.0, 1.0, 0.0, 0.0}));
}

TYPED_TEST(MbsrTyped, DuplicatesAreSummed)
{
   // (0,1): 2+3; (2,5): 1-1 cancels but stays stored; (5,0): 1+1-3.
   CsrMatrix       a    = from_entries(6, 6,
                                       {{0, 1, 2.0},
                                        {0, 1, 3.0},
                                        {2, 5, 1.0},
                                        {2, 2, -1.0},
                                        {2, 5, -1.0},
                                        {5, 0, 1.0},
                                        {5, 0, 1.0},
                                        {5, 0, -3.0}});
   const CsrMatrix back = amgt::mbsr_to_csr(amgt::csr_to_mbsr<TypeParam>(a.view()));
   EXPECT_EQ(back.row_ptr, (std::vector<int32_t>{0, 1, 1, 3, 3, 3, 4}));
   EXPECT_EQ(back.col, (std::vector<int32_t>{1, 2, 5, 0}));
   EXPECT_EQ(back.val, (std::vector<double>{5.0, -1.0, 0.0, -1.0}));
}

TEST(Mbsr, TileLayoutByHand)
{
   // 5 x 6: block rows {0..3}, {4}; block cols {0..3}, {4,5}.
   CsrMatrix          a = from_entries(5, 6, {{3, 4, 4.0}, {1, 3, 2.0}, {4, 5, 3.0}, {0, 0, 1.0}});
   const Mbsr<double> m = amgt::csr_to_mbsr<double>(a.view());
   EXPECT_EQ(m.blk_ptr, (std::vector<int32_t>{0, 2, 3}));
   EXPECT_EQ(m.blk_col, (std::vector<int32_t>{0, 1, 1}));
   EXPECT_EQ(m.blk_map, (std::vector<uint16_t>{0x0081, 0x1000, 0x0002}));
   ASSERT_EQ(m.blk_val.size(), 48u);
   EXPECT_EQ(m.blk_val[0], 1.0);       // (0,0) of tile (0,0)
   EXPECT_EQ(m.blk_val[7], 2.0);       // (1,3) of tile (0,0)
   EXPECT_EQ(m.blk_val[16 + 12], 4.0); // (3,0) of tile (0,1)
   EXPECT_EQ(m.blk_val[32 + 1], 3.0);  // (0,1) of tile (1,1)
   double sum = 0;
   for (double v : m.blk_val) sum += v;
   EXPECT_EQ(sum, 10.0); // nothing else is nonzero
}

// The packed layout by hand: the 5 x 6 matrix of TileLayoutByHand, then a round trip of
// random matrices through it (packed + bitmaps give back the dense tile values).
TEST(Mbsr, PackedLayoutByHand)
{
   CsrMatrix          a = from_entries(5, 6, {{3, 4, 4.0}, {1, 3, 2.0}, {4, 5, 3.0}, {0, 0, 1.0}});
   const Mbsr<double> m = amgt::csr_to_mbsr<double>(a.view());
   const auto         p = amgt::packed_layout(m);
   // block row 0: tile (0,0) holds bits 0 and 7, tile (0,1) bit 12; block row 1: bit 1
   EXPECT_EQ(p.val, (std::vector<double>{1.0, 2.0, 4.0, 3.0}));
   EXPECT_EQ(p.row, (std::vector<int64_t>{0, 3, 4}));
   EXPECT_EQ(p.meta, (std::vector<uint16_t>{0x00, 0x07, 0x1c, 0x01}));
}

// The GPU conversion's first-seen tile order, by hand: block row 0 (rows 0-3) stores, in CSR
// order, columns 9, 1, 8 (row 0), 4, 1 (row 2): block columns 2, 0, 1 in that order; block row
// 1 (row 4) one tile. With sorted_max_entries = 5 block row 0 (5 entries) keeps the ascending
// order; with 4 it is reordered, its values moving with their tiles.
TEST(Mbsr, TilesInFirstSeenOrderByHand)
{
   const CsrMatrix a = from_entries(5, 12, {{0, 9, 1.0}, {0, 1, 2.0}, {0, 8, 3.0}, {2, 4, 4.0}, {2, 1, 5.0},
                                            {4, 0, 6.0}});
   // from_entries stores each row's entries in the order given
   ASSERT_EQ(a.col, (std::vector<int32_t>{9, 1, 8, 4, 1, 0}));
   const Mbsr<double> m = amgt::csr_to_mbsr<double>(a.view());
   ASSERT_EQ(m.blk_col, (std::vector<int32_t>{0, 1, 2, 0}));
   const Mbsr<double> same = amgt::reorder_tiles_first_seen(m, a.view(), 5);
   EXPECT_EQ(same.blk_col, m.blk_col);
   EXPECT_EQ(same.blk_val, m.blk_val);
   const Mbsr<double> r = amgt::reorder_tiles_first_seen(m, a.view(), 4);
   EXPECT_EQ(r.blk_ptr, m.blk_ptr);
   EXPECT_EQ(r.blk_col, (std::vector<int32_t>{2, 0, 1, 0}));
   // tile (0,2): bits 1 (row 0, col 9) and 0 (row 0, col 8); (0,0): bits 1 and 9; (0,1): bit 8
   EXPECT_EQ(r.blk_map, (std::vector<uint16_t>{0x0003, 0x0202, 0x0100, 0x0001}));
   EXPECT_EQ(r.blk_val[0 * 16 + 0], 3.0);
   EXPECT_EQ(r.blk_val[0 * 16 + 1], 1.0);
   EXPECT_EQ(r.blk_val[1 * 16 + 1], 2.0);
   EXPECT_EQ(r.blk_val[1 * 16 + 9], 5.0);
   EXPECT_EQ(r.blk_val[2 * 16 + 8], 4.0);
   EXPECT_EQ(r.blk_val[3 * 16 + 0], 6.0);
   const auto p = amgt::packed_layout(r); // the packed entries follow the tiles
   EXPECT_EQ(p.val, (std::vector<double>{3.0, 1.0, 2.0, 5.0, 4.0, 6.0}));
   EXPECT_EQ(p.meta, (std::vector<uint16_t>{0x00, 0x01, 0x11, 0x19, 0x28, 0x00}));
   EXPECT_THROW(amgt::validate_mbsr(r), amgt::Error) << "no longer ascending";
   const CsrMatrix other = from_entries(5, 12, {{0, 10, 1.0}});
   EXPECT_THROW(amgt::reorder_tiles_first_seen(m, other.view(), 0), amgt::Error) << "not m's CSR";
}

TYPED_TEST(MbsrTyped, PackedLayoutHoldsTheDenseValues)
{
   using V = TypeParam;
   for (uint32_t seed : {1u, 2u, 3u})
   {
      const CsrMatrix a = random_csr(61, 45, 0.2, Fill::random, seed);
      const Mbsr<V>   m = amgt::csr_to_mbsr<V>(a.view());
      const auto      p = amgt::packed_layout(m);
      ASSERT_EQ(p.val.size(), static_cast<size_t>(m.nnz()));
      ASSERT_EQ(p.meta.size(), p.val.size());
      ASSERT_EQ(p.row.size(), static_cast<size_t>(m.block_rows()) + 1);
      EXPECT_EQ(p.row.back(), m.nnz());
      std::vector<V> dense(m.blk_val.size(), amgt::StorageTraits<V>::from_double(0.0));
      for (int32_t b = 0; b < m.block_rows(); ++b)
      {
         for (int64_t k = p.row[b]; k < p.row[b + 1]; ++k)
         {
            const int32_t t   = m.blk_ptr[b] + (p.meta[k] >> 4);
            const int     bit = p.meta[k] & 15;
            ASSERT_LT(t, m.blk_ptr[b + 1]);
            ASSERT_TRUE((m.blk_map[t] >> bit) & 1u);
            dense[static_cast<size_t>(t) * 16 + bit] = p.val[k];
            if (k > p.row[b]) // ascending (tile, bit) inside a block row
            {
               ASSERT_LT(p.meta[k - 1], p.meta[k]);
            }
         }
      }
      for (size_t i = 0; i < dense.size(); ++i)
         ASSERT_EQ(amgt::StorageTraits<V>::to_double(dense[i]), amgt::StorageTraits<V>::to_double(m.blk_val[i]))
             << "value " << i;
   }
}

TEST(Mbsr, HalfStorageRoundsOnceFromDouble)
{
   // 1 + 2^-11 + 2^-40 rounds up in one step, down via float: the conversion must be direct.
   const double    v = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
   const CsrMatrix a = from_entries(1, 1, {{0, 0, v}});
   const auto      m = amgt::csr_to_mbsr<half_t>(a.view());
   EXPECT_EQ(m.blk_val[0].bits, 0x3c01);
}

TEST(Mbsr, StatsByHand)
{
   // 12 x 12: tile (0,0) full (16), tile (0,1) 10 entries, tile (0,2) 1, tile (1,1) 9,
   // block row 2 empty.
   std::vector<Entry> e;
   for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) e.push_back({r, c, 1.0});
   for (int n = 0; n < 10; ++n) e.push_back({n / 4, 4 + n % 4, 2.0});
   e.push_back({2, 9, 3.0});
   for (int n = 0; n < 9; ++n) e.push_back({4 + n / 4, 4 + n % 4, 4.0});
   const CsrMatrix       a = from_entries(12, 12, e);
   const auto            m = amgt::csr_to_mbsr<float>(a.view());
   const amgt::MbsrStats s = amgt::mbsr_stats(m);
   EXPECT_EQ(s.tiles, 4);
   EXPECT_EQ(s.nnz, 36);
   EXPECT_EQ(s.dense_tiles, 2); // 16 and 10 reach kDenseTileNnz, 9 does not
   EXPECT_DOUBLE_EQ(s.fill, 9.0);
   EXPECT_EQ(s.max_tiles_per_block_row, 3);
   EXPECT_EQ(m.num_tiles(), 4);
   EXPECT_EQ(m.nnz(), 36);
   EXPECT_EQ(amgt::kDenseTileNnz, 10);
}

TEST(Mbsr, StatsOfEmptyMatrices)
{
   for (const NamedMatrix& e : edge_matrices())
   {
      if (nnz_of(e.a) != 0) continue;
      const amgt::MbsrStats s = amgt::mbsr_stats(amgt::csr_to_mbsr<double>(e.a.view()));
      EXPECT_EQ(s.tiles, 0) << e.name;
      EXPECT_EQ(s.nnz, 0) << e.name;
      EXPECT_EQ(s.fill, 0.0) << e.name;
      EXPECT_EQ(s.max_tiles_per_block_row, 0) << e.name;
   }
}

TEST(Mbsr, BlockCountsDoNotOverflow)
{
   Mbsr<double> m;
   m.nrows = INT32_MAX;
   m.ncols = INT32_MAX - 2;
   EXPECT_EQ(m.block_rows(), 536870912);
   EXPECT_EQ(m.block_cols(), 536870912);
   m.nrows = 8;
   EXPECT_EQ(m.block_rows(), 2);
}

// Returns the message of the amgt::Error that converting `a` throws ("" if none).
std::string conversion_error(const CsrView& a)
{
   try
   {
      (void)amgt::csr_to_mbsr<double>(a);
   }
   catch (const amgt::Error& e)
   {
      // The same input must be rejected in every precision.
      EXPECT_THROW((void)amgt::csr_to_mbsr<float>(a), amgt::Error);
      EXPECT_THROW((void)amgt::csr_to_mbsr<half_t>(a), amgt::Error);
      return e.message();
   }
   return "";
}

TEST(Mbsr, RejectsMalformedCsr)
{
   const std::vector<int32_t> rp{0, 2, 3, 5};
   const std::vector<int32_t> col{0, 2, 1, 0, 3};
   const std::vector<double>  val{1, 2, 3, 4, 5};
   const CsrView              good{3, 4, 5, rp.data(), col.data(), val.data()};
   ASSERT_EQ(conversion_error(good), "");

   CsrView a = good;
   a.nrows   = -1;
   EXPECT_NE(conversion_error(a).find("rows"), std::string::npos);
   a       = good;
   a.ncols = -4;
   EXPECT_NE(conversion_error(a).find("columns"), std::string::npos);
   a     = good;
   a.nnz = -5;
   EXPECT_NE(conversion_error(a).find("nonzeros"), std::string::npos);
   a     = good;
   a.nnz = 4; // row_ptr[nrows] != nnz
   EXPECT_NE(conversion_error(a).find("row_ptr[nrows]"), std::string::npos);
   a.nnz = 6;
   EXPECT_NE(conversion_error(a).find("row_ptr[nrows]"), std::string::npos);
   a       = good;
   a.ncols = 3; // column 3 now out of range
   EXPECT_NE(conversion_error(a).find("column index 3"), std::string::npos);
   a         = good;
   a.row_ptr = nullptr;
   EXPECT_NE(conversion_error(a).find("row_ptr is null"), std::string::npos);
   a     = good;
   a.col = nullptr;
   EXPECT_NE(conversion_error(a).find("col is null"), std::string::npos);

   const std::vector<int32_t> rp_start{1, 2, 3, 5};
   a         = good;
   a.row_ptr = rp_start.data();
   EXPECT_NE(conversion_error(a).find("row_ptr[0]"), std::string::npos);
   const std::vector<int32_t> rp_down{0, 3, 2, 5};
   a.row_ptr = rp_down.data();
   EXPECT_NE(conversion_error(a).find("decreases"), std::string::npos);
   const std::vector<int32_t> col_neg{0, 2, -1, 0, 3};
   a     = good;
   a.col = col_neg.data();
   EXPECT_NE(conversion_error(a).find("column index -1"), std::string::npos);

   // Empty matrices with null arrays are fine (hypre leaves them unallocated).
   EXPECT_EQ(conversion_error(CsrView{0, 0, 0, nullptr, nullptr, nullptr}), "");
   EXPECT_EQ(conversion_error(CsrView{0, 5, 0, nullptr, nullptr, nullptr}), "");
   const std::vector<int32_t> zeros(4, 0);
   EXPECT_EQ(conversion_error(CsrView{3, 3, 0, zeros.data(), nullptr, nullptr}), "");
}

TEST(Mbsr, CsrMatrixViewChecksItsArrays)
{
   CsrMatrix a = random_csr(6, 6, 0.5, Fill::small_int, 3);
   ASSERT_GT(nnz_of(a), 0);
   EXPECT_NO_THROW(a.view());
   EXPECT_EQ(a.view().nnz, nnz_of(a));
   a.val.pop_back();
   EXPECT_THROW(a.view(), amgt::Error);
   a.val.clear(); // pattern only: allowed, val == nullptr
   EXPECT_EQ(a.view().val, nullptr);
   a.row_ptr.pop_back();
   EXPECT_THROW(a.view(), amgt::Error);
}

TEST(Mbsr, ErrorCarriesFileAndLine)
{
   try
   {
      AMGT_REQUIRE(1 + 1 == 3, "arithmetic is broken");
      FAIL() << "AMGT_REQUIRE did not throw";
   }
   catch (const amgt::Error& e)
   {
      const std::string what = e.what();
      EXPECT_NE(what.find("test_mbsr.cpp:"), std::string::npos) << what;
      EXPECT_NE(what.find(": arithmetic is broken"), std::string::npos) << what;
      EXPECT_EQ(e.message(), "arithmetic is broken");
      EXPECT_GT(e.line(), 0);
      EXPECT_NE(std::string(e.file()).find("test_mbsr.cpp"), std::string::npos);
      EXPECT_EQ(what,
                std::string(e.file()) + ":" + std::to_string(e.line()) + ": arithmetic is broken");
   }
   EXPECT_NO_THROW(AMGT_REQUIRE(true, "never"));
   EXPECT_THROW(AMGT_THROW("always"), std::runtime_error); // catchable as the standard base
}

TEST(Mbsr, ValidateMbsrCatchesCorruption)
{
   const CsrMatrix    a    = random_csr(13, 10, 0.4, Fill::small_int, 21);
   const Mbsr<double> good = amgt::csr_to_mbsr<double>(a.view());
   ASSERT_GE(good.blk_ptr[1] - good.blk_ptr[0], 2) << "block row 0 needs two tiles for this test";
   EXPECT_NO_THROW(amgt::validate_mbsr(good));

   auto expect_rejected = [](const Mbsr<double>& m, const char* what) {
      EXPECT_THROW(amgt::validate_mbsr(m), amgt::Error) << what;
   };
   Mbsr<double> m = good;
   std::swap(m.blk_col[0], m.blk_col[1]);
   expect_rejected(m, "unsorted block columns");
   m            = good;
   m.blk_col[1] = m.blk_col[0];
   expect_rejected(m, "repeated block column");
   m            = good;
   m.blk_col[0] = good.block_cols();
   expect_rejected(m, "block column out of range");
   m            = good;
   m.blk_map[0] = 0;
   expect_rejected(m, "empty bitmap");
   m = good;
   ASSERT_NE(m.blk_map[0], 0xffff) << "tile 0 needs a clear bit for this test";
   for (int bit = 0; bit < 16; ++bit)
      if (!((m.blk_map[0] >> bit) & 1u))
      {
         m.blk_val[static_cast<size_t>(bit)] = 1.0;
         break;
      }
   expect_rejected(m, "value under a clear bit");
   m = good;
   m.blk_ptr.pop_back();
   expect_rejected(m, "short blk_ptr");
   m            = good;
   m.blk_ptr[1] = static_cast<int32_t>(m.blk_col.size()) + 5;
   expect_rejected(m, "blk_ptr past the tiles");
   m = good;
   m.blk_val.pop_back();
   expect_rejected(m, "short blk_val");
   // 13 rows, 10 columns: the last block row has one valid row, the last block column two.
   m = good;
   {
      const size_t t = static_cast<size_t>(m.blk_ptr[3]);
      ASSERT_LT(t, m.blk_col.size()) << "block row 3 needs a tile for this test";
      m.blk_map[t] |= 1u << 4; // row 13 does not exist
   }
   expect_rejected(m, "bit past the last row");
   m = good;
   {
      size_t t = 0;
      while (t < m.blk_col.size() && m.blk_col[t] != 2) ++t;
      ASSERT_LT(t, m.blk_col.size()) << "block column 2 needs a tile for this test";
      m.blk_map[t] |= 1u << 3; // column 11 does not exist
   }
   expect_rejected(m, "bit past the last column");
}

} // namespace
