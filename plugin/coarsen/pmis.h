// The two per-sweep kernels of hypre's PMIS coarsening on the GPU (parcsr_ls/par_indepset_device.c
// hypreGPUKernel_IndepSetMain, parcsr_ls/par_coarsen_device.c hypreGPUKernel_PMISCoarseningUpdateCF;
// together 7-18 ms a setup at 6-16M rows, 0.09-0.18 of their bytes' roofline, a warp per row
// of 5-26 strong connections: bench/RESULTS.md, "Setup: hypre's own kernels"). For each row of
// the graph (the rows not yet decided), over its strong connections j in S (diagonal block, then
// off-diagonal block):
//   independent set: with t = measure(j) > 1, measure(row) > t takes j out of the set (is_diag[j]
//     = 0, or is_offd[j] = temp_mark for an off-diagonal j), t > measure(row) takes row out
//     (is_diag[row] = 0);
//   update: a row in the set (cf_diag[row] > 0) gets measure 0; a row that is not, with a strong
//     connection to a C point (cf > 0, diagonal block first), becomes an F point (cf_diag[row] =
//     -1) with measure 0.
// Every write stores a constant, and no value a row reads is one another row writes in a way
// that changes what it reads (the update only turns 0 into -1, and tests cf > 0), so the result
// does not depend on the order of the rows or entries: the device kernels (pmis_device.h) equal
// the references exactly.
#pragma once

#include "common/setup_kernels.h"

#include <cstdint>

namespace amgt {

// the graph (common/setup_kernels.h, shared with the C side of the glue)
using PmisGraph = ::amgt_pmis_graph;

// Throws amgt::Error unless graph_size, nrows and the counts are >= 0 and, with a graph, the
// graph, the row pointers and a non-empty block's columns are given.
void check_pmis_graph(const PmisGraph& g);

// hypre's IndepSetMain: is_diag (and is_offd where S has an off-diagonal block) rewritten; the
// measures are only read and share no memory with is_diag / is_offd (the device kernel reads
// them through the read-only cache).
void indep_set_main_ref(const PmisGraph& g, const double* measure_diag, const double* measure_offd,
                        int32_t* is_diag, int32_t* is_offd, int32_t temp_mark);

// hypre's PMISCoarseningUpdateCF: measure_diag and cf_diag rewritten.
void pmis_update_cf_ref(const PmisGraph& g, double* measure_diag, int32_t* cf_diag, const int32_t* cf_offd);

} // namespace amgt
