// The preload's loading of the device kernels of the image that holds the plugin
// (hypre_glue/kernel_images.h), here this test program with some of the plugin's kernels
// linked in (those of the row-wise SpMV, which the test runs): every kernel of every device
// image reached is loaded, a loaded kernel computes what the CPU does, a second pass finds the
// same, and a stop set beforehand loads nothing. A GPU test that finds no GPU fails.
#include "kernel_images.h"

#include "device/runtime.h"
#include "rows/rows_device.h"

#include "gpu_test_util.h"

#include <gtest/gtest.h>

namespace {

using namespace amgt;
using namespace amgt::glue;

class KernelImagesDevice : public amgt::test::gpu::GpuStreamTest
{
};

// y = A x by the plugin's row-wise SpMV on a 4x4 tridiagonal matrix, against the host's
void expect_row_wise_spmv_matches_the_host(device::Stream s)
{
   using amgt::test::gpu::DeviceArray;
   const std::vector<int32_t> rp{0, 2, 5, 8, 10}, col{0, 1, 0, 1, 2, 1, 2, 3, 2, 3};
   const std::vector<double>  val{4, -1, -1, 4, -1, -1, 4, -1, -1, 4}, x{1, 2, 3, 4};
   std::vector<double>        expected(4, 0.0);
   for (int i = 0; i < 4; ++i)
   {
      for (int k = rp[i]; k < rp[i + 1]; ++k) expected[i] += val[k] * x[col[k]];
   }
   DeviceArray<int32_t> drp(rp), dcol(col);
   DeviceArray<double>  dval(val), dx(x), dy(std::vector<double>(4, 0.0));
   const CsrView        v{4, 4, 10, drp.get(), dcol.get(), dval.get()};
   const device::DeviceRows<double> r =
      device::make_rows<double>(v, nullptr, true, s, device::runtime_allocator());
   device::rows_spmv<double>(r, 1.0, dx.get(), 0.0, dy.get(), s);
   device::synchronize(s);
   EXPECT_EQ(dy.to_host(), expected);
}

TEST_F(KernelImagesDevice, LoadsEveryKernelOfThePluginsImages)
{
   device::use_device(0); // the context the kernels are loaded into
   std::atomic<bool> stop{false};
   const KernelLoad  r = load_image_kernels(&stop);
#if defined(AMGT_DEVICE_HIP)
   EXPECT_NE(r.problem.find("HIP"), std::string::npos) << "HIP builds load at first launch: " << r.problem;
   EXPECT_EQ(r.loaded, 0);
   return;
#endif
   ASSERT_TRUE(r.problem.empty()) << r.problem;
   EXPECT_GT(r.functions, 100) << "the program's C++ functions";
   // the row-wise SpMV's source and whatever else of the plugin the linker took with it
   EXPECT_GE(r.libraries, 1);
   EXPECT_GE(r.stubs, r.libraries);
   EXPECT_GE(r.kernels, r.stubs) << "an image's kernels include those without an external host stub";
   EXPECT_EQ(r.loaded, r.kernels);
   EXPECT_EQ(r.failed, 0);
   EXPECT_FALSE(r.stopped);
   EXPECT_GT(r.seconds, 0.0);
   expect_row_wise_spmv_matches_the_host(stream_);
   const KernelLoad again = load_image_kernels(&stop);
   EXPECT_EQ(again.libraries, r.libraries);
   EXPECT_EQ(again.kernels, r.kernels);
   EXPECT_EQ(again.loaded, r.kernels) << "loading a loaded kernel is no error";
   EXPECT_EQ(device::last_error(), device::kSuccess) << "the lookups of non-kernels leave no error behind";
}

TEST_F(KernelImagesDevice, AStopSetBeforeLoadsNothing)
{
   device::use_device(0);
   std::atomic<bool> stop{true};
   const KernelLoad  r = load_image_kernels(&stop);
#if defined(AMGT_DEVICE_HIP)
   EXPECT_EQ(r.loaded, 0);
   return;
#endif
   ASSERT_TRUE(r.problem.empty()) << r.problem;
   EXPECT_TRUE(r.stopped);
   EXPECT_EQ(r.loaded, 0);
   expect_row_wise_spmv_matches_the_host(stream_); // loaded at its launch, as without the preload
}

} // namespace
