// The diagonal of a CSR block on the GPU (csr/diag.h says what; csr_diag_ref is the oracle,
// equal exactly: tests/gpu/test_diag_device.cpp).
#pragma once

#include "csr/diag.h"
#include "device/runtime.h"

namespace amgt::device {

// The arrays of m on the device. Enqueues one kernel on s and returns: no allocation, no
// synchronisation. A group of 4, 8, 16 or 32 lanes a row (by the mean row length) reads the row
// a group's width at a time, coalesced, and stops at the chunk that holds the diagonal (the
// first for a row that begins with it, as the rows of hypre's operators do once moved). Throws
// amgt::Error as check_csr_diag does.
void csr_diag(const CsrDiag& m, Stream s);

} // namespace amgt::device
