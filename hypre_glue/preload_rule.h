// The preload's one decision after HYPRE_Initialize (AMGT_PRELOAD, backend_device_preload.cpp):
// whether it goes on loading beside the application once the application's first matrix is
// assembled. Pure host code.
#pragma once

#include <cstdint>
#include <string>

namespace amgt::glue {

// The preload's kernel loads and the application's own driver calls exclude each other
// (record 2026-11-28f): its matrix moved to the device, its vectors made, the first launches
// of hypre's kernels wait for the loads. An assembly of fewer entries than this is over before the loads
// can repay it: on an H200 the small suite's 21 cases of up to 330k entries assembled 4-14 ms
// slower beside the preload (medians), and their assembly, first setup and solve together
// were 0.963-0.975x stock's (geomeans of fp64, auto, mixed); with the preload stopped at the
// matrix 1.023-1.029x. From 459k to 2.5M entries, going on gave 1.02-1.25x (bench/RESULTS.md,
// *First setup of a process*, records 2026-11-29h and 2026-11-29i).
constexpr int64_t kPreloadAssemblyEntries = 400000;

// local_entries: the entries of the application's first assembled matrix on this process
// (its diagonal and off-diagonal blocks); always: AMGT_PRELOAD=always.
constexpr bool preload_through_assembly(int64_t local_entries, bool always) noexcept
{
   return always || local_entries >= kPreloadAssemblyEntries;
}

// Why the preload stopped before its end, as AMGT_STATS says it: at the application's first
// matrix (its local entries, below the bound), or because the first setup (or HYPRE_Finalize)
// began; `brief`: without the explanation (a second line after one that has it).
inline std::string preload_stop_reason(bool at_matrix, int64_t matrix_entries, bool brief)
{
   if (!at_matrix) return "the first setup (or HYPRE_Finalize) began before the rest";
   if (brief) return "stopped at the application's first matrix before the rest";
   return "stopped at the application's first matrix (" + std::to_string(matrix_entries) +
          " entries on this process, fewer than " + std::to_string(kPreloadAssemblyEntries) +
          ": its assembly is too short to repay the loads; AMGT_PRELOAD=always goes on) before the rest";
}

} // namespace amgt::glue
