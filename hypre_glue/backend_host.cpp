// Host path: hypre's host matrices run on the CPU reference kernels (plugin/*), in the
// precision the schedule gives the matrix's level. This is how CPU builds exercise the
// same hooks, caches and precision decisions as the GPU.
#include "backend.h"

#include "common/error.h"
#include "mbsr/mbsr.h"
#include "spgemm/spgemm.h"
#include "spmv/spmv.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
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

Precision after_nonfinite_product(const Context& ctx, int level, Precision p)
{
   const Precision next = higher(p);
   report_once(std::string("AMGT=auto: a product on level ") + std::to_string(level) +
               " had non-finite values in " + to_string(p) + "; recomputed in " + to_string(next) +
               " (counted as fallback non-finite-product)");
   ctx.stats->fallback(level, "non-finite-product");
   return next;
}

PrecisionChoice choose_for(const Context& ctx, MatrixState& state, const amgt_csr& a, int level,
                           bool for_product)
{
   const Precision schedule = precision_for_level(*ctx.config, level);
   if (ctx.config->mode != Mode::automatic) { return {schedule, false, "schedule"}; }
   // The fp64 floor needs no statistics (level 0 is never touched): skip the pass.
   if (schedule == Precision::fp64) { return {Precision::fp64, false, "floor"}; }
   const CsrKey key = key_of(a, ctx.epoch);
   if (!(state.stats_key == key))
   {
      state.value_stats = a.on_device ? device_value_stats(ctx, a) : value_stats(view_of(a));
      state.stats_key   = key;
   }
   // a square matrix of the level is its operator (or a square temporary, treated alike)
   bool own = false; // this matrix raised its level's floor
   if (ctx.floors && a.nrows == a.ncols && level >= 0)
   {
      const Precision raised = amgt::level_floor(state.value_stats, schedule);
      if (raised != schedule) ctx.floors->raise(level, raised);
      own = raised != schedule;
   }
   const Precision floor = ctx.floors ? ctx.floors->floor(level, schedule) : schedule;
   PrecisionChoice c =
      choose_precision(state.value_stats, for_product ? product_precision(floor) : floor);
   // say why a matrix that fits runs higher than its schedule: its level's operator
   if (floor != schedule && c.precision == floor &&
       (std::string(c.reason) == "floor" || std::string(c.reason) == "in-range"))
   {
      c.reason = own ? "near-singular" : "level-near-singular";
   }
   // An fp32 floor whose matrix fp16 would hold (choose_precision's fp16 rules: in range,
   // or scaled): fp32 is the floor's doing, not what the values need, so "floor", not
   // choose_precision's "in-range" (which means: the lowest precision the values allow).
   else if (floor == schedule && c.precision == floor && floor == Precision::fp32 &&
            std::string(c.reason) == "in-range" &&
            choose_precision(state.value_stats, Precision::fp16).precision == Precision::fp16)
   {
      c.reason = "floor";
   }
   return c;
}

namespace {

// Under auto: the SpMV choice for the matrix's current arrays into the statistics table
// (once per arrays and epoch), and under AMGT_STATS a note with the value facts behind it.
void record_spmv_choice(const Context& ctx, MatrixState& state, const amgt_csr& a,
                        int level, const PrecisionChoice& choice)
{
   if (ctx.config->mode != Mode::automatic) return;
   const CsrKey key = key_of(a, ctx.epoch);
   if (state.choice_key == key) return;
   state.choice_key = key;
   ctx.stats->spmv_choice(level, state.role, choice);
   if (!ctx.config->stats || !(state.stats_key == key)) return;
   // the facts behind the choice, once per conversion (AMGT_STATS)
   const ValueStats& v = state.value_stats;
   char              line[400];
   std::snprintf(line, sizeof(line),
                 "auto level %d %s %dx%d: max|a| %.3g, non-finite %lld, fp16-underflow %lld, "
                 "fp32-underflow %lld, |1'A1|/1'|A|1 %.3g, scaled: %s max %.3g fp16-underflow %lld -> "
                 "%s%s (%s)",
                 level,
                 state.role == AMGT_ROLE_A   ? "A"
                 : state.role == AMGT_ROLE_P ? "P"
                 : state.role == AMGT_ROLE_R ? "R"
                                             : "untagged",
                 a.nrows, a.ncols, v.plain.max_abs, static_cast<long long>(v.plain.nonfinite),
                 static_cast<long long>(v.plain.underflow_fp16),
                 static_cast<long long>(v.plain.underflow_fp32),
                 v.abs_sum > 0.0 ? std::fabs(v.sum) / v.abs_sum : 0.0,
                 v.scalable ? "yes" : "no (not square or a zero diagonal)",
                 v.scalable ? v.scaled.max_abs : 0.0,
                 static_cast<long long>(v.scalable ? v.scaled.underflow_fp16 : 0),
                 to_string(choice.precision), choice.scaled ? " scaled" : "", choice.reason);
   ctx.stats->note(line);
}

} // namespace

PrecisionChoice spmv_choice(const Context& ctx, MatrixState& state, const amgt_csr& a, int level)
{
   if (ctx.config->mode != Mode::automatic)
   {
      return {precision_for_level(*ctx.config, level), false, "schedule"};
   }
   const CsrKey key = key_of(a, ctx.epoch);
   if (state.spmv_choice_key == key && ctx.floors &&
       state.spmv_choice_generation == ctx.floors->generation())
   {
      return state.spmv_choice;
   }
   const PrecisionChoice c = choose_for(ctx, state, a, level, false);
   record_spmv_choice(ctx, state, a, level, c);
   state.spmv_choice            = c;
   state.spmv_choice_key        = key;
   state.spmv_choice_generation = ctx.floors ? ctx.floors->generation() : 0; // after any raise
   state.race_checked           = CsrKey{}; // the device side looks its race memory up again
   return c;
}

int backend_spmv(const Context& ctx, MatrixState& state, const amgt_csr& A, double alpha,
                 const double* x, double beta, double* y)
{
   if (ctx.config->spmv == KernelChoice::stock)
   {
      ctx.stats->fallback(state.level, "AMGT_SPMV=stock");
      return 0;
   }
   const int             level  = state.level;
   const PrecisionChoice choice = spmv_choice(ctx, state, A, level);
   if (choice.precision != Precision::fp64)
   {
      if (!ctx.in_cycle)
      {
         // a Krylov matvec or a residual check on a matrix the cycle runs in lower precision
         ctx.stats->fallback(level, "spmv-outside-cycle-fp64");
         return 0;
      }
      if (level == 0 && state.role == AMGT_ROLE_A && !ctx.first_cycle)
      {
         // a later cycle of a multi-cycle solve: the finest operator decides the fixed point
         ctx.stats->fallback(level, "spmv-later-cycle-fp64");
         return 0;
      }
   }
   if (A.on_device) { return device_spmv(ctx, state, A, choice, alpha, x, beta, y); }
   return with_precision(choice.precision, [&](auto tag) {
      using V            = decltype(tag);
      const Mbsr<V>& m   = host_mbsr<V>(ctx, state, A, level, choice.scaled);
      auto           t0  = std::chrono::steady_clock::now();
      spmv_ref(m, alpha, x, beta, y, state.host_scaled ? state.host_unscale.data() : nullptr);
      ctx.stats->spmv(level, seconds_since(t0), "cpu-ref", choice.precision);
      return 1;
   });
}

int backend_spgemm(const Context& ctx, int level, MatrixState& state_a, const amgt_csr& A,
                   MatrixState& state_b, const amgt_csr& B, bool diag_first, amgt_csr_out& C)
{
   if (ctx.config->spgemm == KernelChoice::stock)
   {
      ctx.stats->fallback(level, "AMGT_SPGEMM=stock");
      return 0;
   }
   if (A.on_device) { return device_spgemm(ctx, level, state_a, A, state_b, B, C); }
   AMGT_REQUIRE(A.ncols == B.nrows, "SpGEMM dimension mismatch");
   // Under auto each operand asks for what its values need (never scaled: the product of two
   // scaled operands is not the scaled product) and the product runs in the higher of the two
   // (Precision: smaller = higher).
   Precision p = choose_for(ctx, state_a, A, level, true).precision;
   if (&state_a != &state_b) { p = std::min(p, choose_for(ctx, state_b, B, level, true).precision); }
   const bool automatic = ctx.config->mode == Mode::automatic;
   while (true)
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
      // The range checks bound the operands, not their product: a sum of in-range products
      // can still overflow (or an operand held a NaN that only the product spreads). Under
      // auto the output is checked and recomputed one precision higher; fp64 results go to
      // hypre as they are, as stock hypre's would.
      if (automatic && p != Precision::fp64 &&
          count_nonfinite(cc.val.data(), static_cast<int64_t>(cc.val.size())) > 0)
      {
         p = after_nonfinite_product(ctx, level, p);
         continue;
      }
      emit(cc, diag_first, ctx.allocator, C);
      ctx.stats->spgemm(level, seconds, "cpu-ref", p);
      return 1;
   }
}

} // namespace amgt::glue
