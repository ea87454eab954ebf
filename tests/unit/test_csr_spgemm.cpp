// The row-wise CSR SpGEMM on the host (spgemm/csr_spgemm.h): its oracle csr_spgemm_ref against
// a dense product on hand-checkable and random matrices, the planning rules the GPU driver
// follows (bins, tables, teams, hashing, the global bin's batches, the design), and the host
// emulation of the device algorithm (same rules, same hash and probing) against the oracle.
#include "common/amg_products.h"
#include "common/csr_utils.h"
#include "common/error.h"
#include "common/random_matrix.h"
#include "spgemm/csr_spgemm.h"
#include "spgemm/spgemm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using amgt::CsrMatrix;
using amgt::CsrSpgemmDesign;
using namespace amgt::test;
namespace cs = amgt::csr_spgemm;

constexpr CsrSpgemmDesign kDesigns[] = {CsrSpgemmDesign::one_pass, CsrSpgemmDesign::two_pass,
                                        CsrSpgemmDesign::two_pass_tight, CsrSpgemmDesign::lean,
                                        CsrSpgemmDesign::short_rows};

// The oracle's result matches the dense product entry by entry, pattern included (a stored
// entry where the pattern says so, none elsewhere), exactly: small-integer inputs only.
void expect_matches_dense(const CsrMatrix& a, const CsrMatrix& b, const std::string& what)
{
   SCOPED_TRACE(what);
   const CsrMatrix           c       = amgt::csr_spgemm_ref(a.view(), b.view());
   const std::vector<double> dense   = dense_product(a, b);
   const std::vector<char>   pattern = dense_pattern(a, b);
   ASSERT_EQ(c.nrows, a.nrows);
   ASSERT_EQ(c.ncols, b.ncols);
   ASSERT_EQ(c.row_ptr.size(), static_cast<size_t>(a.nrows) + 1);
   std::vector<char> seen(pattern.size(), 0);
   for (int32_t i = 0; i < c.nrows; ++i)
   {
      for (int32_t p = c.row_ptr[i]; p < c.row_ptr[i + 1]; ++p)
      {
         const size_t at = static_cast<size_t>(i) * static_cast<size_t>(c.ncols) + static_cast<size_t>(c.col[p]);
         if (p > c.row_ptr[i]) { EXPECT_LT(c.col[p - 1], c.col[p]) << "row " << i << ": columns ascending"; }
         EXPECT_TRUE(pattern[at]) << "row " << i << " col " << c.col[p] << " is not in the pattern";
         EXPECT_EQ(c.val[p], dense[at]) << "row " << i << " col " << c.col[p];
         seen[at] = 1;
      }
   }
   EXPECT_EQ(seen, pattern) << "an entry of the pattern is missing";
}

TEST(CsrSpgemmRef, HandCheckedProduct)
{
   // A = [1 2 0; 0 0 3], B = [4 0; 5 6; 0 -2] (columns of A's first row stored unsorted):
   // C = [1*4+2*5, 2*6; 0, 3*-2] = [14 12; 0 -6].
   const CsrMatrix a = from_entries(2, 3, {{0, 1, 2.0}, {0, 0, 1.0}, {1, 2, 3.0}});
   const CsrMatrix b = from_entries(3, 2, {{0, 0, 4.0}, {1, 1, 6.0}, {1, 0, 5.0}, {2, 1, -2.0}});
   const CsrMatrix c = amgt::csr_spgemm_ref(a.view(), b.view());
   EXPECT_EQ(c.row_ptr, (std::vector<int32_t>{0, 2, 3}));
   EXPECT_EQ(c.col, (std::vector<int32_t>{0, 1, 1}));
   EXPECT_EQ(c.val, (std::vector<double>{14.0, 12.0, -6.0}));
   expect_matches_dense(a, b, "hand");

   // Cancellation keeps the entry: [1 1] * [1; -1] = 0, stored.
   const CsrMatrix r = from_entries(1, 2, {{0, 0, 1.0}, {0, 1, 1.0}});
   const CsrMatrix s = from_entries(2, 1, {{0, 0, 1.0}, {1, 0, -1.0}});
   const CsrMatrix z = amgt::csr_spgemm_ref(r.view(), s.view());
   EXPECT_EQ(z.col, (std::vector<int32_t>{0}));
   EXPECT_EQ(z.val, (std::vector<double>{0.0}));
}

TEST(CsrSpgemmRef, RandomEdgeAndPatternOnlyMatchDense)
{
   for (uint32_t seed = 1; seed <= 6; ++seed)
   {
      const CsrMatrix a = random_csr(17, 23, 0.2, Fill::small_int, seed);
      const CsrMatrix b = random_csr(23, 11, 0.3, Fill::small_int, seed + 100);
      expect_matches_dense(a, b, "random seed " + std::to_string(seed));
      CsrMatrix a1 = a, b1 = b;
      a1.val.clear(); // NULL data: all ones
      expect_matches_dense(a1, b, "A pattern only");
      b1.val.clear();
      expect_matches_dense(a, b1, "B pattern only");
      expect_matches_dense(a1, b1, "both pattern only");
   }
   for (const NamedMatrix& m : edge_matrices())
   {
      if (m.a.nrows != m.a.ncols) continue;
      expect_matches_dense(m.a, m.a, m.name + " squared");
   }
   expect_matches_dense(stencil_3d(3, 3, 2, 27), interpolation_3d(3, 3, 2), "27-point times P");
}

// ---- planning ----------------------------------------------------------------------------

TEST(CsrSpgemmPlan, BinShapesKeepTablesHalfEmptyAndFitTheirBlocks)
{
   int64_t previous = 0;
   for (int b = 0; b < cs::kSharedBins; ++b)
   {
      SCOPED_TRACE("bin " + std::to_string(b));
      const cs::BinShape s = cs::bin_shape(b);
      EXPECT_GT(s.max_ub, previous) << "bins ascend";
      previous = s.max_ub;
      EXPECT_GE(int64_t{1} << s.log2_table, 2 * s.max_ub) << "load factor <= 1/2: probing ends";
      EXPECT_TRUE(s.group >= 4 && (s.group & (s.group - 1)) == 0) << "group: a power of two >= 4";
      EXPECT_EQ(s.block % s.group, 0);
      EXPECT_EQ(s.block % 32, 0) << "whole warps (the sub-warp groups sync with the warp barrier)";
      EXPECT_LE(s.block, 1024);
      EXPECT_TRUE(s.group <= 32 || s.group == s.block) << "wider than a warp: the whole block";
      EXPECT_LT(cs::shared_bytes(b, false), cs::shared_bytes(b, true));
      if (b <= 6) { EXPECT_LE(cs::shared_bytes(b, true), size_t{24} * 1024 + 256) << "several blocks per SM"; }
   }
   EXPECT_EQ(cs::shared_bytes(0, true), size_t{64} * (32 * 12 + 4));
   // H100 (227 KB opt-in): every bin; 48 KB without opt-in: up to bin 6; nothing: none
   EXPECT_EQ(cs::usable_shared_bins(227 * 1024), cs::kSharedBins);
   EXPECT_EQ(cs::usable_shared_bins(48 * 1024), 7);
   EXPECT_EQ(cs::usable_shared_bins(0), 0);
}

TEST(CsrSpgemmPlan, BinOfRoutesByUpperBound)
{
   EXPECT_EQ(cs::bin_of(0, cs::kSharedBins), -1) << "empty rows go nowhere";
   EXPECT_EQ(cs::bin_of(-3, cs::kSharedBins), -1);
   EXPECT_EQ(cs::bin_of(1, cs::kSharedBins), 0);
   EXPECT_EQ(cs::bin_of(16, cs::kSharedBins), 0);
   EXPECT_EQ(cs::bin_of(17, cs::kSharedBins), 1);
   EXPECT_EQ(cs::bin_of(128, cs::kSharedBins), 3);
   EXPECT_EQ(cs::bin_of(4096, cs::kSharedBins), 8);
   EXPECT_EQ(cs::bin_of(4097, cs::kSharedBins), cs::kGlobalBin);
   EXPECT_EQ(cs::bin_of(int64_t{1} << 40, cs::kSharedBins), cs::kGlobalBin);
   EXPECT_EQ(cs::bin_of(65, 3), cs::kGlobalBin) << "past the usable bins: global";
   EXPECT_EQ(cs::bin_of(64, 3), 2);
   EXPECT_EQ(cs::bin_of(1, 0), cs::kGlobalBin);
   for (int64_t ub = 1; ub <= 5000; ++ub)
   {
      const int b = cs::bin_of(ub, cs::kSharedBins);
      if (b == cs::kGlobalBin) continue;
      ASSERT_LE(ub, cs::bin_shape(b).max_ub);
      if (b > 0) { ASSERT_GT(ub, cs::bin_shape(b - 1).max_ub) << "the first bin that holds it"; }
   }
}

TEST(CsrSpgemmPlan, TeamsArePowersOfTwoWithinGroupAndWarp)
{
   EXPECT_EQ(cs::team_lanes(27 * 4, 27, 4), 4) << "A*P row: P rows of 4";
   EXPECT_EQ(cs::team_lanes(7, 7, 4), 1) << "one B entry per A entry";
   EXPECT_EQ(cs::team_lanes(10 * 40, 10, 1024), 32) << "P^T*(AP): AP rows of 40, capped at a warp";
   EXPECT_EQ(cs::team_lanes(10 * 40, 10, 16), 16) << "capped at the group";
   EXPECT_EQ(cs::team_lanes(5, 0, 32), 1);
   for (int g : {4, 8, 16, 32, 128, 512, 1024})
      for (int64_t ub = 1; ub < 300; ub += 7)
         for (int32_t len = 1; len < 40; len += 3)
         {
            const int t = cs::team_lanes(ub, len, g);
            ASSERT_TRUE(t >= 1 && (t & (t - 1)) == 0 && t <= g && t <= 32) << ub << " " << len << " " << g;
         }
}

TEST(CsrSpgemmPlan, HashSlotsStayInTheirTable)
{
   std::mt19937 rng(5);
   for (int log2 = 1; log2 <= 32; ++log2)
      for (int r = 0; r < 200; ++r)
      {
         const int32_t key = static_cast<int32_t>(rng() & 0x7fffffffu);
         ASSERT_LT(uint64_t{cs::hash_slot(key, log2)}, uint64_t{1} << log2);
      }
   EXPECT_EQ(cs::hash_slot(0, 5), 0u);
   // strided columns (AMG's coarse columns) spread over the slots instead of piling up
   std::vector<int> used(64, 0);
   for (int32_t k = 0; k < 32; ++k) used[cs::hash_slot(k * 64, 6)] = 1;
   int distinct = 0;
   for (int u : used) distinct += u;
   EXPECT_GE(distinct, 24);
}

TEST(CsrSpgemmPlan, GlobalTablesAndBatches)
{
   EXPECT_EQ(cs::global_table_slots(0, 100), 32);
   EXPECT_EQ(cs::global_table_slots(5000, 1 << 30), 16384);
   EXPECT_EQ(cs::global_table_slots(int64_t{1} << 40, 100), 256) << "at most ncols(B) distinct columns";
   EXPECT_EQ(cs::global_table_slots(int64_t{1} << 40, std::numeric_limits<int32_t>::max()), int64_t{1} << 32);

   const std::vector<int64_t> ub{5000, 5000, 9000, 100000, 5000};
   const auto one = cs::plan_global_batches(ub, 1 << 30);
   ASSERT_EQ(one.size(), 1u);
   EXPECT_EQ(one[0].count, ub.size());
   EXPECT_EQ(one[0].offsets, (std::vector<int64_t>{0, 16384, 32768, 65536, 327680, 344064}));

   const auto cut = cs::plan_global_batches(ub, 1 << 30, 40000);
   size_t     rows = 0;
   for (const cs::GlobalBatch& g : cut)
   {
      EXPECT_EQ(g.first, rows) << "batches cover the rows in order";
      ASSERT_EQ(g.offsets.size(), g.count + 1);
      EXPECT_GT(g.count, 0u);
      EXPECT_TRUE(g.offsets.back() <= 40000 || g.count == 1) << "over the bound only alone";
      rows += g.count;
   }
   EXPECT_EQ(rows, ub.size());
   ASSERT_EQ(cut.size(), 4u); // {5000, 5000}, {9000}, {100000} alone, {5000}
   EXPECT_EQ(cut[2].count, 1u);
   EXPECT_EQ(cut[2].offsets.back(), 262144);
   EXPECT_TRUE(cs::plan_global_batches({}, 10).empty());
}

TEST(CsrSpgemmPlan, DesignFollowsTheTemporarysSize)
{
   EXPECT_EQ(cs::one_pass_temp_bytes(0), 0u);
   EXPECT_EQ(cs::one_pass_temp_bytes(10), 120u);
   EXPECT_EQ(cs::one_pass_temp_bytes(std::numeric_limits<int64_t>::max()), std::numeric_limits<size_t>::max());
   const size_t gb = size_t{1} << 30;
   // explicit requests are kept whatever the size
   EXPECT_EQ(cs::choose_design(CsrSpgemmDesign::one_pass, int64_t{1} << 40, 1, 0), CsrSpgemmDesign::one_pass);
   EXPECT_EQ(cs::choose_design(CsrSpgemmDesign::two_pass, 10000, 10, 80 * gb), CsrSpgemmDesign::two_pass);
   EXPECT_EQ(cs::choose_design(CsrSpgemmDesign::one_pass, 10, 10, 80 * gb), CsrSpgemmDesign::one_pass);
   // automatic, heavier rows: a quarter of the free memory
   const int64_t fits = static_cast<int64_t>(20 * gb / 12);
   EXPECT_EQ(cs::choose_design(CsrSpgemmDesign::automatic, fits, 1000, 80 * gb), CsrSpgemmDesign::one_pass);
   EXPECT_EQ(cs::choose_design(CsrSpgemmDesign::automatic, fits + 1, 1000, 80 * gb), CsrSpgemmDesign::two_pass);
   EXPECT_EQ(cs::choose_design(CsrSpgemmDesign::automatic, 0, 0, 0), CsrSpgemmDesign::one_pass);
   // automatic, light rows (mean ub <= 64): two_pass whatever the memory
   EXPECT_EQ(cs::choose_design(CsrSpgemmDesign::automatic, 64 * 1000, 1000, 80 * gb), CsrSpgemmDesign::two_pass);
   EXPECT_EQ(cs::choose_design(CsrSpgemmDesign::automatic, 64 * 1000 + 1, 1000, 80 * gb), CsrSpgemmDesign::one_pass);
   EXPECT_STREQ(amgt::to_string(CsrSpgemmDesign::automatic), "automatic");
   EXPECT_STREQ(amgt::to_string(CsrSpgemmDesign::one_pass), "one_pass");
   EXPECT_STREQ(amgt::to_string(CsrSpgemmDesign::two_pass), "two_pass");
   EXPECT_STREQ(amgt::to_string(CsrSpgemmDesign::two_pass_tight), "two_pass_tight");
   EXPECT_EQ(cs::choose_design(CsrSpgemmDesign::two_pass_tight, 10, 10, 80 * gb), CsrSpgemmDesign::two_pass_tight)
       << "kept when asked for; automatic never picks it";
}

// AMGT_SPGEMM=auto's rules, on the measured products they were drawn from (csr_spgemm.h): many
// rows with short products go to hypre's binned mode (laplace7's L0 A*P, A*A, L0 P^T*(AP), L1
// A*P; the L0 A*P of laplace27 and systems3), long rows of C to the row-wise kernel below 2^14
// rows (systems3's coarsest P^T*(AP)) and to the binned mode above (systems3's L1-L2
// P^T*(AP)); the rest (laplace27's and systems3's A*A, the 7-point and 27-point coarse
// P^T*(AP), products below 2^19 rows with short rows) stay on hypre's default mode. No product
// is claimed by both rules; degenerate sizes reach neither.
TEST(CsrSpgemmPlan, AutoRulesOnTheMeasuredProducts)
{
   struct P
   {
      const char* name;
      int64_t     m, nnz_a, k, nnz_b;
      bool        binned, rows;
   };
   const P products[] = {
       {"laplace7 L0 A*P", 4096000, 28518400, 4096000, 12594719, true, false},
       {"laplace7 A*A", 4096000, 28518400, 4096000, 28518400, true, false},
       {"laplace7 L0 PT*AP", 1263015, 12594719, 4096000, 44195915, true, false},
       {"laplace7 L1 A*P", 1263015, 37074973, 1263015, 4537220, true, false},
       {"laplace7 L1 PT*AP", 169796, 4537220, 1263015, 28206178, false, false},
       {"laplace7 L2 PT*AP", 18914, 621188, 169796, 5707467, false, false},
       {"laplace27 L0 A*P", 1000000, 26463592, 1000000, 3751612, true, false},
       {"laplace27 A*A", 1000000, 26463592, 1000000, 26463592, false, false},
       {"laplace27 L1 PT*AP", 9690, 295889, 81677, 2537072, false, false},
       {"systems3 L0 A*P", 786432, 11624832, 786432, 2407628, true, false},
       {"systems3 A*A", 786432, 11624832, 786432, 11624832, false, false},
       {"systems3 L1 PT*AP", 38322, 865050, 245978, 15763182, true, false},
       {"systems3 L2 PT*AP", 4779, 137590, 38322, 3611281, false, true},
       {"systems3 L3 PT*AP", 634, 15631, 4779, 413811, false, true},
       {"systems3 L4 PT*AP", 58, 1243, 634, 21596, false, false},
       // systems3 n=126
       {"systems3 n126 L0 A*P", 6001128, 89350884, 6001128, 18436157, true, false},
       {"systems3 n126 L0 PT*AP", 1855969, 18436157, 6001128, 153852296, false, false},
       {"systems3 n126 L1 A*P", 1855969, 147464167, 1855969, 6555699, false, false},
       {"systems3 n126 L1 PT*AP", 283220, 6555699, 1855969, 122594879, true, false},
       {"systems3 n126 L2 PT*AP", 33951, 1028129, 283220, 29127189, true, false},
       {"systems3 n126 L3 PT*AP", 4054, 119587, 33951, 3663668, false, true},
       {"systems3 n126 L4 PT*AP", 453, 11740, 4054, 317970, false, true},
       {"systems3 n126 L5 PT*AP", 28, 706, 453, 9929, false, false},
   };
   for (const P& p : products)
   {
      EXPECT_EQ(cs::hypre_binned_wins(p.m, p.nnz_a, p.k, p.nnz_b), p.binned) << p.name;
      EXPECT_EQ(cs::rows_kernel_wins(p.m, p.nnz_a, p.k, p.nnz_b), p.rows) << p.name;
   }
   EXPECT_NEAR(cs::estimated_row_terms(1263015, 12594719, 4096000, 44195915), 107.6, 0.1);
   // the bounds themselves
   const int64_t b = cs::kBinnedMinRows;
   EXPECT_FALSE(cs::hypre_binned_wins(b - 1, 7 * (b - 1), b, 3 * b));
   EXPECT_TRUE(cs::hypre_binned_wins(b, 7 * b, b, 3 * b));
   EXPECT_TRUE(cs::hypre_binned_wins(1 << 20, 8 << 20, 1 << 20, 16 << 20));
   EXPECT_FALSE(cs::hypre_binned_wins(1 << 20, 8 << 20, 1 << 20, (16 << 20) + 8));
   const int64_t r = 4096;
   EXPECT_TRUE(cs::rows_kernel_wins(r, 40 * r, r, 40 * r));   // est_ub 1600
   EXPECT_FALSE(cs::rows_kernel_wins(r, 30 * r, r, 40 * r));  // 1200
   EXPECT_FALSE(cs::rows_kernel_wins(cs::kRowsAutoMinRows - 1, 40 * (cs::kRowsAutoMinRows - 1), r, 40 * r));
   EXPECT_TRUE(cs::rows_kernel_wins(cs::kRowsAutoMinRows, 40 * cs::kRowsAutoMinRows, r, 40 * r));
   const int64_t l = cs::kRowsAutoMaxRows;
   EXPECT_TRUE(cs::rows_kernel_wins(l - 1, 40 * (l - 1), r, 40 * r));
   EXPECT_FALSE(cs::hypre_binned_wins(l - 1, 40 * (l - 1), r, 40 * r));
   EXPECT_FALSE(cs::rows_kernel_wins(l, 40 * l, r, 40 * r)) << "long rows from 2^14 rows on: binned";
   EXPECT_TRUE(cs::hypre_binned_wins(l, 40 * l, r, 40 * r));
   EXPECT_FALSE(cs::hypre_binned_wins(l, 30 * l, r, 40 * r)) << "est_ub 1200: the default mode";
   // degenerate operands
   for (auto rule : {cs::rows_kernel_wins, cs::hypre_binned_wins})
   {
      EXPECT_FALSE(rule(1 << 20, 0, 1 << 20, 100));
      EXPECT_FALSE(rule(1 << 20, 100, 0, 100));
      EXPECT_FALSE(rule(1 << 20, 100, 1 << 20, 0));
      EXPECT_FALSE(rule(0, 100, 1 << 20, 100));
   }
   EXPECT_LT(cs::estimated_row_terms(0, 1, 1, 1), 0.0);
}

TEST(CsrSpgemmPlan, BoundsHistogramAndOffsets)
{
   // B's rows hold 2, 0, 3 entries; A's rows meet B rows {2, 0}, {}, {1}, {0, 1, 2}
   const CsrMatrix b = from_entries(3, 4, {{0, 0, 1}, {0, 3, 1}, {2, 1, 1}, {2, 2, 1}, {2, 3, 1}});
   const CsrMatrix a = from_entries(4, 3, {{0, 2, 1}, {0, 0, 1}, {2, 1, 1}, {3, 0, 1}, {3, 1, 1}, {3, 2, 1}});
   const std::vector<int64_t> ub = cs::row_upper_bounds(a.view(), b.view());
   EXPECT_EQ(ub, (std::vector<int64_t>{5, 0, 0, 5}));
   const std::vector<int64_t> h = cs::bin_histogram({5, 0, 0, 5, 20, 5000, 100}, cs::kSharedBins);
   ASSERT_EQ(h.size(), static_cast<size_t>(cs::kBins));
   EXPECT_EQ(h[0], 2);
   EXPECT_EQ(h[1], 1);
   EXPECT_EQ(h[3], 1);
   EXPECT_EQ(h[cs::kGlobalBin], 1);
   const std::vector<int64_t> off = cs::bin_offsets(h);
   ASSERT_EQ(off.size(), static_cast<size_t>(cs::kBins) + 1);
   EXPECT_EQ(off.front(), 0);
   EXPECT_EQ(off.back(), 5);
   EXPECT_EQ(off[cs::kGlobalBin], 4);
}

// ---- the emulation of the device algorithm -------------------------------------------------

struct Case
{
   std::string name;
   CsrMatrix   a, b;
};

std::vector<Case> product_cases()
{
   std::vector<Case> c;
   const CsrMatrix a27 = stencil_3d(6, 5, 4, 27);
   const CsrMatrix p27 = interpolation_3d(6, 5, 4);
   const CsrMatrix a7  = stencil_3d(7, 6, 5, 7);
   const CsrMatrix p7  = interpolation_3d(7, 6, 5, 2);
   c.push_back({"27pt*P", a27, p27});
   c.push_back({"PT*(27pt*P)", transpose(p27), amgt::csr_spgemm_ref(a27.view(), p27.view())});
   c.push_back({"7pt*P", a7, p7});
   c.push_back({"PT*(7pt*P)", transpose(p7), amgt::csr_spgemm_ref(a7.view(), p7.view())});
   c.push_back({"27pt*27pt", a27, a27});
   // rows in every bin, the global bin included (A rows of 100 x B rows of ~50: ub > 4096)
   const CsrMatrix va = varied_rows(300, 150, {0, 1, 2, 5, 12, 30, 60, 100}, Fill::small_int, 31);
   const CsrMatrix vb = varied_rows(150, 400, {0, 1, 3, 8, 20, 60, 120, 200}, Fill::small_int, 32);
   c.push_back({"varied", va, vb});
   CsrMatrix va1 = va, vb1 = vb;
   va1.val.clear();
   vb1.val.clear();
   c.push_back({"varied, A pattern only", va1, vb});
   c.push_back({"varied, both pattern only", va1, vb1});
   c.push_back({"random", random_csr(40, 50, 0.1, Fill::small_int, 33), random_csr(50, 30, 0.2, Fill::small_int, 34)});
   for (const NamedMatrix& m : edge_matrices())
   {
      if (m.a.nrows == m.a.ncols && m.name != "duplicates") c.push_back({m.name, m.a, m.a});
      if (m.name == "no_entries_5x7") c.push_back({"no entries times random", m.a, random_csr(7, 4, 0.5, Fill::small_int, 35)});
      if (m.name == "no_columns_3x0") c.push_back({"3x0 times 0x5", m.a, varied_rows(0, 5, {1}, Fill::small_int, 36)});
   }
   return c;
}

void expect_same_product(const CsrMatrix& got, const CsrMatrix& want, const std::string& what)
{
   // row lengths as produced (a column twice in a row would lengthen it), then columns sorted
   ASSERT_EQ(got.row_ptr, want.row_ptr) << what;
   const CsrMatrix g = canonical(got);
   ASSERT_EQ(g.nrows, want.nrows) << what;
   ASSERT_EQ(g.ncols, want.ncols) << what;
   ASSERT_EQ(g.row_ptr, want.row_ptr) << what;
   ASSERT_EQ(g.col, want.col) << what;
   // same summation order as the oracle (sequential, A's then B's order): equal values
   ASSERT_EQ(g.val, want.val) << what;
}

TEST(CsrSpgemmEmulation, MatchesTheOracleInEveryConfiguration)
{
   int64_t global_rows = 0, nonzeros = 0, lean_ran = 0, lean_fell_back = 0;
   for (const Case& c : product_cases())
   {
      const CsrMatrix want = amgt::csr_spgemm_ref(c.a.view(), c.b.view());
      for (CsrSpgemmDesign d : kDesigns)
         for (int shared_bins : {cs::kSharedBins, 7, 3, 0})
            for (int64_t batch : {cs::kGlobalBatchSlots, int64_t{32}})
            {
               const std::string what = c.name + " " + amgt::to_string(d) + " shared_bins " +
                                        std::to_string(shared_bins) + " batch " + std::to_string(batch);
               cs::EmulationReport r;
               CsrMatrix           got;
               ASSERT_NO_THROW(got = cs::emulate(c.a.view(), c.b.view(), d, shared_bins, batch, &r)) << what;
               expect_same_product(got, want, what);
               if (d == CsrSpgemmDesign::lean && (shared_bins < cs::kSharedBins || r.lean_fell_back))
               {
                  EXPECT_TRUE(r.lean_fell_back) << what;
                  EXPECT_NE(r.design, CsrSpgemmDesign::lean) << what;
                  lean_fell_back += 1;
               }
               else
               {
                  EXPECT_EQ(r.design, d) << what;
                  EXPECT_FALSE(r.lean_fell_back) << what;
                  lean_ran += d == CsrSpgemmDesign::lean;
               }
               int64_t nonempty = 0;
               for (int64_t u : cs::row_upper_bounds(c.a.view(), c.b.view())) nonempty += u > 0;
               int64_t binned = 0;
               for (int64_t n : r.bin_rows) binned += n;
               EXPECT_EQ(binned, nonempty) << what;
               for (int b = shared_bins; b < cs::kSharedBins; ++b) EXPECT_EQ(r.bin_rows[b], 0) << what;
               global_rows += r.bin_rows[cs::kGlobalBin];
               if (batch == 32) { EXPECT_EQ(r.global_batches, r.bin_rows[cs::kGlobalBin]) << "one row a batch"; }
               for (double v : got.val) nonzeros += v != 0.0;
            }
   }
   EXPECT_GT(global_rows, 0) << "the global bin was exercised";
   EXPECT_GT(nonzeros, 0);
   EXPECT_GT(lean_ran, 0);
   EXPECT_GT(lean_fell_back, 0);
}

TEST(CsrSpgemmEmulation, EveryBinIsExercised)
{
   const Case              c = product_cases()[5]; // varied
   cs::EmulationReport     r;
   cs::emulate(c.a.view(), c.b.view(), CsrSpgemmDesign::one_pass, cs::kSharedBins, cs::kGlobalBatchSlots, &r);
   for (int b = 0; b < cs::kBins; ++b) EXPECT_GT(r.bin_rows[b], 0) << "bin " << b;
   EXPECT_GE(r.global_batches, 1);
   EXPECT_GT(r.sum_ub, 0);
}

// two_pass_tight: the numeric pass bins each row by its exact count, so a P^T*(AP)-like row
// (many products on few columns) lands in a smaller bin than its ub's, and a row of more than
// 4096 distinct columns still goes to the global bin (its table sized by the count); the
// product is the oracle's either way.
TEST(CsrSpgemmEmulation, TightDesignBinsTheNumericPassByCounts)
{
   // 600 rows of 30 entries of A over 40 columns, B rows of 40 entries over 50 columns: ub
   // 1200 (bin 7) and at most 50 distinct columns (all of them here: bin 2)
   const CsrMatrix a = varied_rows(600, 40, {30}, Fill::small_int, 41);
   const CsrMatrix b = varied_rows(40, 50, {40}, Fill::small_int, 42);
   cs::EmulationReport r;
   const CsrMatrix     got = cs::emulate(a.view(), b.view(), CsrSpgemmDesign::two_pass_tight, cs::kSharedBins,
                                         cs::kGlobalBatchSlots, &r);
   expect_same_product(got, amgt::csr_spgemm_ref(a.view(), b.view()), "few columns");
   EXPECT_EQ(r.bin_rows[7], 600) << "the count pass by ub";
   ASSERT_EQ(r.tight_bin_rows.size(), static_cast<size_t>(cs::kBins));
   EXPECT_EQ(r.tight_bin_rows[2], 600) << "the numeric pass by count";
   EXPECT_EQ(r.tight_global_batches, 0);

   // rows of 60 x 100 products over 10000 columns: about 5800 distinct each, past bin 8
   const CsrMatrix wa = varied_rows(6, 60, {60}, Fill::small_int, 43);
   const CsrMatrix wb = varied_rows(60, 10000, {100}, Fill::small_int, 44);
   cs::EmulationReport w;
   const CsrMatrix     wide = cs::emulate(wa.view(), wb.view(), CsrSpgemmDesign::two_pass_tight, cs::kSharedBins,
                                          int64_t{1} << 14, &w);
   expect_same_product(wide, amgt::csr_spgemm_ref(wa.view(), wb.view()), "wide rows");
   EXPECT_EQ(w.tight_bin_rows[cs::kGlobalBin], 6);
   EXPECT_GE(w.tight_global_batches, 2) << "16384-slot batches hold one 16384-slot table each";
   // one_pass and two_pass leave the tight fields empty
   cs::EmulationReport o;
   cs::emulate(a.view(), b.view(), CsrSpgemmDesign::two_pass, cs::kSharedBins, cs::kGlobalBatchSlots, &o);
   EXPECT_TRUE(o.tight_bin_rows.empty());
}

TEST(CsrSpgemmPlan, LeanShapesFillTheirBlockAndKeepTablesHalfEmpty)
{
   for (int b = 0; b < cs::kSharedBins; ++b)
   {
      const cs::LeanShape s = cs::lean_shape(b);
      EXPECT_EQ(s.group * s.rows, cs::kLeanBlock) << "bin " << b;
      EXPECT_EQ(s.log2_table, cs::bin_shape(b).log2_table) << "bin " << b;
      EXPECT_GE(int64_t{1} << s.log2_table, 2 * cs::bin_shape(b).max_ub) << "bin " << b;
      EXPECT_TRUE(s.group == 4 || s.group == 8 || s.group == 16 || s.group % 32 == 0) << "bin " << b;
      if (b < cs::kLeanFused) { EXPECT_LE(cs::lean_shared_bytes(b), 24 * 1024 + 64 * 4) << "bin " << b; }
      EXPECT_LE(cs::lean_shared_bytes(b), size_t{227} * 1024) << "bin " << b << " fits an H100 block";
   }
   EXPECT_EQ(cs::lean_shared_bytes(8), size_t{8192} * 12 + 4);
   EXPECT_EQ(cs::capped_bound(1200, 50), 50);
   EXPECT_EQ(cs::capped_bound(12, 50), 12);
   EXPECT_EQ(cs::capped_bound(0, 0), 0);
   std::vector<int64_t> hist(cs::kBins, 0);
   hist[0] = 3;
   hist[8] = 2;
   hist[cs::kGlobalBin] = 7; // not in the slab
   EXPECT_EQ(cs::lean_slab_entries(hist), 3 * 16 + 2 * 4096);
   EXPECT_STREQ(amgt::to_string(CsrSpgemmDesign::lean), "lean");
}

// The lean design bins a row by min(ub, ncols of B): a P^T*(AP)-like row of 1200 products on 50
// columns takes bin 2; a row of ~5800 distinct columns (past bin 8) makes it fall back to the
// general path, with the same product. automatic never takes it.
TEST(CsrSpgemmEmulation, LeanDesignBinsByCappedBoundAndFallsBack)
{
   const CsrMatrix     a = varied_rows(600, 40, {30}, Fill::small_int, 41);
   const CsrMatrix     b = varied_rows(40, 50, {40}, Fill::small_int, 42);
   cs::EmulationReport r;
   const CsrMatrix     got = cs::emulate(a.view(), b.view(), CsrSpgemmDesign::lean, cs::kSharedBins,
                                         cs::kGlobalBatchSlots, &r);
   expect_same_product(got, amgt::csr_spgemm_ref(a.view(), b.view()), "few columns");
   EXPECT_EQ(r.design, CsrSpgemmDesign::lean);
   cs::EmulationReport ra;
   cs::emulate(a.view(), b.view(), CsrSpgemmDesign::automatic, cs::kSharedBins, cs::kGlobalBatchSlots, &ra);
   EXPECT_NE(ra.design, CsrSpgemmDesign::lean) << "automatic never takes lean";
   EXPECT_FALSE(ra.lean_fell_back);
   EXPECT_FALSE(r.lean_fell_back);
   EXPECT_EQ(r.bin_rows[2], 600) << "capped bound 50: bin 2";
   EXPECT_EQ(r.sum_ub, 600 * 1200);

   const CsrMatrix     wa = varied_rows(6, 60, {60}, Fill::small_int, 43);
   const CsrMatrix     wb = varied_rows(60, 10000, {100}, Fill::small_int, 44);
   cs::EmulationReport w;
   const CsrMatrix     wide = cs::emulate(wa.view(), wb.view(), CsrSpgemmDesign::lean, cs::kSharedBins,
                                          cs::kGlobalBatchSlots, &w);
   expect_same_product(wide, amgt::csr_spgemm_ref(wa.view(), wb.view()), "wide rows");
   EXPECT_TRUE(w.lean_fell_back);
   EXPECT_NE(w.design, CsrSpgemmDesign::lean);
   EXPECT_EQ(w.bin_rows[cs::kGlobalBin], 6);
}

// short_rows (opt-in): the short bins' groups hold their rows' terms (4 per lane), the design is
// kept when asked for and never chosen by automatic, and the emulation writes the short rows'
// columns ascending (the sort kernels' order) and the longer ones in table order.
TEST(CsrSpgemmPlan, ShortRowsBinsFitTheirGroups)
{
   for (int b = 0; b < cs::kShortBins; ++b)
   {
      EXPECT_EQ(cs::bin_shape(b).max_ub, int64_t{cs::kShortTermsPerLane} * cs::bin_shape(b).group) << "bin " << b;
      EXPECT_LE(cs::bin_shape(b).group, 32) << "a group within a warp";
   }
   EXPECT_EQ(cs::bin_shape(cs::kShortBins - 1).max_ub, 128);
   EXPECT_STREQ(amgt::to_string(CsrSpgemmDesign::short_rows), "short_rows");
   EXPECT_EQ(cs::choose_design(CsrSpgemmDesign::short_rows, 10, 10, 0), CsrSpgemmDesign::short_rows);
   for (int64_t sum_ub : {int64_t{0}, int64_t{10}, int64_t{1} << 40})
      EXPECT_NE(cs::choose_design(CsrSpgemmDesign::automatic, sum_ub, 1000, size_t{80} << 30), CsrSpgemmDesign::short_rows);
}

TEST(CsrSpgemmEmulation, ShortRowsComeSorted)
{
   const Case                 c    = product_cases()[5]; // varied: rows in every bin
   const CsrMatrix            want = amgt::csr_spgemm_ref(c.a.view(), c.b.view());
   cs::EmulationReport        r;
   const CsrMatrix            got  = cs::emulate(c.a.view(), c.b.view(), CsrSpgemmDesign::short_rows, cs::kSharedBins,
                                                 cs::kGlobalBatchSlots, &r);
   EXPECT_EQ(r.design, CsrSpgemmDesign::short_rows);
   expect_same_product(got, want, "short_rows");
   const std::vector<int64_t> ub     = cs::row_upper_bounds(c.a.view(), c.b.view());
   int64_t                    sorted = 0, unsorted_long = 0;
   for (int32_t i = 0; i < got.nrows; ++i)
   {
      const bool in_order = std::is_sorted(got.col.begin() + got.row_ptr[i], got.col.begin() + got.row_ptr[i + 1]);
      const int  bin      = cs::bin_of(ub[static_cast<size_t>(i)], cs::kSharedBins);
      if (bin >= 0 && bin < cs::kShortBins)
      {
         EXPECT_TRUE(in_order) << "row " << i;
         sorted += 1;
      }
      else unsorted_long += !in_order;
   }
   EXPECT_GT(sorted, 0);
   EXPECT_GT(unsorted_long, 0) << "longer rows keep the hash kernels' order";
}

TEST(CsrSpgemmEmulation, RejectsBadInput)
{
   const CsrMatrix a = random_csr(4, 5, 0.5, Fill::small_int, 1);
   EXPECT_THROW(cs::emulate(a.view(), a.view(), CsrSpgemmDesign::one_pass), amgt::Error);
   CsrMatrix empty;
   empty.row_ptr = {0};
   EXPECT_NO_THROW(cs::emulate(empty.view(), empty.view(), CsrSpgemmDesign::automatic));
}

} // namespace
