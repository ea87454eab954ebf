// The truncation's copy pass on the GPU (interp/truncation_device.h) against the CPU reference
// (interp/truncation.h): equal, on random rows of 0-40 entries keeping 0-8 of them (every group
// width), with and without an off-diagonal block; nothing written past the new arrays; bad
// input refused.
#include "gpu_test_util.h"

#include "common/error.h"
#include "interp/truncation.h"
#include "interp/truncation_device.h"

#include <algorithm>
#include <random>

namespace {

using namespace amgt;
using namespace amgt::test::gpu;

constexpr int32_t kMarkJ = -0x5a5a5a5a;
constexpr double  kMarkA = -4242.5;

struct Block
{
   std::vector<int32_t> i{0}, j, i_new{0};
   std::vector<double>  a;
};

Block make_block(int32_t nrows, int32_t max_len, int32_t max_keep, std::mt19937& gen)
{
   Block b;
   for (int32_t r = 0; r < nrows; ++r)
   {
      const int32_t len  = max_len > 0 ? static_cast<int32_t>(gen() % static_cast<unsigned>(max_len + 1)) : 0;
      const int32_t keep = std::min(len, static_cast<int32_t>(gen() % static_cast<unsigned>(max_keep + 1)));
      for (int32_t k = 0; k < len; ++k)
      {
         b.j.push_back(static_cast<int32_t>(gen() % 100000));
         b.a.push_back(static_cast<double>(gen() % 1000) / 7.0);
      }
      b.i.push_back(static_cast<int32_t>(b.j.size()));
      b.i_new.push_back(b.i_new.back() + keep);
   }
   return b;
}

class TruncationDevice : public GpuStreamTest
{
protected:
   void check(int32_t nrows, int32_t max_len, int32_t max_keep, bool offd, unsigned seed)
   {
      std::mt19937 gen(seed);
      const Block  d = make_block(nrows, max_len, max_keep, gen), o = make_block(nrows, offd ? 6 : 0, 3, gen);
      const size_t nd = static_cast<size_t>(d.i_new.back()), no = static_cast<size_t>(o.i_new.back());
      std::vector<int32_t> want_dj(nd), want_oj(no);
      std::vector<double>  want_da(nd), want_oa(no);
      TruncCopy            h{};
      h.nrows      = nrows;
      h.nnz_new    = static_cast<int64_t>(nd + no);
      h.diag_i     = d.i.data();
      h.diag_j     = d.j.data();
      h.diag_a     = d.a.data();
      h.offd_i     = o.i.data();
      h.offd_j     = o.j.data();
      h.offd_a     = o.a.data();
      h.diag_i_new = d.i_new.data();
      h.diag_j_new = want_dj.data();
      h.diag_a_new = want_da.data();
      h.offd_i_new = o.i_new.data();
      h.offd_j_new = want_oj.data();
      h.offd_a_new = want_oa.data();
      trunc_copy_ref(h);

      DeviceArray<int32_t> di(d.i), dj(d.j), dn(d.i_new), oi(o.i), oj(o.j), on(o.i_new);
      DeviceArray<double>  da(d.a), oa(o.a);
      DeviceArray<int32_t> ndj(std::vector<int32_t>(nd + 1, kMarkJ)), noj(std::vector<int32_t>(no + 1, kMarkJ));
      DeviceArray<double>  nda(std::vector<double>(nd + 1, kMarkA)), noa(std::vector<double>(no + 1, kMarkA));
      TruncCopy            m = h;
      m.diag_i     = di.get();
      m.diag_j     = dj.get();
      m.diag_a     = da.get();
      m.offd_i     = oi.get();
      m.offd_j     = oj.get();
      m.offd_a     = oa.get();
      m.diag_i_new = dn.get();
      m.diag_j_new = ndj.get();
      m.diag_a_new = nda.get();
      m.offd_i_new = on.get();
      m.offd_j_new = noj.get();
      m.offd_a_new = noa.get();
      device::trunc_copy(m, stream_);
      ASSERT_NO_THROW(device::synchronize(stream_));
      std::vector<int32_t> gdj = ndj.to_host(), goj = noj.to_host();
      std::vector<double>  gda = nda.to_host(), goa = noa.to_host();
      EXPECT_EQ(gdj.back(), kMarkJ);
      EXPECT_EQ(gda.back(), kMarkA);
      EXPECT_EQ(goj.back(), kMarkJ);
      EXPECT_EQ(goa.back(), kMarkA);
      gdj.pop_back();
      gda.pop_back();
      goj.pop_back();
      goa.pop_back();
      EXPECT_EQ(gdj, want_dj);
      EXPECT_EQ(gda, want_da);
      EXPECT_EQ(goj, want_oj);
      EXPECT_EQ(goa, want_oa);
   }
};

TEST_F(TruncationDevice, EqualsTheReference)
{
   for (unsigned seed = 1; seed <= 24; ++seed)
   {
      const int32_t nrows    = 20 + static_cast<int32_t>(seed * 397 % 6000);
      const int32_t max_len  = static_cast<int32_t>(seed * 5 % 41);
      const int32_t max_keep = 1 + static_cast<int32_t>(seed % 8);
      SCOPED_TRACE("seed " + std::to_string(seed));
      check(nrows, max_len, max_keep, seed % 2 == 0, seed);
      if (HasFailure()) return;
   }
}

TEST_F(TruncationDevice, BadInputRefusedBeforeAnyLaunch)
{
   TruncCopy m{};
   m.nrows = 10;
   EXPECT_THROW(device::trunc_copy(m, stream_), Error);
   EXPECT_NO_THROW(device::trunc_copy(TruncCopy{}, stream_));
   EXPECT_NO_THROW(device::synchronize(stream_));
}

} // namespace
