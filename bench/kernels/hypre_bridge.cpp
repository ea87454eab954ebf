// hypre's side of amgt-kernel-bench. The only file that includes hypre's headers; internal
// headers (_hypre_parcsr_ls.h) for hypre_CSRMatrix, hypre_Vector, hypre_ParAMGData and the
// device entry points BoomerAMG uses.
#include "hypre_bridge.h"

#include "_hypre_parcsr_ls.h"
#include "HYPRE.h"
#include "HYPRE_config.h"
#include "HYPRE_parcsr_ls.h"

#include <chrono>
#include <string>
#include <type_traits>

#if !defined(HYPRE_USING_CUDA) && !defined(HYPRE_USING_HIP)
#error "amgt-kernel-bench needs a GPU build of hypre (AMGT_WITH_CUDA=ON, or hypre's HIP build)"
#endif
#if defined(HYPRE_BIGINT) || defined(HYPRE_MIXEDINT) || defined(HYPRE_COMPLEX) || \
    defined(HYPRE_SINGLE) || defined(HYPRE_LONG_DOUBLE)
#error "amgt-kernel-bench expects hypre with 32-bit HYPRE_Int and double values"
#endif

static_assert(sizeof(HYPRE_Int) == sizeof(int32_t), "HYPRE_Int must be 32-bit");
static_assert(std::is_same_v<HYPRE_Complex, double>, "HYPRE_Complex must be double");

namespace amgt::kbench::hyp {

bool available()
{
   return true;
}

namespace {

hypre_CSRMatrix* csr(void* p)
{
   return static_cast<hypre_CSRMatrix*>(p);
}

hypre_Vector* vec(void* p)
{
   return static_cast<hypre_Vector*>(p);
}

// hypre's device allocations through the benchmark's allocator (GPUMallocFunc/GPUMfreeFunc).
void hypre_device_malloc(void** ptr, size_t bytes)
{
   *ptr = dev_alloc_nothrow(bytes);
}

void hypre_device_free(void* ptr)
{
   dev_free(ptr);
}

void checked(HYPRE_Int ierr, const char* what)
{
   if (ierr != 0)
   {
      HYPRE_ClearAllErrors();
      throw BenchError(std::string(what) + " failed (hypre error " + std::to_string(ierr) + ")");
   }
}

// Host copy of a hypre CSR block (device or host memory), columns sorted if asked.
HostCsr host_copy(hypre_CSRMatrix* m, const std::string& name, bool sorted = true)
{
   HostCsr h;
   h.nrows = hypre_CSRMatrixNumRows(m);
   h.ncols = hypre_CSRMatrixNumCols(m);
   const HYPRE_Int      nnz = hypre_CSRMatrixNumNonzeros(m);
   HYPRE_MemoryLocation loc = hypre_CSRMatrixMemoryLocation(m);
   h.row_ptr.resize(static_cast<size_t>(h.nrows) + 1, 0);
   h.col.resize(static_cast<size_t>(nnz));
   h.val.resize(static_cast<size_t>(nnz));
   if (hypre_CSRMatrixI(m))
   {
      hypre_TMemcpy(h.row_ptr.data(), hypre_CSRMatrixI(m), HYPRE_Int, h.nrows + 1,
                    HYPRE_MEMORY_HOST, loc);
   }
   if (nnz > 0)
   {
      if (!hypre_CSRMatrixJ(m) || !hypre_CSRMatrixData(m))
      {
         throw BenchError(name + ": hypre matrix without column or value array");
      }
      hypre_TMemcpy(h.col.data(), hypre_CSRMatrixJ(m), HYPRE_Int, nnz, HYPRE_MEMORY_HOST, loc);
      hypre_TMemcpy(h.val.data(), hypre_CSRMatrixData(m), HYPRE_Complex, nnz, HYPRE_MEMORY_HOST, loc);
   }
   check_error("copying a hierarchy matrix to the host");
   validate(h, name);
   if (sorted) sort_rows(h);
   return h;
}

} // namespace

// ---- MPI ---------------------------------------------------------------------------------

void mpi_init(int* argc, char*** argv)
{
   MPI_Init(argc, argv);
}

void mpi_finalize()
{
   MPI_Finalize();
}

int mpi_size()
{
   int size = 1;
   MPI_Comm_size(MPI_COMM_WORLD, &size);
   return size;
}

// ---- library ------------------------------------------------------------------------------

void initialize(bool pool_allocator)
{
   checked(HYPRE_Initialize(), "HYPRE_Initialize");
   if (pool_allocator)
   {
      // Before anything allocates device memory through hypre; dev_free also takes pointers
      // that came from the runtime's own malloc, should something have been allocated earlier.
      checked(hypre_SetUserDeviceMalloc(hypre_device_malloc), "hypre_SetUserDeviceMalloc");
      checked(hypre_SetUserDeviceMfree(hypre_device_free), "hypre_SetUserDeviceMfree");
   }
   checked(HYPRE_DeviceInitialize(), "HYPRE_DeviceInitialize");
   checked(HYPRE_SetMemoryLocation(HYPRE_MEMORY_DEVICE), "HYPRE_SetMemoryLocation");
   checked(HYPRE_SetExecutionPolicy(HYPRE_EXEC_DEVICE), "HYPRE_SetExecutionPolicy");
   checked(HYPRE_SetSpGemmUseVendor(0), "HYPRE_SetSpGemmUseVendor");
   checked(HYPRE_SetSpMVUseVendor(0), "HYPRE_SetSpMVUseVendor");
}

void finalize()
{
   HYPRE_Finalize();
}

const char* version()
{
   return HYPRE_RELEASE_VERSION;
}

void check_error(const char* what)
{
   const HYPRE_Int e = HYPRE_GetError();
   if (e != 0)
   {
      HYPRE_ClearAllErrors();
      throw BenchError(std::string("hypre reported error ") + std::to_string(e) + " in " + what);
   }
}

// ---- views --------------------------------------------------------------------------------

void CsrDeleter::operator()(void* m) const noexcept
{
   if (!m) return;
   // hypre_CSRMatrixDestroy frees the row offsets even when it does not own the data.
   hypre_CSRMatrixI(csr(m)) = nullptr;
   hypre_CSRMatrixJ(csr(m)) = nullptr;
   hypre_CSRMatrixData(csr(m)) = nullptr;
   hypre_CSRMatrixDestroy(csr(m));
}

void VecDeleter::operator()(void* v) const noexcept
{
   if (!v) return;
   hypre_VectorData(vec(v)) = nullptr;
   hypre_SeqVectorDestroy(vec(v));
}

CsrView wrap(const DeviceCsr& a)
{
   hypre_CSRMatrix* m = hypre_CSRMatrixCreate(a.nrows, a.ncols, static_cast<HYPRE_Int>(a.nnz));
   if (!m) throw BenchError("hypre_CSRMatrixCreate failed");
   hypre_CSRMatrixI(m)              = const_cast<HYPRE_Int*>(a.row_ptr.get());
   hypre_CSRMatrixJ(m)              = const_cast<HYPRE_Int*>(a.col.get());
   hypre_CSRMatrixData(m)           = const_cast<HYPRE_Complex*>(a.val.get());
   hypre_CSRMatrixOwnsData(m)       = 0;
   hypre_CSRMatrixMemoryLocation(m) = HYPRE_MEMORY_DEVICE;
   return CsrView(m);
}

VecView wrap(int32_t n, double* data)
{
   hypre_Vector* v = hypre_SeqVectorCreate(n);
   if (!v) throw BenchError("hypre_SeqVectorCreate failed");
   hypre_VectorData(v)     = data;
   hypre_VectorOwnsData(v) = 0;
   VecView view(v);
   // With data already set this allocates nothing; it sets the memory location and the
   // index/vector strides that hypre's SpMV kernel reads (zero after Create alone).
   checked(hypre_SeqVectorInitialize_v2(v, HYPRE_MEMORY_DEVICE), "hypre_SeqVectorInitialize_v2");
   return view;
}

void spmv(void* A, double alpha, void* x, double beta, void* y)
{
   hypre_CSRMatrixMatvecDevice(0, alpha, csr(A), vec(x), beta, vec(y), vec(y), 0);
}

// ---- SpGEMM -------------------------------------------------------------------------------

Product& Product::operator=(Product&& o) noexcept
{
   if (this != &o)
   {
      if (c_) hypre_CSRMatrixDestroy(csr(c_));
      c_   = o.c_;
      o.c_ = nullptr;
   }
   return *this;
}

Product::~Product()
{
   if (c_) hypre_CSRMatrixDestroy(csr(c_));
}

int32_t Product::nrows() const { return hypre_CSRMatrixNumRows(csr(c_)); }
int32_t Product::ncols() const { return hypre_CSRMatrixNumCols(csr(c_)); }
int64_t Product::nnz() const { return hypre_CSRMatrixNumNonzeros(csr(c_)); }
const int32_t* Product::row_ptr() const { return hypre_CSRMatrixI(csr(c_)); }
const int32_t* Product::col() const { return hypre_CSRMatrixJ(csr(c_)); }
const double*  Product::val() const { return hypre_CSRMatrixData(csr(c_)); }

Product spgemm(void* A, void* B, bool binned)
{
   hypre_CSRMatrix* C = nullptr;
   if (binned) hypre_SetSpGemmBinned(1);
   hypreDevice_CSRSpGemm(csr(A), csr(B), &C);
   if (binned) hypre_SetSpGemmBinned(0); // hypre's default
   Product p(C);
   if (!C) throw BenchError("hypreDevice_CSRSpGemm returned no matrix");
   return p;
}

// ---- BoomerAMG hierarchy ------------------------------------------------------------------

namespace {

struct AmgObjects
{
   HYPRE_IJMatrix ij_A = nullptr;
   HYPRE_IJVector ij_b = nullptr;
   HYPRE_IJVector ij_x = nullptr;
   HYPRE_Solver   amg  = nullptr;
   ~AmgObjects()
   {
      if (amg) HYPRE_BoomerAMGDestroy(amg);
      if (ij_x) HYPRE_IJVectorDestroy(ij_x);
      if (ij_b) HYPRE_IJVectorDestroy(ij_b);
      if (ij_A) HYPRE_IJMatrixDestroy(ij_A);
   }
};

} // namespace

Hierarchy amg_hierarchy(const HostCsr& A, int num_functions, bool sorted)
{
   if (A.nrows != A.ncols) throw BenchError("AMG setup needs a square matrix");
   if (A.nrows == 0) throw BenchError("AMG setup needs a non-empty matrix");
   HYPRE_ClearAllErrors();
   AmgObjects     o;
   const MPI_Comm comm = MPI_COMM_WORLD;
   const HYPRE_BigInt lo = 0, hi = static_cast<HYPRE_BigInt>(A.nrows) - 1;
   const HYPRE_Int    n  = A.nrows;

   checked(HYPRE_IJMatrixCreate(comm, lo, hi, lo, hi, &o.ij_A), "HYPRE_IJMatrixCreate");
   checked(HYPRE_IJMatrixSetObjectType(o.ij_A, HYPRE_PARCSR), "HYPRE_IJMatrixSetObjectType");
   std::vector<HYPRE_Int> diag_sizes(static_cast<size_t>(n)), offd_sizes(static_cast<size_t>(n), 0);
   for (HYPRE_Int i = 0; i < n; ++i) diag_sizes[i] = A.row_ptr[i + 1] - A.row_ptr[i];
   checked(HYPRE_IJMatrixSetDiagOffdSizes(o.ij_A, diag_sizes.data(), offd_sizes.data()),
           "HYPRE_IJMatrixSetDiagOffdSizes");
   // Assembled in host memory, then migrated to the device, as hypre's ij driver and
   // amgt-solve do.
   checked(HYPRE_IJMatrixInitialize_v2(o.ij_A, HYPRE_MEMORY_HOST), "HYPRE_IJMatrixInitialize_v2");
   {
      // Diagonal first, then the other entries in increasing column order: the order
      // amgt-solve passes (it decides ties in P's truncation, so the hierarchy matches the
      // one amgt-solve and hypre's ij driver build from the same matrix).
      std::vector<HYPRE_Int>     ncols(static_cast<size_t>(n));
      std::vector<HYPRE_BigInt>  rows(static_cast<size_t>(n));
      std::vector<HYPRE_BigInt>  cols(static_cast<size_t>(A.nnz()));
      std::vector<HYPRE_Complex> vals(static_cast<size_t>(A.nnz()));
      for (HYPRE_Int i = 0; i < n; ++i)
      {
         const int32_t b = A.row_ptr[i], e = A.row_ptr[i + 1];
         ncols[i]        = e - b;
         rows[i]         = i;
         int32_t out     = b;
         for (int32_t p = b; p < e; ++p)
            if (A.col[p] == i) { cols[out] = i; vals[out++] = A.val[p]; }
         for (int32_t p = b; p < e; ++p)
            if (A.col[p] != i) { cols[out] = A.col[p]; vals[out++] = A.val[p]; }
      }
      checked(HYPRE_IJMatrixSetValues(o.ij_A, n, ncols.data(), rows.data(), cols.data(), vals.data()),
              "HYPRE_IJMatrixSetValues");
   }
   checked(HYPRE_IJMatrixAssemble(o.ij_A), "HYPRE_IJMatrixAssemble");
   void* obj = nullptr;
   checked(HYPRE_IJMatrixGetObject(o.ij_A, &obj), "HYPRE_IJMatrixGetObject");
   HYPRE_ParCSRMatrix par_A = static_cast<HYPRE_ParCSRMatrix>(obj);
   checked(hypre_ParCSRMatrixMigrate(reinterpret_cast<hypre_ParCSRMatrix*>(par_A), HYPRE_MEMORY_DEVICE),
           "hypre_ParCSRMatrixMigrate");

   auto make_vector = [&](HYPRE_IJVector& ij, double value) {
      checked(HYPRE_IJVectorCreate(comm, lo, hi, &ij), "HYPRE_IJVectorCreate");
      checked(HYPRE_IJVectorSetObjectType(ij, HYPRE_PARCSR), "HYPRE_IJVectorSetObjectType");
      checked(HYPRE_IJVectorInitialize(ij), "HYPRE_IJVectorInitialize");
      checked(HYPRE_IJVectorAssemble(ij), "HYPRE_IJVectorAssemble");
      void* vobj = nullptr;
      checked(HYPRE_IJVectorGetObject(ij, &vobj), "HYPRE_IJVectorGetObject");
      HYPRE_ParVector par = static_cast<HYPRE_ParVector>(vobj);
      checked(HYPRE_ParVectorSetConstantValues(par, value), "HYPRE_ParVectorSetConstantValues");
      return par;
   };
   HYPRE_ParVector b = make_vector(o.ij_b, 1.0);
   HYPRE_ParVector x = make_vector(o.ij_x, 0.0);

   // The AMG benchmark settings (docs/architecture.md: amgt-solve's defaults, and the ij driver's
   // options there), plus keep-transpose (hypre's GPU default, stated explicitly).
   checked(HYPRE_BoomerAMGCreate(&o.amg), "HYPRE_BoomerAMGCreate");
   HYPRE_BoomerAMGSetCoarsenType(o.amg, 8); // PMIS
   HYPRE_BoomerAMGSetStrongThreshold(o.amg, 0.25);
   HYPRE_BoomerAMGSetMaxRowSum(o.amg, 0.8);
   HYPRE_BoomerAMGSetMaxCoarseSize(o.amg, 3);
   HYPRE_BoomerAMGSetInterpType(o.amg, 6); // extended+i
   HYPRE_BoomerAMGSetTruncFactor(o.amg, 0.1);
   HYPRE_BoomerAMGSetPMaxElmts(o.amg, 4);
   HYPRE_BoomerAMGSetRelaxType(o.amg, 18); // l1-Jacobi
   HYPRE_BoomerAMGSetNumSweeps(o.amg, 1);
   HYPRE_BoomerAMGSetMaxLevels(o.amg, 7);
   HYPRE_BoomerAMGSetAggNumLevels(o.amg, 0);
   HYPRE_BoomerAMGSetCycleType(o.amg, 1);
   HYPRE_BoomerAMGSetKeepTranspose(o.amg, 1);
   HYPRE_BoomerAMGSetNumFunctions(o.amg, num_functions);
   HYPRE_BoomerAMGSetPrintLevel(o.amg, 0);
   HYPRE_BoomerAMGSetTol(o.amg, 0.0);
   HYPRE_BoomerAMGSetMaxIter(o.amg, 1);
   check_error("BoomerAMG settings");

   Hierarchy h;
   h.settings = "PMIS, theta 0.25, max row sum 0.8, max coarse 3, interp 6, trunc 0.1, Pmax 4, "
                "relax 18 x1, max levels 7, keep transpose, num_functions " +
                std::to_string(num_functions) + ", hypre's own SpGEMM/SpMV";

   KB_DEV(dev::device_synchronize());
   const auto t0 = std::chrono::steady_clock::now();
   checked(HYPRE_BoomerAMGSetup(o.amg, par_A, b, x), "HYPRE_BoomerAMGSetup");
   KB_DEV(dev::device_synchronize());
   h.setup_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

   auto*     data   = reinterpret_cast<hypre_ParAMGData*>(o.amg);
   const int levels = hypre_ParAMGDataNumLevels(data);
   hypre_ParCSRMatrix** A_array = hypre_ParAMGDataAArray(data);
   hypre_ParCSRMatrix** P_array = hypre_ParAMGDataPArray(data);
   if (levels < 1 || !A_array) throw BenchError("BoomerAMG setup produced no levels");
   for (int l = 0; l < levels; ++l)
   {
      const std::string name = "A_" + std::to_string(l);
      if (!A_array[l]) throw BenchError(name + " missing");
      if (hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixOffd(A_array[l])) != 0)
      {
         throw BenchError(name + " has an off-diagonal block on one rank");
      }
      h.A.push_back(host_copy(hypre_ParCSRMatrixDiag(A_array[l]), name, sorted));
      if (l + 1 < levels)
      {
         const std::string pname = "P_" + std::to_string(l);
         if (!P_array || !P_array[l]) throw BenchError(pname + " missing");
         if (hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixOffd(P_array[l])) != 0)
         {
            throw BenchError(pname + " has an off-diagonal block on one rank");
         }
         h.P.push_back(host_copy(hypre_ParCSRMatrixDiag(P_array[l]), pname, sorted));
      }
   }
   KB_DEV(dev::device_synchronize());
   return h;
}

} // namespace amgt::kbench::hyp
