// The hooks' one path: ask the planner (planner.h), count the reason when hypre runs the call,
// otherwise hand the plan to the executor it names.
#include "backend.h"
#include "planner.h"

#include "smooth/jacobi.h"

namespace amgt::glue {

int backend_spmv(const Context& ctx, MatrixState& state, const amgt_csr& A, double alpha,
                 const double* x, double beta, const double* b, double* y)
{
   if (b == nullptr) { b = y; }
   // the cost model learns the matvecs a level's operator serves between setups
   if (ctx.model && state.role == AMGT_ROLE_A && !state.offd) { ctx.model->count(state.level); }
   const SpmvPlan plan = plan_spmv(ctx, state, A);
   int            done = 0;
   switch (plan.who)
   {
   case Executor::stock: ctx.stats->fallback(state.level, plan.reason); break;
   case Executor::host: done = host_spmv(ctx, state, A, plan.choice, alpha, x, beta, b, y); break;
   case Executor::device:
      done = plan.lent ? device_spmv_lent(ctx, state, A, alpha, x, beta, b, y)
                       : device_spmv(ctx, state, A, plan.choice, plan.race, alpha, x, beta, b, y);
      break;
   }
   if (state.offd)
   {
      ctx.stats->offd_spmv(state.level, done != 0, plan.who == Executor::stock ? plan.reason : nullptr);
   }
   return done;
}

int backend_jacobi_from_zero(const Context& ctx, int64_t n, double w, const double* f, const double* l1,
                             double* u, double* vtemp, bool on_device)
{
   if (on_device)
   {
      if (!device_jacobi_from_zero(ctx, n, w, f, l1, u, vtemp)) { return 0; }
   }
   else
   {
      jacobi_from_zero_ref(n, w, f, l1, u, vtemp);
   }
   ctx.stats->sweep(true);
   return 1;
}

int backend_interp_twiaff(const Context& ctx, const TwiaffRows& m)
{
   if (!device_interp_twiaff(ctx, m)) return 0;
   ctx.stats->setup_kernel("extended+i F-F weights");
   return 1;
}

int backend_pmis(const Context& ctx, int which, const PmisGraph& g, double* measure_diag,
                 const double* measure_offd, int32_t* is_diag, int32_t* is_offd, int32_t temp_mark)
{
   if (!device_pmis(ctx, which, g, measure_diag, measure_offd, is_diag, is_offd, temp_mark)) return 0;
   ctx.stats->setup_kernel(which == 0 ? "PMIS independent set" : "PMIS update");
   return 1;
}

int64_t setup_kernel_entries(const TwiaffRows& m)
{
   return m.diag_nnz + m.offd_nnz;
}
int64_t setup_kernel_entries(const PmisGraph& g)
{
   return g.s_diag_nnz + g.s_offd_nnz;
}
int64_t setup_kernel_entries(const StrengthRows& m)
{
   return m.diag_nnz + m.offd_nnz;
}
int64_t setup_kernel_entries(const RowSums& m)
{
   return m.nnz;
}
int64_t setup_kernel_entries(const WeakRowSums& m)
{
   return m.nnz;
}
int64_t setup_kernel_entries(const CsrDiag& m)
{
   return m.nnz;
}
int64_t setup_kernel_entries(const TruncCopy& m)
{
   return m.nnz_new;
}

SetupKernelTake setup_kernel_decision(const Config& config, int64_t entries, int64_t application_entries)
{
   if (!config.setup_kernels) return SetupKernelTake::off;
   if (!config.setup_kernels_large) return SetupKernelTake::plugin;
   if (entries < AMGT_SMALL_MATRIX_ENTRIES) return SetupKernelTake::below_floor;
   if (application_entries >= 0 && application_entries < kSetupKernelsApplicationEntries)
   {
      return SetupKernelTake::small_application;
   }
   return SetupKernelTake::plugin;
}

int backend_strength_rowcount(const Context& ctx, const StrengthRows& m)
{
   if (!device_strength_rowcount(ctx, m)) return 0;
   ctx.stats->setup_kernel("strength counts");
   return 1;
}

int backend_row_sums(const Context& ctx, const RowSums& m)
{
   // hypre's type 2 (squares) stays hypre's
   if (m.type != 0 && m.type != 1) return 0;
   if (!device_row_sums(ctx, m)) return 0;
   ctx.stats->setup_kernel("row sums");
   return 1;
}

int backend_weak_row_sums(const Context& ctx, const WeakRowSums& m)
{
   if (!device_weak_row_sums(ctx, m)) return 0;
   ctx.stats->setup_kernel("weak row sums");
   return 1;
}

int backend_csr_diag(const Context& ctx, const CsrDiag& m)
{
   if (!device_csr_diag(ctx, m)) return 0;
   ctx.stats->setup_kernel(m.op == kCsrDiagMoveFirst ? "diagonal first" : "diagonal extraction");
   return 1;
}

int backend_trunc_copy(const Context& ctx, const TruncCopy& m)
{
   if (!device_trunc_copy(ctx, m)) return 0;
   ctx.stats->setup_kernel("truncation copy");
   return 1;
}

int backend_spgemm(const Context& ctx, int level, MatrixState& state_a, const amgt_csr& A,
                   MatrixState& state_b, const amgt_csr& B, bool diag_first, amgt_csr_out& C)
{
   const SpgemmPlan plan = plan_spgemm(ctx, level, state_a, A, state_b, B);
   if (plan.who == Executor::stock)
   {
      ctx.stats->fallback(level, plan.reason);
      return 0;
   }
   Precision p = plan.precision;
   while (true)
   {
      // a precision raised after NaN/Inf stays below fp64 or reaches it, where the output
      // goes to hypre unchecked (as the plan's rule says for a product planned in fp64)
      const bool check = plan.check_finite && p != Precision::fp64;
      const ProductRun run =
         plan.who == Executor::host ? host_spgemm(ctx, level, state_a, A, state_b, B, p, check, diag_first, C)
         : plan.rows                ? device_spgemm_rows(ctx, level, A, B, C, plan.lean)
                                    : device_spgemm(ctx, level, state_a, A, state_b, B, p, check, C);
      if (run != ProductRun::nonfinite) { return run == ProductRun::done ? 1 : 0; }
      p = after_nonfinite_product(ctx, level, p);
   }
}

bool backend_stock_spgemm_binned(const Context& ctx, int64_t m, int64_t nnz_a, int64_t k, int64_t nnz_b)
{
   return stock_spgemm_binned(ctx, m, nnz_a, k, nnz_b);
}

} // namespace amgt::glue
