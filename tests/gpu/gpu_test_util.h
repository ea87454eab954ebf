// What the GPU tests share: fixtures that fail without a GPU (never skip), device copies of
// host arrays, a CSR matrix on the device with the view the plugin takes, an allocator that
// counts live allocations, and uploads of mBSR matrices through a given allocator.
#pragma once

#include "device/runtime.h"
#include "mbsr/mbsr.h"
#include "mbsr/mbsr_device.h"

#include "device/backend.h"
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace amgt::test::gpu {

// Fixture of every GPU test: a GPU test that finds no usable GPU fails.
class GpuTest : public ::testing::Test
{
protected:
   void SetUp() override
   {
      int n = 0;
      ASSERT_EQ(device::device_count(&n), device::kSuccess) << "gpu test run without a usable GPU";
      ASSERT_GT(n, 0) << "gpu test run without a GPU";
   }
};

// A GPU test with a non-blocking stream of its own (kernels on it do not wait for the legacy
// stream); after the test the stream is destroyed and no CUDA error may be pending.
class GpuStreamTest : public GpuTest
{
protected:
   void SetUp() override
   {
      GpuTest::SetUp();
      if (HasFatalFailure()) return;
      ASSERT_EQ(device::stream_create_non_blocking(&stream_), device::kSuccess);
   }
   void TearDown() override
   {
      if (stream_) (void)device::stream_destroy(stream_);
      EXPECT_EQ(device::last_error(), device::kSuccess);
   }
   device::Stream stream_ = nullptr;
};

// n elements of device memory at d, copied to the host.
template <class T>
std::vector<T> download(const T* d, size_t n)
{
   std::vector<T> h(n);
   if (n) { EXPECT_EQ(device::memcpy_blocking(h.data(), d, n * sizeof(T), device::Copy::to_host), device::kSuccess); }
   return h;
}

// What a device array of no elements holds: nothing (nullptr), so that an array is exactly as
// long as the call may touch and compute-sanitizer reports any access past it; or one element,
// for calls that are handed a valid pointer even when there is nothing to read.
enum class Empty
{
   null,
   one
};

// A device array (device_malloc, freed on scope exit), uploaded from a host vector or left
// uninitialised. An upload waits for the device: from pageable memory a blocking copy may return
// before the copy has landed, and tests run kernels on non-blocking streams.
template <class T>
class DeviceArray
{
public:
   explicit DeviceArray(size_t n, Empty empty = Empty::null) : n_(n)
   {
      const size_t count = n_ > 0 ? n_ : (empty == Empty::one ? 1 : 0);
      if (count) { EXPECT_EQ(device::device_malloc(&p_, count * sizeof(T)), device::kSuccess); }
   }
   explicit DeviceArray(const std::vector<T>& h, Empty empty = Empty::null)
       : DeviceArray(h.size(), empty)
   {
      if (n_ == 0) return;
      EXPECT_EQ(device::memcpy_blocking(p_, h.data(), n_ * sizeof(T), device::Copy::to_device), device::kSuccess);
      EXPECT_EQ(device::device_synchronize(), device::kSuccess);
   }
   DeviceArray(const DeviceArray&)            = delete;
   DeviceArray& operator=(const DeviceArray&) = delete;
   ~DeviceArray()
   {
      if (p_) (void)device::device_free(p_);
   }

   T*             get() const { return p_; }
   size_t         size() const { return n_; }
   std::vector<T> to_host() const { return download(p_, n_); }

private:
   T*     p_ = nullptr;
   size_t n_ = 0;
};

// A CSR matrix's arrays on the device and their view (val nullptr for a matrix without values:
// every value 1). other_row_ptr, when given, replaces a's row pointer (invalid-input tests).
struct DeviceCsr
{
   explicit DeviceCsr(const CsrMatrix& a, Empty empty = Empty::null,
                      const std::vector<int32_t>* other_row_ptr = nullptr)
       : row_ptr(other_row_ptr ? *other_row_ptr : a.row_ptr, empty), col(a.col, empty),
         val(a.val, empty),
         view{a.nrows, a.ncols, static_cast<int32_t>(a.col.size()), row_ptr.get(), col.get(),
              a.val.empty() ? nullptr : val.get()}
   {}

   DeviceArray<int32_t> row_ptr, col;
   DeviceArray<double>  val;
   CsrView              view;
};

// An Allocator on device_malloc/device_free that counts its live and total allocations, so that a
// test sees every temporary come back.
struct AllocCounter
{
   int64_t live  = 0;
   int64_t total = 0;
};

inline void* counting_alloc(size_t bytes, void* ctx)
{
   void* p = nullptr;
   if (device::device_malloc(&p, bytes) != device::kSuccess)
   {
      (void)device::last_error();
      return nullptr;
   }
   auto* c = static_cast<AllocCounter*>(ctx);
   ++c->live;
   ++c->total;
   return p;
}

inline void counting_release(void* p, void* ctx)
{
   (void)device::device_free(p);
   --static_cast<AllocCounter*>(ctx)->live;
}

inline device::Allocator counting_allocator(AllocCounter& counter)
{
   return device::Allocator{counting_alloc, counting_release, &counter};
}

// A host vector in a device Buffer from the allocator (waits for the copy, as DeviceArray).
template <class T>
device::Buffer<T> upload_buffer(const std::vector<T>& h, const device::Allocator& a)
{
   device::Buffer<T> d(h.size(), a);
   if (!h.empty())
   {
      EXPECT_EQ(device::memcpy_blocking(d.get(), h.data(), h.size() * sizeof(T), device::Copy::to_device),
                device::kSuccess);
      EXPECT_EQ(device::device_synchronize(), device::kSuccess);
   }
   return d;
}

// A host mBSR matrix on the device, dense layout, every array from the allocator.
template <class V>
device::DeviceMbsr<V> upload_mbsr(const Mbsr<V>& h, const device::Allocator& a)
{
   device::DeviceMbsr<V> d;
   d.nrows      = h.nrows;
   d.ncols      = h.ncols;
   d.block_rows = h.block_rows();
   d.block_cols = h.block_cols();
   d.num_tiles  = h.num_tiles();
   d.blk_ptr    = upload_buffer(h.blk_ptr, a);
   d.blk_col    = upload_buffer(h.blk_col, a);
   d.blk_map    = upload_buffer(h.blk_map, a);
   d.blk_val    = upload_buffer(h.blk_val, a);
   return d;
}

} // namespace amgt::test::gpu
