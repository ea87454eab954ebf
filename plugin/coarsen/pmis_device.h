// The per-sweep kernels of hypre's PMIS coarsening on the GPU (coarsen/pmis.h says what; the
// references are the oracles, equal exactly: tests/gpu/test_pmis_device.cpp).
#pragma once

#include "coarsen/pmis.h"
#include "device/runtime.h"

namespace amgt::device {

// The arrays on the device. Each enqueues one kernel on s and returns: no allocation, no
// synchronisation. A group of 4, 8, 16 or 32 lanes a graph row (by S's mean row length), where
// hypre gives each row a warp. Throw amgt::Error as the references do.
void indep_set_main(const PmisGraph& g, const double* measure_diag, const double* measure_offd,
                    int32_t* is_diag, int32_t* is_offd, int32_t temp_mark, Stream s);
void pmis_update_cf(const PmisGraph& g, double* measure_diag, int32_t* cf_diag, const int32_t* cf_offd,
                    Stream s);

} // namespace amgt::device
