// The counting pass of BoomerAMG's strength of connection on the GPU (coarsen/strength.h says
// what; strength_rowcount_ref is the oracle, equal exactly: tests/gpu/test_strength_device.cpp).
#pragma once

#include "coarsen/strength.h"
#include "device/runtime.h"

namespace amgt::device {

// hypre's warp width, whose lanes' sums the kernel reproduces (32 with CUDA, 64 with HIP)
int strength_warp();

// The arrays of m on the device. Enqueues one kernel on s and returns: no allocation, no
// synchronisation. Where the mean row holds at most 8 entries, a thread a row (rows of up to 8
// entries a block in registers, summed in the lower levels of hypre's butterfly; longer rows
// taken by the warp one after another); otherwise a group of 16 or 32 lanes a row, each lane
// standing for hypre's warp lanes l, l + G, l + 2G, ...: their sums kept apart and met in
// hypre's butterfly. Throws amgt::Error as check_strength_rows does.
void strength_rowcount(const StrengthRows& m, Stream s);

} // namespace amgt::device
