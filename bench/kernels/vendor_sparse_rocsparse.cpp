// vendor_sparse.h on rocSPARSE (the HIP build), against rocSPARSE 2.3 (ROCm 5.2/5.3, Debian
// 12's librocsparse-dev) and later 2.x: generic-API SpMV (CSR, fp64, rocsparse_spmv_alg_default)
// and SpGEMM (CSR, fp64, rocsparse_spgemm_alg_default: stages buffer_size, nnz, compute), the
// transpose by rocsparse_dcsr2csc. The same operations as the cuSPARSE file, in the same order.
// Compiled, never run: no AMD GPU has run it yet.
#include "vendor_sparse.h"

#include <rocsparse/rocsparse.h>

#include <limits>
#include <string>

namespace amgt::kbench::vsp {

const char* name() { return "rocSPARSE"; }
const char* short_name() { return "rSP"; }
const char* bw_name() { return "rsp"; }
const char* json_id() { return "rocsparse"; }

namespace {

// rocSPARSE 2.3 has no status-to-string call.
const char* status_name(rocsparse_status s)
{
   switch (s)
   {
   case rocsparse_status_success: return "rocsparse_status_success";
   case rocsparse_status_invalid_handle: return "rocsparse_status_invalid_handle";
   case rocsparse_status_not_implemented: return "rocsparse_status_not_implemented";
   case rocsparse_status_invalid_pointer: return "rocsparse_status_invalid_pointer";
   case rocsparse_status_invalid_size: return "rocsparse_status_invalid_size";
   case rocsparse_status_memory_error: return "rocsparse_status_memory_error";
   case rocsparse_status_internal_error: return "rocsparse_status_internal_error";
   case rocsparse_status_invalid_value: return "rocsparse_status_invalid_value";
   case rocsparse_status_arch_mismatch: return "rocsparse_status_arch_mismatch";
   case rocsparse_status_zero_pivot: return "rocsparse_status_zero_pivot";
   case rocsparse_status_not_initialized: return "rocsparse_status_not_initialized";
   case rocsparse_status_type_mismatch: return "rocsparse_status_type_mismatch";
   case rocsparse_status_requires_sorted_storage: return "rocsparse_status_requires_sorted_storage";
   default: return "unknown rocsparse_status";
   }
}

[[noreturn]] void throw_rocsparse(rocsparse_status s, const char* what, const char* file, int line)
{
   throw BenchError(std::string(file) + ":" + std::to_string(line) + ": " + what + " failed: " +
                    status_name(s) + " (" + std::to_string(static_cast<int>(s)) + ")");
}

#define KB_ROCSPARSE(call)                                                                         \
   do {                                                                                            \
      const rocsparse_status kb_s_ = (call);                                                       \
      if (kb_s_ != rocsparse_status_success) throw_rocsparse(kb_s_, #call, __FILE__, __LINE__);    \
   } while (0)

rocsparse_handle handle_of(const Handle& h)
{
   return static_cast<rocsparse_handle>(h.get());
}

// rocSPARSE 2.3's descriptors take non-const pointers; the inputs are only read.
rocsparse_spmat_descr csr_descr(const DeviceCsr& a)
{
   rocsparse_spmat_descr d = nullptr;
   KB_ROCSPARSE(rocsparse_create_csr_descr(&d, a.nrows, a.ncols, a.nnz, const_cast<int32_t*>(a.row_ptr.get()),
                                           const_cast<int32_t*>(a.col.get()), const_cast<double*>(a.val.get()),
                                           rocsparse_indextype_i32, rocsparse_indextype_i32,
                                           rocsparse_index_base_zero, rocsparse_datatype_f64_r));
   return d;
}

// Descriptors of one SpGEMM, released on every path out of spgemm().
struct SpgemmDescrs
{
   rocsparse_spmat_descr A = nullptr;
   rocsparse_spmat_descr B = nullptr;
   rocsparse_spmat_descr C = nullptr;
   rocsparse_spmat_descr D = nullptr;
   ~SpgemmDescrs()
   {
      if (D) rocsparse_destroy_spmat_descr(D);
      if (C) rocsparse_destroy_spmat_descr(C);
      if (B) rocsparse_destroy_spmat_descr(B);
      if (A) rocsparse_destroy_spmat_descr(A);
   }
};

} // namespace

Handle::Handle()
{
   rocsparse_handle h = nullptr;
   KB_ROCSPARSE(rocsparse_create_handle(&h));
   h_                       = h;
   const rocsparse_status s = rocsparse_set_stream(h, kStream);
   if (s != rocsparse_status_success)
   {
      rocsparse_destroy_handle(h);
      h_ = nullptr;
      throw_rocsparse(s, "rocsparse_set_stream", __FILE__, __LINE__);
   }
}

Handle::~Handle()
{
   if (h_) rocsparse_destroy_handle(static_cast<rocsparse_handle>(h_));
}

int Handle::version() const
{
   int v = 0; // major * 100000 + minor * 100 + patch
   KB_ROCSPARSE(rocsparse_get_version(handle_of(*this), &v));
   return v;
}

// ---- SpMV -------------------------------------------------------------------------------

struct Spmv::State
{
   rocsparse_handle                   h = nullptr;
   rocsparse_spmat_descr              A = nullptr;
   std::vector<rocsparse_dnvec_descr> x;
   rocsparse_dnvec_descr              y = nullptr;
   DevBuf<char>                       buffer;
   size_t                             bytes = 0;

   ~State()
   {
      if (y) rocsparse_destroy_dnvec_descr(y);
      for (auto d : x) rocsparse_destroy_dnvec_descr(d);
      if (A) rocsparse_destroy_spmat_descr(A);
   }
};

Spmv::Spmv(const Handle& h, const DeviceCsr& A, const std::vector<const double*>& xs, double* y)
    : s_(std::make_unique<State>())
{
   State& s = *s_; // released by ~State on every path out
   s.h      = handle_of(h);
   s.A      = csr_descr(A);
   for (const double* x : xs)
   {
      rocsparse_dnvec_descr d = nullptr;
      KB_ROCSPARSE(rocsparse_create_dnvec_descr(&d, A.ncols, const_cast<double*>(x), rocsparse_datatype_f64_r));
      s.x.push_back(d);
   }
   KB_ROCSPARSE(rocsparse_create_dnvec_descr(&s.y, A.nrows, y, rocsparse_datatype_f64_r));
   // A null buffer asks for the buffer size (rocSPARSE may analyse the matrix here, once,
   // outside the timed calls, as cuSPARSE's bufferSize call is).
   const double alpha = 1.0, beta = 1.0;
   KB_ROCSPARSE(rocsparse_spmv(s.h, rocsparse_operation_none, &alpha, s.A, s.x.at(0), &beta, s.y,
                               rocsparse_datatype_f64_r, rocsparse_spmv_alg_default, &s.bytes, nullptr));
   // a non-null buffer is what makes a later call compute: at least one byte
   s.buffer = DevBuf<char>(s.bytes > 0 ? s.bytes : 1);
}

Spmv::~Spmv() = default;

size_t Spmv::buffer_bytes() const
{
   return s_->bytes;
}

void Spmv::run(size_t i, double alpha, double beta)
{
   State& s     = *s_;
   size_t bytes = s.bytes;
   KB_ROCSPARSE(rocsparse_spmv(s.h, rocsparse_operation_none, &alpha, s.A, s.x[i], &beta, s.y,
                               rocsparse_datatype_f64_r, rocsparse_spmv_alg_default, &bytes, s.buffer.get()));
}

// ---- SpGEMM -----------------------------------------------------------------------------

DeviceCsr spgemm(const Handle& handle, const DeviceCsr& A, const DeviceCsr& B, SpgemmInfo* info)
{
   if (A.ncols != B.nrows) throw BenchError("rocsparse spgemm: dimension mismatch");
   const rocsparse_handle     h     = handle_of(handle);
   const rocsparse_operation  op    = rocsparse_operation_none;
   const rocsparse_spgemm_alg alg   = rocsparse_spgemm_alg_default;
   const rocsparse_datatype   type  = rocsparse_datatype_f64_r;
   const double               alpha = 1.0;
   // beta == nullptr: C = alpha * A * B, D is not read (rocSPARSE's csrgemm contract). The
   // call still takes a descriptor for D: an empty m x n matrix on C's row offsets.

   SpgemmDescrs s;
   s.A = csr_descr(A);
   s.B = csr_descr(B);
   DeviceCsr C;
   C.nrows   = A.nrows;
   C.ncols   = B.ncols;
   C.row_ptr = DevBuf<int32_t>(static_cast<size_t>(C.nrows) + 1);
   KB_ROCSPARSE(rocsparse_create_csr_descr(&s.C, C.nrows, C.ncols, 0, C.row_ptr.get(), nullptr, nullptr,
                                           rocsparse_indextype_i32, rocsparse_indextype_i32,
                                           rocsparse_index_base_zero, type));
   KB_ROCSPARSE(rocsparse_create_csr_descr(&s.D, C.nrows, C.ncols, 0, C.row_ptr.get(), nullptr, nullptr,
                                           rocsparse_indextype_i32, rocsparse_indextype_i32,
                                           rocsparse_index_base_zero, type));

   size_t bytes = 0;
   KB_ROCSPARSE(rocsparse_spgemm(h, op, op, &alpha, s.A, s.B, nullptr, s.D, s.C, type, alg,
                                 rocsparse_spgemm_stage_buffer_size, &bytes, nullptr));
   DevBuf<char> buffer(bytes > 0 ? bytes : 1);
   // C's row offsets and its number of nonzeros (on the host: the call waits for it)
   KB_ROCSPARSE(rocsparse_spgemm(h, op, op, &alpha, s.A, s.B, nullptr, s.D, s.C, type, alg,
                                 rocsparse_spgemm_stage_nnz, &bytes, buffer.get()));
   int64_t rows = 0, cols = 0, nnz = 0;
   KB_ROCSPARSE(rocsparse_spmat_get_size(s.C, &rows, &cols, &nnz));
   if (nnz > std::numeric_limits<int32_t>::max())
   {
      throw BenchError("rocsparse spgemm: product has more than 2^31-1 nonzeros");
   }
   C.nnz = nnz;
   C.col = DevBuf<int32_t>(static_cast<size_t>(nnz));
   C.val = DevBuf<double>(static_cast<size_t>(nnz));
   KB_ROCSPARSE(rocsparse_csr_set_pointers(s.C, C.row_ptr.get(), C.col.get(), C.val.get()));
   KB_ROCSPARSE(rocsparse_spgemm(h, op, op, &alpha, s.A, s.B, nullptr, s.D, s.C, type, alg,
                                 rocsparse_spgemm_stage_compute, &bytes, buffer.get()));
   if (info)
   {
      info->buffer1_bytes = bytes; // one buffer for every stage
      info->buffer2_bytes = 0;
   }
   // buffer is released here, stream-ordered after the compute (pool) or after a device-wide
   // synchronisation (device_free): inside the caller's timed region either way.
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
   KB_ROCSPARSE(rocsparse_csr2csc_buffer_size(handle_of(handle), A.nrows, A.ncols, static_cast<int32_t>(A.nnz),
                                              A.row_ptr.get(), A.col.get(), rocsparse_action_numeric, &bytes));
   DevBuf<char> buffer(bytes > 0 ? bytes : 1);
   // CSC of A = CSR of A^T: csc_val, csc_row_ind (T's columns), csc_col_ptr (T's row offsets)
   KB_ROCSPARSE(rocsparse_dcsr2csc(handle_of(handle), A.nrows, A.ncols, static_cast<int32_t>(A.nnz), A.val.get(),
                                   A.row_ptr.get(), A.col.get(), T.val.get(), T.col.get(), T.row_ptr.get(),
                                   rocsparse_action_numeric, rocsparse_index_base_zero, buffer.get()));
   KB_DEV(dev::stream_synchronize(kStream));
   return T;
}

} // namespace amgt::kbench::vsp
