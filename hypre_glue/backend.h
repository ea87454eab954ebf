// Dispatch from the C boundary to the kernels: host arrays go to the CPU reference
// kernels, device arrays to the CUDA kernels (backend_device.h).
#pragma once

#include "amgt_glue.h"
#include "matrix_state.h"
#include "stats.h"

#include "common/half.h"
#include "mbsr/mbsr.h"
#include "precision/schedule.h"

namespace amgt::glue {

inline CsrView view_of(const amgt_csr& a)
{
   return CsrView{a.nrows, a.ncols, a.nnz, a.row_ptr, a.col, a.val};
}

// Calls f with a value of the storage type of precision p (double, float or half_t).
template <class F>
auto with_precision(Precision p, F&& f)
{
   switch (p)
   {
   case Precision::fp32: return f(float{});
   case Precision::fp16: return f(half_t{});
   default: return f(double{});
   }
}

struct Context
{
   const Config*  config = nullptr;
   amgt_allocator allocator{};
   // The process-wide copy of `allocator`: its address is stable, so device buffers that
   // outlive this call (cached conversions) can keep pointing at it.
   const amgt_allocator* allocator_ref = nullptr;
   long                  epoch         = 0;
   Stats*                stats         = nullptr;
};

// Both return 1 when the result was computed, 0 to run stock hypre; they may throw (the
// caller in glue.cpp catches).
int backend_spmv(const Context& ctx, MatrixState& state, const amgt_csr& A, double alpha,
                 const double* x, double beta, double* y);
int backend_spgemm(const Context& ctx, int level, MatrixState& state_a, const amgt_csr& A,
                   MatrixState& state_b, const amgt_csr& B, bool diag_first, amgt_csr_out& C);

// Device side, implemented in backend_device.cpp. CPU-only builds never see device arrays;
// should one arrive anyway, those functions report once and decline.
void device_prepare(const Context& ctx, MatrixState& state, const amgt_csr& A);
int device_spmv(const Context& ctx, MatrixState& state, const amgt_csr& A, double alpha,
                const double* x, double beta, double* y);
int device_spgemm(const Context& ctx, int level, MatrixState& state_a, const amgt_csr& A,
                  MatrixState& state_b, const amgt_csr& B, amgt_csr_out& C);

} // namespace amgt::glue
