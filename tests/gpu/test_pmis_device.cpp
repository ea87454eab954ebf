// PMIS's sweep kernels on the GPU (coarsen/pmis_device.h) against their CPU references
// (coarsen/pmis.h): equal exactly on random graphs of every group width (mean strong rows of 1
// to 200), with and without an off-diagonal block, markers below -1, an off-diagonal block
// alone; bad input refused.
#include "gpu_test_util.h"

#include "coarsen/pmis.h"
#include "coarsen/pmis_device.h"
#include "common/error.h"
#include "common/pmis_case.h"

namespace {

using namespace amgt;
using namespace amgt::test;
using namespace amgt::test::gpu;

constexpr int32_t kTemp = 9999;

class PmisDevice : public GpuStreamTest
{
};

// Both kernels on one case against the references.
void expect_equal_to_references(const PmisCase& c, device::Stream stream)
{
   DeviceArray<int32_t> graph(c.graph), di(c.s_diag_i), dj(c.s_diag_j), oi(c.s_offd_i), oj(c.s_offd_j);
   PmisGraph            g = c.view();
   g.graph                = graph.get();
   g.s_diag_i             = di.get();
   g.s_diag_j             = dj.get();
   g.s_offd_i             = oi.get();
   g.s_offd_j             = oj.get();

   std::vector<int32_t> rd = c.is_diag, ro = c.is_offd;
   indep_set_main_ref(c.view(), c.measure_diag.data(), c.measure_offd.data(), rd.data(), ro.data(), kTemp);
   DeviceArray<double>  md(c.measure_diag), mo(c.measure_offd);
   DeviceArray<int32_t> isd(c.is_diag), iso(c.is_offd);
   device::indep_set_main(g, md.get(), mo.get(), isd.get(), iso.get(), kTemp, stream);
   ASSERT_NO_THROW(device::synchronize(stream));
   EXPECT_EQ(isd.to_host(), rd);
   EXPECT_EQ(iso.to_host(), ro);

   std::vector<double>  rm  = c.measure_diag;
   std::vector<int32_t> rcf = c.cf_diag;
   pmis_update_cf_ref(c.view(), rm.data(), rcf.data(), c.cf_offd.data());
   DeviceArray<double>  m(c.measure_diag);
   DeviceArray<int32_t> cf(c.cf_diag), cfo(c.cf_offd);
   device::pmis_update_cf(g, m.get(), cf.get(), cfo.get(), stream);
   ASSERT_NO_THROW(device::synchronize(stream));
   EXPECT_EQ(m.to_host(), rm);
   EXPECT_EQ(cf.to_host(), rcf);
}

TEST_F(PmisDevice, EqualTheReferencesExactly)
{
   for (unsigned seed = 1; seed <= 30; ++seed)
   {
      const PmisCase c = make_pmis_case(50 + static_cast<int32_t>(seed * 377 % 5000), 1 + static_cast<int32_t>(seed * 3 % 30),
                                        seed % 4 == 0 ? 0 : 257, seed);
      SCOPED_TRACE("seed " + std::to_string(seed));
      expect_equal_to_references(c, stream_);
      if (HasFailure()) return;
   }
}

// What the random cases above do not draw: mean rows past 64 and 128 connections (the widest
// groups), markers below -1 (hypre's special F points, which the update leaves as they are),
// and an S whose diagonal block is empty while its off-diagonal block is not.
TEST_F(PmisDevice, WideRowsMarkersBelowMinusOneAndAnOffDiagonalBlockAlone)
{
   for (const int32_t per_row : {40, 70, 100})
   {
      SCOPED_TRACE("mean row " + std::to_string(per_row));
      PmisCase c = make_pmis_case(600, per_row, 257, 11u + static_cast<unsigned>(per_row));
      for (size_t i = 0; i < c.cf_diag.size(); i += 7) c.cf_diag[i] = i % 2 ? -2 : -3;
      expect_equal_to_references(c, stream_);
      if (HasFailure()) return;
   }
   PmisCase c = make_pmis_case(900, 3, 257, 29);
   std::fill(c.s_diag_i.begin(), c.s_diag_i.end(), 0);
   c.s_diag_j.clear();
   for (size_t i = 0; i < c.cf_diag.size(); i += 5) c.cf_diag[i] = -3;
   ASSERT_GT(c.s_offd_j.size(), 0u);
   expect_equal_to_references(c, stream_);
}

TEST_F(PmisDevice, BadInputRefusedBeforeAnyLaunch)
{
   const PmisCase c = make_pmis_case(40, 3, 0, 5);
   PmisGraph      g = c.view(); // host arrays: never reached
   EXPECT_THROW(device::indep_set_main(g, nullptr, nullptr, nullptr, nullptr, kTemp, stream_), Error);
   EXPECT_THROW(device::pmis_update_cf(g, nullptr, nullptr, nullptr, stream_), Error);
   EXPECT_NO_THROW(device::pmis_update_cf(PmisGraph{}, nullptr, nullptr, nullptr, stream_));
   EXPECT_NO_THROW(device::synchronize(stream_));
}

} // namespace
