// Everything amgt-kernel-bench asks of hypre, behind plain types: hypre's headers (and their
// macros) stay in hypre_bridge.cpp, away from the plugin's and the vendor library's. A build
// without hypre (the HIP build here: AMGT_WITH_HYPRE=OFF) links hypre_bridge_none.cpp instead:
// available() is false, nothing of hypre is measured and no AMG setup is run.
//
// What is measured as "hypre's own": the CSR entry points BoomerAMG itself calls on the GPU,
// hypre_CSRMatrixMatvecDevice (SpMV) and hypreDevice_CSRSpGemm (SpGEMM), with
// HYPRE_SetSpMVUseVendor(0) / HYPRE_SetSpGemmUseVendor(0), i.e. hypre's own kernels, not its
// vendor-library wrappers. AMGT is forced to "off" in this process, so libHYPRE's AMGT hooks hand
// every call back to stock hypre.
#pragma once

#include "bench_common.h"

#include <memory>
#include <string>
#include <vector>

namespace amgt::kbench::hyp {

// Whether this build has hypre (hypre_bridge.cpp) or not (hypre_bridge_none.cpp: every call
// below that would need it throws BenchError; MPI is one rank without MPI).
bool available();

// MPI (the real one, or hypre's stubs in a sequential build).
void mpi_init(int* argc, char*** argv);
void mpi_finalize();
int  mpi_size();

// HYPRE_Initialize + HYPRE_DeviceInitialize, device memory/execution, hypre's own kernels.
// With `pool_allocator`, hypre's device allocations go through dev_alloc/dev_free too.
void        initialize(bool pool_allocator);
void        finalize();
const char* version();

// Throws BenchError when hypre's error flag is set (and clears it).
void check_error(const char* what);

// Non-owning hypre_CSRMatrix / hypre_Vector views of device arrays.
struct CsrDeleter
{
   void operator()(void* m) const noexcept;
};
struct VecDeleter
{
   void operator()(void* v) const noexcept;
};
using CsrView = std::unique_ptr<void, CsrDeleter>;
using VecView = std::unique_ptr<void, VecDeleter>;

CsrView wrap(const DeviceCsr& a);
VecView wrap(int32_t n, double* data);

// y = alpha * A * x + beta * y through hypre_CSRMatrixMatvecDevice (b == y: no copy).
void spmv(void* A, double alpha, void* x, double beta, void* y);

// C = A * B through hypreDevice_CSRSpGemm; C is hypre's own matrix, freed by the destructor.
class Product
{
public:
   Product() = default;
   explicit Product(void* c) : c_(c) {}
   Product(Product&& o) noexcept : c_(o.c_) { o.c_ = nullptr; }
   Product& operator=(Product&& o) noexcept;
   Product(const Product&)            = delete;
   Product& operator=(const Product&) = delete;
   ~Product();

   int32_t        nrows() const;
   int32_t        ncols() const;
   int64_t        nnz() const;
   const int32_t* row_ptr() const;
   const int32_t* col() const;
   const double*  val() const;
   void*          get() const { return c_; } // the hypre_CSRMatrix, an operand of spgemm

private:
   void* c_ = nullptr;
};
// binned: hypre's binned SpGEMM (hypre_SetSpGemmBinned(1): rows binned by size, tables and
// groups per bin), off in hypre's default configuration; the setting is restored afterwards.
Product spgemm(void* A, void* B, bool binned = false);

// A BoomerAMG hierarchy built by stock hypre on the GPU with the AMG benchmark settings
// (docs/architecture.md: PMIS, theta 0.25, extended+i, l1-Jacobi, ...), as host CSR copies of the
// (single-rank) diag blocks, columns sorted unless asked otherwise.
struct Hierarchy
{
   std::vector<HostCsr> A;   // A[0] .. A[levels-1]
   std::vector<HostCsr> P;   // P[0] .. P[levels-2], P[l]: rows(A[l]) x rows(A[l+1])
   double               setup_seconds = 0.0;
   std::string          settings;
};
// sorted = false: the rows as hypre left them (the copies are not sorted).
Hierarchy amg_hierarchy(const HostCsr& A, int num_functions, bool sorted = true);

} // namespace amgt::kbench::hyp
