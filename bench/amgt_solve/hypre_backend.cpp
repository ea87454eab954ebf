// Build-dependent hypre calls (CPU vs GPU) and reads of hypre's internal solver data.
#include "hypre_backend.h"

#include <chrono>
#include <stdexcept>

// Internal headers: hypre_ParAMGData (number of levels, level operators), hypre_bind_device,
// hypre_ParCSRMatrixMigrate, hypre_SyncCudaDevice. Also maps MPI_* to hypre's stubs in
// builds without MPI.
#include "_hypre_parcsr_ls.h"
// The device memory report (--memory-report) asks the device runtime of hypre's build through
// the plugin's device layer (plugin/device/backend.h), which names the vendor.
#if defined(HYPRE_USING_CUDA) || defined(HYPRE_USING_HIP)
#define AMGT_SOLVE_DEVICE_MEMORY 1
#if defined(HYPRE_USING_HIP) && !defined(AMGT_DEVICE_HIP)
#define AMGT_DEVICE_HIP 1
#endif
#if !defined(AMGT_HAVE_DEVICE_RUNTIME)
#define AMGT_HAVE_DEVICE_RUNTIME 1
#endif
#include "device/backend.h"
#endif

namespace amgt::backend {

bool gpu_build() {
#if defined(HYPRE_USING_GPU)
  return true;
#else
  return false;
#endif
}

const char* device_name() { return gpu_build() ? "gpu" : "cpu"; }

bool device_pool_build() {
#if defined(HYPRE_USING_CUDA) && defined(HYPRE_USING_DEVICE_POOL)
  return true;
#else
  return false;
#endif
}

int bind_device(MPI_Comm comm) {
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int local_rank = 0;
#if !defined(HYPRE_SEQUENTIAL)
  MPI_Comm node_comm;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node_comm);
  MPI_Comm_rank(node_comm, &local_rank);
  MPI_Comm_free(&node_comm);
#endif
#if defined(HYPRE_USING_GPU)
  // GPU (local_rank % number of GPUs on the node), as hypre's ij driver does; must precede
  // HYPRE_Initialize.
  hypre_bind_device(rank, size, comm);
#endif
  return local_rank;
}

double runtime_probe_s(int calls) {
#if defined(HYPRE_USING_GPU)
  hypre_int dev = 0;
  hypre_GetDevice(&dev);  // the first call may set the runtime up: not timed
  const auto t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < calls; ++k) hypre_GetDevice(&dev);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
#else
  (void)calls;
  return -1.0;
#endif
}

std::string device_label() {
#if defined(AMGT_SOLVE_DEVICE_MEMORY)
  int dev = -1;
  if (amgt::device::current_device(&dev) != amgt::device::kSuccess) {
    (void)amgt::device::last_error();
    return "GPU ?";
  }
  char bus[32] = {0};
  if (amgt::device::pci_bus_id(bus, static_cast<int>(sizeof(bus)), dev) != amgt::device::kSuccess) {
    (void)amgt::device::last_error();
    bus[0] = '\0';
  }
  return "GPU " + std::to_string(dev) + (bus[0] ? std::string(" (") + bus + ")" : std::string());
#else
  return "";
#endif
}

void configure_library(int vendor_spgemm, int vendor_spmv, int spgemm_binned) {
#if defined(HYPRE_USING_GPU)
  HYPRE_DeviceInitialize();
  HYPRE_SetMemoryLocation(HYPRE_MEMORY_DEVICE);
  HYPRE_SetExecutionPolicy(HYPRE_EXEC_DEVICE);
  HYPRE_SetSpGemmUseVendor(vendor_spgemm);
  HYPRE_SetSpMVUseVendor(vendor_spmv);
  // not in hypre's public API (utilities/handle.c): what an application may call to run
  // hypre's own SpGEMM in its binned mode
  hypre_SetSpGemmBinned(spgemm_binned);
#else
  (void)vendor_spgemm;
  (void)vendor_spmv;
  (void)spgemm_binned;
  HYPRE_SetMemoryLocation(HYPRE_MEMORY_HOST);
  HYPRE_SetExecutionPolicy(HYPRE_EXEC_HOST);
#endif
}

// The only place that chooses BoomerAMG's product path.
//
// CPU builds: BoomerAMG reaches hypre's host SpGEMM (hypre_CSRMatrixMultiplyHost, where the
// AMGT plugin hooks in; see docs/HYPRE_HOOKS.md) only with the modular RAP and a stored
// transpose of P, so both are switched on, for stock and plugin runs alike (the baseline
// must use the same algorithm).
// GPU builds: hypre's defaults (device SpGEMM; keep-transpose is already the GPU default).
void configure_products(HYPRE_Solver amg) {
#if defined(HYPRE_USING_GPU)
  (void)amg;
#else
  HYPRE_BoomerAMGSetModuleRAP2(amg, 1);
  HYPRE_BoomerAMGSetKeepTranspose(amg, 1);
#endif
}

const char* products_description() {
#if defined(HYPRE_USING_GPU)
  return "hypre GPU defaults (device SpGEMM, keep-transpose)";
#else
  return "HYPRE_BoomerAMGSetModuleRAP2(amg, 1), HYPRE_BoomerAMGSetKeepTranspose(amg, 1)";
#endif
}

bool reset_device_random() {
#if defined(HYPRE_USING_CURAND) || defined(HYPRE_USING_ROCRAND)
  hypre_ResetDeviceRandGenerator(1234ULL, 0ULL);
  return true;
#else
  return false;
#endif
}

bool sets_module_rap2() { return !gpu_build(); }
bool sets_keep_transpose() { return !gpu_build(); }

void device_sync() {
#if defined(HYPRE_USING_GPU)
  hypre_SyncCudaDevice(hypre_handle());  // the device-wide synchronisation of hypre's build
#endif
}

unsigned long long device_used_bytes() {
#if defined(AMGT_SOLVE_DEVICE_MEMORY)
  device_sync();
  size_t free_b = 0, total_b = 0;
  if (amgt::device::mem_get_info(&free_b, &total_b) != amgt::device::kSuccess) {
    (void)amgt::device::last_error();
    return 0;
  }
  return static_cast<unsigned long long>(total_b - free_b);
#else
  return 0;
#endif
}

void migrate_to_device(HYPRE_ParCSRMatrix A) {
#if defined(HYPRE_USING_GPU)
  hypre_ParCSRMatrixMigrate(reinterpret_cast<hypre_ParCSRMatrix*>(A), HYPRE_MEMORY_DEVICE);
#else
  (void)A;
#endif
}

void migrate_to_host(HYPRE_ParCSRMatrix A) {
#if defined(HYPRE_USING_GPU)
  hypre_ParCSRMatrixMigrate(reinterpret_cast<hypre_ParCSRMatrix*>(A), HYPRE_MEMORY_HOST);
#else
  (void)A;
#endif
}

HostCsr host_csr(HYPRE_ParCSRMatrix A) {
  auto* m = reinterpret_cast<hypre_ParCSRMatrix*>(A);
  hypre_CSRMatrix* diag = hypre_ParCSRMatrixDiag(m);
  hypre_CSRMatrix* offd = hypre_ParCSRMatrixOffd(m);
  for (hypre_CSRMatrix* b : {diag, offd}) {
    if (hypre_GetActualMemLocation(hypre_CSRMatrixMemoryLocation(b)) != hypre_MEMORY_HOST) {
      throw std::logic_error("host_csr: the matrix is not in host memory");
    }
  }
  HostCsr h;
  h.num_rows = hypre_CSRMatrixNumRows(diag);
  h.first_row = static_cast<std::int64_t>(hypre_ParCSRMatrixFirstRowIndex(m));
  h.first_col = static_cast<std::int64_t>(hypre_ParCSRMatrixFirstColDiag(m));
  h.last_col = static_cast<std::int64_t>(hypre_ParCSRMatrixLastColDiag(m));
  h.diag_i = hypre_CSRMatrixI(diag);
  h.diag_j = hypre_CSRMatrixJ(diag);
  h.diag_data = hypre_CSRMatrixData(diag);
  h.diag_nnz = h.diag_i ? h.diag_i[h.num_rows] : 0;
  h.offd_i = hypre_CSRMatrixI(offd);
  h.offd_j = hypre_CSRMatrixJ(offd);
  h.offd_data = hypre_CSRMatrixData(offd);
  h.offd_nnz = h.offd_i ? h.offd_i[h.num_rows] : 0;
  h.num_cols_offd = hypre_CSRMatrixNumCols(offd);
  h.col_map_offd = hypre_ParCSRMatrixColMapOffd(m);
  return h;
}

int node_ranks(MPI_Comm comm) {
#if !defined(HYPRE_SEQUENTIAL)
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm node_comm;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node_comm);
  int size = 1;
  MPI_Comm_size(node_comm, &size);
  MPI_Comm_free(&node_comm);
  return size;
#else
  (void)comm;
  return 1;
#endif
}

int amg_num_levels(HYPRE_Solver amg) {
  const auto* data = reinterpret_cast<const hypre_ParAMGData*>(amg);
  return data ? hypre_ParAMGDataNumLevels(data) : 0;
}

void amg_level_sizes(HYPRE_Solver amg, std::vector<std::int64_t>& rows,
                     std::vector<std::int64_t>& nnz) {
  rows.clear();
  nnz.clear();
  auto* data = reinterpret_cast<hypre_ParAMGData*>(amg);
  if (!data || !hypre_ParAMGDataAArray(data)) return;
  const int levels = hypre_ParAMGDataNumLevels(data);
  for (int l = 0; l < levels; ++l) {
    hypre_ParCSRMatrix* A = hypre_ParAMGDataAArray(data)[l];
    if (!A) break;
    long long local =
        static_cast<long long>(hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixDiag(A))) +
        static_cast<long long>(hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixOffd(A)));
    long long global = 0;
    MPI_Allreduce(&local, &global, 1, MPI_LONG_LONG_INT, MPI_SUM, hypre_ParCSRMatrixComm(A));
    rows.push_back(static_cast<std::int64_t>(hypre_ParCSRMatrixGlobalNumRows(A)));
    nnz.push_back(global);
  }
}

namespace {

// A level matrix's diag block on the host (a copy where it lives on the device).
struct HostPattern {
  std::vector<std::int32_t> row_ptr, col;
  work::Pattern view(std::int64_t nrows, std::int64_t ncols) const {
    return work::Pattern{nrows, ncols, row_ptr.data(), col.data()};
  }
};

HostPattern host_pattern(hypre_CSRMatrix* m) {
  HostPattern h;
  const HYPRE_Int n = hypre_CSRMatrixNumRows(m);
  const HYPRE_Int nnz = hypre_CSRMatrixNumNonzeros(m);
  h.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  h.col.assign(static_cast<std::size_t>(nnz), 0);
  const HYPRE_MemoryLocation loc = hypre_CSRMatrixMemoryLocation(m);
  if (hypre_CSRMatrixI(m)) {
    hypre_TMemcpy(h.row_ptr.data(), hypre_CSRMatrixI(m), HYPRE_Int, n + 1, HYPRE_MEMORY_HOST, loc);
  }
  if (nnz > 0 && hypre_CSRMatrixJ(m)) {
    hypre_TMemcpy(h.col.data(), hypre_CSRMatrixJ(m), HYPRE_Int, nnz, HYPRE_MEMORY_HOST, loc);
  }
  return h;
}

}  // namespace

std::string amg_galerkin_work(HYPRE_Solver amg, std::vector<work::GalerkinWork>& out) {
  static_assert(sizeof(HYPRE_Int) == sizeof(std::int32_t), "32-bit HYPRE_Int");
  out.clear();
  auto* data = reinterpret_cast<hypre_ParAMGData*>(amg);
  if (!data || !hypre_ParAMGDataAArray(data)) return "no hierarchy";
  const int levels = hypre_ParAMGDataNumLevels(data);
  hypre_ParCSRMatrix** A = hypre_ParAMGDataAArray(data);
  hypre_ParCSRMatrix** P = hypre_ParAMGDataPArray(data);
  int size = 1;
  if (A[0]) MPI_Comm_size(hypre_ParCSRMatrixComm(A[0]), &size);
  if (size > 1) return "not counted on several ranks (it needs whole matrices)";
  for (int l = 0; l + 1 < levels; ++l) {
    if (!A[l] || !P || !P[l]) return "level " + std::to_string(l) + " has no A or P";
    hypre_CSRMatrix* a = hypre_ParCSRMatrixDiag(A[l]);
    hypre_CSRMatrix* p = hypre_ParCSRMatrixDiag(P[l]);
    if (hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixOffd(A[l])) != 0 ||
        hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixOffd(P[l])) != 0) {
      return "level " + std::to_string(l) + " has an off-diagonal block";
    }
    const HostPattern ha = host_pattern(a), hp = host_pattern(p);
    try {
      out.push_back(work::galerkin_work(ha.view(hypre_CSRMatrixNumRows(a), hypre_CSRMatrixNumCols(a)),
                                        hp.view(hypre_CSRMatrixNumRows(p), hypre_CSRMatrixNumCols(p))));
    } catch (const std::exception& e) {
      out.clear();
      return "level " + std::to_string(l) + ": " + e.what();
    }
  }
  return "";
}

}  // namespace amgt::backend
