// The l1-Jacobi sweep from u = 0 on the GPU (smooth/jacobi.h says what and why; its
// jacobi_from_zero_ref is the oracle, equal bit for bit: tests/gpu/test_jacobi_device.cpp).
#pragma once

#include "device/runtime.h"

#include <cstdint>

namespace amgt::device {

// n device doubles each (f, l1 read; u, vtemp written; no overlap). Enqueues one kernel on s
// and returns: no allocation, no synchronisation. n > 0 with a null pointer throws amgt::Error.
void jacobi_from_zero(int64_t n, double w, const double* f, const double* l1, double* u,
                      double* vtemp, Stream s);

} // namespace amgt::device
