// hypre_bridge.h for a build without hypre (AMGT_WITH_HYPRE=OFF, e.g. the HIP build on a
// machine without ROCm's rocThrust, which hypre's HIP build needs): one rank, no MPI, hypre's
// kernels not measured (their table columns stay empty, the header says why), no AMG setup.
#include "hypre_bridge.h"

#include <string>

namespace amgt::kbench::hyp {

namespace {

[[noreturn]] void no_hypre(const char* what)
{
   throw BenchError(std::string(what) + ": this amgt-kernel-bench was built without hypre");
}

} // namespace

bool available()
{
   return false;
}

void mpi_init(int*, char***) {}
void mpi_finalize() {}
int  mpi_size()
{
   return 1;
}

void initialize(bool) {}
void finalize() {}
const char* version()
{
   return "not in this build";
}
void check_error(const char*) {}

void CsrDeleter::operator()(void*) const noexcept {}
void VecDeleter::operator()(void*) const noexcept {}

CsrView wrap(const DeviceCsr&)
{
   no_hypre("hypre CSR view");
}
VecView wrap(int32_t, double*)
{
   no_hypre("hypre vector view");
}
void spmv(void*, double, void*, double, void*)
{
   no_hypre("hypre SpMV");
}

Product& Product::operator=(Product&& o) noexcept
{
   c_   = o.c_;
   o.c_ = nullptr;
   return *this;
}
Product::~Product() = default;
int32_t        Product::nrows() const { return 0; }
int32_t        Product::ncols() const { return 0; }
int64_t        Product::nnz() const { return 0; }
const int32_t* Product::row_ptr() const { return nullptr; }
const int32_t* Product::col() const { return nullptr; }
const double*  Product::val() const { return nullptr; }
Product        spgemm(void*, void*, bool)
{
   no_hypre("hypre SpGEMM");
}

Hierarchy amg_hierarchy(const HostCsr&, int, bool)
{
   no_hypre("BoomerAMG setup");
}

} // namespace amgt::kbench::hyp
