// The copy of a truncated interpolation matrix on the GPU (interp/truncation.h says what;
// trunc_copy_ref is the oracle: tests/gpu/test_truncation_device.cpp).
#pragma once

#include "device/runtime.h"
#include "interp/truncation.h"

namespace amgt::device {

// The arrays of m on the device. Enqueues one kernel on s and returns: no allocation, no
// synchronisation. A group of 4-32 lanes a row (by the mean new row), a lane an entry.
// Throws amgt::Error as check_trunc_copy does.
void trunc_copy(const TruncCopy& m, Stream s);

} // namespace amgt::device
