// GPU row-wise CSR SpGEMM (device::csr_spgemm, spgemm/csr_spgemm_device.h) against the CPU
// oracle csr_spgemm_ref, every design (one_pass, two_pass, two_pass_tight, the opt-in lean and
// its fall-back to the general path) and the automatic choice:
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
                                        CsrSpgemmDesign::lean};

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
