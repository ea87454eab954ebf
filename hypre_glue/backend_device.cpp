// Device executor: hypre's device matrices run on the plugin's CUDA kernels (plugin/*/ *.cu),
// as the planner's plan says (planner.h: precision, scaling, layout, whether to race). The
// SpMV race is here too: it times this executor's device copy against hypre's kernel to
// decide who serves the copy's matvecs, so it lives with the copies it times. The device
// measurements the planner reads (value statistics, the fill sample, the setup survey) are in
// backend_device_measure.cpp, the preload of the kernels beside the application in
// backend_device_preload.cpp: neither touches the copies kept here.
//
// Per matrix the state keeps one device copy: the mBSR in the level's precision and its SpMV
// plan, keyed like the host copy (arrays, shape, setup epoch). It is built at the end of
// the setup (amgt_glue_matrix_prepare, from the level tags) or at the first product that
// needs it, and freed with the hypre matrix. Inside the solve, spmv only enqueues kernels on
// hypre's compute stream: no conversion, allocation, copy or synchronisation -- except with
// AMGT_STATS, which synchronises around each call to time it.
#include "backend.h"
#include "backend_device_internal.h"
#include "planner.h"

#if defined(AMGT_WITH_DEVICE_KERNELS)

#include "common/error.h"
#include "device/runtime.h"
#include "block_cache.h"
#include "memory_cap.h"
#include "race_memory.h"
#include "mbsr/mbsr_device.h"
#include "precision/range_device.h"
#include "spgemm/csr_spgemm_device.h"
#include "spgemm/spgemm_device.h"
#include "spmv/spmv_device.h"
#include "rows/rows_device.h"
#include "smooth/jacobi_device.h"
#include "interp/twiaff_device.h"
#include "coarsen/strength_device.h"
#include "csr/diag_device.h"
#include "csr/row_sums_device.h"
#include "interp/truncation_device.h"
#include "coarsen/pmis_device.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <thread>
#include <type_traits>
#include <memory>
#include <vector>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <variant>

namespace amgt::glue {

// Who runs this matrix's SpMV (decided once per device copy: by rule the plugin, or by
// race_spmv_owner when the plan says race).
enum class SpmvOwner
{
   undecided,
   plugin,
   stock
};

template <class V>
struct DeviceEntry
{
   // The layout the SpMV reads (plan_layout, planner.h); products always take mBSR.
   Layout                             layout = Layout::mbsr;
   device::DeviceMbsr<V>              m;    // layout mbsr
   std::optional<device::SpmvPlan<V>> plan; // layout mbsr: built on first use by an SpMV
   device::DeviceRows<V>              rows; // layout rows
   SpmvOwner                          owner = SpmvOwner::undecided;
   // AMGT=auto: the matrix holds D^-1/2 A D^-1/2 and unscale = sqrt|a_ii| (nrows doubles), the SpMV's
   // unscale argument (precision/policy.h)
   bool                   scaled = false;
   device::Buffer<double> unscale;
   const double*          unscale_or_null() const { return scaled ? unscale.get() : nullptr; }
};

struct DeviceCache
{
   CsrKey key;
   std::variant<std::monostate, DeviceEntry<double>, DeviceEntry<float>, DeviceEntry<half_t>> entry;
   // AMGT_RESETUP: the entry's values are older than its arrays' (matrix_state.h,
   // device_cache_stale); with a key of the current setup (device_cache_carry) its structure
   // is the arrays' and device_entry refreshes the values in place.
   bool values_stale = false;
};

void DeviceCacheDeleter::operator()(DeviceCache* c) const noexcept
{
   delete c; // Buffer destructors release through hypre's allocator and do not throw
}

void device_cache_stale(DeviceCache& c) noexcept
{
   c.values_stale = true;
}

bool device_cache_carry(DeviceCache& c, const CsrKey& now, bool values_changed) noexcept
{
   if (!same_arrays(c.key, now) || std::holds_alternative<std::monostate>(c.entry)) return false;
   c.key.epoch = now.epoch;
   if (values_changed) c.values_stale = true;
   return true;
}

namespace {

// The plugin's device memory: hypre's allocator, behind the AMGT_DEVICE_MEMORY_LIMIT cap
// (memory_cap.h), behind a cache of released blocks (block_cache.h, AMGT_DEVICE_CACHE),
// all read once per process. Without the variables the cap is off (one branch per
// allocation). The cache keeps nothing by default when hypre's allocator is its device
// pool (the default build: the pool already keeps released blocks), and up to
// kDefaultCacheBytes when every hypre allocation is a cudaMalloc.
constexpr size_t kDefaultCacheBytes = size_t{1} << 30;

struct CappedAllocator
{
   const amgt_allocator* base = nullptr; // the process-wide copy (stable address)
   MemoryCap             cap;
   BlockCache            cache;
};

CappedAllocator& capped_allocator(const amgt_allocator* base = nullptr)
{
   static CappedAllocator* c = [base] {
      auto* a = new CappedAllocator(); // lives as long as the device buffers it serves
      // AMGT_DEVICE_MEMORY_LIMIT and AMGT_DEVICE_CACHE are parsed, and a bad value
      // reported, with the rest of the configuration (precision/schedule.h)
      const Config& config = process_config();
      if (config.device_memory_limit) { a->cap.enable(*config.device_memory_limit); }
      const bool   pooled      = base && base->pooled;
      const size_t cache_bytes = config.device_cache.value_or(pooled ? 0 : kDefaultCacheBytes);
      BlockCache::Source src;
      src.ctx   = a;
      src.alloc = [](size_t bytes, void* c) -> void* {
         auto& ca = *static_cast<CappedAllocator*>(c);
         if (!ca.base || !ca.cap.admit(bytes)) { return nullptr; }
         void* p = ca.base->alloc(bytes, 1);
         if (p) { ca.cap.record(p, bytes); }
         else { ca.cap.cancel(bytes); }
         return p;
      };
      src.release = [](void* p, void* c) {
         auto& ca = *static_cast<CappedAllocator*>(c);
         ca.cap.forget(p);
         if (ca.base) { ca.base->release(p, 1); }
      };
      a->cache.reset(src, cache_bytes);
      return a;
   }();
   return *c;
}

// Device memory for the plugin (cached blocks of hypre's allocator). An allocation refused
// by the cap or by hypre returns nullptr: device::Buffer throws std::bad_alloc, the C
// boundary (glue.cpp) catches it, says so once and hands the call to stock hypre.
device::Allocator shared_allocator(const Context& ctx)
{
   AMGT_REQUIRE(ctx.allocator_ref && ctx.allocator_ref->alloc && ctx.allocator_ref->release,
                "no allocator installed for device memory");
   CappedAllocator& ca = capped_allocator(ctx.allocator_ref);
   if (ca.base != ctx.allocator_ref) ca.base = ctx.allocator_ref; // the same address every call
   device::Allocator a;
   a.ctx     = &ca;
   a.alloc   = [](size_t bytes, void* c) -> void* { return static_cast<CappedAllocator*>(c)->cache.alloc(bytes); };
   a.release = [](void* p, void* c) { static_cast<CappedAllocator*>(c)->cache.release(p); };
   return a;
}

// The setup work beside hypre's setup (device_prepare_beside) runs on the plugin's second
// stream while hypre's thread goes on with its own kernels on its compute stream, and both
// take blocks from the same allocator (hypre's device pool hands a block freed on one thread
// to the other at once: it orders reuse by hypre's one compute stream). Hence:
// - a block the side work receives may still be read or written by hypre kernels enqueued
//   before its release: the second stream waits for hypre's stream after every allocation
//   (an event, no host wait);
// - a block the side work releases is held back until its stream has finished the job
//   (flush, on the queue's thread after its synchronisation), so hypre never receives one
//   that the second stream still uses.
// Buffers allocated here and released later by hypre's thread (a device copy freed with its
// matrix) go straight back: that job's stream work is long finished.
struct SideMemory
{
   std::once_flag     once;
   device::Allocator  base; // shared_allocator's, set once (the same functions and context)
   std::vector<void*> held; // released during the current job (the queue's thread only)
};

SideMemory& side_memory()
{
   static SideMemory* m = new SideMemory(); // outlives every buffer that points at it
   return *m;
}

// Set by a side job for its duration, on the queue's thread: whether this thread runs one, and
// hypre's compute stream, which the job's allocations wait for.
thread_local bool           t_side_job     = false;
thread_local device::Stream t_side_compute = nullptr;

device::Allocator side_allocator(const Context& ctx)
{
   SideMemory& m = side_memory();
   std::call_once(m.once, [&] { m.base = shared_allocator(ctx); });
   device::Allocator a;
   a.ctx   = &m;
   a.alloc = [](size_t bytes, void* c) -> void* {
      auto& sm = *static_cast<SideMemory*>(c);
      void* p  = sm.base.alloc(bytes, sm.base.ctx);
      if (p && t_side_job && !device::order_after(device::side_stream(), t_side_compute))
      {
         sm.base.release(p, sm.base.ctx);
         return nullptr; // Buffer: std::bad_alloc; the job is counted as failed
      }
      return p;
   };
   a.release = [](void* p, void* c) {
      auto& sm = *static_cast<SideMemory*>(c);
      if (t_side_job)
      {
         try
         {
            sm.held.push_back(p);
            return;
         }
         catch (...)
         {
            // no room to hold it: wait for the stream instead (a destructor cannot report)
            try
            {
               device::synchronize(device::side_stream());
            }
            catch (...)
            {
            }
         }
      }
      sm.base.release(p, sm.base.ctx);
   };
   return a;
}

} // namespace

device::Allocator device_allocator(const Context& ctx)
{
   return ctx.side ? side_allocator(ctx) : shared_allocator(ctx);
}

device::Stream stream_of(const Context& ctx)
{
   if (ctx.side) return device::side_stream();
   if (ctx.allocator_ref && ctx.allocator_ref->compute_stream)
   {
      return static_cast<device::Stream>(ctx.allocator_ref->compute_stream());
   }
   return nullptr; // legacy default stream
}

namespace {

// A buffer's array becomes hypre's (a product's output, freed by hypre itself): the block
// cache and the memory cap forget it. The block may be larger than the buffer (a size class
// of the cache); hypre frees it whole.
template <class T>
T* hand_over(device::Buffer<T>& b)
{
   T* p = b.release();
   if (p)
   {
      CappedAllocator& ca = capped_allocator();
      ca.cache.disown(p);
      ca.cap.forget(p);
   }
   return p;
}

// AMGT_RESETUP: new values into a device copy whose structure is the arrays' (the re-setup
// proved it), in place: no conversion, allocation or new SpMV plan. The row-wise layout's
// build pass writes the values alone (its 16-bit offsets stay); an entry-order mBSR copy holds
// its packed values in the CSR's order, so the same value pass fills them; copies that lend
// hypre's values (fp64, unscaled) read the new ones where they are. A scaled copy computes
// its scaling vector first (no temporary, no synchronisation). Returns false where the layout keeps its values in another order
// (bitmap order, the dense tiles, values packed by the SpMV plan): the caller converts again.
template <class V>
bool refresh_values(const Context& ctx, DeviceEntry<V>& e, const amgt_csr& a)
{
   const bool rows = e.layout == Layout::rows;
   if (!rows && !(e.m.entry_order && e.m.blk_val.size() == 0 && (!e.plan || e.plan->packed_val.size() == 0)))
   {
      return false;
   }
   const device::Stream s = stream_of(ctx);
   const CsrView        v = view_of(a);
   if (e.scaled) device::scaling_vector(v, e.unscale.get(), s);
   if (rows)
   {
      device::refresh_rows_values<V>(e.rows, v, e.unscale_or_null(), s);
      return true;
   }
   device::refresh_packed_values<V>(e.m, v, e.unscale_or_null(), s);
   return true;
}

// The cached device copy in precision V (scaled: of D^-1/2 A D^-1/2), rebuilt when the
// arrays, the epoch, the precision or the scaling changed since it was made, or when a
// product needs the dense mBSR layout (dense) that an SpMV-only copy was made without. An
// SpMV-only copy takes the layout plan_layout chooses; mBSR copies always have the packed
// values (the SpMV reads them), the dense ones (16 values per tile) only when a product asked
// for them: on fine levels that is ~3x the memory of the CSR matrix, which the solve never
// reads.
template <class V>
DeviceEntry<V>& device_entry(const Context& ctx, MatrixState& state, const amgt_csr& a, int level,
                             bool scaled, bool dense)
{
   CsrKey key = key_of(a, ctx.epoch);
   if (!state.device) { state.device.reset(new DeviceCache()); }
   DeviceCache& cache = *state.device;
   auto*        held  = std::get_if<DeviceEntry<V>>(&cache.entry);
   if (cache.values_stale && cache.key == key && held && held->scaled == scaled && !dense)
   {
      bool refreshed = false;
      try
      {
         refreshed = refresh_values<V>(ctx, *held, a);
      }
      catch (const Error&)
      {
         refreshed = false; // a copy the refresh does not take after all: converted again below
      }
      if (refreshed)
      {
         cache.values_stale = false;
         ctx.stats->refresh();
      }
   }
   if (!(cache.key == key) || !held || held->scaled != scaled || cache.values_stale ||
       (dense && (held->layout != Layout::mbsr || !held->m.has_dense())))
   {
      cache.values_stale = false;
      cache.entry        = std::monostate{};
      cache.key          = CsrKey{};
      state.device_shape = LevelShape{};
      const device::Stream    s   = stream_of(ctx);
      const device::Allocator mem = device_allocator(ctx);
      LayoutPlan              lp;
      if (!dense) lp = plan_layout(ctx, state, a, StorageTraits<V>::precision);
      DeviceEntry<V>          e;
      e.layout = lp.layout;
      const CsrView v = view_of(a);
      if (scaled)
      {
         e.unscale = device::Buffer<double>(static_cast<size_t>(a.nrows), mem);
         device::scaling_vector(v, e.unscale.get(), s);
         e.scaled = true;
      }
      if (e.layout == Layout::rows)
      {
         // one pass (values rounded, scaled, offsets) or nothing in fp64; the offsets' flag is
         // read at the first SpMV (entry_spmv), not waited for here: a setup's builds do not
         // each wait for the GPU
         e.rows = device::make_rows<V>(v, e.unscale_or_null(), lp.narrow, s, mem, lp.row_cv, true);
      }
      else
      {
         // hypre's arrays outlive the copy (the cache key): its values may be lent
         device::ConvertOptions options = device::spmv_copy_options(lp.entry_order && !dense, !scaled);
         options.dense                  = dense; // a product asked for the tiles' values too
         if (scaled)
         {
            // scaled values formed in double into a temporary, rounded once to V by the
            // conversion (the reference: scaling_vector/scaled_values of precision/policy.h)
            device::Buffer<double> w(static_cast<size_t>(a.nnz), mem);
            device::scaled_values(v, e.unscale.get(), w.get(), s);
            CsrView sv = v;
            sv.val     = w.get();
            e.m        = device::csr_to_mbsr<V>(sv, s, mem, options);
            // w goes back to hypre's allocator when this scope ends; whether that release is
            // ordered after the conversion's kernels depends on the allocator (cudaFree is, a
            // pool may not be), so wait for them here (setup only, once per scaled matrix).
            device::synchronize(s);
         }
         else { e.m = device::csr_to_mbsr<V>(v, s, mem, options); }
      }
      cache.entry     = std::move(e);
      cache.key       = key;
      state.precision = StorageTraits<V>::precision;
      ctx.stats->conversion(level);
   }
   return std::get<DeviceEntry<V>>(cache.entry);
}

// The SpMV of an entry in its layout (enqueues only; a row-wise copy's first reads its build's
// flag, whose copy the stream has passed by then unless the SpMV follows the build at once).
template <class V>
void entry_spmv(DeviceEntry<V>& e, const device::SpmvPlan<V>* plan, double alpha, const double* x,
                double beta, const double* b, double* y, device::Stream s)
{
   if (e.layout == Layout::rows)
   {
      device::settle_rows(e.rows); // nothing once settled
      device::rows_spmv<V>(e.rows, alpha, x, beta, y, s, e.unscale_or_null(), b);
   }
   else device::spmv<V>(e.m, *plan, alpha, x, beta, y, s, e.unscale_or_null(), b);
}

// Makes the entry ready for its SpMVs: the mBSR's plan (built once), and the device shape
// the statistics report. Returns the plan (nullptr for the row-wise layout, which needs none).
template <class V>
const device::SpmvPlan<V>* spmv_ready(const Context& ctx, MatrixState& state, DeviceEntry<V>& e)
{
   if (e.layout == Layout::rows)
   {
      if (!state.device_shape.known)
      {
         state.device_shape.known = true;
         state.device_shape.rows  = e.rows.nrows;
         state.device_shape.nnz   = e.rows.nnz;
         state.device_shape.tiles = 0; // not counted; fill holds plan_layout's estimate
         if (state.role == AMGT_ROLE_A && state.level >= 0)
         {
            ctx.stats->level_matrix(state.level, state.device_shape);
         }
      }
      return nullptr;
   }
   if (!e.plan)
   {
      e.plan.emplace(device::make_spmv_plan<V>(e.m, stream_of(ctx), device_allocator(ctx)));
      const device::SpmvStats& st = e.plan->stats;
      state.device_shape.known    = true;
      state.device_shape.rows     = e.m.nrows;
      state.device_shape.nnz      = st.nnz;
      state.device_shape.tiles    = st.tiles;
      state.device_shape.fill     = e.plan->fill;
      if (state.role == AMGT_ROLE_A && state.level >= 0)
      {
         ctx.stats->level_matrix(state.level, state.device_shape);
      }
   }
   return &*e.plan;
}

// What AMGT_STATS calls the kernel an entry's SpMV runs.
template <class V>
const char* spmv_path_name(const DeviceEntry<V>& e)
{
   if (e.layout == Layout::rows) return e.rows.narrow ? "rows16" : "rows"; // false until settled
   return device::to_string(e.plan->path);
}

// Average seconds of one call of f, after one untimed call, timed with events on stream s.
template <class F>
double time_calls(device::Stream s, int reps, F&& f)
{
   device::EventTimer timer;
   f();
   timer.start(s);
   for (int i = 0; i < reps; ++i) f();
   return timer.stop(s) / reps;
}

// AMGT_SPMV=race, when the plan asks for it: who serves this device copy's matvecs, by timing
// both kernels on it once (3 calls each after a warm-up). The outcome is remembered for the
// process (race_memory.h), where the planner finds it for the next matrix of this level, role,
// storage and size. Without hypre's kernel (a copy made from a matrix hypre did not hand over)
// there is nothing to race: the planner does not ask then.
template <class V>
SpmvOwner race_spmv_owner(const Context& ctx, MatrixState& state, const amgt_csr& a,
                          DeviceEntry<V>& e, const device::SpmvPlan<V>* plan)
{
   const device::Stream    s   = stream_of(ctx);
   const device::Allocator mem = device_allocator(ctx);
   device::Buffer<double>  x(static_cast<size_t>(a.ncols), mem);
   device::Buffer<double>  y(static_cast<size_t>(a.nrows), mem);
   // finite, nonzero inputs (every byte 0x3F: about 4.8e-4 per entry); no timing on zeros
   device::fill_bytes(x.get(), 0x3F, x.size() * sizeof(double), s);
   device::fill_bytes(y.get(), 0x3F, y.size() * sizeof(double), s);
   constexpr int kReps  = 3;
   bool          stock_ok = true;
   const double  t_plugin = time_calls(s, kReps, [&] {
      entry_spmv<V>(e, plan, 1.0, x.get(), 0.0, y.get(), y.get(), s);
   });
   const double t_stock = time_calls(s, kReps, [&] {
      stock_ok = ctx.allocator_ref->stock_spmv(a.owner, x.get(), y.get()) && stock_ok;
   });
   const SpmvOwner owner = (!stock_ok || t_plugin <= t_stock) ? SpmvOwner::plugin : SpmvOwner::stock;
   if (stock_ok)
   {
      RaceKey k   = {};
      k.level     = state.level;
      k.role      = state.role;
      k.precision = StorageTraits<V>::precision;
      k.scaled    = e.scaled;
      k.nrows     = a.nrows;
      k.nnz       = a.nnz;
      process_race_memory().record(k, owner == SpmvOwner::plugin);
   }
   char line[256];
   std::snprintf(line, sizeof(line),
                 "SpMV level %d %s: %d rows, fill %.2f, %s %s: plugin %.1f us, stock %.1f us -> %s",
                 state.level, state.role == AMGT_ROLE_A ? "A" : state.role == AMGT_ROLE_P ? "P"
                              : state.role == AMGT_ROLE_R ? "R" : "untagged",
                 a.nrows, state.device_shape.fill, to_string(StorageTraits<V>::precision),
                 spmv_path_name(e), 1e6 * t_plugin, 1e6 * t_stock,
                 owner == SpmvOwner::plugin ? "plugin" : "stock");
   ctx.stats->note(line);
   return owner;
}

} // namespace

void device_finalize()
{
   capped_allocator().cache.trim(); // before hypre tears its device memory down
}

void device_prepare(const Context& ctx, MatrixState& state, const amgt_csr& A)
{
   if (!device_copy_wanted(ctx)) { return; }
   const int      level = state.level;
   Timer          timer(ctx, stream_of(ctx)); // AMGT_STATS: the parts of the setup work
   const SpmvPlan plan  = plan_device_copy(ctx, state, A);
   if (plan.who != Executor::device) { return; }
   const PrecisionChoice& choice = plan.choice;
   double parts[3] = {timer.seconds(), 0.0, 0.0}; // choice (value checks), conversion + plan, race
   with_precision(choice.precision, [&](auto tag) {
      using V           = decltype(tag);
      DeviceEntry<V>&            e    = device_entry<V>(ctx, state, A, level, choice.scaled, false);
      const device::SpmvPlan<V>* sp   = spmv_ready<V>(ctx, state, e);
      parts[1]                        = timer.seconds() - parts[0];
      if (e.owner == SpmvOwner::undecided)
      {
         e.owner = plan.race ? race_spmv_owner<V>(ctx, state, A, e, sp) : SpmvOwner::plugin;
      }
      return 0;
   });
   parts[2] = timer.seconds() - parts[0] - parts[1];
   ctx.stats->prepare(level, parts[0], parts[1], parts[2]);
}

bool device_prepare_beside(const Context& ctx, MatrixState& state, const amgt_csr& A,
                           PrepareQueue& queue)
{
   if (!device_copy_wanted(ctx) || ctx.config->spmv == KernelChoice::race) return false;
   if (!ctx.allocator_ref || !ctx.allocator_ref->compute_stream) return false;
   const int      dev     = device::current_device_id();
   const device::Stream compute = stream_of(ctx);
   // what hypre has enqueued so far (the kernels that wrote A) comes before the job's work
   auto ready = std::make_shared<device::Marker>();
   ready->record(compute);
   Context side = ctx;
   side.side    = true;
   state.pending.on.store(true, std::memory_order_release);
   try
   {
      queue.submit([side, &state, A, ready, dev, compute] {
         // nothing may leave a job (the queue's contract): every report is guarded
         auto tell = [&](const std::string& what, const char* reason) noexcept {
            try
            {
               if (!what.empty()) report_once(what);
               side.stats->fallback(state.level, reason);
            }
            catch (...)
            {
            }
         };
         t_side_job     = true;
         t_side_compute = compute;
         try
         {
            device::use_device(dev);
            ready->wait(device::side_stream());
            device_prepare(side, state, A);
            device::synchronize(device::side_stream());
         }
         catch (const std::bad_alloc&)
         {
            tell("out of memory preparing a matrix beside hypre's setup; it is converted at its "
                 "first product, or runs stock hypre",
                 "prepare-beside-out-of-memory");
         }
         catch (const std::exception& e)
         {
            tell(std::string(e.what()) + " (preparing a matrix beside hypre's setup; it is "
                                         "converted at its first product, or runs stock hypre)",
                 "prepare-beside-error");
         }
         catch (...)
         {
            tell("", "prepare-beside-error");
         }
         // after an error the stream may still hold the job's kernels: the held blocks wait
         try
         {
            device::synchronize(device::side_stream());
         }
         catch (...)
         {
         }
         t_side_job         = false;
         SideMemory& m      = side_memory(); // base is set: the job allocated through it, or holds nothing
         for (void* p : m.held) m.base.release(p, m.base.ctx);
         m.held.clear();
         try
         {
            side.stats->prepared_beside();
         }
         catch (...)
         {
         }
         state.pending.on.store(false, std::memory_order_release);
      });
   }
   catch (...)
   {
      state.pending.on.store(false, std::memory_order_release);
      return false; // no thread: prepared in place
   }
   return true;
}

int device_spmv(const Context& ctx, MatrixState& state, const amgt_csr& A,
                const PrecisionChoice& choice, bool race, double alpha, const double* x,
                double beta, const double* b, double* y)
{
   const int level = state.level;
   return with_precision(choice.precision, [&](auto tag) {
      using V                         = decltype(tag);
      DeviceEntry<V>&            e    = device_entry<V>(ctx, state, A, level, choice.scaled, false);
      const device::SpmvPlan<V>* plan = spmv_ready<V>(ctx, state, e);
      if (e.owner == SpmvOwner::undecided)
      {
         e.owner = race ? race_spmv_owner<V>(ctx, state, A, e, plan) : SpmvOwner::plugin;
      }
      if (e.owner == SpmvOwner::stock)
      {
         ctx.stats->fallback(level, "spmv-stock-faster");
         return 0;
      }
      const device::Stream       s    = stream_of(ctx);
      Timer                      timer(ctx, s);
      entry_spmv<V>(e, plan, alpha, x, beta, b, y, s);
      ctx.stats->spmv(level, timer.seconds(), spmv_path_name(e), choice.precision);
      return 1;
   });
}

int device_spmv_lent(const Context& ctx, MatrixState& state, const amgt_csr& A, double alpha,
                     const double* x, double beta, const double* b, double* y)
{
   const device::Stream s = stream_of(ctx);
   Timer                timer(ctx, s);
   // fp64 without scaling or offsets: make_rows borrows row_ptr, col and val (no allocation)
   const device::DeviceRows<double> r =
      device::make_rows<double>(view_of(A), nullptr, false, s, device_allocator(ctx));
   device::rows_spmv<double>(r, alpha, x, beta, y, s, nullptr, b);
   ctx.stats->spmv_lent(state.level, timer.seconds());
   return 1;
}

int device_pmis(const Context& ctx, int which, const PmisGraph& g, double* measure_diag,
                const double* measure_offd, int32_t* is_diag, int32_t* is_offd, int32_t temp_mark)
{
   if (which == 0) device::indep_set_main(g, measure_diag, measure_offd, is_diag, is_offd, temp_mark, stream_of(ctx));
   else device::pmis_update_cf(g, measure_diag, is_diag, is_offd, stream_of(ctx));
   return 1;
}

int device_strength_rowcount(const Context& ctx, const StrengthRows& m)
{
   device::strength_rowcount(m, stream_of(ctx));
   return 1;
}

int device_interp_twiaff(const Context& ctx, const TwiaffRows& m)
{
   device::twiaff(m, stream_of(ctx));
   return 1;
}

int device_row_sums(const Context& ctx, const RowSums& m)
{
   device::row_sums(m, stream_of(ctx));
   return 1;
}

int device_weak_row_sums(const Context& ctx, const WeakRowSums& m)
{
   device::weak_row_sums(m, stream_of(ctx));
   return 1;
}

int device_csr_diag(const Context& ctx, const CsrDiag& m)
{
   device::csr_diag(m, stream_of(ctx));
   return 1;
}

int device_trunc_copy(const Context& ctx, const TruncCopy& m)
{
   device::trunc_copy(m, stream_of(ctx));
   return 1;
}

int device_jacobi_from_zero(const Context& ctx, int64_t n, double w, const double* f, const double* l1,
                            double* u, double* vtemp)
{
   device::jacobi_from_zero(n, w, f, l1, u, vtemp, stream_of(ctx));
   return 1;
}

// The product in precision p on the operands' dense mBSR copies; with check_finite, an
// output holding NaN/Inf is not handed over (the count reads back one scalar: setup only).
ProductRun device_spgemm(const Context& ctx, int level, MatrixState& state_a, const amgt_csr& A,
                         MatrixState& state_b, const amgt_csr& B, Precision p, bool check_finite,
                         amgt_csr_out& C)
{
   return with_precision(p, [&](auto tag) {
      using V                            = decltype(tag);
      const device::Stream           s   = stream_of(ctx);
      const device::Allocator        mem = device_allocator(ctx);
      const device::DeviceMbsr<V>&   a   = device_entry<V>(ctx, state_a, A, level, false, true).m;
      const device::DeviceMbsr<V>&   b =
         (&state_a == &state_b) ? a : device_entry<V>(ctx, state_b, B, level, false, true).m;
      Timer                 timer(ctx, s); // the product and its conversion back to CSR
      device::DeviceMbsr<V> c   = device::spgemm<V>(a, b, s, mem);
      const int64_t         nnz = device::mbsr_nnz<V>(c, s, mem);
      AMGT_REQUIRE(nnz <= INT32_MAX, "product has more than 2^31-1 nonzeros");
      // hypre owns the output: its arrays come from hypre's allocator and it frees them
      device::Buffer<int32_t> row_ptr(static_cast<size_t>(c.nrows) + 1, mem);
      device::Buffer<int32_t> col(static_cast<size_t>(nnz), mem);
      device::Buffer<double>  val(static_cast<size_t>(nnz), mem);
      device::mbsr_to_csr<V>(c, row_ptr.get(), col.get(), val.get(), s, mem);
      if (check_finite && device::count_nonfinite(val.get(), nnz, s, mem) > 0)
      {
         return ProductRun::nonfinite; // the buffers go back to hypre's allocator
      }
      C.nnz     = static_cast<int>(nnz);
      C.row_ptr = hand_over(row_ptr);
      // zero-length arrays: hypre accepts NULL for them
      C.col = hand_over(col);
      C.val = hand_over(val);
      ctx.stats->spgemm(level, timer.seconds(), "gpu", p);
      return ProductRun::done;
   });
}

// The row-wise product reads hypre's arrays where they are and writes C's through hypre's
// allocator (the same capped, cached allocator as every plugin buffer); an exception (no
// memory: std::bad_alloc; more than 2^31-1 nonzeros: amgt::Error) leaves through the C
// boundary's guard, which counts it and runs stock hypre. Its buffers are released on the way.
ProductRun device_spgemm_rows(const Context& ctx, int level, const amgt_csr& A, const amgt_csr& B,
                              amgt_csr_out& C, bool lean)
{
   const device::Stream    s   = stream_of(ctx);
   const device::Allocator mem = device_allocator(ctx);
   Timer                   timer(ctx, s);
   device::DeviceCsrProduct c = device::csr_spgemm(view_of(A), view_of(B), s, mem, nullptr,
                                                   lean ? CsrSpgemmDesign::lean : CsrSpgemmDesign::automatic);
   C.nnz     = static_cast<int>(c.nnz); // csr_spgemm checked nnz <= 2^31-1
   C.row_ptr = hand_over(c.row_ptr);
   // zero-length arrays: hypre accepts NULL for them
   C.col = hand_over(c.col);
   C.val = hand_over(c.val);
   ctx.stats->spgemm(level, timer.seconds(), lean ? "gpu-lean" : "gpu-rows", Precision::fp64);
   return ProductRun::done;
}

} // namespace amgt::glue

#else // CPU-only build: no device kernels in this library

#include <cstdio>
#include <mutex>

namespace amgt::glue {

struct DeviceCache
{
};

void DeviceCacheDeleter::operator()(DeviceCache* c) const noexcept
{
   delete c;
}

void device_cache_stale(DeviceCache&) noexcept {}

bool device_cache_carry(DeviceCache&, const CsrKey&, bool) noexcept
{
   return false;
}

namespace {

void say_no_kernels_once()
{
   static std::once_flag once;
   std::call_once(once, [] {
      std::fprintf(stderr, "AMGT: this libHYPRE was built without the plugin's GPU kernels "
                           "(AMGT_WITH_CUDA=OFF); device products run stock hypre\n");
   });
}

} // namespace

void device_prepare(const Context&, MatrixState&, const amgt_csr&)
{
   say_no_kernels_once();
}

bool device_prepare_beside(const Context&, MatrixState&, const amgt_csr&, PrepareQueue&)
{
   return false; // nothing to overlap: device_prepare says why once
}

void device_finalize() {}

int device_spmv(const Context& ctx, MatrixState& state, const amgt_csr&, const PrecisionChoice&,
                bool, double, const double*, double, const double*, double*)
{
   say_no_kernels_once();
   ctx.stats->fallback(state.level, "no-gpu-kernels");
   return 0;
}

int device_spmv_lent(const Context& ctx, MatrixState& state, const amgt_csr&, double, const double*, double,
                     const double*, double*)
{
   say_no_kernels_once();
   ctx.stats->fallback(state.level, "no-gpu-kernels");
   return 0;
}

int device_pmis(const Context&, int, const PmisGraph&, double*, const double*, int32_t*, int32_t*, int32_t)
{
   say_no_kernels_once();
   return 0;
}

int device_strength_rowcount(const Context&, const StrengthRows&)
{
   say_no_kernels_once();
   return 0;
}

int device_interp_twiaff(const Context&, const TwiaffRows&)
{
   say_no_kernels_once();
   return 0;
}

int device_row_sums(const Context&, const RowSums&)
{
   say_no_kernels_once();
   return 0;
}

int device_weak_row_sums(const Context&, const WeakRowSums&)
{
   say_no_kernels_once();
   return 0;
}

int device_csr_diag(const Context&, const CsrDiag&)
{
   say_no_kernels_once();
   return 0;
}

int device_trunc_copy(const Context&, const TruncCopy&)
{
   say_no_kernels_once();
   return 0;
}

int device_jacobi_from_zero(const Context&, int64_t, double, const double*, const double*, double*, double*)
{
   say_no_kernels_once();
   return 0;
}

ProductRun device_spgemm(const Context& ctx, int level, MatrixState&, const amgt_csr&, MatrixState&,
                         const amgt_csr&, Precision, bool, amgt_csr_out&)
{
   say_no_kernels_once();
   ctx.stats->fallback(level, "no-gpu-kernels");
   return ProductRun::declined;
}

ProductRun device_spgemm_rows(const Context& ctx, int level, const amgt_csr&, const amgt_csr&, amgt_csr_out&, bool)
{
   say_no_kernels_once();
   ctx.stats->fallback(level, "no-gpu-kernels");
   return ProductRun::declined;
}

} // namespace amgt::glue

#endif
