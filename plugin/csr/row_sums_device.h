// Row sums of a CSR block on the GPU (csr/row_sums.h says what; row_sums_ref is the oracle,
// equal exactly: tests/gpu/test_row_sums_device.cpp).
#pragma once

#include "csr/row_sums.h"
#include "device/runtime.h"

namespace amgt::device {

// hypre's warp width, whose lanes' sums the kernel reproduces (32 with CUDA, 64 with HIP)
int row_sums_warp();

// The arrays of m on the device. Enqueues one kernel on s and returns: no allocation, no
// synchronisation. Where the mean row holds at most 8 entries, a thread a row (its rows of up
// to 16 entries in registers, longer ones taken by its warp one after another); otherwise a
// group of 16 or 32 lanes a row, lane l standing for hypre's warp lanes l, l + G, l + 2G, ...;
// a block without columns: a thread a row, nothing read but out (add). Throws amgt::Error as
// check_row_sums does.
void row_sums(const RowSums& m, Stream s);

// The weak row sums (csr/row_sums.h) likewise: a group of 4-32 lanes a row, hypre's lanes'
// sums kept apart and met in its tree. Throws amgt::Error as check_weak_row_sums does.
void weak_row_sums(const WeakRowSums& m, Stream s);

} // namespace amgt::device
