// vendor_sparse.h on cuSPARSE (the CUDA build): generic-API SpMV (CSR, fp64,
// CUSPARSE_SPMV_ALG_DEFAULT) and SpGEMM (CSR, fp64, CUSPARSE_SPGEMM_DEFAULT: work estimation,
// compute, copy), the transpose by Csr2cscEx2.
#include "vendor_sparse.h"

#include <cusparse.h>

#include <limits>
#include <string>

namespace amgt::kbench::vsp {

const char* name() { return "cuSPARSE"; }
const char* short_name() { return "cuSP"; }
const char* bw_name() { return "csp"; }
const char* json_id() { return "cusparse"; }

namespace {

[[noreturn]] void throw_cusparse(cusparseStatus_t s, const char* what, const char* file, int line)
{
   throw BenchError(std::string(file) + ":" + std::to_string(line) + ": " + what + " failed: " +
                    cusparseGetErrorName(s) + " (" + cusparseGetErrorString(s) + ")");
}

#define KB_CUSPARSE(call)                                                                          \
   do {                                                                                            \
      const cusparseStatus_t kb_s_ = (call);                                                       \
      if (kb_s_ != CUSPARSE_STATUS_SUCCESS) throw_cusparse(kb_s_, #call, __FILE__, __LINE__);      \
   } while (0)

cusparseHandle_t handle_of(const Handle& h)
{
   return static_cast<cusparseHandle_t>(h.get());
}

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
   cusparseHandle_t h = nullptr;
   KB_CUSPARSE(cusparseCreate(&h));
   h_                       = h;
   const cusparseStatus_t s = cusparseSetStream(h, kStream);
   if (s != CUSPARSE_STATUS_SUCCESS)
   {
      cusparseDestroy(h);
      h_ = nullptr;
      throw_cusparse(s, "cusparseSetStream", __FILE__, __LINE__);
   }
}

Handle::~Handle()
{
   if (h_) cusparseDestroy(static_cast<cusparseHandle_t>(h_));
}

int Handle::version() const
{
   int v = 0;
   KB_CUSPARSE(cusparseGetVersion(handle_of(*this), &v));
   return v;
}

// ---- SpMV -------------------------------------------------------------------------------

struct Spmv::State
{
   cusparseHandle_t                       h = nullptr;
   cusparseConstSpMatDescr_t              A = nullptr;
   std::vector<cusparseConstDnVecDescr_t> x;
   cusparseDnVecDescr_t                   y = nullptr;
   DevBuf<char>                           buffer;

   ~State()
   {
      if (y) cusparseDestroyDnVec(y);
      for (auto d : x) cusparseDestroyDnVec(d);
      if (A) cusparseDestroySpMat(A);
   }
};

Spmv::Spmv(const Handle& h, const DeviceCsr& A, const std::vector<const double*>& xs, double* y)
    : s_(std::make_unique<State>())
{
   State& s = *s_; // released by ~State on every path out
   s.h      = handle_of(h);
   s.A      = const_csr(A);
   for (const double* x : xs)
   {
      cusparseConstDnVecDescr_t d = nullptr;
      KB_CUSPARSE(cusparseCreateConstDnVec(&d, A.ncols, x, CUDA_R_64F));
      s.x.push_back(d);
   }
   KB_CUSPARSE(cusparseCreateDnVec(&s.y, A.nrows, y, CUDA_R_64F));
   const double alpha = 1.0, beta = 1.0;
   size_t       bytes = 0;
   KB_CUSPARSE(cusparseSpMV_bufferSize(s.h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, s.A, s.x.at(0),
                                       &beta, s.y, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
   s.buffer = DevBuf<char>(bytes);
}

Spmv::~Spmv() = default;

size_t Spmv::buffer_bytes() const
{
   return s_->buffer.size();
}

void Spmv::run(size_t i, double alpha, double beta)
{
   State& s = *s_;
   KB_CUSPARSE(cusparseSpMV(s.h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, s.A, s.x[i], &beta, s.y,
                            CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, s.buffer.get()));
}

// ---- SpGEMM -----------------------------------------------------------------------------

DeviceCsr spgemm(const Handle& handle, const DeviceCsr& A, const DeviceCsr& B, SpgemmInfo* info)
{
   if (A.ncols != B.nrows) throw BenchError("cusparse spgemm: dimension mismatch");
   const cusparseHandle_t    h     = handle_of(handle);
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
      KB_DEV(dev::memset_async(T.row_ptr.get(), 0, T.row_ptr.size() * sizeof(int32_t), kStream));
      return T;
   }
   size_t bytes = 0;
   KB_CUSPARSE(cusparseCsr2cscEx2_bufferSize(
      handle_of(handle), A.nrows, A.ncols, static_cast<int>(A.nnz), A.val.get(), A.row_ptr.get(),
      A.col.get(), T.val.get(), T.row_ptr.get(), T.col.get(), CUDA_R_64F, CUSPARSE_ACTION_NUMERIC,
      CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &bytes));
   DevBuf<char> buffer(bytes);
   KB_CUSPARSE(cusparseCsr2cscEx2(handle_of(handle), A.nrows, A.ncols, static_cast<int>(A.nnz), A.val.get(),
                                  A.row_ptr.get(), A.col.get(), T.val.get(), T.row_ptr.get(),
                                  T.col.get(), CUDA_R_64F, CUSPARSE_ACTION_NUMERIC,
                                  CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, buffer.get()));
   KB_DEV(dev::stream_synchronize(kStream));
   return T;
}

} // namespace amgt::kbench::vsp
