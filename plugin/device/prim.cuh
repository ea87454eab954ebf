// Device-wide primitives of the thin device layer (prefix sums, reductions, radix sort):
// prim::DeviceScan, prim::DeviceReduce and prim::DeviceRadixSort with CUB's signatures and
// two-phase temporary-storage convention. CUDA: CUB itself. HIP: rocPRIM behind the same
// names (device/hip/prim_rocprim.h).
#pragma once

#include "device/backend.h"

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
