// GPU row-wise CSR SpGEMM (device::csr_spgemm, spgemm/csr_spgemm_device.h) against the CPU
// oracle csr_spgemm_ref, every design (one_pass, two_pass, two_pass_tight, the opt-in lean and
// its fall-back to the general path, the opt-in short_rows: sort kernels for rows of <= 128
// terms, hash kernels for the rest) and the automatic choice:
//   - structure: the same columns per row as the oracle, compared after sorting each row (the
//     kernel's rows come in any order), row pointers equal, no duplicate column;
//   - values: exactly equal on small-integer inputs (every partial sum is an exact integer,
//     whatever order the atomics take); otherwise within spgemm_pairs_tolerance of
//     tests/common/tolerances.h (each term rounded on its own, recursive summation in some
//     order, fp64 throughout: u_s = u_a = 2^-53), with |A||B| from the oracle on |A|, |B|;
//   - outputs not all zero; the statistics (bins, sum of bounds, design) recomputed on the host
//     with the planning functions of csr_spgemm.h;
//   - AMG-shaped products (7- and 27-point stencils times an interpolation-like P, P^T*(AP)),
//     rows in every bin including the global one (and its batches), NULL values, empty
//     operands and rows, columns near 2^31-1, an allocator that refuses the one-pass
//     temporary, a dimension mismatch;
//   - every device byte through the given Allocator, all of it back after the product is freed.
//   - short_rows (the ShortRows* tests): the rows it sorts (bins 0-3) come with their columns
//     ascending, exactly the oracle's order; the same bits on every run where every row is short.
// A GPU test that finds no GPU fails: it never passes by skipping.
#include "common/amg_products.h"
#include "common/csr_utils.h"
#include "common/error.h"
#include "common/random_matrix.h"
#include "common/tolerances.h"
#include "spgemm/csr_spgemm.h"
#include "spgemm/csr_spgemm_device.h"
#include "spgemm/spgemm.h"

#include "gpu_test_util.h"

#include "device/runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <new>
#include <string>
#include <vector>

namespace {

using namespace amgt::test;
using namespace amgt::test::gpu;
namespace dev = amgt::device;
namespace cs  = amgt::csr_spgemm;
using amgt::CsrMatrix;
using amgt::CsrSpgemmDesign;

constexpr CsrSpgemmDesign kDesigns[] = {CsrSpgemmDesign::automatic, CsrSpgemmDesign::one_pass,
                                        CsrSpgemmDesign::two_pass, CsrSpgemmDesign::two_pass_tight,
                                        CsrSpgemmDesign::lean, CsrSpgemmDesign::short_rows};

class CsrSpgemmDevice : public GpuStreamTest
{
};

struct DeviceRun
{
   CsrMatrix           c; // as the device wrote it (rows unsorted)
   dev::CsrSpgemmStats stats;
};

// Uploads A and B, multiplies on the device with `alloc`, downloads C. Checks C's shape and that
// C's three arrays are the only allocations left before C is freed.
DeviceRun run_product(const CsrMatrix& a, const CsrMatrix& b, CsrSpgemmDesign design, dev::Stream stream,
                      AllocCounter& counter, const dev::Allocator& alloc)
{
   DeviceRun  r;
   DeviceCsr  da(a), db(b);
   const auto before = counter.live;
   {
      dev::DeviceCsrProduct p = dev::csr_spgemm(da.view, db.view, stream, alloc, &r.stats, design);
      EXPECT_EQ(p.nrows, a.nrows);
      EXPECT_EQ(p.ncols, b.ncols);
      EXPECT_EQ(p.row_ptr.size(), static_cast<size_t>(a.nrows) + 1);
      EXPECT_EQ(p.col.size(), static_cast<size_t>(p.nnz));
      EXPECT_EQ(p.val.size(), static_cast<size_t>(p.nnz));
      EXPECT_EQ(counter.live - before, p.nnz > 0 ? 3 : 1) << "only C's arrays outlive the call";
      r.c.nrows   = p.nrows;
      r.c.ncols   = p.ncols;
      r.c.row_ptr = download(p.row_ptr.get(), p.row_ptr.size());
      r.c.col     = download(p.col.get(), p.col.size());
      r.c.val     = download(p.val.get(), p.val.size());
   }
   EXPECT_EQ(counter.live, before) << "every temporary released";
   EXPECT_EQ(dev::last_error(), dev::kSuccess);
   return r;
}

DeviceRun run_product(const CsrMatrix& a, const CsrMatrix& b, CsrSpgemmDesign design, dev::Stream stream)
{
   AllocCounter counter;
   return run_product(a, b, design, stream, counter, counting_allocator(counter));
}

struct Totals
{
   int64_t nonzeros   = 0;
   int64_t entries    = 0;
   double  worst      = 0; // largest err / tolerance
   int64_t bin_rows[cs::kBins] = {};
   int64_t lean_runs  = 0;
};

// The full check of one device product against the oracle `want` (sorted rows).
void check_against(const DeviceRun& r, const CsrMatrix& a, const CsrMatrix& b, const CsrMatrix& want, Fill fill,
                   CsrSpgemmDesign design, Totals& totals)
{
   // row lengths as produced (a column twice in a row would lengthen it), then columns sorted
   ASSERT_EQ(r.c.row_ptr, want.row_ptr) << "row lengths as produced: no column twice in a row";
   const CsrMatrix got = canonical(r.c);
   ASSERT_EQ(got.nrows, want.nrows);
   ASSERT_EQ(got.ncols, want.ncols);
   ASSERT_EQ(got.row_ptr, want.row_ptr) << "row lengths";
   ASSERT_EQ(got.col, want.col) << "columns per row (after sorting)";
   if (fill == Fill::small_int)
   {
      for (size_t p = 0; p < want.val.size(); ++p)
      {
         ASSERT_EQ(got.val[p], want.val[p]) << "entry " << p << " (small integers: exact)";
      }
   }
   else
   {
      const CsrMatrix ab = amgt::csr_spgemm_ref(abs_values(a).view(), abs_values(b).view());
      const int       k  = max_row_nnz(a);
      for (size_t p = 0; p < want.val.size(); ++p)
      {
         const double tol = spgemm_pairs_tolerance(roundoff<double>(), k, ab.val[p]);
         const double err = std::fabs(got.val[p] - want.val[p]);
         ASSERT_LE(err, tol) << "entry " << p << ": got " << got.val[p] << ", want " << want.val[p];
         if (tol > 0) totals.worst = std::max(totals.worst, err / tol);
      }
   }
   for (double v : got.val) totals.nonzeros += v != 0.0;
   totals.entries += static_cast<int64_t>(got.val.size());

   // statistics: the host planning functions on the same inputs
   const dev::CsrSpgemmStats& st = r.stats;
   const int                  sb = st.shared_bins;
   EXPECT_EQ(sb, cs::usable_shared_bins(static_cast<size_t>(dev::device_limits().smem_optin)));
   if (a.nrows > 0 && nnz_of(a) > 0 && nnz_of(b) > 0)
   {
      const std::vector<int64_t> ub = cs::row_upper_bounds(a.view(), b.view());
      std::vector<int64_t>       capped(ub.size());
      for (size_t i = 0; i < ub.size(); ++i) capped[i] = cs::capped_bound(ub[i], b.ncols);
      // the lean design bins by capped bounds, the others by the bounds
      const std::vector<int64_t> hist =
         cs::bin_histogram(st.design == CsrSpgemmDesign::lean ? capped : ub, sb);
      int64_t                    sum  = 0;
      for (int64_t u : ub) sum += u;
      EXPECT_EQ(st.sum_ub, sum);
      for (int bin = 0; bin < cs::kBins; ++bin)
      {
         EXPECT_EQ(st.bin_rows[bin], hist[static_cast<size_t>(bin)]) << "bin " << bin;
         totals.bin_rows[bin] += st.bin_rows[bin];
      }
   }
   if (design == CsrSpgemmDesign::lean && st.lean_fell_back)
   {
      // a row beyond bin 8: the general path ran
      EXPECT_GT(cs::bin_histogram(cs::row_upper_bounds(a.view(), b.view()), sb)[cs::kGlobalBin], 0);
      EXPECT_NE(st.design, CsrSpgemmDesign::lean);
      EXPECT_NE(st.design, CsrSpgemmDesign::automatic);
   }
   else if (design != CsrSpgemmDesign::automatic) EXPECT_EQ(st.design, design);
   else EXPECT_NE(st.design, CsrSpgemmDesign::automatic) << "the design that ran";
   if (design != CsrSpgemmDesign::lean && design != CsrSpgemmDesign::automatic)
   {
      EXPECT_FALSE(st.lean_fell_back);
   }
   if (design == CsrSpgemmDesign::automatic)
   {
      EXPECT_NE(st.design, CsrSpgemmDesign::lean) << "lean is opt-in";
      EXPECT_FALSE(st.lean_fell_back);
   }
   if (st.design == CsrSpgemmDesign::lean) totals.lean_runs += 1;
   if (st.design == CsrSpgemmDesign::two_pass_tight && a.nrows > 0 && nnz_of(a) > 0 && nnz_of(b) > 0)
   {
      // the numeric pass's bins: the oracle's row lengths through bin_of
      std::vector<int64_t> counts(static_cast<size_t>(want.nrows));
      for (int32_t i = 0; i < want.nrows; ++i) counts[static_cast<size_t>(i)] = want.row_ptr[i + 1] - want.row_ptr[i];
      const std::vector<int64_t> hist = cs::bin_histogram(counts, sb);
      for (int bin = 0; bin < cs::kBins; ++bin)
      {
         EXPECT_EQ(st.tight_bin_rows[bin], hist[static_cast<size_t>(bin)]) << "numeric bin " << bin;
      }
      EXPECT_EQ(st.tight_global_batches > 0, hist[cs::kGlobalBin] > 0);
   }
   else
   {
      for (int bin = 0; bin < cs::kBins; ++bin) EXPECT_EQ(st.tight_bin_rows[bin], 0) << "not rebinned";
   }
}

void check_product(const CsrMatrix& a, const CsrMatrix& b, Fill fill, const std::string& what, dev::Stream stream,
                   Totals& totals)
{
   const CsrMatrix want = amgt::csr_spgemm_ref(a.view(), b.view());
   for (CsrSpgemmDesign d : kDesigns)
   {
      SCOPED_TRACE(what + " [" + amgt::to_string(d) + "]");
      const DeviceRun r = run_product(a, b, d, stream);
      check_against(r, a, b, want, fill, d, totals);
   }
}

// ---- AMG-shaped products -------------------------------------------------------------------

TEST_F(CsrSpgemmDevice, AmgProductsSmallIntegersExact)
{
   Totals totals;
   for (int points : {7, 27})
   {
      const CsrMatrix a  = stencil_3d(20, 18, 17, points);
      const CsrMatrix p  = interpolation_3d(20, 18, 17, 4);
      const CsrMatrix ap = amgt::csr_spgemm_ref(a.view(), p.view());
      const std::string s = std::to_string(points) + "pt";
      check_product(a, p, Fill::small_int, s + " A*P", stream_, totals);
      check_product(transpose(p), ap, Fill::small_int, s + " P^T*(AP)", stream_, totals);
      check_product(a, a, Fill::small_int, s + " A*A", stream_, totals);
   }
   EXPECT_GT(totals.nonzeros, 100000);
}

TEST_F(CsrSpgemmDevice, AmgProductsRandomValuesWithinTolerance)
{
   Totals totals;
   for (int points : {7, 27})
   {
      const CsrMatrix a  = stencil_3d(21, 19, 16, points, Fill::random, 40 + points);
      const CsrMatrix p  = interpolation_3d(21, 19, 16, 4, Fill::random, 50 + points);
      const CsrMatrix ap = amgt::csr_spgemm_ref(a.view(), p.view());
      const std::string s = std::to_string(points) + "pt";
      check_product(a, p, Fill::random, s + " A*P", stream_, totals);
      check_product(transpose(p), ap, Fill::random, s + " P^T*(AP)", stream_, totals);
   }
   EXPECT_GT(totals.nonzeros, 100000);
   EXPECT_LE(totals.worst, 1.0);
   std::printf("[ worst error / tolerance %.3g over %lld entries ]\n", totals.worst,
               static_cast<long long>(totals.entries));
}

// ---- every bin -------------------------------------------------------------------------------

TEST_F(CsrSpgemmDevice, RowsInEveryBinIncludingTheGlobalOne)
{
   Totals totals;
   // A rows of 0-100 entries times B rows of 0-200: ub from 0 to ~10^4 (global bin past 4096)
   const CsrMatrix a = varied_rows(3000, 1500, {0, 1, 2, 3, 5, 9, 16, 30, 60, 100}, Fill::small_int, 61);
   const CsrMatrix b = varied_rows(1500, 5000, {0, 1, 2, 3, 5, 8, 20, 60, 120, 200}, Fill::small_int, 62);
   check_product(a, b, Fill::small_int, "varied, small integers", stream_, totals);
   const CsrMatrix ar = varied_rows(3000, 1500, {0, 1, 2, 3, 5, 9, 16, 30, 60, 100}, Fill::random, 63);
   const CsrMatrix br = varied_rows(1500, 5000, {0, 1, 2, 3, 5, 8, 20, 60, 120, 200}, Fill::random, 64);
   check_product(ar, br, Fill::random, "varied, random", stream_, totals);
   const int sb = cs::usable_shared_bins(static_cast<size_t>(dev::device_limits().smem_optin));
   for (int bin = 0; bin < sb; ++bin) EXPECT_GT(totals.bin_rows[bin], 0) << "bin " << bin;
   EXPECT_GT(totals.bin_rows[cs::kGlobalBin], 0) << "the global bin";
   EXPECT_GT(totals.nonzeros, 0);
}

// The lean design in every bin (B's 4000 columns cap every bound at bin 8: no global row), a
// P^T*(AP)-like product whose 1200 products per row fall on 50 columns (bin 2 by its capped
// bound), and a wide product that sends a row past bin 8 (lean falls back, same product).
TEST_F(CsrSpgemmDevice, LeanDesignInEveryBinAndItsFallBack)
{
   Totals          totals;
   const CsrMatrix a = varied_rows(3000, 1500, {0, 1, 2, 3, 5, 9, 16, 30, 60, 100}, Fill::small_int, 71);
   const CsrMatrix b = varied_rows(1500, 4000, {0, 1, 2, 3, 5, 8, 20, 60, 120, 200}, Fill::small_int, 72);
   const CsrMatrix want = amgt::csr_spgemm_ref(a.view(), b.view());
   const DeviceRun r    = run_product(a, b, CsrSpgemmDesign::lean, stream_);
   check_against(r, a, b, want, Fill::small_int, CsrSpgemmDesign::lean, totals);
   EXPECT_EQ(r.stats.design, CsrSpgemmDesign::lean);
   EXPECT_FALSE(r.stats.lean_fell_back);
   for (int bin = 0; bin < cs::kSharedBins; ++bin) EXPECT_GT(r.stats.bin_rows[bin], 0) << "bin " << bin;
   EXPECT_EQ(r.stats.bin_rows[cs::kGlobalBin], 0);
   const CsrMatrix ar = varied_rows(3000, 1500, {0, 1, 2, 3, 5, 9, 16, 30, 60, 100}, Fill::random, 73);
   const CsrMatrix br = varied_rows(1500, 4000, {0, 1, 2, 3, 5, 8, 20, 60, 120, 200}, Fill::random, 74);
   check_against(run_product(ar, br, CsrSpgemmDesign::lean, stream_), ar, br,
                 amgt::csr_spgemm_ref(ar.view(), br.view()), Fill::random, CsrSpgemmDesign::lean, totals);

   const CsrMatrix pa = varied_rows(600, 40, {30}, Fill::small_int, 41);
   const CsrMatrix pb = varied_rows(40, 50, {40}, Fill::small_int, 42);
   const DeviceRun pr = run_product(pa, pb, CsrSpgemmDesign::lean, stream_);
   check_against(pr, pa, pb, amgt::csr_spgemm_ref(pa.view(), pb.view()), Fill::small_int, CsrSpgemmDesign::lean,
                 totals);
   EXPECT_EQ(pr.stats.bin_rows[2], 600) << "capped bound 50: bin 2";

   const CsrMatrix wa = varied_rows(6, 60, {60}, Fill::small_int, 43);
   const CsrMatrix wb = varied_rows(60, 10000, {100}, Fill::small_int, 44);
   const DeviceRun wr = run_product(wa, wb, CsrSpgemmDesign::lean, stream_);
   check_against(wr, wa, wb, amgt::csr_spgemm_ref(wa.view(), wb.view()), Fill::small_int, CsrSpgemmDesign::lean,
                 totals);
   EXPECT_TRUE(wr.stats.lean_fell_back);
   EXPECT_EQ(totals.lean_runs, 3);
   EXPECT_GT(totals.nonzeros, 0);
}

TEST_F(CsrSpgemmDevice, GlobalBinInSeveralBatches)
{
   // 1100 rows of ub 64 x 128 = 8192: global tables of 16384 slots each, 18M slots in all,
   // more than one batch (kGlobalBatchSlots = 2^24)
   const int32_t      rows = 1100, inner = 64, blen = 128, ncols = 20000;
   std::vector<Entry> ea, eb;
   for (int32_t i = 0; i < rows; ++i)
      for (int32_t t = 0; t < inner; ++t) ea.push_back({i, (i * 7 + t * 13) % 256, static_cast<double>(t % 3 + 1)});
   for (int32_t k = 0; k < 256; ++k)
      for (int32_t t = 0; t < blen; ++t) eb.push_back({k, (k * 31 + t * 97) % ncols, t % 2 ? 1.0 : -2.0});
   const CsrMatrix a = from_entries(rows, 256, ea);
   const CsrMatrix b = from_entries(256, ncols, eb);
   Totals          totals;
   const CsrMatrix want = amgt::csr_spgemm_ref(a.view(), b.view());
   for (CsrSpgemmDesign d : kDesigns)
   {
      SCOPED_TRACE(amgt::to_string(d));
      const DeviceRun r = run_product(a, b, d, stream_);
      check_against(r, a, b, want, Fill::small_int, d, totals);
      EXPECT_EQ(r.stats.bin_rows[cs::kGlobalBin], rows);
      EXPECT_GE(r.stats.global_batches, 2);
   }
}

// ---- values, shapes, edges -------------------------------------------------------------------

TEST_F(CsrSpgemmDevice, NullValuesMeanOnes)
{
   Totals    totals;
   CsrMatrix a = stencil_3d(12, 11, 10, 27);
   CsrMatrix p = interpolation_3d(12, 11, 10, 4);
   a.val.clear();
   check_product(a, p, Fill::small_int, "A without values", stream_, totals);
   CsrMatrix a2 = stencil_3d(12, 11, 10, 27);
   p.val.clear();
   check_product(a2, p, Fill::small_int, "B without values", stream_, totals);
   check_product(a, p, Fill::small_int, "neither with values", stream_, totals);
   EXPECT_GT(totals.nonzeros, 0);
}

TEST_F(CsrSpgemmDevice, EmptyOperandsAndRows)
{
   Totals totals;
   for (const NamedMatrix& m : edge_matrices())
   {
      if (m.a.nrows != m.a.ncols) continue;
      check_product(m.a, m.a, Fill::small_int, m.name + " squared", stream_, totals);
   }
   CsrMatrix none; // 6 x 9, no entries
   none.nrows = 6;
   none.ncols = 9;
   none.row_ptr.assign(7, 0);
   const CsrMatrix r = random_csr(9, 4, 0.5, Fill::small_int, 70);
   check_product(none, r, Fill::small_int, "A without entries", stream_, totals);
   CsrMatrix nb = none;
   nb.nrows     = 4;
   nb.ncols     = 5;
   nb.row_ptr.assign(5, 0);
   check_product(random_csr(3, 4, 0.7, Fill::small_int, 71), nb, Fill::small_int, "B without entries", stream_, totals);
   CsrMatrix zero_rows; // 0 x 4 times 4 x 3
   zero_rows.ncols   = 4;
   zero_rows.row_ptr = {0};
   check_product(zero_rows, random_csr(4, 3, 0.7, Fill::small_int, 72), Fill::small_int, "0 rows", stream_, totals);
   // a product whose rows are mostly empty: every other row of A empty, B rows only at odd k
   check_product(varied_rows(500, 300, {0, 0, 3, 7}, Fill::small_int, 73),
                 varied_rows(300, 200, {0, 0, 0, 2, 5}, Fill::small_int, 74), Fill::small_int, "sparse rows",
                 stream_, totals);
   EXPECT_GT(totals.nonzeros, 0);
}

TEST_F(CsrSpgemmDevice, ColumnsNearTheInt32Limit)
{
   // B has 2^31-1 columns (a row pointer of 4 entries: nothing dense is ever allocated); the
   // oracle here is the host emulation, which never allocates per column either
   const int32_t   big = std::numeric_limits<int32_t>::max();
   const CsrMatrix b   = from_entries(3, big,
                                      {{0, big - 1, 2.0}, {0, 0, 1.0}, {1, big - 1, -1.0}, {1, big / 2, 3.0},
                                       {2, big - 2, 1.0}, {2, 12345, 2.0}});
   const CsrMatrix a = from_entries(4, 3, {{0, 0, 1.0}, {0, 1, 1.0}, {1, 2, -1.0}, {3, 1, 2.0}, {3, 0, 1.0}, {3, 2, 3.0}});
   const CsrMatrix want = canonical(cs::emulate(a.view(), b.view(), CsrSpgemmDesign::one_pass));
   EXPECT_EQ(want.row_ptr, (std::vector<int32_t>{0, 3, 5, 5, 10}));
   for (CsrSpgemmDesign d : kDesigns)
   {
      SCOPED_TRACE(amgt::to_string(d));
      const DeviceRun r   = run_product(a, b, d, stream_);
      const CsrMatrix got = canonical(r.c);
      EXPECT_EQ(r.c.row_ptr, want.row_ptr) << "no column twice in a row";
      EXPECT_EQ(got.row_ptr, want.row_ptr);
      EXPECT_EQ(got.col, want.col);
      EXPECT_EQ(got.val, want.val);
   }
}

TEST_F(CsrSpgemmDevice, StructureIsTheSameOnEveryRun)
{
   const CsrMatrix a  = stencil_3d(14, 13, 12, 27, Fill::random, 80);
   const CsrMatrix p  = interpolation_3d(14, 13, 12, 4, Fill::random, 81);
   // each run's rows sorted (canonical), none holding a column twice
   auto sorted = [&](CsrSpgemmDesign d) {
      const CsrMatrix raw = run_product(a, p, d, stream_).c;
      CsrMatrix       c   = canonical(raw);
      EXPECT_EQ(c.row_ptr, raw.row_ptr) << "no column twice in a row";
      return c;
   };
   const CsrMatrix c1 = sorted(CsrSpgemmDesign::one_pass);
   const CsrMatrix c2 = sorted(CsrSpgemmDesign::one_pass);
   const CsrMatrix c3 = sorted(CsrSpgemmDesign::two_pass);
   EXPECT_EQ(c1.row_ptr, c2.row_ptr);
   EXPECT_EQ(c1.col, c2.col);
   EXPECT_EQ(c1.row_ptr, c3.row_ptr);
   EXPECT_EQ(c1.col, c3.col);
}

// ---- the short-row design (CsrSpgemmDesign::short_rows, spgemm_short_rows.h) ------------------

// Rows the sort kernels built (ub in bins 0..kShortBins-1) hold the oracle's columns in its
// (ascending) order, unsorted by the test. Returns how many rows that was.
int64_t expect_short_rows_sorted(const DeviceRun& r, const CsrMatrix& a, const CsrMatrix& b, const CsrMatrix& want)
{
   EXPECT_EQ(r.c.row_ptr, want.row_ptr);
   if (r.c.row_ptr != want.row_ptr || a.nrows == 0 || nnz_of(a) == 0 || nnz_of(b) == 0) return 0;
   const std::vector<int64_t> ub      = cs::row_upper_bounds(a.view(), b.view());
   int64_t                    checked = 0;
   for (int32_t i = 0; i < want.nrows; ++i)
   {
      const int bin = cs::bin_of(ub[static_cast<size_t>(i)], r.stats.shared_bins);
      if (bin < 0 || bin >= cs::kShortBins) continue;
      for (int32_t p = want.row_ptr[i]; p < want.row_ptr[i + 1]; ++p)
      {
         EXPECT_EQ(r.c.col[static_cast<size_t>(p)], want.col[static_cast<size_t>(p)])
             << "row " << i << " (ub " << ub[static_cast<size_t>(i)] << "): a short row comes sorted";
         if (r.c.col[static_cast<size_t>(p)] != want.col[static_cast<size_t>(p)]) return checked;
      }
      ++checked;
   }
   return checked;
}

// One short_rows product, fully checked; returns the rows the sort kernels built.
int64_t check_short(const CsrMatrix& a, const CsrMatrix& b, Fill fill, const std::string& what, dev::Stream stream,
                    Totals& totals, DeviceRun* out = nullptr)
{
   SCOPED_TRACE(what + " [short_rows]");
   const CsrMatrix want = amgt::csr_spgemm_ref(a.view(), b.view());
   DeviceRun       r    = run_product(a, b, CsrSpgemmDesign::short_rows, stream);
   check_against(r, a, b, want, fill, CsrSpgemmDesign::short_rows, totals);
   EXPECT_EQ(r.stats.design, CsrSpgemmDesign::short_rows);
   const int64_t n = expect_short_rows_sorted(r, a, b, want);
   if (out) *out = std::move(r);
   return n;
}

// Level-0 A*P of a 7-point and a 27-point stencil with P of 1-4 entries a row (ub <= 108: every
// row sorted), small integers (exact) and random values (within the bound); sorted rows need no
// atomics, so two runs give the same bits.
TEST_F(CsrSpgemmDevice, ShortRowsAmgFineProducts)
{
   Totals  totals;
   int64_t sorted = 0;
   for (int points : {7, 27})
   {
      for (int pmx : {1, 2, 3, 4})
      {
         const std::string s = std::to_string(points) + "pt, P of <= " + std::to_string(pmx);
         const CsrMatrix   a = stencil_3d(22, 19, 17, points);
         const CsrMatrix   p = interpolation_3d(22, 19, 17, pmx);
         sorted += check_short(a, p, Fill::small_int, s + ", small integers", stream_, totals);
         const CsrMatrix ar = stencil_3d(22, 19, 17, points, Fill::random, 90 + points + pmx);
         const CsrMatrix pr = interpolation_3d(22, 19, 17, pmx, Fill::random, 95 + points + pmx);
         DeviceRun       r1, r2;
         sorted += check_short(ar, pr, Fill::random, s + ", random", stream_, totals, &r1);
         check_short(ar, pr, Fill::random, s + ", random again", stream_, totals, &r2);
         EXPECT_EQ(r1.c.col, r2.c.col);
         EXPECT_EQ(r1.c.val, r2.c.val) << "no atomics: the same bits on every run";
         EXPECT_EQ(r1.stats.bin_rows[cs::kGlobalBin], 0);
         for (int bin = cs::kShortBins; bin < cs::kSharedBins; ++bin) EXPECT_EQ(r1.stats.bin_rows[bin], 0);
      }
   }
   EXPECT_EQ(sorted, int64_t{2} * 4 * 2 * 22 * 19 * 17) << "every row of a fine A*P is short";
   EXPECT_GT(totals.nonzeros, 100000);
   EXPECT_LE(totals.worst, 1.0);
}

// Random short rows in each of the four short bins (groups of 4, 8, 16, 32 lanes), over many
// columns (few repeats) and over 20 columns (most terms merge), and several rounds of A's
// entries in a group (A rows longer than the group, most of their B rows empty).
TEST_F(CsrSpgemmDevice, ShortRowsRandomInEveryShortBin)
{
   Totals totals;
   int64_t sorted = 0;
   for (int32_t ncols : {3000, 20})
   {
      for (Fill fill : {Fill::small_int, Fill::random})
      {
         const uint32_t  seed = static_cast<uint32_t>(ncols) + (fill == Fill::random ? 7u : 0u);
         const CsrMatrix a    = varied_rows(4000, 2000, {0, 1, 2, 3, 5, 9, 16}, fill, seed);
         const CsrMatrix b    = varied_rows(2000, ncols, {0, 1, 2, 3, 4, 6, 8}, fill, seed + 1);
         DeviceRun       r;
         sorted += check_short(a, b, fill, "varied short rows, " + std::to_string(ncols) + " columns", stream_,
                               totals, &r);
         for (int bin = 0; bin < cs::kShortBins; ++bin) EXPECT_GT(r.stats.bin_rows[bin], 0) << "bin " << bin;
      }
   }
   // A rows of 40-100 entries over B rows that are mostly empty: ub <= 128, several rounds
   const CsrMatrix la   = varied_rows(500, 1000, {40, 70, 100}, Fill::small_int, 31);
   const CsrMatrix full = varied_rows(1000, 500, {1}, Fill::small_int, 32);
   CsrMatrix       lb; // full's rows k % 8 == 0, the others empty
   lb.nrows = full.nrows;
   lb.ncols = full.ncols;
   lb.row_ptr.assign(static_cast<size_t>(full.nrows) + 1, 0);
   for (int32_t k = 0; k < full.nrows; ++k)
   {
      for (int32_t q = full.row_ptr[k]; q < full.row_ptr[k + 1] && k % 8 == 0; ++q)
      {
         lb.col.push_back(full.col[static_cast<size_t>(q)]);
         lb.val.push_back(full.val[static_cast<size_t>(q)]);
      }
      lb.row_ptr[static_cast<size_t>(k) + 1] = static_cast<int32_t>(lb.col.size());
   }
   sorted += check_short(la, lb, Fill::small_int, "long A rows, mostly empty B rows", stream_, totals);
   EXPECT_GT(sorted, 10000);
   EXPECT_GT(totals.nonzeros, 0);
   EXPECT_LE(totals.worst, 1.0);
}

// Rows at the edges of the short bins (ub 16/17, 32/33, 64/65, 128/129, built from B rows of one
// entry) and rows far past them (bins 4-8 and the global bin): those take the hash kernels in
// both passes, the short ones the sort kernels, in one product.
TEST_F(CsrSpgemmDevice, ShortRowsFallBackToTheHashKernels)
{
   const int32_t        ks = 300, ncols = 97;
   std::vector<Entry>   eb;
   for (int32_t k = 0; k < ks; ++k) eb.push_back({k, (k * 7) % ncols, static_cast<double>(k % 5 - 2)});
   const CsrMatrix      b = from_entries(ks, ncols, eb);
   const int32_t        lens[] = {1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 200, 300};
   std::vector<Entry>   ea;
   int32_t              rows = 0;
   for (int rep = 0; rep < 40; ++rep)
   {
      for (int32_t len : lens)
      {
         for (int32_t t = 0; t < len; ++t) ea.push_back({rows, (rows * 13 + t) % ks, static_cast<double>(t % 3 + 1)});
         ++rows;
      }
   }
   const CsrMatrix a = from_entries(rows, ks, ea);
   Totals          totals;
   DeviceRun       r;
   const int64_t   sorted = check_short(a, b, Fill::small_int, "bin edges", stream_, totals, &r);
   EXPECT_EQ(sorted, 40 * 12) << "ub <= 128 sorted";
   EXPECT_EQ(r.stats.bin_rows[cs::kShortBins], 40 * 2) << "ub 129 and 200: bin 4, the hash kernels";
   EXPECT_EQ(r.stats.bin_rows[cs::kShortBins + 1], 40) << "ub 300: bin 5";

   // the every-bin product of the general tests, global bin included
   const CsrMatrix va = varied_rows(3000, 1500, {0, 1, 2, 3, 5, 9, 16, 30, 60, 100}, Fill::random, 63);
   const CsrMatrix vb = varied_rows(1500, 5000, {0, 1, 2, 3, 5, 8, 20, 60, 120, 200}, Fill::random, 64);
   DeviceRun       rv;
   EXPECT_GT(check_short(va, vb, Fill::random, "every bin", stream_, totals, &rv), 0);
   EXPECT_GT(rv.stats.bin_rows[cs::kGlobalBin], 0);
   for (int bin = 0; bin < rv.stats.shared_bins; ++bin) EXPECT_GT(rv.stats.bin_rows[bin], 0) << "bin " << bin;
   EXPECT_LE(totals.worst, 1.0);
}

// Empty rows among short ones, operands without entries, and zero columns on either side.
TEST_F(CsrSpgemmDevice, ShortRowsEmptyRowsAndZeroColumns)
{
   Totals totals;
   check_short(varied_rows(700, 300, {0, 0, 0, 3, 7}, Fill::small_int, 75),
               varied_rows(300, 200, {0, 0, 2, 5}, Fill::small_int, 76), Fill::small_int, "mostly empty rows", stream_,
               totals);
   auto empty = [](int32_t nrows, int32_t ncols) {
      CsrMatrix m;
      m.nrows = nrows;
      m.ncols = ncols;
      m.row_ptr.assign(static_cast<size_t>(nrows) + 1, 0);
      return m;
   };
   check_short(empty(5, 0), empty(0, 7), Fill::small_int, "5 x 0 times 0 x 7", stream_, totals);
   check_short(random_csr(6, 4, 0.7, Fill::small_int, 77), empty(4, 0), Fill::small_int, "6 x 4 times 4 x 0",
               stream_, totals);
   check_short(empty(0, 4), random_csr(4, 3, 0.7, Fill::small_int, 78), Fill::small_int, "0 rows", stream_, totals);
   check_short(empty(9, 6), random_csr(6, 5, 0.7, Fill::small_int, 79), Fill::small_int, "A without entries",
               stream_, totals);
   // one row, one column: a group of 4 lanes, three of its slots padding
   check_short(from_entries(1, 1, {{0, 0, 3.0}}), from_entries(1, 1, {{0, 0, -2.0}}), Fill::small_int, "1 x 1",
               stream_, totals);
   EXPECT_GT(totals.nonzeros, 0);
}

// An allocator that refuses the first `refusals` requests of at least `refuse_from` bytes (then
// serves everything): the one-pass temporary (or lean's slab) is the first large request of
// the product.
struct RefusingAllocator
{
   AllocCounter counter;
   size_t       refuse_from = 0;
   int          refusals    = 1;
   int          refused     = 0;
};

TEST_F(CsrSpgemmDevice, RefusedTemporaryFallsBackToTwoPassOrThrows)
{
   const CsrMatrix a    = stencil_3d(16, 16, 16, 27);
   const CsrMatrix want = amgt::csr_spgemm_ref(a.view(), a.view());
   int64_t         sum_ub = 0;
   for (int64_t u : cs::row_upper_bounds(a.view(), a.view())) sum_ub += u;
   RefusingAllocator ra;
   ra.refuse_from = static_cast<size_t>(sum_ub) * sizeof(int32_t); // the temporary's columns
   ASSERT_GT(ra.refuse_from, want.col.size() * sizeof(double)) << "C's arrays must stay below the bound";
   dev::Allocator alloc;
   alloc.ctx   = &ra;
   alloc.alloc = [](size_t bytes, void* c) -> void* {
      auto* r = static_cast<RefusingAllocator*>(c);
      if (r->refused < r->refusals && bytes >= r->refuse_from)
      {
         r->refused += 1;
         return nullptr;
      }
      return counting_alloc(bytes, &r->counter);
   };
   alloc.release = [](void* p, void* c) { counting_release(p, &static_cast<RefusingAllocator*>(c)->counter); };

   Totals          totals;
   const DeviceRun r = run_product(a, a, CsrSpgemmDesign::automatic, stream_, ra.counter, alloc);
   EXPECT_EQ(ra.refused, 1);
   EXPECT_TRUE(r.stats.one_pass_refused);
   EXPECT_EQ(r.stats.design, CsrSpgemmDesign::two_pass);
   check_against(r, a, a, want, Fill::small_int, CsrSpgemmDesign::automatic, totals);

   ra.refused = 0;
   DeviceCsr dl(a);
   EXPECT_THROW(dev::csr_spgemm(dl.view, dl.view, stream_, alloc, nullptr, CsrSpgemmDesign::lean), std::bad_alloc)
       << "lean's slab refused: no fall-back for memory";
   EXPECT_EQ(ra.counter.live, 0) << "nothing leaked on the way out";

   ra.refused = 0;
   DeviceCsr da(a);
   EXPECT_THROW(dev::csr_spgemm(da.view, da.view, stream_, alloc, nullptr, CsrSpgemmDesign::one_pass), std::bad_alloc)
       << "an explicit one_pass does not change its design";
   EXPECT_EQ(ra.counter.live, 0) << "nothing leaked on the way out";
}

TEST_F(CsrSpgemmDevice, DimensionMismatchThrows)
{
   const CsrMatrix a = random_csr(10, 7, 0.3, Fill::small_int, 90);
   DeviceCsr       da(a);
   AllocCounter    counter;
   EXPECT_THROW(dev::csr_spgemm(da.view, da.view, stream_, counting_allocator(counter)), amgt::Error);
   EXPECT_EQ(counter.live, 0);
}

} // namespace
