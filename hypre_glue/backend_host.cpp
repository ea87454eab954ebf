// Host executor: hypre's host matrices run on the CPU reference kernels (plugin/*), as the
// planner's plan says (planner.h: precision, scaling). This is how CPU builds exercise the
// same hooks, caches and precision decisions as the GPU.
#include "backend.h"

#include "common/error.h"
#include "mbsr/mbsr.h"
#include "spgemm/spgemm.h"
#include "spmv/spmv.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <new>

namespace amgt::glue {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0)
{
   return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The cached conversion in precision V (scaled: of D^-1/2 A D^-1/2, policy.h), rebuilt when
// the arrays, the epoch, the precision or the scaling changed since it was made. Under auto
// a matrix used by products (fp32 at least, unscaled) and then by SpMV (maybe fp16 scaled) is
// converted once for each: one extra conversion per matrix in the setup.
template <class V>
const Mbsr<V>& host_mbsr(const Context& ctx, MatrixState& state, const amgt_csr& a, int level,
                         bool scaled = false)
{
   CsrKey key = key_of(a, ctx.epoch);
   if (!(state.key == key) || !std::holds_alternative<Mbsr<V>>(state.host) ||
       state.host_scaled != scaled)
   {
      state.host        = std::monostate{};
      state.host_scaled = false;
      state.host_unscale.clear();
      if (scaled)
      {
         // the scaled values are formed in double and rounded once to V by the conversion
         const CsrView       v = view_of(a);
         std::vector<double> u = scaling_vector(v);
         std::vector<double> w = scaled_values(v, u);
         CsrView             sv = v;
         sv.val                 = w.data();
         state.host             = csr_to_mbsr<V>(sv);
         state.host_unscale     = std::move(u);
      }
      else { state.host = csr_to_mbsr<V>(view_of(a)); }
      state.host_scaled = scaled;
      state.key         = key;
      state.precision   = StorageTraits<V>::precision;
      ctx.stats->conversion(level);
      if (state.role == AMGT_ROLE_A && state.level >= 0)
      {
         ctx.stats->level_matrix(state.level, state.shape());
      }
   }
   return std::get<Mbsr<V>>(state.host);
}

// hypre_TAlloc'd arrays for C; freed again if anything below throws.
struct OutArrays
{
   const amgt_allocator& alloc;
   int*                  row_ptr = nullptr;
   int*                  col     = nullptr;
   double*               val     = nullptr;

   OutArrays(const amgt_allocator& a, int nrows, int64_t nnz) : alloc(a)
   {
      AMGT_REQUIRE(a.alloc && a.release, "no allocator installed for product outputs");
      AMGT_REQUIRE(nnz <= INT32_MAX, "product has more than 2^31-1 nonzeros");
      row_ptr = static_cast<int*>(a.alloc(sizeof(int) * (static_cast<size_t>(nrows) + 1), 0));
      col     = static_cast<int*>(a.alloc(sizeof(int) * static_cast<size_t>(nnz), 0));
      val     = static_cast<double*>(a.alloc(sizeof(double) * static_cast<size_t>(nnz), 0));
      if (!row_ptr || !col || !val)
      {
         release();
         throw std::bad_alloc();
      }
   }
   void release()
   {
      if (row_ptr) alloc.release(row_ptr, 0);
      if (col) alloc.release(col, 0);
      if (val) alloc.release(val, 0);
      row_ptr = nullptr;
      col     = nullptr;
      val     = nullptr;
   }
   ~OutArrays() { release(); }
};

// Writes C (sorted CSR) into hypre arrays; with diag_first, every row of the square result
// starts with its diagonal, inserted as an explicit zero where the product has none
// (hypre's host SpGEMM does the same, and its callers rely on it).
void emit(const CsrMatrix& c, bool diag_first, const amgt_allocator& alloc, amgt_csr_out& out)
{
   int64_t extra = 0;
   if (diag_first)
   {
      for (int i = 0; i < c.nrows; ++i)
      {
         bool has = false;
         for (int k = c.row_ptr[i]; k < c.row_ptr[i + 1]; ++k) has = has || c.col[k] == i;
         if (!has) ++extra;
      }
   }
   const int64_t nnz = static_cast<int64_t>(c.col.size()) + extra;
   OutArrays     arrays(alloc, c.nrows, nnz);
   int           pos = 0;
   for (int i = 0; i < c.nrows; ++i)
   {
      arrays.row_ptr[i] = pos;
      if (diag_first)
      {
         double d = 0.0;
         for (int k = c.row_ptr[i]; k < c.row_ptr[i + 1]; ++k)
            if (c.col[k] == i) d = c.val[k];
         arrays.col[pos] = i;
         arrays.val[pos] = d;
         ++pos;
      }
      for (int k = c.row_ptr[i]; k < c.row_ptr[i + 1]; ++k)
      {
         if (diag_first && c.col[k] == i) continue;
         arrays.col[pos] = c.col[k];
         arrays.val[pos] = c.val[k];
         ++pos;
      }
   }
   arrays.row_ptr[c.nrows] = pos;
   out.nnz                 = pos;
   out.row_ptr             = arrays.row_ptr;
   out.col                 = arrays.col;
   out.val                 = arrays.val;
   arrays.row_ptr          = nullptr; // ownership passes to hypre
   arrays.col              = nullptr;
   arrays.val              = nullptr;
}

} // namespace

int host_spmv(const Context& ctx, MatrixState& state, const amgt_csr& A,
              const PrecisionChoice& choice, double alpha, const double* x, double beta,
              const double* b, double* y)
{
   const int level = state.level;
   return with_precision(choice.precision, [&](auto tag) {
      using V            = decltype(tag);
      const Mbsr<V>& m   = host_mbsr<V>(ctx, state, A, level, choice.scaled);
      auto           t0  = std::chrono::steady_clock::now();
      if (b != y && beta != 0.0) { std::copy(b, b + A.nrows, y); } // the reference works in place
      spmv_ref(m, alpha, x, beta, y, state.host_scaled ? state.host_unscale.data() : nullptr);
      ctx.stats->spmv(level, seconds_since(t0), "cpu-ref", choice.precision);
      return 1;
   });
}

ProductRun host_spgemm(const Context& ctx, int level, MatrixState& state_a, const amgt_csr& A,
                       MatrixState& state_b, const amgt_csr& B, Precision p, bool check_finite,
                       bool diag_first, amgt_csr_out& C)
{
   CsrMatrix cc;
   double    seconds = 0.0;
   with_precision(p, [&](auto tag) {
      using V          = decltype(tag);
      const Mbsr<V>& a = host_mbsr<V>(ctx, state_a, A, level);
      // A*A (same object twice) must not convert the operand twice
      const Mbsr<V>& b  = (&state_a == &state_b) ? a : host_mbsr<V>(ctx, state_b, B, level);
      auto           t0 = std::chrono::steady_clock::now();
      cc                = mbsr_to_csr(spgemm_ref(a, b));
      seconds           = seconds_since(t0);
      return 0;
   });
   if (check_finite && count_nonfinite(cc.val.data(), static_cast<int64_t>(cc.val.size())) > 0)
   {
      return ProductRun::nonfinite;
   }
   emit(cc, diag_first, ctx.allocator, C);
   ctx.stats->spgemm(level, seconds, "cpu-ref", p);
   return ProductRun::done;
}

} // namespace amgt::glue
