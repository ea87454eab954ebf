// Everything that depends on how hypre was built (CPU or GPU) or reads hypre's internal
// headers lives behind this interface; the rest of the driver uses hypre's public API.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "galerkin_work.h"

#include "HYPRE.h"
#include "HYPRE_parcsr_ls.h"

namespace amgt::backend {

// True when hypre was built with GPU support (HYPRE_USING_GPU).
bool gpu_build();
const char* device_name();  // "gpu" or "cpu"

// GPU builds: binds one GPU per MPI rank (by node-local rank). Before HYPRE_Initialize.
// Returns the node-local rank (0 on CPU builds).
int bind_device(MPI_Comm comm);
// GPU builds: this process's device after bind_device, "GPU <id> (<PCI bus id>)"; "" otherwise.
std::string device_label();

// GPU builds: seconds that `calls` queries of the current device (hypre_GetDevice, one device
// runtime call each, no GPU work) take on this thread, after one untimed call that may start
// the runtime; a negative value on CPU builds. A measure of the process's host speed that no
// mode can change (run after bind_device and before HYPRE_Initialize; bench/RESULTS.md, record
// 2026-11-29j).
double runtime_probe_s(int calls);

// After HYPRE_Initialize: memory location, execution policy and the vendor switches of a
// GPU build (no effect on CPU builds).
void configure_library(int vendor_spgemm, int vendor_spmv, int spgemm_binned);

// True when hypre was built with its device memory pool (HYPRE_USING_DEVICE_POOL, CUDA).
bool device_pool_build();

// Per-solver product path; see the comment in the implementation.
void configure_products(HYPRE_Solver amg);
// Human-readable list of the calls configure_products makes.
const char* products_description();
bool sets_module_rap2();      // configure_products calls SetModuleRAP2(amg, 1)
bool sets_keep_transpose();   // configure_products calls SetKeepTranspose(amg, 1)

// Waits for all device work (no-op on CPU builds). Used before reading timers.
void device_sync();

// GPU builds with hypre's device random numbers (cuRAND/rocRAND): the generator back to the
// seed and offset of a fresh process (hypre_ResetDeviceRandGenerator(1234, 0), as hypre's ij
// does before its timed second run), so that every setup of a process coarsens with the same
// numbers as its first and builds the same hierarchy; a no-op otherwise. Returns whether it
// reset anything.
bool reset_device_random();

// GPU builds: bytes of device memory in use (cudaMemGetInfo total - free, after a device
// sync), for leak checks over many runs; 0 on CPU builds.
unsigned long long device_used_bytes();

// GPU builds: moves an assembled matrix to device memory (no-op on CPU builds).
void migrate_to_device(HYPRE_ParCSRMatrix A);
// GPU builds: moves it back to host memory (no-op on CPU builds), so that host SetValues
// can write new values into an assembled IJ matrix (--steps).
void migrate_to_host(HYPRE_ParCSRMatrix A);

// The arrays of an assembled ParCSR matrix held in host memory (CPU builds, or GPU builds
// after migrate_to_host): the diagonal block (local columns, diag_j local indices) and the
// off-diagonal block (offd_j indexes col_map_offd, the global columns). --steps' direct
// update writes new values into diag_data / offd_data in place. Throws std::logic_error when
// the blocks are not in host memory.
struct HostCsr {
  std::int64_t num_rows = 0;
  std::int64_t first_row = 0;   // global index of local row 0
  std::int64_t first_col = 0;   // global columns [first_col, last_col] lie in the diag block
  std::int64_t last_col = -1;
  std::int64_t diag_nnz = 0;
  std::int64_t offd_nnz = 0;
  std::int64_t num_cols_offd = 0;
  const HYPRE_Int* diag_i = nullptr;
  const HYPRE_Int* diag_j = nullptr;
  HYPRE_Real* diag_data = nullptr;
  const HYPRE_Int* offd_i = nullptr;
  const HYPRE_Int* offd_j = nullptr;
  HYPRE_Real* offd_data = nullptr;
  const HYPRE_BigInt* col_map_offd = nullptr;
};
HostCsr host_csr(HYPRE_ParCSRMatrix A);

// MPI ranks of `comm` on this node (1 in builds without MPI).
int node_ranks(MPI_Comm comm);

// Number of levels of a BoomerAMG hierarchy after setup (hypre has no public getter).
int amg_num_levels(HYPRE_Solver amg);

// Global rows and nonzeros of each level's operator A_l (collective over the matrix's comm).
void amg_level_sizes(HYPRE_Solver amg, std::vector<std::int64_t>& rows,
                     std::vector<std::int64_t>& nnz);

// work::galerkin_work of every level l with an interpolation P_l (A_l, P_l: the hierarchy's
// matrices, copied to the host where they live on the device). Needs whole matrices: with an
// off-diagonal block (several ranks) it counts nothing and returns why; "" when it counted.
std::string amg_galerkin_work(HYPRE_Solver amg, std::vector<work::GalerkinWork>& out);

}  // namespace amgt::backend
