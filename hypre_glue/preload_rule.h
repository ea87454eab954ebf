// The preload's one decision after HYPRE_Initialize (AMGT_PRELOAD, backend_device_preload.cpp):
// whether it goes on loading beside the application once the application's first matrix is
// assembled. Pure host code.
#pragma once

#include <cstdint>

namespace amgt::glue {

// The driver lets one thread load kernels at a time, and the application's own calls (its
// matrix moved to the device, its vectors made, the first launches of hypre's kernels) wait
// for the preload's loads. An assembly of fewer entries than this is over before the loads
// can repay it: on an H200 the IJ assembly of the shared matrices and generated problems of
// up to 330k entries took 8-14 ms longer beside the preload while their first setup gained
// less (the assembly, first setup and solve 0.87-1.07x stock's together), from 459k entries
// on the three together were 1.03-1.39x (bench/RESULTS.md, *First setup of a process*,
// records 2026-11-29h and 2026-11-29i).
constexpr int64_t kPreloadAssemblyEntries = 400000;

// local_entries: the entries of the application's first assembled matrix on this process
// (its diagonal and off-diagonal blocks); always: AMGT_PRELOAD=always.
constexpr bool preload_through_assembly(int64_t local_entries, bool always) noexcept
{
   return always || local_entries >= kPreloadAssemblyEntries;
}

} // namespace amgt::glue
