// Extended+i interpolation's weights of the F-F block on the GPU (interp/twiaff.h says what;
// twiaff_ref is the oracle, equal bit for bit: tests/gpu/test_twiaff_device.cpp).
#pragma once

#include "device/runtime.h"
#include "interp/twiaff.h"

namespace amgt::device {

// hypre's warp width, the chunk of its search for the entry (j, i) (32 with CUDA, 64 with HIP)
int twiaff_search_chunk();

// The arrays of m on the device. Enqueues one kernel on s and returns: no allocation, no
// synchronisation. By the mean row length (from diag_nnz and offd_nnz): up to 8 entries a
// thread a row (rows longer than 32 entries taken by a warp), else a group of 4 to 32 lanes a
// row, each lane taking every G-th entry (up to eight of a mean row), each entry's search of its
// row j in its lane, where hypre's warp walks a row's entries one after another. Throws amgt::Error as check_twiaff_rows does.
void twiaff(const TwiaffRows& m, Stream s);

} // namespace amgt::device
