// The cuSPARSE baseline: generic-API SpMV (CSR, fp64, CUSPARSE_SPMV_ALG_DEFAULT, buffer
// allocated once) and SpGEMM (CSR, fp64, CUSPARSE_SPGEMM_DEFAULT: work estimation, compute,
// copy, with every buffer and C's arrays allocated inside the call, as a user pays), plus the
// CSR transpose (Csr2cscEx2) used to form P^T.
#pragma once

#include "bench_common.h"

#include <vector>

namespace amgt::kbench::cusp {

class Handle
{
public:
   Handle();
   ~Handle();
   Handle(const Handle&)            = delete;
   Handle& operator=(const Handle&) = delete;
   cusparseHandle_t get() const { return h_; }

private:
   cusparseHandle_t h_ = nullptr;
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
   size_t buffer_bytes() const { return buffer_.size(); }

private:
   void release() noexcept;

   cusparseHandle_t                  h_ = nullptr;
   cusparseConstSpMatDescr_t         A_ = nullptr;
   std::vector<cusparseConstDnVecDescr_t> x_;
   cusparseDnVecDescr_t              y_ = nullptr;
   DevBuf<char>                      buffer_;
};

struct SpgemmInfo
{
   size_t buffer1_bytes = 0;
   size_t buffer2_bytes = 0;
};

// C = A * B, sorted inputs (cuSPARSE's CSR contract). Everything is allocated inside.
DeviceCsr spgemm(const Handle& h, const DeviceCsr& A, const DeviceCsr& B, SpgemmInfo* info = nullptr);

// A^T as CSR (sorted columns, since Csr2cscEx2's CSC has sorted row indices).
DeviceCsr transpose(const Handle& h, const DeviceCsr& A);

} // namespace amgt::kbench::cusp
