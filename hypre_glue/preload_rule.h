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

// Under AMGT_SETUP_KERNELS=large, the application's matrix (its entries on this process, the
// latest assembled: amgt_glue_matrix_assembled) below which its hierarchy's setup kernels stay
// hypre's at every level (backend.h setup_kernel_decision): the preload's bound. Such a process
// has not loaded the plugin's kernels before its first setup (the preload stops at the matrix),
// so a setup kernel's first launch loads its device image inside that setup (about 0.3 ms an image on an
// H200), which the microseconds it saves at these sizes never repay: aniso7 n=31 (203k entries,
// its level 1 309k) ran five of the plugin's setup kernels and loaded three images more than
// stock, and its cold first setup + solve was 0.959x stock's (bench/RESULTS.md, *Small and
// mid-size systems*, record 2026-11-30b).
constexpr int64_t kSetupKernelsApplicationEntries = kPreloadAssemblyEntries;

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
