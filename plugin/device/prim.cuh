// Device-wide primitives of the thin device layer (prefix sums, reductions, radix sort):
// prim::DeviceScan, prim::DeviceReduce and prim::DeviceRadixSort with CUB's signatures and
// two-phase temporary-storage convention. CUDA: CUB itself. HIP: rocPRIM behind the same
// names (device/hip/prim_rocprim.h). Below them, exclusive_sum: the two-phase scan with its
// temporary storage and the read-back of its last value, the form most callers need.
#pragma once

#include "device/backend.h"
#include "device/runtime.h"

#if defined(AMGT_DEVICE_HIP)
#include "device/hip/prim_rocprim.h"
#else
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

namespace amgt::device {
namespace prim = ::cub;
} // namespace amgt::device
#endif

namespace amgt::device {

// Exclusive sum of n values (device memory) into out, enqueued on s; then waits for s (the
// temporary storage is released after the wait) and returns out[n - 1]: the total of the first
// n - 1 values, every value's where the caller appends a zero.
template <class In, class Out>
Out exclusive_sum(const In* in, Out* out, int64_t n, Stream s, const Allocator& alloc)
{
   size_t bytes = 0;
   AMGT_DEVICE_CHECK(prim::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n, s));
   Buffer<char> temp(bytes, alloc);
   AMGT_DEVICE_CHECK(prim::DeviceScan::ExclusiveSum(temp.get(), bytes, in, out, n, s));
   Out last = 0;
   AMGT_DEVICE_CHECK(memcpy_async(&last, out + n - 1, sizeof last, Copy::to_host, s));
   synchronize(s);
   return last;
}

} // namespace amgt::device
