// The vendor's sparse library, the baseline of amgt-kernel-bench: cuSPARSE in the CUDA build
// (vendor_sparse_cusparse.cpp), rocSPARSE in the HIP build (vendor_sparse_rocsparse.cpp). One
// interface, the same operations on both, chosen at build time (bench/CMakeLists.txt compiles
// one of the two files):
//   - SpMV, generic API, CSR, fp64, the library's default algorithm, the buffer allocated once
//     per operand (outside the timed calls);
//   - SpGEMM, generic API, CSR, fp64, default algorithm: buffer size, structure (nnz of C),
//     compute, with every buffer and C's arrays allocated inside the call, as a user pays;
//   - the CSR transpose (CSR -> CSC) used to form P^T.
// Only the implementation files name the library; the labels below say which one ran.
#pragma once

#include "bench_common.h"

#include <memory>
#include <vector>

namespace amgt::kbench::vsp {

// Labels for tables and reports: name() "cuSPARSE" / "rocSPARSE"; short_name() in ratio
// column headers ("cuSP" in xcuSP, "rSP" in xrSP); bw_name() in bandwidth headers ("csp" in
// BWcsp, "rsp"); json_id() the implementation key in the JSON lines ("cusparse" /
// "rocsparse", also in speedup_vs_<id>).
const char* name();
const char* short_name();
const char* bw_name();
const char* json_id();

class Handle
{
public:
   Handle(); // on kStream
   ~Handle();
   Handle(const Handle&)            = delete;
   Handle& operator=(const Handle&) = delete;
   void* get() const { return h_; } // the library's handle (an opaque pointer on both)
   int   version() const;           // the library's version number, as it reports it

private:
   void* h_ = nullptr;
};

// y = alpha * A * x_i + beta * y for a fixed A, a set of x vectors and one y.
class Spmv
{
public:
   Spmv(const Handle& h, const DeviceCsr& A, const std::vector<const double*>& xs, double* y);
   ~Spmv();
   Spmv(const Spmv&)            = delete;
   Spmv& operator=(const Spmv&) = delete;
   void   run(size_t i, double alpha, double beta); // x = xs[i]; enqueue only
   size_t buffer_bytes() const;

private:
   struct State; // the library's descriptors and the buffer
   std::unique_ptr<State> s_;
};

struct SpgemmInfo
{
   size_t buffer1_bytes = 0;
   size_t buffer2_bytes = 0;
};

// C = A * B, sorted inputs (the libraries' CSR contract). Everything is allocated inside.
DeviceCsr spgemm(const Handle& h, const DeviceCsr& A, const DeviceCsr& B, SpgemmInfo* info = nullptr);

// A^T as CSR (sorted columns: the CSC of a CSR->CSC conversion has sorted row indices).
DeviceCsr transpose(const Handle& h, const DeviceCsr& A);

} // namespace amgt::kbench::vsp
