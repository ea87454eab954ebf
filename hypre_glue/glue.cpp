// The plugin's side of the C boundary (amgt_glue.h): run-time selection, per-matrix state,
// the hooks handed to the dispatcher (dispatch.cpp: the planner's plan, then its executor),
// statistics. Every extern "C" function catches everything: no
// C++ exception reaches hypre's C code, and an error means "run stock" plus one message.
// The one exit: AMGT_STRICT=1 with an invalid setting stops the process when the
// configuration is first read (the user asked for that).
#include "amgt_glue.h"

#include "backend.h"
#include "matrix_state.h"
#include "planner.h"
#include "resetup.h"
#include "stats.h"

#include "common/error.h"
#include "precision/schedule.h"

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <new>
#include <string>

extern char** environ; // POSIX

namespace amgt::glue {
namespace {

// The process's AMGT and AMGT_* variables, the names in any letter case: parse_environment
// reports the ones the library does not read (amgt=fp64 and AMGT_LEVEL are typos too).
Environment amgt_environment()
{
   Environment env;
   for (char** entry = environ; entry && *entry; ++entry)
   {
      const char* eq = std::strchr(*entry, '=');
      if (!eq) { continue; }
      std::string name(*entry, static_cast<size_t>(eq - *entry));
      std::string upper = name;
      for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (upper == "AMGT" || upper.compare(0, 5, "AMGT_") == 0) { env.emplace_back(name, eq + 1); }
   }
   return env;
}

// The rank is not known to this side when the configuration is read; launchers export it,
// and only rank 0 (or a process without a launcher) prints configuration messages.
bool is_first_rank()
{
   for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID",
                           "MV2_COMM_WORLD_RANK"})
   {
      const char* value = std::getenv(var);
      if (value && *value) { return std::atoi(value) == 0; }
   }
   return true;
}

struct Global
{
   Config         config;
   amgt_allocator allocator{};
   std::atomic<long> epoch{1};
   std::atomic<int>  setup_level{-1};
   std::atomic<int>  cycle_depth{0}; // > 0 inside a BoomerAMG V-cycle
   std::atomic<int>  cycle_index{0}; // the current (innermost) cycle's number in its solve
   // the application's latest assembled matrix, its entries on this process (-1: none seen)
   std::atomic<long long> application_entries{-1};
   Stats          stats;
   LevelFloors    floors;
   cost::SpmvModel model; // the cost model's matvec counts and level decisions (planner.h)
   PrepareQueue   prepare_queue; // AMGT_SETUP_OVERLAP (prepare_queue.h)
};

Global*        g_global = nullptr;
// hypre's own kernel (index 0) or the vendor's (1) for what hypre computed itself, for matvecs
// [0] and products [1] (amgt_glue_count_stock_kernel); a plain array: counted before the
// configuration is read, never freed.
std::atomic<long> g_stock_kernels[2][2];
// of the products on hypre's own kernel, those run in its binned mode (stock_spgemm_binned)
std::atomic<long> g_stock_binned{0};
std::once_flag g_once;

Global& global()
{
   std::call_once(g_once, [] {
      g_global             = new Global();
      g_global->config     = parse_environment(amgt_environment());
      const Config& config = g_global->config;
      if (!config.trace_path.empty()) { g_global->stats.enable_trace(); }
      const bool stop = config.strict && config.invalid > 0;
      // A strict stop is told by every rank: a rank that exits first may end the job before
      // rank 0 has printed anything.
      if (stop || is_first_rank())
      {
         for (const std::string& message : config.messages)
         {
            std::fprintf(stderr, "AMGT: %s\n", message.c_str());
         }
      }
      if (stop)
      {
         std::fprintf(stderr,
                      "AMGT: error: AMGT_STRICT is set and the environment holds %d invalid "
                      "AMGT setting%s (above): stopping with exit status 2\n",
                      config.invalid, config.invalid == 1 ? "" : "s");
         std::fflush(nullptr);
         // _Exit, not exit: an exit handler that called into the library would wait on this
         // call_once forever. Buffers are flushed; MPI's cleanup is moot, the job is over.
         std::_Exit(2);
      }
   });
   return *g_global;
}

} // namespace

const Config& process_config()
{
   return global().config;
}

const Stats& process_stats()
{
   return global().stats;
}

// One line per distinct problem, so a failing kernel in a solve loop does not flood the log.
void report_once(const std::string& what)
{
   static std::mutex              mutex;
   static std::vector<std::string> seen;
   std::lock_guard<std::mutex>    lock(mutex);
   for (const std::string& s : seen)
   {
      if (s == what) { return; }
   }
   seen.push_back(what);
   std::fprintf(stderr, "AMGT: %s\n", what.c_str());
}

namespace {

// hypre's thread waits for the queue's work before it reads or changes a state the queue
// is preparing (or before a new setup, or the end of one: settle_all).
void settle_all()
{
   Global&      g = global();
   const double w = g.prepare_queue.drain();
   if (w > 0.0) g.stats.waited_for_prepare(w);
}

void settle(MatrixState* s)
{
   if (s && s->pending.on.load(std::memory_order_acquire)) settle_all();
}

MatrixState* state_of(void** slot)
{
   if (*slot == nullptr) { *slot = new MatrixState(); }
   MatrixState* s = static_cast<MatrixState*>(*slot);
   settle(s);
   return s;
}

// Under AMGT_STATS, the host time of one call of a C entry point (Stats::entry_time): what
// hypre's hooks spend in the plugin, including what the plugin then declines. Constructed first
// in guarded and in each entry that catches for itself and does more than read a flag or an
// atomic. An entry reached from inside another on the same thread (a callback of hypre's
// allocator that comes back into the glue) lies inside the outer call's time: only the
// outermost reads the clock and counts. Without AMGT_STATS no clock is read.
thread_local int t_entry_depth = 0;

class EntryTimer
{
public:
   EntryTimer() noexcept
   {
      try
      {
         on_ = global().config.stats;
      }
      catch (...)
      {
         return; // no configuration: the entry's own try reports or runs stock
      }
      if (on_ && t_entry_depth++ == 0) start_ = std::chrono::steady_clock::now();
   }
   ~EntryTimer()
   {
      if (!on_ || --t_entry_depth > 0) return;
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start_;
      try
      {
         global().stats.entry_time(took.count());
      }
      catch (...)
      {
         // a lock that failed: the call goes uncounted
      }
   }
   EntryTimer(const EntryTimer&)            = delete;
   EntryTimer& operator=(const EntryTimer&) = delete;

private:
   bool                                  on_ = false;
   std::chrono::steady_clock::time_point start_;
};

// state: the caller's variable, which the body may set (state_of): read by reference, so that an
// exception after that is counted on the matrix's level
template <class F>
int guarded(MatrixState* const& state, F&& body)
{
   EntryTimer timer; // the catch blocks' reports included
   try
   {
      return body();
   }
   catch (const std::bad_alloc&)
   {
      report_once("out of memory in the plugin; this call runs stock hypre");
      global().stats.fallback(state ? state->level : -1, "out-of-memory");
   }
   catch (const std::exception& e)
   {
      report_once(std::string(e.what()) + " (this call runs stock hypre)");
      global().stats.fallback(state ? state->level : -1, "error");
   }
   catch (...)
   {
      report_once("unknown error in the plugin; this call runs stock hypre");
      global().stats.fallback(state ? state->level : -1, "error");
   }
   return 0;
}

Context context()
{
   Global& g = global();
   Context ctx;
   ctx.config    = &g.config;
   ctx.allocator     = g.allocator;
   ctx.allocator_ref = &g.allocator;
   ctx.epoch     = g.epoch.load();
   ctx.stats     = &g.stats;
   ctx.floors    = &g.floors;
   ctx.model     = g.config.cost_model ? &g.model : nullptr;
   ctx.in_cycle  = g.cycle_depth.load() > 0;
   ctx.first_cycle = ctx.in_cycle && g.cycle_index.load() == 0;
   return ctx;
}

// The level and role of a matrix (amgt_glue_matrix_tag, and the survey that precedes the
// end-of-setup tags); an operator's shape goes to the statistics table (idempotent).
void tag(MatrixState* state, int level, int role)
{
   state->level = level;
   state->role  = role;
   if (role == AMGT_ROLE_A) { global().stats.level_matrix(level, state->shape()); }
}

// The end-of-setup preparation of a device matrix, once per arrays and setup (prepared_key):
// in place, or queued beside hypre's setup (falling back to in place where that does not
// apply). Never fails: an error leaves the matrix to its first product, or to stock hypre.
void prepare_matrix(void** slot, const amgt_csr* A, bool beside)
{
   MatrixState* state = nullptr;
   guarded(nullptr, [&] {
      state = state_of(slot);
      if (!A || !A->on_device) return 1;
      const Context ctx = context();
      const CsrKey  key = key_of(*A, ctx.epoch);
      if (state->prepared_key == key) return 1; // made, or queued and finished (state_of)
      state->prepared_key = key;
      if (!beside || !device_prepare_beside(ctx, *state, *A, global().prepare_queue))
      {
         device_prepare(ctx, *state, *A);
      }
      return 1;
   });
}

} // namespace
} // namespace amgt::glue

using namespace amgt::glue;

extern "C" {

int amgt_glue_mode(void)
{
   try
   {
      switch (global().config.mode)
      {
      case amgt::Mode::off: return AMGT_MODE_OFF;
      case amgt::Mode::fp64: return AMGT_MODE_FP64;
      case amgt::Mode::automatic: return AMGT_MODE_AUTO;
      default: return AMGT_MODE_MIXED;
      }
   }
   catch (...)
   {
      return AMGT_MODE_OFF;
   }
}

int amgt_glue_stats_enabled(void)
{
   try
   {
      return global().config.stats ? 1 : 0;
   }
   catch (...)
   {
      return 0;
   }
}

void amgt_glue_set_allocator(const amgt_allocator* allocator)
{
   try
   {
      if (allocator) { global().allocator = *allocator; }
   }
   catch (...)
   {
   }
}

void amgt_glue_matrix_release(void* state)
{
   EntryTimer timer;
   try
   {
      settle(static_cast<MatrixState*>(state));
   }
   catch (...)
   {
   }
   delete static_cast<MatrixState*>(state); // destructors do not throw
}

void amgt_glue_matrix_invalidate(void* state)
{
   EntryTimer timer;
   try
   {
      settle(static_cast<MatrixState*>(state));
   }
   catch (...)
   {
   }
   // AMGT_RESETUP: the device copy keeps its structure for a re-setup to refresh its values
   const bool keep = amgt_glue_resetup_mode() != 0;
   if (MatrixState* s = static_cast<MatrixState*>(state)) { s->invalidate(keep); } // noexcept
}

void amgt_glue_matrix_tag(void** slot, int level, int role)
{
   guarded(nullptr, [&] {
      tag(state_of(slot), level, role);
      return 1;
   });
}

void amgt_glue_matrix_mark_offd(void** slot)
{
   guarded(nullptr, [&] {
      state_of(slot)->offd = true;
      return 1;
   });
}

void amgt_glue_matrix_prepare(void** slot, const amgt_csr* A)
{
   prepare_matrix(slot, A, false);
}

void amgt_glue_matrices_survey(int n, const amgt_survey_item* given)
{
   guarded(nullptr, [&] {
      if (n <= 0 || !given) return 1;
      const Context ctx = context();
      if (!ctx.config->setup_survey) return 1;
      std::vector<SurveyItem> items;
      for (int i = 0; i < n; ++i)
      {
         if (!given[i].slot) continue;
         MatrixState* state = state_of(given[i].slot);
         tag(state, given[i].level, given[i].role);
         SurveyItem it = survey_wants(ctx, *state, given[i].A);
         if (it.stats || it.fill) items.push_back(it);
      }
      if (!items.empty()) device_survey(ctx, items);
      return 1;
   });
}

void amgt_glue_matrix_prepare_beside(void** slot, const amgt_csr* A)
{
   prepare_matrix(slot, A, true);
}

int amgt_glue_setup_overlap(void)
{
   try
   {
      return global().config.setup_overlap ? 1 : 0;
   }
   catch (...)
   {
      return 0;
   }
}

void amgt_glue_initialize(void)
{
   EntryTimer timer;
   try
   {
      device_preload_start(context());
   }
   catch (...)
   {
      // no thread, no device: the kernels load at first use, as without the preload
   }
}

void amgt_glue_matrix_assembled(long long local_entries)
{
   device_preload_matrix(static_cast<int64_t>(local_entries)); // atomics only: nothing thrown
   try
   {
      global().application_entries.store(local_entries < 0 ? 0 : local_entries); // setup_kernel_decision
   }
   catch (...)
   {
      // no configuration: no setup kernel runs on the plugin's either
   }
}

void amgt_glue_prepare_settle(void)
{
   EntryTimer timer;
   try
   {
      settle_all();
   }
   catch (...)
   {
   }
}

void amgt_glue_setup_begin(void)
{
   EntryTimer timer; // counted in the setup it opens (its wait for earlier work included)
   try
   {
      settle_all(); // nothing of an earlier setup still running beside this one
      device_preload_yield();
      if (global().config.stats) global().stats.setup_begin(); // AMGT_STATS: work per setup
      global().epoch.fetch_add(1);
      global().setup_level.store(-1);
      global().floors.reset();
      global().model.setup_begins();
   }
   catch (...)
   {
   }
}

void amgt_glue_set_setup_level(int level)
{
   try
   {
      global().setup_level.store(level);
   }
   catch (...)
   {
   }
}

void amgt_glue_cycle_begin(int index)
{
   try
   {
      global().cycle_depth.fetch_add(1);
      global().cycle_index.store(index);
   }
   catch (...)
   {
   }
}

void amgt_glue_cycle_end(void)
{
   try
   {
      if (global().cycle_depth.fetch_sub(1) <= 0) { global().cycle_depth.store(0); }
   }
   catch (...)
   {
   }
}

int amgt_glue_spmv_b(void** slot, const amgt_csr* A, double alpha, const double* x, double beta,
                     const double* b, double* y)
{
   MatrixState* state = nullptr;
   return guarded(state, [&] {
      state = state_of(slot);
      return backend_spmv(context(), *state, *A, alpha, x, beta, b, y);
   });
}

int amgt_glue_spmv(void** slot, const amgt_csr* A, double alpha, const double* x, double beta,
                   double* y)
{
   return amgt_glue_spmv_b(slot, A, alpha, x, beta, y, y);
}

int amgt_glue_spgemm(void** slot_a, const amgt_csr* A, void** slot_b, const amgt_csr* B,
                     int diag_first, amgt_csr_out* C)
{
   MatrixState* state_a = nullptr;
   return guarded(state_a, [&] {
      state_a               = state_of(slot_a);
      MatrixState* state_b  = state_of(slot_b);
      int          level    = global().setup_level.load();
      if (level < 0) { level = state_a->level; }
      return backend_spgemm(context(), level, *state_a, *A, *state_b, *B, diag_first != 0, *C);
   });
}

int amgt_glue_jacobi_from_zero(void** slot, long n, double w, const double* f, const double* l1,
                               double* u, double* vtemp, int on_device)
{
   MatrixState* state = nullptr;
   return guarded(state, [&] {
      state = state_of(slot);
      return backend_jacobi_from_zero(context(), static_cast<int64_t>(n), w, f, l1, u, vtemp, on_device != 0);
   });
}

namespace {
// AMGT_SETUP_KERNELS under an AMGT mode: hypre's setup kernels that the plugin implements run on it
bool setup_kernels_wanted(const Context& ctx)
{
   return ctx.config->mode != amgt::Mode::off && ctx.config->setup_kernels;
}
} // namespace
} // extern "C"

// A setup kernel's entry: 0 (hypre's own code runs) without arguments, with
// AMGT_SETUP_KERNELS=0, or where AMGT_SETUP_KERNELS=large (the default) leaves it to hypre (a
// block below its size floor, a small application's hierarchy: setup_kernel_decision; counted),
// else what the backend returns (guarded: a failure is hypre's code too).
template <class Args, class Run>
static int setup_kernel(const Args* args, Run&& run)
{
   return guarded(nullptr, [&] {
      const Context ctx = context();
      if (!args || !setup_kernels_wanted(ctx)) return 0;
      const SetupKernelTake take =
         setup_kernel_decision(*ctx.config, setup_kernel_entries(*args), global().application_entries.load());
      if (take != SetupKernelTake::plugin)
      {
         ctx.stats->setup_kernel_small(take == SetupKernelTake::small_application);
         return 0;
      }
      return run(ctx, *args);
   });
}

extern "C" {

int amgt_glue_interp_twiaff(const amgt_twiaff_rows* rows)
{
   return setup_kernel(rows, backend_interp_twiaff);
}

int amgt_glue_strength_rowcount(const amgt_strength_rows* rows)
{
   return setup_kernel(rows, backend_strength_rowcount);
}

int amgt_glue_pmis(int which, const amgt_pmis_graph* graph, double* measure_diag, const double* measure_offd,
                   int* markers_diag, int* markers_offd, int temp_mark)
{
   return setup_kernel(graph, [&](const Context& ctx, const amgt_pmis_graph& g) {
      return backend_pmis(ctx, which, g, measure_diag, measure_offd, markers_diag, markers_offd, temp_mark);
   });
}

int amgt_glue_row_sums(const amgt_row_sums* sums)
{
   return setup_kernel(sums, backend_row_sums);
}

int amgt_glue_weak_row_sums(const amgt_weak_row_sums* sums)
{
   return setup_kernel(sums, backend_weak_row_sums);
}

int amgt_glue_csr_diag(const amgt_csr_diag* diag)
{
   return setup_kernel(diag, backend_csr_diag);
}

int amgt_glue_trunc_copy(const amgt_trunc_copy* copy)
{
   return setup_kernel(copy, backend_trunc_copy);
}

void amgt_glue_count_sweep(void)
{
   EntryTimer timer;
   try
   {
      global().stats.sweep(false);
   }
   catch (...)
   {
   }
}

void amgt_glue_count_fallback(void* state, const char* reason)
{
   EntryTimer timer;
   try
   {
      const MatrixState* s = static_cast<const MatrixState*>(state);
      global().stats.fallback(s ? s->level : -1, reason ? reason : "unspecified");
   }
   catch (...)
   {
   }
}

void amgt_glue_count_stock_kernel(int product, int vendor)
{
   g_stock_kernels[product ? 1 : 0][vendor ? 1 : 0].fetch_add(1, std::memory_order_relaxed);
}

int amgt_glue_stock_spgemm_binned(long long m, long long nnz_a, long long k, long long nnz_b)
{
   EntryTimer timer;
   try
   {
      const bool binned = backend_stock_spgemm_binned(context(), m, nnz_a, k, nnz_b);
      if (binned) g_stock_binned.fetch_add(1, std::memory_order_relaxed);
      return binned ? 1 : 0;
   }
   catch (...)
   {
      return 0;
   }
}

void amgt_glue_print_stats(int rank, int nranks)
{
   try
   {
      Global& g = global();
      device_preload_join(&g.stats); // its time is reported below
      const long own_p = g_stock_kernels[1][0].exchange(0), ven_p = g_stock_kernels[1][1].exchange(0);
      const long own_m = g_stock_kernels[0][0].exchange(0), ven_m = g_stock_kernels[0][1].exchange(0);
      const long binned = g_stock_binned.exchange(0);
      if (own_p + ven_p + own_m + ven_m > 0)
      {
         g.stats.note("hypre's kernels for what it computed itself: SpGEMM " + std::to_string(own_p) +
                      " own (" + std::to_string(binned) + " in its binned mode), " + std::to_string(ven_p) +
                      " vendor; SpMV " + std::to_string(own_m) +
                      " own (< 2^22 entries), " + std::to_string(ven_m) + " vendor");
      }
      if (!g.config.trace_path.empty())
      {
         std::string path = g.config.trace_path;
         if (nranks > 1) { path += ".rank" + std::to_string(rank); }
         if (!g.stats.write_trace(path, g.config))
         {
            std::fprintf(stderr, "AMGT: cannot write the trace to %s\n", path.c_str());
         }
      }
      if (!g.config.stats) { return; }
      if (rank != 0 && !g.config.stats_all_ranks) { return; }
      const std::string table = g.stats.format(g.config, rank, nranks);
      if (table.empty()) { return; }
      // stderr, with the library's other messages, unless AMGT_STATS_FILE names a file: the
      // application's stdout stays its own (a code whose output is read by a program, as
      // amgt-solve's final JSON line is, is not broken by a library's table)
      if (!g.config.stats_path.empty())
      {
         std::string path = g.config.stats_path;
         if (nranks > 1) { path += ".rank" + std::to_string(rank); }
         if (std::FILE* f = std::fopen(path.c_str(), "w"))
         {
            const bool written = std::fputs(table.c_str(), f) >= 0;
            if (std::fclose(f) == 0 && written) { return; }
         }
         std::fprintf(stderr, "AMGT: cannot write the statistics to %s; they follow here\n",
                      path.c_str());
      }
      std::fflush(stdout); // the application's output so far comes first in a merged log
      std::fputs(table.c_str(), stderr);
      std::fflush(stderr);
   }
   catch (...)
   {
   }
}

void amgt_glue_finalize(void)
{
   try
   {
      // Counters restart if hypre is initialised again in the same process; the
      // configuration is kept (it is read once per process).
      if (g_global) { settle_all(); }
      device_preload_join(nullptr);
      if (g_global) { g_global->stats.reset(); }
      device_finalize();
   }
   catch (...)
   {
   }
}

} // extern "C"

// ---- AMGT_RESETUP (resetup.h) ----

namespace {

ResetupRecord* record_of(void** slot)
{
   if (!slot) { return nullptr; }
   MatrixState* s = state_of(slot);
   return s->resetup_record.get();
}

} // namespace

extern "C" {

int amgt_glue_resetup_mode(void)
{
   try
   {
      const amgt::Config& c = global().config;
      if (c.mode == amgt::Mode::off) { return 0; }
      return c.resetup == amgt::ResetupMode::off ? 0 : (c.resetup == amgt::ResetupMode::galerkin ? 1 : 2);
   }
   catch (...)
   {
      return 0;
   }
}

int amgt_glue_structure_fingerprint(const amgt_csr* A, unsigned long long* out)
{
   return guarded(nullptr, [&] {
      if (!A || !out) { return 0; }
      *out = structure_fingerprint(context(), *A);
      return 1;
   });
}

int amgt_glue_resetup_propose(void** record_slot, int fingerprint_ok, unsigned long long fingerprint,
                              int supported, const amgt_csr* fine_diag)
{
   int reason = AMGT_SETUP_FAILED;
   guarded(nullptr, [&] {
      const amgt::ResetupMode mode   = global().config.resetup;
      const ResetupRecord* record = record_of(record_slot);
      double               drift  = 1.0;
      // auto's diagonal guard, only where the structure lets a re-setup happen at all
      if (mode == amgt::ResetupMode::automatic && record && fine_diag && fingerprint_ok &&
          record->have_fingerprint && record->fingerprint == fingerprint)
      {
         drift = diagonal_drift(context(), *record, *fine_diag);
      }
      reason = resetup_propose(mode, record, fingerprint_ok != 0, fingerprint, supported != 0, drift);
      return 1;
   });
   return reason;
}

void amgt_glue_resetup_begin(void** record_slot, int reason)
{
   guarded(nullptr, [&] {
      resetup_begin(record_of(record_slot), reason);
      if (global().config.stats) { global().stats.setup_kind(reason, setup_reason_name(reason)); }
      return 1;
   });
}

void amgt_glue_resetup_end(void** record_slot, int reason, unsigned long long fingerprint,
                           const amgt_csr* fine_diag)
{
   guarded(nullptr, [&] {
      if (reason == AMGT_SETUP_RESETUP || !record_slot) { return 1; }
      MatrixState* s = state_of(record_slot);
      s->resetup_record.reset(new ResetupRecord(resetup_record_after_full(fingerprint)));
      if (global().config.resetup == amgt::ResetupMode::automatic && fine_diag)
      {
         remember_diagonal(context(), *s->resetup_record, *fine_diag);
      }
      return 1;
   });
}

void amgt_glue_resetup_cycles(void** record_slot, int cycles)
{
   guarded(nullptr, [&] {
      if (ResetupRecord* r = record_of(record_slot)) { r->cycles += cycles; }
      return 1;
   });
}

int amgt_glue_galerkin(void** slot_c, const amgt_csr* R, const amgt_csr* A, const amgt_csr* P,
                       const amgt_csr* C, double* c_val)
{
   MatrixState* state = nullptr;
   return guarded(state, [&] {
      state = state_of(slot_c);
      return galerkin_numeric(context(), *state, *R, *A, *P, *C, c_val) ? 1 : 0;
   });
}

} // extern "C"

extern "C" {

void amgt_glue_resetup_move(void** from_slot, void** to_slot)
{
   guarded(nullptr, [&] {
      MatrixState* from = state_of(from_slot);
      MatrixState* to   = state_of(to_slot);
      to->resetup_record = std::move(from->resetup_record);
      return 1;
   });
}

void amgt_glue_matrix_carry(void** slot, const amgt_csr* A, int values_changed)
{
   guarded(nullptr, [&] {
      if (!slot || !*slot || !A) { return 1; } // nothing cached for this matrix
      MatrixState* s = state_of(slot);
      if (s->carry(key_of(*A, context().epoch), values_changed != 0) && global().config.stats)
      {
         global().stats.carried(1);
      }
      return 1;
   });
}

void amgt_glue_resetup_products(int on_plan, int by_hypre, double seconds)
{
   guarded(nullptr, [&] {
      if (global().config.stats) { global().stats.resetup_products(on_plan, by_hypre, seconds); }
      return 1;
   });
}

} // extern "C"
