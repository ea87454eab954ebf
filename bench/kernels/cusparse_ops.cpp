#include "cusparse_ops.h"

#include <limits>
#include <string>

namespace amgt::kbench::cusp {

namespace {

cusparseConstSpMatDescr_t const_csr(const DeviceCsr& a)
{
   cusparseConstSpMatDescr_t d = nullptr;
   KB_CUSPARSE(cusparseCreateConstCsr(&d, a.nrows, a.ncols, a.nnz, a.row_ptr.get(), a.col.get(),
                                      a.val.get(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                      CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
   return d;
}

// Descriptors of one SpGEMM, released on every path out of spgemm().
struct SpgemmDescrs
{
   cusparseConstSpMatDescr_t A = nullptr;
   cusparseConstSpMatDescr_t B = nullptr;
   cusparseSpMatDescr_t      C = nullptr;
   cusparseSpGEMMDescr_t     d = nullptr;
   ~SpgemmDescrs()
   {
      if (d) cusparseSpGEMM_destroyDescr(d);
      if (C) cusparseDestroySpMat(C);
      if (B) cusparseDestroySpMat(B);
      if (A) cusparseDestroySpMat(A);
   }
};

} // namespace

Handle::Handle()
{
   KB_CUSPARSE(cusparseCreate(&h_));
   const cusparseStatus_t s = cusparseSetStream(h_, kStream);
   if (s != CUSPARSE_STATUS_SUCCESS)
   {
      cusparseDestroy(h_);
      throw_cusparse(s, "cusparseSetStream", __FILE__, __LINE__);
   }
}

Handle::~Handle()
{
   if (h_) cusparseDestroy(h_);
}

// ---- SpMV -------------------------------------------------------------------------------

Spmv::Spmv(const Handle& h, const DeviceCsr& A, const std::vector<const double*>& xs, double* y)
    : h_(h.get())
{
   try
   {
      A_ = const_csr(A);
      for (const double* x : xs)
      {
         cusparseConstDnVecDescr_t d = nullptr;
         KB_CUSPARSE(cusparseCreateConstDnVec(&d, A.ncols, x, CUDA_R_64F));
         x_.push_back(d);
      }
      KB_CUSPARSE(cusparseCreateDnVec(&y_, A.nrows, y, CUDA_R_64F));
      const double alpha = 1.0, beta = 1.0;
      size_t       bytes = 0;
      KB_CUSPARSE(cusparseSpMV_bufferSize(h_, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A_, x_.at(0),
                                          &beta, y_, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
      buffer_ = DevBuf<char>(bytes);
   }
   catch (...)
   {
      release();
      throw;
   }
}

Spmv::~Spmv()
{
   release();
}

void Spmv::release() noexcept
{
   if (y_) cusparseDestroyDnVec(y_);
   for (auto d : x_) cusparseDestroyDnVec(d);
   if (A_) cusparseDestroySpMat(A_);
   x_.clear();
   y_ = nullptr;
   A_ = nullptr;
}

void Spmv::run(size_t i, double alpha, double beta)
{
   KB_CUSPARSE(cusparseSpMV(h_, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A_, x_[i], &beta, y_,
                            CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, buffer_.get()));
}

// ---- SpGEMM -----------------------------------------------------------------------------

DeviceCsr spgemm(const Handle& handle, const DeviceCsr& A, const DeviceCsr& B, SpgemmInfo* info)
{
   if (A.ncols != B.nrows) throw BenchError("cusparse spgemm: dimension mismatch");
   const cusparseHandle_t    h     = handle.get();
   const cusparseOperation_t op    = CUSPARSE_OPERATION_NON_TRANSPOSE;
   const cusparseSpGEMMAlg_t alg   = CUSPARSE_SPGEMM_DEFAULT;
   const double              alpha = 1.0, beta = 0.0;

   SpgemmDescrs s;
   s.A = const_csr(A);
   s.B = const_csr(B);
   DeviceCsr C;
   C.nrows   = A.nrows;
   C.ncols   = B.ncols;
   C.row_ptr = DevBuf<int32_t>(static_cast<size_t>(C.nrows) + 1);
   KB_CUSPARSE(cusparseCreateCsr(&s.C, C.nrows, C.ncols, 0, C.row_ptr.get(), nullptr, nullptr,
                                 CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                 CUDA_R_64F));
   KB_CUSPARSE(cusparseSpGEMM_createDescr(&s.d));

   size_t bytes1 = 0;
   KB_CUSPARSE(cusparseSpGEMM_workEstimation(h, op, op, &alpha, s.A, s.B, &beta, s.C, CUDA_R_64F, alg,
                                             s.d, &bytes1, nullptr));
   DevBuf<char> buffer1(bytes1);
   KB_CUSPARSE(cusparseSpGEMM_workEstimation(h, op, op, &alpha, s.A, s.B, &beta, s.C, CUDA_R_64F, alg,
                                             s.d, &bytes1, buffer1.get()));
   size_t bytes2 = 0;
   KB_CUSPARSE(cusparseSpGEMM_compute(h, op, op, &alpha, s.A, s.B, &beta, s.C, CUDA_R_64F, alg, s.d,
                                      &bytes2, nullptr));
   DevBuf<char> buffer2(bytes2);
   KB_CUSPARSE(cusparseSpGEMM_compute(h, op, op, &alpha, s.A, s.B, &beta, s.C, CUDA_R_64F, alg, s.d,
                                      &bytes2, buffer2.get()));
   int64_t rows = 0, cols = 0, nnz = 0;
   KB_CUSPARSE(cusparseSpMatGetSize(s.C, &rows, &cols, &nnz));
   if (nnz > std::numeric_limits<int32_t>::max())
   {
      throw BenchError("cusparse spgemm: product has more than 2^31-1 nonzeros");
   }
   C.nnz = nnz;
   C.col = DevBuf<int32_t>(static_cast<size_t>(nnz));
   C.val = DevBuf<double>(static_cast<size_t>(nnz));
   KB_CUSPARSE(cusparseCsrSetPointers(s.C, C.row_ptr.get(), C.col.get(), C.val.get()));
   KB_CUSPARSE(cusparseSpGEMM_copy(h, op, op, &alpha, s.A, s.B, &beta, s.C, CUDA_R_64F, alg, s.d));
   if (info)
   {
      info->buffer1_bytes = bytes1;
      info->buffer2_bytes = bytes2;
   }
   // buffer1/buffer2 are released here, stream-ordered after the copy (pool) or after a
   // device-wide synchronisation (cudaFree): inside the caller's timed region either way.
   return C;
}

// ---- transpose --------------------------------------------------------------------------

DeviceCsr transpose(const Handle& handle, const DeviceCsr& A)
{
   DeviceCsr T;
   T.nrows   = A.ncols;
   T.ncols   = A.nrows;
   T.nnz     = A.nnz;
   T.row_ptr = DevBuf<int32_t>(static_cast<size_t>(T.nrows) + 1);
   T.col     = DevBuf<int32_t>(static_cast<size_t>(T.nnz));
   T.val     = DevBuf<double>(static_cast<size_t>(T.nnz));
   if (A.nnz == 0)
   {
      KB_CUDA(cudaMemsetAsync(T.row_ptr.get(), 0, T.row_ptr.size() * sizeof(int32_t), kStream));
      return T;
   }
   size_t bytes = 0;
   KB_CUSPARSE(cusparseCsr2cscEx2_bufferSize(
      handle.get(), A.nrows, A.ncols, static_cast<int>(A.nnz), A.val.get(), A.row_ptr.get(),
      A.col.get(), T.val.get(), T.row_ptr.get(), T.col.get(), CUDA_R_64F, CUSPARSE_ACTION_NUMERIC,
      CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &bytes));
   DevBuf<char> buffer(bytes);
   KB_CUSPARSE(cusparseCsr2cscEx2(handle.get(), A.nrows, A.ncols, static_cast<int>(A.nnz), A.val.get(),
                                  A.row_ptr.get(), A.col.get(), T.val.get(), T.row_ptr.get(),
                                  T.col.get(), CUDA_R_64F, CUSPARSE_ACTION_NUMERIC,
                                  CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, buffer.get()));
   KB_CUDA(cudaStreamSynchronize(kStream));
   return T;
}

} // namespace amgt::kbench::cusp
