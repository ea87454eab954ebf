// AMGT_PRELOAD: the plugin's kernels loaded on a second thread and stream while the
// application assembles its matrix (device_preload_start, from HYPRE_Initialize). It runs the
// plugin's device entry points on synthetic matrices, in a block of memory of its own, and
// shares nothing with the executor's device copies, streams or allocators.
#include "backend.h"
#include "kernel_images.h"
#include "preload_rule.h"

#if defined(AMGT_WITH_DEVICE_KERNELS)

#include "common/error.h"
#include "device/runtime.h"
#include "mbsr/mbsr_device.h"
#include "precision/range_device.h"
#include "spgemm/csr_spgemm_device.h"
#include "spmv/spmv_device.h"
#include "rows/rows_device.h"
#include "smooth/jacobi_device.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <type_traits>
#include <vector>
#include <string>

namespace amgt::glue {

namespace {

// ---- Loading the plugin's kernels beside the application (device_preload_start) ----------
//
// With CUDA's lazy module loading (the default) every kernel is loaded at its first launch,
// inside the first setup and solve of a process: a one-shot application pays it there. The
// preload runs the plugin's setup and solve entry points once, on a second thread and stream,
// on small synthetic matrices of the shapes BoomerAMG hierarchies have (short and long rows,
// columns near and far from the diagonal, a rectangular transfer operator), in the three
// precisions: the kernels they launch are then loaded while the application assembles its
// matrix, between HYPRE_Initialize and the first setup. Its memory is one block of its own,
// handed out in order and given back at the end; nothing of it is kept.

struct Arena
{
   char*  base = nullptr;
   size_t size = 0, used = 0;
};

device::Allocator arena_allocator(Arena& a)
{
   device::Allocator al;
   al.ctx   = &a;
   al.alloc = [](size_t bytes, void* c) -> void* {
      auto&        ar  = *static_cast<Arena*>(c);
      const size_t off = (ar.used + 255) & ~size_t{255};
      if (off + bytes > ar.size) return nullptr; // Buffer: std::bad_alloc, the preload stops
      ar.used = off + bytes;
      return ar.base + off;
   };
   al.release = [](void*, void*) {}; // the block is reset between shapes, after a synchronisation
   return al;
}

// A synthetic square or rectangular CSR: per_row entries in each row, at offsets spread over
// [-band, band] around the row's diagonal position (plus one entry `far` columns away when
// far > 0), diagonally dominant values.
struct HostCsr
{
   int32_t              nrows = 0, ncols = 0;
   std::vector<int32_t> row_ptr, col;
   std::vector<double>  val;
};

HostCsr synthetic(int32_t nrows, int32_t ncols, int32_t per_row, int32_t band, int32_t far)
{
   HostCsr a;
   a.nrows = nrows;
   a.ncols = ncols;
   a.row_ptr.push_back(0);
   std::vector<int32_t> cols;
   for (int32_t i = 0; i < nrows; ++i)
   {
      const int64_t centre = static_cast<int64_t>(i) * ncols / nrows;
      cols.clear();
      for (int32_t k = 0; k < per_row; ++k)
      {
         const int64_t off = per_row > 1 ? -band + (2 * static_cast<int64_t>(band) * k) / (per_row - 1) : 0;
         cols.push_back(static_cast<int32_t>(std::min<int64_t>(ncols - 1, std::max<int64_t>(0, centre + off))));
      }
      if (centre < ncols) cols.push_back(static_cast<int32_t>(centre)); // the diagonal (square)
      if (far > 0) cols.push_back(static_cast<int32_t>((centre + far) % ncols));
      std::sort(cols.begin(), cols.end());
      cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
      for (int32_t c : cols)
      {
         a.col.push_back(c);
         a.val.push_back(c == centre ? 2.0 * static_cast<double>(cols.size()) : -1.0);
      }
      a.row_ptr.push_back(static_cast<int32_t>(a.col.size()));
   }
   return a;
}

// One step of the preload: run, and on an error count it and keep the first message (the
// step's kernels then load at first use, as without the preload); the next step goes on.
struct PreloadLog
{
   int         steps = 0, failed = 0, skipped = 0;
   bool        cut_short = false; // shapes not reached (neither built nor uploaded)
   std::string first_error;
   // set when the application's first setup begins (device_preload_yield): the steps not
   // begun yet are skipped, their kernels load at first use
   const std::atomic<bool>* stop = nullptr;
   template <class F>
   void step(const char* what, F&& f) noexcept
   {
      if (stop && stop->load(std::memory_order_relaxed))
      {
         ++skipped;
         return;
      }
      ++steps;
      try
      {
         f();
      }
      catch (const std::exception& e)
      {
         if (failed++ == 0) first_error = std::string(what) + ": " + e.what();
      }
      catch (...)
      {
         if (failed++ == 0) first_error = std::string(what) + ": unknown error";
      }
   }
};

template <class V>
void preload_precision(PreloadLog& log, const CsrView& v, const double* u, const double* x, const double* b,
                       double* y, device::Stream s, const device::Allocator& mem)
{
   const bool square = v.nrows == v.ncols;
   for (const bool entry_order : {false, true})
   {
      log.step(entry_order ? "mBSR in entry order" : "mBSR", [&] {
         // as the solve's copies (which take entry order in fp64 only; the step runs in every
         // precision all the same: it loads the entries kernel there too)
         const device::ConvertOptions o = device::spmv_copy_options(entry_order, std::is_same<V, double>::value);
         const device::DeviceMbsr<V> m    = device::csr_to_mbsr<V>(v, s, mem, o);
         const device::SpmvPlan<V>   plan = device::make_spmv_plan<V>(m, s, mem);
         device::spmv<V>(m, plan, 1.0, x, 0.0, y, s);
         device::spmv<V>(m, plan, -1.0, x, 1.0, y, s, square ? u : nullptr, b);
         device::synchronize(s);
      });
   }
   for (const bool narrow : {true, false})
   {
      log.step(narrow ? "row-wise, 16-bit offsets" : "row-wise", [&] {
         const device::DeviceRows<V> r = device::make_rows<V>(v, square ? u : nullptr, narrow, s, mem);
         (void)device::rows_narrow(r, s);
         device::rows_spmv<V>(r, 1.0, x, 0.0, y, s);
         device::rows_spmv<V>(r, -1.0, x, 1.0, y, s, square ? u : nullptr, b);
         device::synchronize(s);
      });
   }
}

void preload_shape(PreloadLog& log, const HostCsr& h, device::Stream s, Arena& arena)
{
   arena.used                  = 0;
   const device::Allocator mem = arena_allocator(arena);
   const int64_t           nnz  = static_cast<int64_t>(h.col.size());
   const size_t            nvec = static_cast<size_t>(std::max(h.nrows, h.ncols));
   device::Buffer<int32_t> rp(h.row_ptr.size(), mem), col(h.col.size(), mem);
   device::Buffer<double>  val(h.val.size(), mem), x(nvec, mem), y(nvec, mem), b(nvec, mem), u(nvec, mem),
      w(h.val.size(), mem);
   AMGT_DEVICE_CHECK(device::memcpy_async(rp.get(), h.row_ptr.data(), h.row_ptr.size() * sizeof(int32_t),
                                          device::Copy::to_device, s));
   AMGT_DEVICE_CHECK(device::memcpy_async(col.get(), h.col.data(), h.col.size() * sizeof(int32_t),
                                          device::Copy::to_device, s));
   AMGT_DEVICE_CHECK(device::memcpy_async(val.get(), h.val.data(), h.val.size() * sizeof(double),
                                          device::Copy::to_device, s));
   device::fill_bytes(x.get(), 0x3F, x.size() * sizeof(double), s);
   device::fill_bytes(b.get(), 0x3F, b.size() * sizeof(double), s);
   device::fill_bytes(u.get(), 0x3F, u.size() * sizeof(double), s);
   device::synchronize(s);
   const CsrView v{h.nrows, h.ncols, static_cast<int32_t>(nnz), rp.get(), col.get(), val.get()};
   const bool    square = h.nrows == h.ncols;
   log.step("fill sample and span", [&] {
      (void)device::estimate_fill(v, s, mem);
      (void)device::max_span(v, s, mem);
   });
   log.step("value statistics", [&] {
      (void)device::value_stats(v, s, mem, square);
      (void)device::value_stats(v, s, mem, false);
      (void)device::value_stats(v, s, mem, false, /*likely_tiny=*/true);
   });
   // the setup survey's batched forms (device_survey) are kernels of their own: without this
   // step they loaded inside auto's first setup (11-13 plugin kernels there against 2-3 under
   // fp64; bench/RESULTS.md, record 2026-11-26h)
   log.step("setup survey", [&] {
      (void)device::plain_value_stats({v, v}, {false, true}, s, mem);
      (void)device::estimate_fills({v, v}, s, mem);
   });
   if (square)
   {
      log.step("scaling", [&] {
         device::scaling_vector(v, u.get(), s);
         device::scaled_values(v, u.get(), w.get(), s);
         device::synchronize(s);
      });
      log.step("l1-Jacobi sweep", [&] {
         device::jacobi_from_zero(h.nrows, 0.5, b.get(), val.get(), y.get(), x.get(), s);
         device::synchronize(s);
      });
      // the product's bound on its output grows with the square of the row length: short rows
      // only (the long-row shapes would need hundreds of MB for the same kernels)
      if (nnz <= 8 * static_cast<int64_t>(h.nrows))
      {
         log.step("row-wise SpGEMM", [&] { (void)device::csr_spgemm(v, v, s, mem); device::synchronize(s); });
      }
   }
   preload_precision<double>(log, v, u.get(), x.get(), b.get(), y.get(), s, mem);
   preload_precision<float>(log, v, u.get(), x.get(), b.get(), y.get(), s, mem);
   preload_precision<half_t>(log, v, u.get(), x.get(), b.get(), y.get(), s, mem);
   device::synchronize(s);
}

struct Preload
{
   std::thread       thread;
   std::atomic<bool> stop{false};
   bool        images_wanted = false;
   bool        always        = false; // AMGT_PRELOAD=always: no stop at a small first matrix
   // the application's first assembled matrix (device_preload_matrix): its local entries
   // (-1: none yet), and whether the preload stopped there
   std::atomic<int64_t> matrix_entries{-1};
   std::atomic<bool>    stopped_at_matrix{false};
   KernelLoad  images; // the library's kernels (kernel_images.h), first
   double      seconds = 0.0;
   PreloadLog  log;
   std::string setup_error; // before any step (device, stream, memory)
};

Preload* g_preload = nullptr; // started once per process, joined at HYPRE_Finalize

} // namespace

void device_preload_start(const Context& ctx)
{
   if (!ctx.config || ctx.config->mode == Mode::off || !ctx.config->preload || g_preload) return;
   // HYPRE_Initialize creates no device context; the preload would, on the current device. With
   // one visible GPU that is the one the application uses. With several (a node's GPUs shared
   // by its ranks), the current device is the application's only once it has chosen one:
   // hypre's ij driver and amgt-solve bind each rank to its GPU (hypre_bind_device,
   // cudaSetDevice) before HYPRE_Initialize, which creates that device's primary context. An
   // application that selects its GPU after HYPRE_Initialize finds no context yet, and would
   // find the preload's on another GPU: no preload then, the kernels load at first use.
   int visible = 0;
   if (device::device_count(&visible) != device::kSuccess)
   {
      (void)device::last_error();
      return;
   }
   if (visible < 1) return;
   if (visible > 1)
   {
      int current = 0;
      if (device::current_device(&current) != device::kSuccess)
      {
         (void)device::last_error();
         return;
      }
      if (!device::device_context_active(current)) return;
   }
   const int dev = device::current_device_id();
   auto*     p   = new Preload(); // never freed: the thread may outlive a missing HYPRE_Finalize
   p->images_wanted = ctx.config->preload_images;
   p->always        = ctx.config->preload_always;
   p->thread     = std::thread([p, dev] {
      const auto t0 = std::chrono::steady_clock::now();
      Arena      arena;
      p->log.stop   = &p->stop;
      try
      {
         device::use_device(dev);
         // hypre's kernels (the setup's strength, coarsening, interpolation, products and CUB
         // passes) and the plugin's, loaded without running them: under lazy loading they
         // loaded inside the first setup (bench/RESULTS.md, "First setup of a process")
         if (p->images_wanted) p->images = load_image_kernels(&p->stop);
         // shapes of BoomerAMG hierarchies: 7-point fine levels and transfer operators (short
         // rows near the diagonal), 27-point and coarse levels (27 and 100 entries a row), long
         // coarse rows (600), columns more than 2^15 away (32-bit offsets), and P (rectangular);
         // each built and uploaded only while the application's first setup has not begun
         struct Shape
         {
            int32_t nrows, ncols, per_row, band, far;
         };
         constexpr Shape shapes[] = {{4096, 4096, 7, 64, 0},      {4096, 4096, 27, 300, 0},
                                     {1024, 1024, 100, 400, 0},   {256, 256, 600, 255, 0},
                                     {40000, 40000, 3, 1, 35000}, {4096, 1024, 2, 1, 0}};
         device::Stream s = nullptr;
         for (const Shape& sh : shapes)
         {
            if (p->stop.load(std::memory_order_relaxed))
            {
               p->log.cut_short = true;
               break;
            }
            if (!arena.base)
            {
               s          = device::side_stream();
               arena.size = size_t{48} << 20;
               AMGT_DEVICE_CHECK(device::device_malloc(&arena.base, arena.size));
            }
            preload_shape(p->log, synthetic(sh.nrows, sh.ncols, sh.per_row, sh.band, sh.far), s, arena);
         }
      }
      catch (const std::exception& e)
      {
         p->setup_error = e.what(); // the kernels load at first use instead, as without the preload
      }
      catch (...)
      {
         p->setup_error = "unknown error";
      }
      if (arena.base) (void)device::device_free(arena.base);
      p->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
   });
   g_preload = p;
}

// The application's first setup begins: the preload stops after the kernel or step it is in
// (no further shape is built or uploaded), so that it
// does not compete with hypre's setup for the host and the driver (a cold process's first
// setup of a small system was 11 ms slower beside it on the H100, bench/RESULTS.md record
// 2026-11-28c); what it did not load loads at first use.
void device_preload_yield()
{
   if (g_preload) g_preload->stop.store(true, std::memory_order_relaxed);
}

// The application's first assembled matrix: a small one's assembly ends before the loads can
// repay what they cost it (preload_rule.h), so the preload stops as at a setup; what it has
// loaded stays loaded.
void device_preload_matrix(int64_t local_entries) noexcept
{
   Preload* p = g_preload;
   if (!p) return;
   int64_t none = -1;
   if (!p->matrix_entries.compare_exchange_strong(none, std::max<int64_t>(0, local_entries))) return;
   if (preload_through_assembly(local_entries, p->always)) return;
   // stopped here unless a setup (or HYPRE_Finalize) stopped it before
   if (!p->stop.exchange(true)) p->stopped_at_matrix.store(true);
}

void device_preload_join(Stats* stats)
{
   if (!g_preload || !g_preload->thread.joinable()) return;
   // HYPRE_Finalize: what the preload has not reached yet would serve nothing (a process that
   // finalises without a setup waited for the whole preload, about 250 ms on an H200)
   g_preload->stop.store(true, std::memory_order_relaxed);
   g_preload->thread.join();
   if (!stats) return;
   const PreloadLog& log = g_preload->log;
   std::string       problem;
   if (!g_preload->setup_error.empty()) problem = "stopped: " + g_preload->setup_error;
   else if (log.failed > 0)
   {
      problem = std::to_string(log.failed) + " of " + std::to_string(log.steps) + " steps failed, first: " +
                log.first_error;
   }
   // why it stopped early: the application's first matrix, or its first setup (or the end);
   // explained on the first line AMGT_STATS prints of it (the library's kernels, if loaded)
   const bool    at_matrix = g_preload->stopped_at_matrix.load();
   const int64_t entries   = g_preload->matrix_entries.load();
   if (log.skipped > 0 || log.cut_short)
   {
      problem += std::string(problem.empty() ? "" : "; ") +
                 preload_stop_reason(at_matrix, entries, g_preload->images_wanted) + " of its steps (skipped)";
   }
   stats->preloaded(g_preload->seconds, log.steps, problem);
   if (!g_preload->images_wanted) return;
   const KernelLoad& k = g_preload->images;
   char              line[720];
   if (!k.problem.empty())
   {
      std::snprintf(line, sizeof(line),
                    "the library's kernels were not loaded ahead (AMGT_PRELOAD): %s; they load at first launch",
                    k.problem.c_str());
   }
   else
   {
      std::snprintf(line, sizeof(line),
                    "the library's kernels were loaded on a second thread from HYPRE_Initialize on (AMGT_PRELOAD): "
                    "%ld of %ld kernels of %ld device images (found by %ld of %ld functions), %.1f ms%s%s",
                    k.loaded, k.kernels, k.libraries, k.stubs, k.functions, k.seconds * 1e3,
                    k.stopped ? ("; " + preload_stop_reason(at_matrix, entries, false) + " (they load at first launch)").c_str()
                              : "",
                    k.failed > 0 ? "; some were refused by the driver (they load at first launch)" : "");
   }
   stats->preloaded_images(line);
}

} // namespace amgt::glue

#else // CPU-only build: no device kernels in this library

namespace amgt::glue {

void device_preload_start(const Context&) {} // no kernels to load
void device_preload_yield() {}
void device_preload_matrix(int64_t) noexcept {}
void device_preload_join(Stats*) {}

} // namespace amgt::glue

#endif
