// The re-setup's GPU kernels (resetup/galerkin_device.h) against their CPU reference
// (resetup/galerkin.h):
//   - the structure fingerprint, bit for bit, on AMG-shaped, random and empty matrices;
//   - fixed patterns of unsorted outputs (sorted columns and places exactly), a repeated
//     column refused;
//   - the numeric-only product on a pattern: exactly equal on small integers whatever order
//     the atomics take, rows of up to kFixedRowCap entries (shared memory) and longer ones
//     (global atomics), empty rows, NULL values, a term outside the pattern flagged;
//   - the places of every term (1 and 2 bytes) and their pulls, byte for byte, and the products
//     by places and by pulls equal to the reference, the same row kinds; a term outside the
//     pattern refused;
//   - a plan whose places the device refuses: that product searches, the same values;
//   - the Galerkin plan over several value sets, in each of its forms (automatic, pulls, places,
//     search): the GPU's coarse operator equal to the CPU
//     reference's, outputs not all zero, every byte back to the allocator.
// A GPU test that finds no GPU fails: it never passes by skipping.
#include "common/amg_products.h"
#include "common/csr_utils.h"
#include "common/error.h"
#include "common/random_matrix.h"
#include "resetup/galerkin.h"
#include "resetup/galerkin_device.h"
#include "spgemm/spgemm.h"

#include "gpu_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace {

using amgt::CsrMatrix;
using namespace amgt::test;
using namespace amgt::test::gpu;
namespace dev = amgt::device;
namespace rs  = amgt::resetup;

class ResetupDevice : public GpuStreamTest
{
};

// Rows of the given lengths (columns spread over ncols), small-integer values, unsorted.
CsrMatrix rows_of_lengths(int32_t ncols, const std::vector<int32_t>& lengths, uint32_t seed)
{
   return shuffled_rows(varied_rows(static_cast<int32_t>(lengths.size()), ncols, lengths, Fill::small_int, seed),
                        seed + 1);
}

TEST_F(ResetupDevice, FingerprintMatchesTheReferenceBitForBit)
{
   AllocCounter counter;
   const auto   alloc = counting_allocator(counter);
   for (const CsrMatrix& a : {stencil_3d(9, 8, 7, 27), interpolation_3d(9, 8, 7, 4),
                              random_csr(300, 200, 0.05, Fill::small_int, 3), CsrMatrix{0, 0, {0}, {}, {}}})
   {
      DeviceCsr d(a, Empty::one);
      EXPECT_EQ(dev::structure_fingerprint(d.view, stream_, alloc), rs::structure_fingerprint(a.view()))
         << a.nrows << " x " << a.ncols;
   }
   EXPECT_EQ(counter.live, 0);
}

TEST_F(ResetupDevice, DiagonalGuardMatchesTheReference)
{
   AllocCounter counter;
   const auto   alloc = counting_allocator(counter);
   {
      CsrMatrix a = shuffled_rows(stencil_3d(10, 9, 8, 27, Fill::random, 41), 43);
      const std::vector<double> ref_d = rs::abs_diagonal(a.view());
      DeviceCsr                 da(a);
      DeviceArray<double>       d(ref_d.size());
      dev::abs_diagonal(da.view, d.get(), stream_);
      dev::synchronize(stream_);
      EXPECT_EQ(download(d.get(), ref_d.size()), ref_d);
      EXPECT_EQ(dev::max_diagonal_ratio(da.view, d.get(), stream_, alloc), 1.0);
      // one diagonal x3, another /2.5: the ratio is the larger, exactly
      CsrMatrix b = a;
      for (int32_t i : {5, 700})
         for (int32_t k = b.row_ptr[i]; k < b.row_ptr[i + 1]; ++k)
            if (b.col[k] == i) b.val[k] *= (i == 5 ? 3.0 : 0.4);
      DeviceCsr db(b);
      EXPECT_EQ(dev::max_diagonal_ratio(db.view, d.get(), stream_, alloc), rs::max_diagonal_ratio(b.view(), ref_d.data()));
      // a NaN diagonal counts as the worst
      for (int32_t k = b.row_ptr[9]; k < b.row_ptr[10]; ++k)
         if (b.col[k] == 9) b.val[k] = std::nan("");
      DeviceCsr dn(b);
      EXPECT_EQ(dev::max_diagonal_ratio(dn.view, d.get(), stream_, alloc), std::numeric_limits<double>::infinity());
   }
   EXPECT_EQ(counter.live, 0);
}

TEST_F(ResetupDevice, FixedPatternOfAnUnsortedOutput)
{
   AllocCounter counter;
   const auto   alloc = counting_allocator(counter);
   {
      // short rows, 27-point rows and rows far past a warp
      std::vector<int32_t> lengths(500);
      for (size_t i = 0; i < lengths.size(); ++i) lengths[i] = static_cast<int32_t>((i * 37) % 29);
      lengths[7]   = 300;
      lengths[400] = 1000;
      const CsrMatrix c = rows_of_lengths(2000, lengths, 5);
      DeviceCsr       d(c, Empty::one);
      const rs::FixedPattern  ref = rs::pattern_of(c.nrows, c.ncols, c.row_ptr.data(), c.col.data());
      const dev::DeviceFixedPattern got =
         dev::pattern_of(c.nrows, c.ncols, d.view.row_ptr, d.view.col, stream_, alloc);
      EXPECT_EQ(download(got.row_ptr.get(), got.row_ptr.size()), ref.row_ptr);
      EXPECT_EQ(download(got.sorted_col.get(), got.sorted_col.size()), ref.sorted_col);
      EXPECT_EQ(download(got.pos.get(), got.pos.size()), ref.pos);
   }
   {
      const CsrMatrix dup = from_entries(3, 4, {{0, 1, 1.0}, {1, 2, 1.0}, {1, 2, 1.0}, {2, 0, 1.0}});
      DeviceCsr       d(dup);
      EXPECT_THROW(dev::pattern_of(dup.nrows, dup.ncols, d.view.row_ptr, d.view.col, stream_, alloc), amgt::Error);
   }
   EXPECT_EQ(counter.live, 0);
}

// A and B whose product has rows of every kind: empty, short, up to the shared-memory cap, and
// past it.
// walk: the walk the rule must pick for this product (automatic: not checked).
void expect_numeric_matches(dev::Stream s, const CsrMatrix& a, const CsrMatrix& b, const char* what,
                            dev::PlacesWalk walk_picked = dev::PlacesWalk::automatic)
{
   SCOPED_TRACE(what);
   AllocCounter counter;
   const auto   alloc = counting_allocator(counter);
   {
      const CsrMatrix c = shuffled_rows(amgt::csr_spgemm_ref(a.view(), b.view()), 17);
      const rs::FixedPattern ref_p = rs::pattern_of(c.nrows, c.ncols, c.row_ptr.data(), c.col.data());
      std::vector<double>    ref(c.col.size());
      ASSERT_TRUE(rs::numeric_on_pattern(a.view(), b.view(), ref_p, ref.data()));
      DeviceCsr da(a, Empty::one), db(b, Empty::one), dc(c, Empty::one);
      const dev::DeviceFixedPattern p =
         dev::pattern_of(c.nrows, c.ncols, dc.view.row_ptr, dc.view.col, s, alloc);
      DeviceArray<double>  out(std::vector<double>(c.col.size(), -7777.0), Empty::one);
      DeviceArray<int32_t> flag(std::vector<int32_t>{0});
      dev::numeric_on_pattern(da.view, db.view, p, out.get(), flag.get(), s);
      dev::synchronize(s);
      EXPECT_EQ(download(flag.get(), 1)[0], 0);
      const std::vector<double> got = download(out.get(), c.col.size());
      EXPECT_EQ(got, ref);
      EXPECT_TRUE(c.col.empty() || std::any_of(got.begin(), got.end(), [](double v) { return v != 0.0; }));
      int32_t longest = 0;
      for (int32_t i = 0; i < c.nrows; ++i) longest = std::max(longest, c.row_ptr[i + 1] - c.row_ptr[i]);
      std::printf("[ numeric ] %s: %d rows, %zu entries, longest row %d (shared memory up to %d)\n", what, c.nrows,
                  c.col.size(), longest, dev::kFixedRowCap);
      // the places: byte for byte the reference's, and the product by places equal to it
      rs::TermPlaces ref_t;
      ASSERT_TRUE(rs::term_places(a.view(), b.view(), ref_p, ref_t));
      dev::DeviceTermPlaces t = dev::term_places(da.view, db.view, p, flag.get(), s, alloc);
      ASSERT_EQ(t.width, ref_t.width);
      EXPECT_EQ(t.terms, ref_t.term_ptr.back());
      EXPECT_EQ(download(t.term_ptr.get(), t.term_ptr.size()), ref_t.term_ptr);
      EXPECT_EQ(download(t.place.get(), t.place.size()), ref_t.place);
      if (walk_picked != dev::PlacesWalk::automatic)
      {
         EXPECT_EQ(dev::places_walk(t, c.nrows, dev::PlacesWalk::automatic), walk_picked)
            << static_cast<double>(t.terms) / c.nrows << " terms a row";
      }
      for (const dev::PlacesWalk walk : {dev::PlacesWalk::lanes, dev::PlacesWalk::dealt, dev::PlacesWalk::automatic})
      {
         SCOPED_TRACE(walk == dev::PlacesWalk::lanes ? "lanes" : walk == dev::PlacesWalk::dealt ? "dealt" : "automatic");
         DeviceArray<double> by_places(std::vector<double>(c.col.size(), -7777.0), Empty::one);
         dev::numeric_by_places(da.view, db.view, p, t, by_places.get(), s, walk);
         dev::synchronize(s);
         EXPECT_EQ(download(by_places.get(), c.col.size()), ref);
      }
      EXPECT_EQ(download(flag.get(), 1)[0], 0);
      // the pulls: byte for byte the reference's, the product by them equal to it
      rs::TermPulls ref_u;
      ASSERT_TRUE(rs::term_pulls(a.view(), b.view(), ref_p, ref_t, ref_u));
      dev::DeviceTermPulls u = dev::term_pulls(da.view, db.view, p, t, s, alloc);
      ASSERT_EQ(u.width, ref_u.width);
      EXPECT_EQ(t.width, 0) << "the pulls did not take the places' term pointers";
      EXPECT_EQ(t.term_ptr.size(), 0u);
      EXPECT_EQ(u.bits_b, ref_u.bits_b);
      EXPECT_EQ(download(u.term_ptr.get(), u.term_ptr.size()), ref_u.term_ptr);
      EXPECT_EQ(download(u.code.get(), u.code.size()), ref_u.code);
      // the segmented kernel: the same values (small integers: exact in any order)
      DeviceArray<double> by_pulls(std::vector<double>(c.col.size(), -7777.0), Empty::one);
      dev::numeric_by_pulls(da.view, db.view, p, u, by_pulls.get(), s);
      dev::synchronize(s);
      EXPECT_EQ(download(by_pulls.get(), c.col.size()), ref);
      std::printf("[ places  ] %s: %lld terms, %d byte(s) a place, %d a pull\n", what,
                  static_cast<long long>(ref_t.term_ptr.back()), ref_t.width, u.width);
   }
   EXPECT_EQ(counter.live, 0);
}

TEST_F(ResetupDevice, NumericProductOnAPatternEqualsTheReference)
{
   const CsrMatrix a27 = stencil_3d(12, 11, 10, 27);
   const CsrMatrix P   = interpolation_3d(12, 11, 10, 4);
   expect_numeric_matches(stream_, a27, P, "27-point A * P");
   const CsrMatrix ap = amgt::csr_spgemm_ref(a27.view(), P.view());
   expect_numeric_matches(stream_, transpose(P), ap, "P^T * (AP)");
   // long rows: A's rows of 0..600 entries reach B's rows, C rows past the cap
   std::vector<int32_t> la(200), lb(700);
   for (size_t i = 0; i < la.size(); ++i) la[i] = static_cast<int32_t>((i * 13) % 40);
   la[3] = la[4] = 600; // drawn by a row or two (seed 21): 1788 terms
   la[50]        = 0;
   for (size_t i = 0; i < lb.size(); ++i) lb[i] = static_cast<int32_t>(1 + (i * 7) % 5);
   expect_numeric_matches(stream_, rows_of_lengths(700, la, 21), rows_of_lengths(900, lb, 23), "long rows",
                          dev::PlacesWalk::dealt); // about 25 entries of A a row reaching 3 of B each
   // short rows: 4 and 8 lanes a row (fixed_pattern_lanes), each with a row past its group's
   // share of shared memory (the global-atomics path at that width)
   for (int32_t per : {2, 9})
   {
      std::vector<int32_t> ls(3000, per), lb1(4000, 1);
      ls[17] = 120;
      const CsrMatrix sa = rows_of_lengths(4000, ls, 51 + per);
      const CsrMatrix sb = rows_of_lengths(5000, lb1, 61 + per);
      const CsrMatrix sc = amgt::csr_spgemm_ref(sa.view(), sb.view());
      const int32_t   G  = dev::fixed_pattern_lanes(sc.nrows, static_cast<int64_t>(sc.col.size()));
      EXPECT_EQ(G, per == 2 ? 4 : 8);
      expect_numeric_matches(stream_, sa, sb, per == 2 ? "short rows, 4 lanes" : "short rows, 8 lanes",
                             dev::PlacesWalk::lanes); // 2 or 9 terms a row but one of 120
   }
   // B without values (all ones)
   CsrMatrix ones = rows_of_lengths(900, lb, 25);
   ones.val.clear();
   expect_numeric_matches(stream_, rows_of_lengths(700, la, 27), ones, "B pattern only");
}

TEST_F(ResetupDevice, ATermOutsideThePatternIsFlagged)
{
   AllocCounter counter;
   const auto   alloc = counting_allocator(counter);
   {
      const CsrMatrix a = stencil_3d(6, 6, 6, 7);
      const CsrMatrix c = stencil_3d(6, 6, 6, 7); // A*A needs distance-2 columns: not there
      DeviceCsr       da(a), dc(c);
      const dev::DeviceFixedPattern p = dev::pattern_of(c.nrows, c.ncols, dc.view.row_ptr, dc.view.col, stream_, alloc);
      DeviceArray<double>  out(c.col.size());
      DeviceArray<int32_t> flag(std::vector<int32_t>{0});
      dev::numeric_on_pattern(da.view, da.view, p, out.get(), flag.get(), stream_);
      dev::synchronize(stream_);
      EXPECT_EQ(download(flag.get(), 1)[0], 1);
      // the places refuse it too, and set the flag as the search does
      DeviceArray<int32_t>        flag2(std::vector<int32_t>{0});
      const dev::DeviceTermPlaces t = dev::term_places(da.view, da.view, p, flag2.get(), stream_, alloc);
      EXPECT_EQ(t.width, 0);
      EXPECT_EQ(download(flag2.get(), 1)[0], 1);
   }
   EXPECT_EQ(counter.live, 0);
}

TEST_F(ResetupDevice, GalerkinPlanOverSeveralValueSets)
{
   AllocCounter counter;
   const auto   alloc = counting_allocator(counter);
   {
      const CsrMatrix a0 = stencil_3d(14, 13, 12, 7);
      const CsrMatrix P  = interpolation_3d(14, 13, 12, 4);
      const CsrMatrix R  = transpose(P);
      const CsrMatrix c0 =
         shuffled_rows(amgt::csr_spgemm_ref(R.view(), amgt::csr_spgemm_ref(a0.view(), P.view()).view()), 31);
      DeviceCsr dr(R), dp(P), dc(c0);
      rs::GalerkinPlan host = rs::make_galerkin_plan(R.view(), a0.view(), P.view(), c0.row_ptr.data(),
                                                     c0.col.data(), c0.nrows);
      DeviceCsr da0(a0);
      dev::DeviceGalerkinPlan plan = dev::make_galerkin_plan(dr.view, da0.view, dp.view, dc.view.row_ptr,
                                                             dc.view.col, c0.nrows, stream_, alloc,
                                                             dev::PlanForm::pulls);
      EXPECT_GT(plan.ap_pulls.width, 0) << "the plan's A*P has no pulls";
      EXPECT_GT(plan.c_pulls.width, 0) << "the plan's R*(AP) has no pulls";
      // the same products by places and by search: the same values
      // automatic: places wherever they fit
      dev::DeviceGalerkinPlan automatic = dev::make_galerkin_plan(dr.view, da0.view, dp.view, dc.view.row_ptr,
                                                                  dc.view.col, c0.nrows, stream_, alloc);
      EXPECT_EQ(automatic.ap_pulls.width + automatic.c_pulls.width, 0);
      EXPECT_EQ(automatic.ap_places.width, 1);
      EXPECT_EQ(automatic.c_places.width, 1);
      dev::DeviceGalerkinPlan by_search = dev::make_galerkin_plan(dr.view, da0.view, dp.view, dc.view.row_ptr,
                                                                  dc.view.col, c0.nrows, stream_, alloc,
                                                                  dev::PlanForm::search);
      EXPECT_EQ(by_search.ap_places.width + by_search.c_places.width, 0);
      const int64_t after_plan = counter.total;
      for (uint32_t step = 0; step < 4; ++step)
      {
         SCOPED_TRACE(step);
         CsrMatrix    a = a0;
         std::mt19937 rng(200 + step);
         for (double& v : a.val) v = draw_value(rng, Fill::small_int);
         DeviceCsr           da(a);
         std::vector<double> ref(c0.col.size());
         ASSERT_TRUE(rs::galerkin_numeric(host, R.view(), a.view(), P.view(), ref.data()));
         DeviceArray<double> out(std::vector<double>(c0.col.size(), -1.0));
         ASSERT_TRUE(dev::galerkin_numeric(plan, dr.view, da.view, dp.view, out.get(), stream_));
         dev::synchronize(stream_);
         EXPECT_EQ(download(out.get(), c0.col.size()), ref);
         for (dev::DeviceGalerkinPlan* other : {&automatic, &by_search})
         {
            DeviceArray<double> o(std::vector<double>(c0.col.size(), -1.0));
            ASSERT_TRUE(dev::galerkin_numeric(*other, dr.view, da.view, dp.view, o.get(), stream_));
            dev::synchronize(stream_);
            EXPECT_EQ(download(o.get(), c0.col.size()), ref);
         }
      }
      EXPECT_EQ(counter.total, after_plan) << "a product on the plan allocated";
   }
   EXPECT_EQ(counter.live, 0);
}

// Long rows: the pulls refuse A*P (a code of more than 16 bits: A's longest row and P's need too
// many), and that plan keeps its places there; the automatic plan takes the places of A*P and
// searches R*(AP), whose places would take more than kMaxPlaceBytesPerEntry bytes an entry (AP's
// rows of ~300 entries reached by every entry of R); every form gives the reference's values.
TEST_F(ResetupDevice, PlanFormsOnLongRows)
{
   AllocCounter counter;
   const auto   alloc = counting_allocator(counter);
   {
      std::vector<int32_t> la(50, 3), lp(10, 1);
      la[0]             = 700; // rows of 700 entries: 10 bits of a code
      lp[0]             = 300; // rows of 300: 9 more, past 16 with the end flag
      const CsrMatrix a = shuffled_rows(varied_rows(1000, 1000, la, Fill::small_int, 71), 72);
      const CsrMatrix P = varied_rows(1000, 400, lp, Fill::small_int, 73);
      const CsrMatrix R = transpose(P);
      const CsrMatrix ap = amgt::csr_spgemm_ref(a.view(), P.view());
      const CsrMatrix c  = shuffled_rows(amgt::csr_spgemm_ref(R.view(), ap.view()), 75);
      DeviceCsr       dr(R), da(a), dp(P), dc(c);
      auto make = [&](dev::PlanForm form) {
         return dev::make_galerkin_plan(dr.view, da.view, dp.view, dc.view.row_ptr, dc.view.col, c.nrows, stream_,
                                        alloc, form);
      };
      dev::DeviceGalerkinPlan automatic = make(dev::PlanForm::automatic);
      dev::DeviceGalerkinPlan by_pulls  = make(dev::PlanForm::pulls);
      dev::DeviceGalerkinPlan by_search = make(dev::PlanForm::search);
      const double terms_ap = static_cast<double>(automatic.ap_places.terms) / ap.nrows;
      std::printf("[ plan    ] terms a row: AP %.1f; pulls %d/%d, places %d/%d; automatic: pulls %d/%d, "
                  "places %d/%d\n",
                  terms_ap, by_pulls.ap_pulls.width, by_pulls.c_pulls.width, by_pulls.ap_places.width,
                  by_pulls.c_places.width, automatic.ap_pulls.width, automatic.c_pulls.width,
                  automatic.ap_places.width, automatic.c_places.width);
      EXPECT_EQ(by_pulls.ap_pulls.width, 0) << "A*P's codes need 20 bits";
      EXPECT_EQ(by_pulls.ap_places.width, automatic.ap_places.width) << "the places stay where the pulls refuse";
      EXPECT_EQ(by_search.ap_places.width + by_search.c_places.width, 0);
      // the automatic plan: no pulls, places where they fit
      EXPECT_EQ(automatic.ap_pulls.width + automatic.c_pulls.width, 0);
      EXPECT_EQ(automatic.ap_places.width, 2) << "rows of AP past 256 entries: 2-byte places";
      EXPECT_EQ(automatic.c_places.width, 0) << "R*(AP)'s places do not fit: it searches";
      EXPECT_EQ(automatic.c_places.terms, 0);
      rs::GalerkinPlan host =
         rs::make_galerkin_plan(R.view(), a.view(), P.view(), c.row_ptr.data(), c.col.data(), c.nrows);
      std::vector<double> ref(c.col.size());
      ASSERT_TRUE(rs::galerkin_numeric(host, R.view(), a.view(), P.view(), ref.data()));
      for (dev::DeviceGalerkinPlan* plan : {&automatic, &by_pulls, &by_search})
      {
         DeviceArray<double> out(std::vector<double>(c.col.size(), -1.0));
         ASSERT_TRUE(dev::galerkin_numeric(*plan, dr.view, da.view, dp.view, out.get(), stream_));
         dev::synchronize(stream_);
         EXPECT_EQ(download(out.get(), c.col.size()), ref);
      }
   }
   EXPECT_EQ(counter.live, 0);
}

// An allocator that refuses one size of allocation (a product's places) and otherwise counts as
// counting_allocator does.
struct Refusing
{
   AllocCounter counter;
   size_t       size     = 0;
   int          refusals = 0;
};
void* refusing_alloc(size_t bytes, void* ctx)
{
   auto* r = static_cast<Refusing*>(ctx);
   if (bytes == r->size)
   {
      ++r->refusals;
      return nullptr;
   }
   return counting_alloc(bytes, &r->counter);
}
void refusing_release(void* p, void* ctx)
{
   counting_release(p, &static_cast<Refusing*>(ctx)->counter);
}

// Where the device refuses a product's places, the plan is still made: that product searches,
// the other keeps its places, the coarse operator is the reference's, nothing leaks.
TEST_F(ResetupDevice, RefusedPlacesLeaveThatProductSearching)
{
   const CsrMatrix a = stencil_3d(14, 13, 12, 7);
   const CsrMatrix P = interpolation_3d(14, 13, 12, 4);
   const CsrMatrix R = transpose(P);
   const CsrMatrix c =
      shuffled_rows(amgt::csr_spgemm_ref(R.view(), amgt::csr_spgemm_ref(a.view(), P.view()).view()), 33);
   // the size of A*P's places, as the plan asks for it
   const rs::FixedPattern ap = rs::product_pattern(a.view(), P.view());
   rs::TermPlaces         ap_t;
   ASSERT_TRUE(rs::term_places(a.view(), P.view(), ap, ap_t));
   Refusing refusing;
   refusing.size = static_cast<size_t>(ap_t.term_ptr.back()) * static_cast<size_t>(ap_t.width);
   {
      const dev::Allocator alloc{refusing_alloc, refusing_release, &refusing};
      DeviceCsr            dr(R), da(a), dp(P), dc(c);
      dev::DeviceGalerkinPlan plan;
      ASSERT_NO_THROW(plan = dev::make_galerkin_plan(dr.view, da.view, dp.view, dc.view.row_ptr, dc.view.col,
                                                      c.nrows, stream_, alloc));
      std::printf("[ plan    ] places of A*P: %zu bytes, refused %d time(s); places %d/%d\n", refusing.size,
                  refusing.refusals, plan.ap_places.width, plan.c_places.width);
      EXPECT_GE(refusing.refusals, 1);
      EXPECT_TRUE(plan.places_refused);
      EXPECT_EQ(plan.ap_places.width, 0) << "A*P searches";
      EXPECT_EQ(plan.c_places.width, 1) << "R*(AP) keeps its places";
      rs::GalerkinPlan host =
         rs::make_galerkin_plan(R.view(), a.view(), P.view(), c.row_ptr.data(), c.col.data(), c.nrows);
      std::vector<double> ref(c.col.size());
      ASSERT_TRUE(rs::galerkin_numeric(host, R.view(), a.view(), P.view(), ref.data()));
      DeviceArray<double> out(std::vector<double>(c.col.size(), -1.0));
      ASSERT_TRUE(dev::galerkin_numeric(plan, dr.view, da.view, dp.view, out.get(), stream_));
      dev::synchronize(stream_);
      EXPECT_EQ(download(out.get(), c.col.size()), ref);
   }
   EXPECT_EQ(refusing.counter.live, 0);
}

} // namespace
