// Extended+i's F-F weights on the GPU (interp/twiaff_device.h) against the CPU reference
// (interp/twiaff.h) with hypre's search chunk: equal bit for bit, on rank blocks of every group
// width (mean rows of 1 to 140 entries; a thread a row up to 8), rows longer than a thread takes
// among short ones, rows with a repeated column, sorted rows with unsorted ones among them, an
// off-diagonal block with 32- and 64-bit ext columns, the diagonal block's columns at every
// 4-byte alignment; nothing written past the arrays; bad input refused.
#include "gpu_test_util.h"

#include "common/error.h"
#include "common/twiaff_case.h"
#include "interp/twiaff.h"
#include "interp/twiaff_device.h"

#include <algorithm>
#include <cstring>

namespace {

using namespace amgt;
using namespace amgt::test;
using namespace amgt::test::gpu;

constexpr double kMark = 12345.678; // the guard entry after each written array

uint64_t bits(double v)
{
   uint64_t b;
   std::memcpy(&b, &v, sizeof b);
   return b;
}

class TwiaffDevice : public GpuStreamTest
{
protected:
   // c on the device (ext columns 64- or 32-bit), the kernel, then the results against the
   // reference's
   // pad: the diagonal block's columns start `pad` entries into their allocation (an address
   // of any 4-byte alignment), with entries before and after them that equal the rows the
   // searches look for, which no search may take
   void check(const TwiaffCase& c, bool ext64, int pad = 0)
   {
      std::vector<double> rd = c.diag_a, ro = c.offd_a;
      const int           chunk = device::twiaff_search_chunk();
      twiaff_ref(c.rows(rd.data(), c.diag_a.data(), ro.data()), chunk);

      std::vector<double> dg = c.diag_a, og = c.offd_a;
      dg.push_back(kMark);
      og.push_back(kMark);
      std::vector<int32_t> ext32(c.ext_j.begin(), c.ext_j.end());
      std::vector<int32_t> padded(static_cast<size_t>(pad), 0);
      padded.insert(padded.end(), c.diag_j.begin(), c.diag_j.end());
      for (int32_t r = 0; r < 7; ++r) padded.push_back(c.nrows - 1 - r % c.nrows);
      DeviceArray<int32_t> di(c.diag_i), dj(padded), oi(c.offd_i), oj(c.offd_j), ei(c.ext_i), ej32(ext32);
      DeviceArray<int64_t> ej64(c.ext_j);
      DeviceArray<double>  da(dg), dold(c.diag_a), oa(og), ea(c.ext_a), w(c.rsW), fc(c.rsFC), fco(c.rsFC_offd);
      TwiaffRows           m = c.rows(da.get(), dold.get(), oa.get());
      m.diag_i    = di.get();
      m.diag_j    = dj.get() + pad;
      m.offd_i    = oi.get();
      m.offd_j    = oj.get();
      m.ext_i     = ei.get();
      m.ext_j     = ext64 ? static_cast<const void*>(ej64.get()) : static_cast<const void*>(ej32.get());
      m.ext_j_64  = ext64 ? 1 : 0;
      m.ext_a     = ea.get();
      m.rsW       = w.get();
      m.rsFC      = fc.get();
      m.rsFC_offd = fco.get();
      device::twiaff(m, stream_);
      ASSERT_NO_THROW(device::synchronize(stream_));
      const std::vector<double> gd = da.to_host(), go = oa.to_host();
      for (size_t k = 0; k < rd.size(); ++k) ASSERT_EQ(bits(gd[k]), bits(rd[k])) << "diag entry " << k;
      for (size_t k = 0; k < ro.size(); ++k) ASSERT_EQ(bits(go[k]), bits(ro[k])) << "offd entry " << k;
      EXPECT_EQ(bits(gd.back()), bits(kMark)) << "wrote past the diagonal block";
      EXPECT_EQ(bits(go.back()), bits(kMark)) << "wrote past the off-diagonal block";
   }
};

TEST_F(TwiaffDevice, EqualsTheReferenceBitForBit)
{
   for (unsigned seed = 1; seed <= 24; ++seed)
   {
      const int32_t per_row   = 1 + static_cast<int32_t>(seed * 5 % 31); // a thread a row, groups of 4 and 8 lanes
      const int32_t nrows     = 37 + static_cast<int32_t>(seed * 131 % 3000);
      const int32_t offd_cols = seed % 4 == 0 ? 0 : static_cast<int32_t>(seed * 17 % 400);
      SCOPED_TRACE("seed " + std::to_string(seed) + " rows " + std::to_string(nrows) + " per row " +
                   std::to_string(per_row));
      const TwiaffCase c = make_twiaff_case(nrows, per_row, offd_cols, seed);
      check(c, seed % 2 == 0);
      if (HasFatalFailure()) return;
   }
   for (const int32_t per_row : {40, 75, 140}) // groups of 8, 16 and 32 lanes
   {
      SCOPED_TRACE("per row " + std::to_string(per_row));
      check(make_twiaff_case(700, per_row, 90, static_cast<unsigned>(per_row)), per_row != 75);
      if (HasFatalFailure()) return;
   }
}

// The diagonal block's columns at each 4-byte alignment within their allocation: the searches
// that read whole 16-byte blocks take them from the array's first entry on and stop before its
// end (the first and last rows search entry by entry), and no entry outside the array matches.
TEST_F(TwiaffDevice, ColumnsAtEveryAlignment)
{
   for (int pad = 0; pad < 4; ++pad)
   {
      for (unsigned seed : {5u, 9u})
      {
         SCOPED_TRACE("pad " + std::to_string(pad) + " seed " + std::to_string(seed));
         TwiaffCase c = make_twiaff_case(61 + static_cast<int32_t>(seed), 3 + static_cast<int32_t>(seed % 5), 0, seed);
         for (int32_t& j : c.diag_j) // rows 0 and n - 1 reached from most rows
         {
            if (j % 3 == 1) j = 0;
            else if (j % 3 == 2) j = c.nrows - 1;
         }
         for (int32_t i = 0; i < c.nrows; ++i) // one entry a column in a row, as hypre builds them
         {
            std::vector<int32_t> seen;
            for (int32_t k = c.diag_i[i]; k < c.diag_i[i + 1]; ++k)
            {
               int32_t& j = c.diag_j[k];
               while (std::find(seen.begin(), seen.end(), j) != seen.end()) j = (j + 1) % c.nrows;
               seen.push_back(j);
            }
         }
         check(c, false, pad);
         if (HasFatalFailure()) return;
      }
   }
}

// Row 1 holds column 0 at positions `first` and `second` of 80 entries (repeated_column_case): the device takes the
// entry hypre's search takes (the reference's rule, tested against hand values on the CPU).
TEST_F(TwiaffDevice, RepeatedColumnAsHypresSearch)
{
   for (auto [first, second] : {std::pair<int, int>{3, 10}, {3, 40}, {35, 38}, {3, 70}, {66, 79}})
   {
      const TwiaffCase c = repeated_column_case(80, first, second);
      SCOPED_TRACE("positions " + std::to_string(first) + ", " + std::to_string(second));
      check(c, true);
      if (HasFatalFailure()) return;
   }
}

// Short rows (a mean of at most 8 entries: a thread a row) with rows longer than a thread
// takes among them, in the diagonal block (every 97th row: 40 entries more) and in the
// off-diagonal block (every 89th: 36 more), which the warp takes; the rows of ext keep
// finding their transposes.
TEST_F(TwiaffDevice, LongRowsAmongThreadRows)
{
   for (unsigned seed : {3u, 8u})
   {
      SCOPED_TRACE("seed " + std::to_string(seed));
      const TwiaffCase base = make_twiaff_case(3000, 4, 300, seed);
      TwiaffCase       c    = base;
      c.diag_i              = {0};
      c.diag_j.clear();
      c.diag_a.clear();
      c.offd_i = {0};
      c.offd_j.clear();
      c.offd_a.clear();
      for (int32_t i = 0; i < c.nrows; ++i)
      {
         std::vector<int32_t> cols(base.diag_j.begin() + base.diag_i[i], base.diag_j.begin() + base.diag_i[i + 1]);
         c.diag_j.insert(c.diag_j.end(), cols.begin(), cols.end());
         c.diag_a.insert(c.diag_a.end(), base.diag_a.begin() + base.diag_i[i], base.diag_a.begin() + base.diag_i[i + 1]);
         for (int32_t t = 0; i % 97 == 5 && t < 40; ++t)
         {
            const int32_t j = (i + 1 + 3 * t) % c.nrows;
            if (std::find(cols.begin(), cols.end(), j) != cols.end()) continue;
            cols.push_back(j);
            c.diag_j.push_back(j);
            c.diag_a.push_back(0.1 * (t % 7) - 0.3);
         }
         c.diag_i.push_back(static_cast<int32_t>(c.diag_j.size()));
         std::vector<int32_t> ocols(base.offd_j.begin() + base.offd_i[i], base.offd_j.begin() + base.offd_i[i + 1]);
         c.offd_j.insert(c.offd_j.end(), ocols.begin(), ocols.end());
         c.offd_a.insert(c.offd_a.end(), base.offd_a.begin() + base.offd_i[i], base.offd_a.begin() + base.offd_i[i + 1]);
         for (int32_t t = 0; i % 89 == 7 && t < 36; ++t)
         {
            const int32_t j = (i + 7 * t) % c.offd_cols;
            if (std::find(ocols.begin(), ocols.end(), j) != ocols.end()) continue;
            ocols.push_back(j);
            c.offd_j.push_back(j);
            c.offd_a.push_back(0.05 * (t % 5) - 0.4);
         }
         c.offd_i.push_back(static_cast<int32_t>(c.offd_j.size()));
      }
      const int64_t entries = static_cast<int64_t>(c.diag_j.size() + c.offd_j.size());
      ASSERT_LE((entries + c.nrows - 1) / c.nrows, 8) << "the case must take the thread-a-row kernel";
      ASSERT_GT(c.diag_i[6] - c.diag_i[5], 32) << "row 5 must be longer than a thread takes";
      ASSERT_GT(c.offd_i[8] - c.offd_i[7], 32) << "row 7's off-diagonal block must be longer than a thread takes";
      check(c, seed % 2 == 0);
      if (HasFatalFailure()) return;
   }
}

// c with a symmetric pattern (the entry (j, i) added, value 0.3, where (i, j) has none), each
// row's entries (with their values) in increasing column order; diag_first: the diagonal entry
// moved to the row's front, as hypre stores it. Every `swap`-th row has two neighbouring
// entries swapped, every `repeat`-th row a column repeated next to itself (value -0.7): rows
// out of order, and a column hypre's search finds twice (0: none).
TwiaffCase sorted_case(const TwiaffCase& base, bool diag_first, int32_t swap, int32_t repeat)
{
   std::vector<std::vector<std::pair<int32_t, double>>> rows(static_cast<size_t>(base.nrows));
   for (int32_t i = 0; i < base.nrows; ++i)
   {
      for (int32_t k = base.diag_i[i]; k < base.diag_i[i + 1]; ++k) rows[i].push_back({base.diag_j[k], base.diag_a[k]});
   }
   for (int32_t i = 0; i < base.nrows; ++i)
   {
      for (int32_t k = base.diag_i[i]; k < base.diag_i[i + 1]; ++k)
      {
         auto&         r = rows[static_cast<size_t>(base.diag_j[k])];
         const int32_t j = base.diag_j[k];
         if (j != i && std::none_of(r.begin(), r.end(), [i](const auto& e) { return e.first == i; }))
         {
            r.push_back({i, 0.3});
         }
      }
   }
   TwiaffCase c = base;
   c.diag_i     = {0};
   c.diag_j.clear();
   c.diag_a.clear();
   for (int32_t i = 0; i < c.nrows; ++i)
   {
      auto& r = rows[static_cast<size_t>(i)];
      std::sort(r.begin(), r.end());
      if (diag_first)
      {
         auto d = std::find_if(r.begin(), r.end(), [i](const auto& e) { return e.first == i; });
         if (d != r.end()) std::rotate(r.begin(), d, d + 1);
      }
      const size_t first = !r.empty() && r[0].first == i ? 1 : 0;
      if (swap > 0 && i % swap == 1 && r.size() >= first + 2) std::swap(r[first], r[first + 1]);
      if (repeat > 0 && i % repeat == 2 && r.size() >= first + 2) r.insert(r.begin() + first + 1, {r[first + 1].first, -0.7});
      for (const auto& e : r)
      {
         c.diag_j.push_back(e.first);
         c.diag_a.push_back(e.second);
      }
      c.diag_i.push_back(static_cast<int32_t>(c.diag_j.size()));
   }
   return c;
}

// Rows whose columns increase, as a generated or assembled matrix's finest A_FF holds them
// (symmetric pattern, so most searches find their entry), the diagonal entry first or in its
// place, a thread a row (a mean of 3) and groups of lanes (12 to 75: rows past hypre's 32-entry
// chunk), and rows among them with two entries swapped or a column twice side by side (hypre's
// last match): the same bits as the reference.
TEST_F(TwiaffDevice, SortedRowsAsHypresSearch)
{
   for (const int32_t per_row : {3, 12, 26, 40, 75})
   {
      for (const bool diag_first : {true, false})
      {
         const unsigned seed = static_cast<unsigned>(per_row) + (diag_first ? 100u : 0u);
         SCOPED_TRACE("per row " + std::to_string(per_row) + (diag_first ? ", diagonal first" : ", in place"));
         const TwiaffCase base = make_twiaff_case(900, (per_row + 1) / 2, per_row % 2 == 0 ? 120 : 0, seed);
         check(sorted_case(base, diag_first, 0, 0), seed % 2 == 0);
         if (HasFatalFailure()) return;
         check(sorted_case(base, diag_first, 5, 7), seed % 2 == 1);
         if (HasFatalFailure()) return;
      }
   }
}

TEST_F(TwiaffDevice, BadInputRefusedBeforeAnyLaunch)
{
   const TwiaffCase c = make_twiaff_case(50, 4, 0, 3);
   TwiaffRows       m = c.rows(nullptr, nullptr, nullptr); // host arrays: never reached
   EXPECT_THROW(device::twiaff(m, stream_), Error);         // diag_a null
   TwiaffRows negative{};
   negative.nrows = -3;
   EXPECT_THROW(device::twiaff(negative, stream_), Error);
   TwiaffRows empty{};
   EXPECT_NO_THROW(device::twiaff(empty, stream_));
   EXPECT_NO_THROW(device::synchronize(stream_));
}

} // namespace
