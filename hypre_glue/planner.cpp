// The decisions of planner.h. Pure host code: what needs the device (value statistics of
// device arrays, the fill sample) comes through the narrow device_* functions of backend.h.
#include "planner.h"

#include "race_memory.h"
#include "spgemm/csr_spgemm.h"

#include "common/error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

namespace amgt::glue {
namespace {

// AMGT_SPGEMM=auto's per-product rules (csr_spgemm.h) also serve AMGT_SPGEMM=lean's products
// of more rows than the lean design takes.
bool spgemm_rules_apply(const Config& c)
{
   return c.spgemm == KernelChoice::automatic || c.spgemm == KernelChoice::lean;
}

// Whether this library holds the device executor's kernels. Without them a device matrix
// goes straight to the device executor's stand-in, which says so once and declines
// ("no-gpu-kernels"): the device rules below are never applied to it.
#if defined(AMGT_WITH_DEVICE_KERNELS)
constexpr bool kDeviceKernels = true;
#else
constexpr bool kDeviceKernels = false;
#endif

const char* role_name(int role)
{
   return role == AMGT_ROLE_A ? "A" : role == AMGT_ROLE_P ? "P" : role == AMGT_ROLE_R ? "R" : "untagged";
}

// What choose_for and plan_layout measure of a matrix, stated once: survey_wants asks the
// device for exactly these ahead of the preparation.
// choose_for takes value statistics under auto below an fp64 schedule (the fp64 floor never
// touches a value)
bool takes_value_stats(const Config& c, int level)
{
   return c.mode == Mode::automatic && precision_for_level(c, level) != Precision::fp64;
}
// a square matrix below level 0 is a Galerkin coarse operator: values below fp16's range are
// likely there, and the device takes its plain statistics in one row-wise pass
bool coarse_operator(int level, const amgt_csr& a)
{
   return level > 0 && a.nrows == a.ncols;
}
// plan_layout samples the fill of an operator whose layout the rule picks (not AMGT_LAYOUT;
// P and R are row-wise without looking)
bool layout_by_sample(const Config& c, int role)
{
   return c.layout == LayoutRequest::automatic && role != AMGT_ROLE_P && role != AMGT_ROLE_R;
}

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
                 level, role_name(state.role), a.nrows, a.ncols, v.plain.max_abs,
                 static_cast<long long>(v.plain.nonfinite),
                 static_cast<long long>(v.plain.underflow_fp16),
                 static_cast<long long>(v.plain.underflow_fp32),
                 v.abs_sum > 0.0 ? std::fabs(v.sum) / v.abs_sum : 0.0,
                 v.scalable ? "yes" : v.scaled_known ? "no (not square or a zero diagonal)" : "not computed (not needed)",
                 v.scalable ? v.scaled.max_abs : 0.0,
                 static_cast<long long>(v.scalable ? v.scaled.underflow_fp16 : 0),
                 to_string(choice.precision), choice.scaled ? " scaled" : "", choice.reason);
   ctx.stats->note(line);
}

RaceKey race_key(const MatrixState& state, const amgt_csr& a, const PrecisionChoice& choice)
{
   RaceKey k;
   k.level     = state.level;
   k.role      = state.role;
   k.precision = choice.precision;
   k.scaled    = choice.scaled;
   k.nrows     = a.nrows;
   k.nnz       = a.nnz;
   return k;
}

// Whether hypre's own matvec can be called for a (a matrix handed over by hypre, with the
// stock kernel installed): the small-matrix rule and the race need it.
bool stock_spmv_callable(const Context& ctx, const amgt_csr& a)
{
   return a.owner && ctx.allocator_ref && ctx.allocator_ref->stock_spmv;
}

// Who serves a device matrix's matvecs, for the SpMV precision `choice` already made: hypre
// for a small matrix or one an earlier race sent to it; otherwise the plugin, by rule, or by a
// race of both kernels (AMGT_SPMV=race with nothing remembered). Measured on the H100
// (bench/kernels, the operators of the reference setups, bench/RESULTS.md): with each matrix
// in the layout choose_layout gives it, the plugin's SpMV was at least as fast as the kernel
// the stock rule gives hypre (its own below 2^18 entries, cuSPARSE above) on every operator
// of 2^18 entries or more, so timing both on every matrix (about 35 ms of the first setup at
// 15.6M rows) buys nothing under auto; race keeps the rule's evidence on a user's matrices.
SpmvPlan device_owner(const Context& ctx, MatrixState& state, const amgt_csr& A,
                      const PrecisionChoice& choice)
{
   SpmvPlan plan;
   plan.choice = choice;
   // with a model, plan_spmv and plan_device_copy asked it before the precision choice
   if (!ctx.model && too_small_for_plugin(ctx, A))
   {
      plan.reason = "spmv-small-matrix";
      return plan;
   }
   if (remembered_for_stock(ctx, state, A, choice))
   {
      plan.reason = "spmv-stock-faster";
      return plan;
   }
   plan.who = Executor::device;
   // an earlier race of this process on a matrix of this level, role, storage and size went
   // to the plugin (remembered_plugin): the same outcome without timing it again (a race of
   // the finest level's operator costs ~1 ms of setup)
   plan.race = ctx.config->spmv == KernelChoice::race && stock_spmv_callable(ctx, A) &&
               !(state.remembered_plugin == key_of(A, ctx.epoch));
   return plan;
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
   if (!takes_value_stats(*ctx.config, level))
   {
      return ctx.config->mode != Mode::automatic ? PrecisionChoice{schedule, false, "schedule"}
                                                  : PrecisionChoice{Precision::fp64, false, "floor"};
   }
   const CsrKey key    = key_of(a, ctx.epoch);
   const bool   coarse = coarse_operator(level, a);
   // the plain statistics first (on the device: usually taken already by the setup survey);
   // the scaled form below, only where an fp16 choice would read it
   if (!(state.stats_key == key))
   {
      state.value_stats = a.on_device ? device_value_stats(ctx, a, false, coarse) : value_stats(view_of(a));
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
   // the scaled form (on the device two more passes, a gather of the diagonal's scale per
   // entry) only where the plain values do not fit an fp16 floor (policy.h scaled_form_needed):
   // the coarse operators measured fit unscaled, and products never read it
   if (!for_product && scaled_form_needed(state.value_stats, floor) && a.on_device)
   {
      state.value_stats = device_value_stats(ctx, a, true, coarse);
   }
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
   // an SpMV's matrix whose values fp16 holds exactly is stored in fp16 at no cost in
   // accuracy (policy.h); a product keeps the choice (its fp16 arithmetic differs)
   return for_product ? c : lossless_storage(state.value_stats, c);
}

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
   state.race_checked           = CsrKey{}; // the race memory is looked up again
   return c;
}

// Measured on an H100 (AMGT_STATS races, 27-point 100^3 and 7-point 160^3 hierarchies):
// below a few hundred thousand entries both kernels take 5-7 us per call, a launch-latency
// floor that neither the format nor the precision moves (levels of 6k-810k entries: plugin
// 4.8-7.1 us, hypre 5.2-7.1 us, each way about as often), while converting, planning and
// racing such a matrix costs the setup 0.1-0.2 ms.
bool too_small_for_plugin(const Context& ctx, const amgt_csr& a)
{
   constexpr int64_t kAutoMinEntries = AMGT_SMALL_MATRIX_ENTRIES; // amgt_glue.h
   return (ctx.config->spmv == KernelChoice::automatic || ctx.config->spmv == KernelChoice::race) &&
          stock_spmv_callable(ctx, a) && static_cast<int64_t>(a.nnz) < kAutoMinEntries;
}

namespace {

// AMGT_STATS: one line per decision. matvecs: how many the decision weighed (what it expected,
// or, for the re-check, what hypre served) and where that number came from.
void note_model(const Context& ctx, const MatrixState& state, const amgt_csr& a, const char* what,
                double matvecs, const char* source, bool repaid = false)
{
   ctx.stats->model_decision(!state.model_declined, repaid);
   if (!ctx.config->stats) return;
   const cost::Decision& d = state.model_decision;
   char                  line[360];
   std::snprintf(line, sizeof(line),
                 "cost model: level %d %s%s, %d rows, %d entries, %s: %s (%s; gain %.2f us a matvec x %.0f "
                 "matvecs (%s) against %.0f us once, break-even %.0f)",
                 state.level, role_name(state.role), state.offd ? " offd" : "", a.nrows, a.nnz,
                 to_string(precision_for_level(*ctx.config, state.level)), state.model_declined ? "hypre" : "plugin",
                 what, d.gain_us, matvecs, source, d.once_us, std::isfinite(d.break_even) ? d.break_even : -1.0);
   ctx.stats->note(line);
}

} // namespace

bool model_declines(const Context& ctx, MatrixState& state, const amgt_csr& a, bool serving)
{
   const bool rules = ctx.config->spmv == KernelChoice::automatic || ctx.config->spmv == KernelChoice::race;
   if (!rules || !stock_spmv_callable(ctx, a)) return false;
   // untagged (a matrix of no hierarchy level), or no model: the size floor alone
   if (!ctx.model || state.level < 0 || state.role == AMGT_ROLE_NONE) return too_small_for_plugin(ctx, a);
   const CsrKey key = key_of(a, ctx.epoch);
   if (state.model_key == key)
   {
      if (!state.model_declined) return false;
      // the re-check, on each matvec hypre serves: once these would have repaid the plugin's
      // one-time work, the matrix is taken. A level's P, R and offd blocks not while its
      // operator is declined (its statistics, which set the level's floor, were not taken).
      const bool leader = state.role == AMGT_ROLE_A && !state.offd;
      if (serving && cost::repaid(state.model_decision, ++state.model_served) &&
          (leader || ctx.model->level_decision(state.level, ctx.epoch) != 1))
      {
         state.model_declined = false;
         if (leader) ctx.model->set_level(state.level, ctx.epoch, false);
         note_model(ctx, state, a, "its matvecs repaid it", static_cast<double>(state.model_served),
                    "served by hypre", true);
         return false;
      }
      return true;
   }
   const int       level = state.level;
   const Precision p     = precision_for_level(*ctx.config, level);
   bool            learned = false;
   const double    expect  = ctx.model->expected(level, &learned);
   state.model_key         = key;
   state.model_served      = 0;
   state.model_decision    = cost::decide(p, a.nnz, a.nrows, expect);
   const char* why         = "by the table";
   if (state.role == AMGT_ROLE_A && !state.offd)
   {
      state.model_declined = !state.model_decision.take;
      ctx.model->set_level(level, ctx.epoch, state.model_declined);
   }
   else
   {
      // P, R and off-diagonal blocks follow their level's operator, when it was decided in
      // this setup: a declined operator's values were not surveyed, so its level's transfer
      // operators are not taken in a precision its statistics might have raised
      const int level_decision = ctx.model->level_decision(level, ctx.epoch);
      state.model_declined     = level_decision >= 0 ? level_decision == 1 : !state.model_decision.take;
      if (level_decision >= 0) why = "as its level's operator";
   }
   note_model(ctx, state, a, why, expect, learned ? "as the last solve" : "expected");
   return state.model_declined;
}

// The first setup of a process pays the races; later setups (repeated solves, time steps)
// reuse their outcome, and a matrix remembered for stock costs the setup nothing.
bool remembered_for_stock(const Context& ctx, MatrixState& state, const amgt_csr& a,
                          const PrecisionChoice& choice)
{
   if (ctx.config->spmv != KernelChoice::race || !stock_spmv_callable(ctx, a)) { return false; }
   const CsrKey key = key_of(a, ctx.epoch);
   // consulted once per arrays (and SpMV choice: spmv_choice resets race_checked), not on
   // every call of the solve loop
   if (state.race_checked == key) return state.remembered_stock == key;
   state.race_checked = key;
   const std::optional<bool> won = process_race_memory().find(race_key(state, a, choice));
   if (!won) return false;
   if (*won)
   {
      state.remembered_plugin = key; // converted, but not raced again (device_owner)
      return false;
   }
   state.remembered_stock = key;
   char line[200];
   std::snprintf(line, sizeof(line),
                 "SpMV level %d %s: %d rows, %s: stock, as an earlier race in this process on a "
                 "matrix of this level, role and size decided (no conversion)",
                 state.level, role_name(state.role), a.nrows, to_string(choice.precision));
   ctx.stats->note(line);
   return true;
}

SpmvPlan plan_spmv(const Context& ctx, MatrixState& state, const amgt_csr& A)
{
   SpmvPlan plan;
   if (ctx.config->spmv == KernelChoice::stock)
   {
      plan.reason = "AMGT_SPMV=stock";
      return plan;
   }
   // a matrix the cost model leaves to hypre: before the precision choice, whose value
   // statistics would touch it (and hypre then runs every matvec, the lent ones too).
   // Without the model (AMGT_COST_MODEL=0) the size floor decides after the choice, as before.
   if (A.on_device && kDeviceKernels && ctx.model && model_declines(ctx, state, A, true))
   {
      plan.reason = state.model_key == key_of(A, ctx.epoch) ? "spmv-model-declined" : "spmv-small-matrix";
      return plan;
   }
   const int level = state.level;
   plan.choice     = spmv_choice(ctx, state, A, level);
   if (plan.choice.precision != Precision::fp64)
   {
      // a Krylov matvec or a residual check on a matrix the cycle runs in lower precision; or
      // a later cycle of a multi-cycle solve, where the finest operator decides the fixed point
      const char* fp64_rule = !ctx.in_cycle ? "spmv-outside-cycle-fp64"
                              : (level == 0 && state.role == AMGT_ROLE_A && !ctx.first_cycle)
                                 ? "spmv-later-cycle-fp64"
                                 : nullptr;
      // an exact copy (lossless_storage) is the fp64 operator: no fp64 rule needed
      if (fp64_rule && !plan.choice.exact)
      {
         // on the device the plugin's row-wise kernel runs it on hypre's own fp64 arrays (no
         // copy); elsewhere, or for a matrix hypre's kernel serves anyway, hypre runs it
         // with a model: where the fp64 row-wise kernel is faster (decided with the rest,
         // model_declines above; a matrix of no level asks the table)
         const bool lent_pays = !ctx.model || (state.model_key == key_of(A, ctx.epoch)
                                                  ? state.model_decision.lent
                                                  : cost::lent_pays(A.nnz, A.nrows));
         if (A.on_device && kDeviceKernels && !too_small_for_plugin(ctx, A) && lent_pays)
         {
            plan.who    = Executor::device;
            plan.choice = {Precision::fp64, false, fp64_rule};
            plan.lent   = true;
            return plan;
         }
         plan.reason = fp64_rule;
         return plan;
      }
   }
   if (!A.on_device)
   {
      plan.who = Executor::host;
      return plan;
   }
   if (!kDeviceKernels)
   {
      plan.who = Executor::device;
      return plan;
   }
   return device_owner(ctx, state, A, plan.choice);
}

bool device_copy_wanted(const Context& ctx)
{
   // AMGT_SPMV=stock: every matvec goes to hypre, so a conversion made at the setup would
   // only cost setup time (it did: +2.5 ms a setup on Dubcova1, H100) and device memory
   return ctx.config->spmv != KernelChoice::stock;
}

SpmvPlan plan_device_copy(const Context& ctx, MatrixState& state, const amgt_csr& A)
{
   // left to hypre by the cost model: no statistics, no copy, nothing counted
   if (A.on_device && kDeviceKernels && ctx.model && model_declines(ctx, state, A, false)) return SpmvPlan{};
   SpmvPlan plan = device_owner(ctx, state, A, spmv_choice(ctx, state, A, state.level));
   plan.reason   = nullptr; // nothing ran, nothing to count
   return plan;
}

SpgemmPlan plan_spgemm(const Context& ctx, int level, MatrixState& state_a, const amgt_csr& A,
                       MatrixState& state_b, const amgt_csr& B)
{
   SpgemmPlan plan;
   if (ctx.config->spgemm == KernelChoice::stock)
   {
      plan.reason = "AMGT_SPGEMM=stock";
      return plan;
   }
   // AMGT_SPGEMM=rows: every device product on the row-wise CSR kernel, in fp64 whatever the
   // level's precision (it reads hypre's fp64 arrays in place and writes fp64: nothing to
   // convert, nothing to round); host products as with plugin.
   const bool rows = A.on_device && ctx.config->spgemm == KernelChoice::rows;
   if (A.on_device && !kDeviceKernels)
   {
      plan.who  = Executor::device;
      plan.rows = rows;
      return plan;
   }
   AMGT_REQUIRE(A.ncols == B.nrows, "SpGEMM dimension mismatch");
   // AMGT_SPGEMM=lean (a measurement knob): products of few rows on the lean design, the others
   // as auto
   if (A.on_device && ctx.config->spgemm == KernelChoice::lean && A.nrows > 0 && A.nrows <= csr_spgemm::kLeanMaxRows)
   {
      plan.who  = Executor::device;
      plan.rows = true;
      plan.lean = true;
      return plan;
   }
   const bool auto_choice = spgemm_rules_apply(*ctx.config);
   // AMGT_SPGEMM=auto: the same kernel for long rows of C in few rows (the coarse Galerkin
   // products of systems), where it beat both of hypre's modes (csr_spgemm.h: the rules and
   // their measurements).
   if (rows || (A.on_device && auto_choice && csr_spgemm::rows_kernel_wins(A.nrows, A.nnz, B.nrows, B.nnz)))
   {
      plan.who  = Executor::device;
      plan.rows = true;
      return plan; // fp64, no finite check (an fp64 product goes to hypre as it is)
   }
   if (A.on_device && auto_choice)
   {
      // Every other device product goes to hypre. Measured on the H100 (bench/kernels, the
      // products of BoomerAMG setups of laplace7 n=160, laplace27 n=100, systems3 n=64): the
      // mBSR SpGEMM took 0.60x the speed of cuSPARSE and 0.33x that of hypre's own kernel
      // (geomean of 32 products, kernel alone, pairs numeric kernel; none faster than
      // hypre's: at 1.3-2.5 entries per tile a tile pair carries about one scalar product),
      // the row-wise kernel lost outside the rule above. hypre then runs it in the mode
      // stock_spgemm_binned picks. AMGT_SPGEMM=plugin forces the mBSR kernel,
      // AMGT_SPGEMM=rows the row-wise one.
      plan.reason = "spgemm-stock-faster";
      return plan;
   }
   // Under auto each operand asks for what its values need (never scaled: the product of two
   // scaled operands is not the scaled product) and the product runs in the higher of the two
   // (Precision: smaller = higher).
   Precision p = choose_for(ctx, state_a, A, level, true).precision;
   if (&state_a != &state_b) { p = std::min(p, choose_for(ctx, state_b, B, level, true).precision); }
   plan.who       = A.on_device ? Executor::device : Executor::host;
   plan.precision = p;
   // The range checks bound the operands, not their product: a sum of in-range products can
   // still overflow (or an operand held a NaN that only the product spreads). Under auto the
   // output is checked and recomputed one precision higher; fp64 results go to hypre as they
   // are, as stock hypre's would.
   plan.check_finite = ctx.config->mode == Mode::automatic && p != Precision::fp64;
   return plan;
}

SurveyItem survey_wants(const Context& ctx, MatrixState& state, const amgt_csr& a)
{
   SurveyItem it;
   it.state = &state;
   it.a     = a;
   if (!a.on_device || !device_copy_wanted(ctx) || a.nnz <= 0) return it;
   const CsrKey key = key_of(a, ctx.epoch);
   if (state.prepared_key == key) return it; // prepared beside the setup, or earlier
   // the cost model leaves it to hypre: not touched (its level's P and R follow it); without
   // the model a small operator's statistics are still taken (they may raise its level's floor)
   if (kDeviceKernels && ctx.model && model_declines(ctx, state, a, false)) return it;
   // choose_for's plain statistics: auto below an fp64 schedule (small matrices too: their
   // operator's statistics may raise the level's floor for the level's P and R)
   it.stats  = takes_value_stats(*ctx.config, state.level) && !(state.stats_key == key);
   it.coarse = coarse_operator(state.level, a);
   // plan_layout's sample: an operator that the plugin's SpMV will serve, layout by rule
   it.fill = layout_by_sample(*ctx.config, state.role) && !too_small_for_plugin(ctx, a) &&
             !(state.fill_key == key);
   return it;
}

bool stock_spgemm_binned(const Context& ctx, int64_t m, int64_t nnz_a, int64_t k, int64_t nnz_b)
{
   return kDeviceKernels && spgemm_rules_apply(*ctx.config) && csr_spgemm::hypre_binned_wins(m, nnz_a, k, nnz_b);
}

// AMGT_LAYOUT, or: interpolation and restriction row-wise without looking (they hold 1-2
// entries per 4x4 tile in every hierarchy measured, where the row-wise SpMV was as fast or
// faster: bench/RESULTS.md), and A by the bytes one SpMV moves in each layout
// (choose_layout) for the fill a sample of the matrix shows (one small kernel and a read-back
// of seven numbers: setup only).
LayoutPlan plan_layout(const Context& ctx, MatrixState& state, const amgt_csr& a, Precision p)
{
   LayoutPlan plan;
   switch (ctx.config->layout)
   {
   case LayoutRequest::mbsr: plan.layout = Layout::mbsr; return plan;
   case LayoutRequest::rows: plan.layout = Layout::rows; return plan;
   case LayoutRequest::automatic: break;
   }
   if (!layout_by_sample(*ctx.config, state.role))
   {
      plan.layout = Layout::rows;
      plan.narrow = false; // a rectangular operator: its columns do not follow its rows
      return plan;
   }
   // taken by the setup survey with the other matrices' samples, or here alone
   const FillSample e = state.fill_key == key_of(a, ctx.epoch) ? state.fill_sample : device_fill_sample(ctx, a);
   LayoutInputs     in;
   in.precision  = p;
   in.fill       = e.fill;
   in.row_length = a.nrows > 0 ? static_cast<double>(a.nnz) / a.nrows : 0.0;
   in.narrow     = e.max_span <= kNarrowSpan;
   state.device_shape.fill = in.fill; // the estimate until a conversion counts the tiles
   // The sample's span is a lower bound: where the row-wise layout wins only with 16-bit
   // offsets, one entry beyond kNarrowSpan that the sample missed would leave it with 32-bit
   // columns and slower than the tiles (a 7-point level 1 at 4M rows in fp32: 199 us against
   // mBSR's 169). There the exact span decides (one pass over the columns).
   if (layout_needs_exact_span(in)) in.narrow = device_max_span(ctx, a) <= kNarrowSpan;
   const LayoutChoice c = choose_layout(in);
   plan.layout      = c.layout;
   plan.entry_order = c.entry_order;
   plan.narrow      = in.narrow;
   plan.row_cv = e.row_cv;
   return plan;
}

} // namespace amgt::glue
