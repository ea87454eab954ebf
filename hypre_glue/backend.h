// What the planner (planner.h), the dispatcher (dispatch.cpp) and the two executors
// (backend_host.cpp: CPU reference kernels on host arrays; backend_device.cpp: CUDA kernels on
// device arrays) share: the call's context and the executors' interfaces.
#pragma once

#include "amgt_glue.h"
#include "matrix_state.h"
#include "prepare_queue.h"
#include "preload_rule.h"
#include "stats.h"

#include "common/half.h"
#include "coarsen/pmis.h"
#include "coarsen/strength.h"
#include "csr/diag.h"
#include "csr/row_sums.h"
#include "interp/truncation.h"
#include "interp/twiaff.h"
#include "mbsr/mbsr.h"
#include "precision/policy.h"
#include "precision/schedule.h"

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace amgt::glue {

inline CsrView view_of(const amgt_csr& a)
{
   return CsrView{a.nrows, a.ncols, a.nnz, a.row_ptr, a.col, a.val};
}

// AMGT=auto: floors raised for a whole level by its operator (precision/policy.h
// level_floor), for the current setup; reset by a new setup (amgt_glue_setup_begin). The
// level's square operand is seen first (A*P precedes R*(AP) in every RAP hypre runs; on the
// GPU A is prepared before P and R), so P, R and the second product inherit the raise.
class LevelFloors
{
public:
   // Bumped by every raise that changes a floor: a choice made at an older generation may
   // be out of date (one atomic load per check, no lock).
   long generation() const { return generation_.load(std::memory_order_acquire); }

   Precision floor(int level, Precision schedule) const
   {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = raised_.find(level);
      return it == raised_.end() ? schedule : std::min(schedule, it->second);
   }
   void raise(int level, Precision p)
   {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = raised_.find(level);
      if (it == raised_.end() || p < it->second)
      {
         raised_[level] = p;
         generation_.fetch_add(1, std::memory_order_release);
      }
   }
   void reset()
   {
      std::lock_guard<std::mutex> lock(mutex_);
      raised_.clear();
      generation_.fetch_add(1, std::memory_order_release);
   }

private:
   mutable std::mutex         mutex_;
   std::map<int, Precision>   raised_; // Precision: smaller = higher
   std::atomic<long>          generation_{0};
};

struct Context
{
   const Config*  config = nullptr;
   amgt_allocator allocator{};
   // The process-wide copy of `allocator`: its address is stable, so device buffers that
   // outlive this call (cached conversions) can keep pointing at it.
   const amgt_allocator* allocator_ref = nullptr;
   long                  epoch         = 0;
   Stats*                stats         = nullptr;
   LevelFloors*          floors        = nullptr; // AMGT=auto only
   cost::SpmvModel*      model         = nullptr; // the cost model's process state (planner.h model_declines)
   // Inside a BoomerAMG V-cycle (amgt_glue_cycle_begin), and the first of its solve call.
   // Outside a cycle an SpMV whose matrix is stored below fp64 goes to hypre (fp64): Krylov
   // matvecs and residual checks keep fp64; so does the finest level's operator in later
   // cycles of a solve (see amgt_glue.h).
   bool                  in_cycle      = false;
   bool                  first_cycle   = false;
   // The setup work of a matrix prepared beside hypre's setup (device_prepare_beside): on
   // the queue's thread, on the plugin's second stream, with device memory whose releases
   // wait for that stream.
   bool                  side          = false;
};

// The process's configuration, read from the environment at the first call (glue.cpp).
const Config& process_config();

// One line on stderr per distinct text (glue.cpp), for problems worth telling once.
void report_once(const std::string& what);

// The executors of the planner's plans (planner.h) and the device measurements the planner
// reads. The two executors do not call each other; dispatch.cpp calls the one a plan names.

// A product's run: computed and handed to hypre, declined (stock hypre runs it; the executor
// counted why), or computed with NaN/Inf in an output the plan asked to check (nothing handed
// over: the dispatcher recomputes it in the precision after_nonfinite_product gives).
enum class ProductRun
{
   declined,
   done,
   nonfinite
};

// Host executor (backend_host.cpp): the CPU reference kernels on host arrays, in the plan's
// precision (choice.scaled: of D^-1/2 A D^-1/2). host_spmv always computes (returns 1).
// Every SpMV here computes y = alpha*A*x + beta*b (b may be y).
int        host_spmv(const Context& ctx, MatrixState& state, const amgt_csr& A,
                     const PrecisionChoice& choice, double alpha, const double* x, double beta,
                     const double* b, double* y);
ProductRun host_spgemm(const Context& ctx, int level, MatrixState& state_a, const amgt_csr& A,
                       MatrixState& state_b, const amgt_csr& B, Precision p, bool check_finite,
                       bool diag_first, amgt_csr_out& C);

// Device executor, implemented in backend_device.cpp (the preload in backend_device_preload.cpp).
// CPU-only builds never see device arrays; should one arrive anyway, those functions report
// once and decline.
// HYPRE_Finalize: gives the plugin's cached device blocks back to hypre.
void device_finalize();
// The end of a setup: the device copy and its SpMV owner, as plan_device_copy plans them
// (asked inside, so that AMGT_STATS times the plan with the conversion and the race).
void device_prepare(const Context& ctx, MatrixState& state, const amgt_csr& A);
// The same, queued on `queue` (prepare_queue.h) to run beside hypre's setup: on the plugin's
// second stream, after the work hypre has enqueued so far on its own. Marks the state
// pending until the job has run. Returns false where it does not apply (AMGT_SPMV=race: the
// race times kernels, which a busy GPU would distort; no conversion wanted; no queue thread):
// the caller prepares in place then.
bool device_prepare_beside(const Context& ctx, MatrixState& state, const amgt_csr& A,
                           PrepareQueue& queue);
// AMGT_PRELOAD (HYPRE_Initialize): loads the plugin's kernels on a second thread and stream
// while the application assembles its matrix, so that CUDA's lazy loading does not fall
// into the first setup and solve. Once per process; nothing without device kernels or with
// AMGT off. join waits for it (HYPRE_Finalize) and reports its time to stats.
void device_preload_start(const Context& ctx);
void device_preload_yield(); // a setup begins: the preload stops after its current step
// The application's first assembled matrix has local_entries entries on this process: below
// kPreloadAssemblyEntries (preload_rule.h) the preload stops as at a setup, unless
// AMGT_PRELOAD=always. Later matrices change nothing.
void device_preload_matrix(int64_t local_entries) noexcept;
void device_preload_join(Stats* stats); // HYPRE_Finalize: stops the preload after its current step, waits for it
// choice: the matrix's SpMV precision; race: time both kernels once per device copy to
// decide its owner (else the plugin). Returns 1 when computed, 0 when a race gave the matrix
// to hypre (counted "spmv-stock-faster").
int        device_spmv(const Context& ctx, MatrixState& state, const amgt_csr& A,
                       const PrecisionChoice& choice, bool race, double alpha, const double* x,
                       double beta, const double* b, double* y);
// An fp64 matvec on hypre's own arrays, read in place by the row-wise kernel: nothing
// converted, allocated or cached (the matrix's cached copy, in its V-cycle precision, stays).
// Returns 1 (computed).
int        device_spmv_lent(const Context& ctx, MatrixState& state, const amgt_csr& A, double alpha,
                            const double* x, double beta, const double* b, double* y);
// interp/twiaff_device.h on the glue's stream; 1 when enqueued (0: no GPU kernels in the build).
int        device_interp_twiaff(const Context& ctx, const TwiaffRows& m);
// coarsen/pmis_device.h on the glue's stream (which as backend_pmis); 1 when enqueued.
int        device_pmis(const Context& ctx, int which, const PmisGraph& g, double* measure_diag,
                       const double* measure_offd, int32_t* is_diag, int32_t* is_offd, int32_t temp_mark);
// coarsen/strength_device.h on the glue's stream; 1 when enqueued (0: no GPU kernels in the build).
int        device_strength_rowcount(const Context& ctx, const StrengthRows& m);
// csr/row_sums_device.h on the glue's stream; 1 when enqueued (0: no GPU kernels in the build).
int        device_row_sums(const Context& ctx, const RowSums& m);
// the weak row sums (csr/row_sums_device.h) on the glue's stream; 1 when enqueued.
int        device_weak_row_sums(const Context& ctx, const WeakRowSums& m);
// csr/diag_device.h on the glue's stream; 1 when enqueued.
int        device_csr_diag(const Context& ctx, const CsrDiag& m);
// interp/truncation_device.h on the glue's stream; 1 when enqueued.
int        device_trunc_copy(const Context& ctx, const TruncCopy& m);
// smooth/jacobi_device.h on the glue's stream; 1 when enqueued (0: no GPU kernels in the build).
int        device_jacobi_from_zero(const Context& ctx, int64_t n, double w, const double* f,
                                   const double* l1, double* u, double* vtemp);
ProductRun device_spgemm(const Context& ctx, int level, MatrixState& state_a, const amgt_csr& A,
                         MatrixState& state_b, const amgt_csr& B, Precision p, bool check_finite,
                         amgt_csr_out& C);
// The row-wise CSR SpGEMM (spgemm/csr_spgemm_device.h; AMGT_SPGEMM=rows, or auto's rule) on
// hypre's device arrays, fp64, output handed to hypre; nothing converted or cached. Counted
// "gpu-rows".
// lean: csr_spgemm's lean design (AMGT_SPGEMM=lean), counted "gpu-lean".
ProductRun device_spgemm_rows(const Context& ctx, int level, const amgt_csr& A, const amgt_csr& B,
                              amgt_csr_out& C, bool lean = false);

// Device measurements for the planner (backend_device_measure.cpp; they throw in CPU builds).
// The setup survey (amgt_glue_matrices_survey): the plain value statistics and the fill samples
// that each item's state lacks (planner.h survey_wants), all enqueued and read back once;
// stored in the states (stats_key, fill_key) where the planner's choose_for and plan_layout
// find them instead of measuring matrix by matrix. Returns the number of read-backs (0-2).
struct SurveyItem
{
   MatrixState* state = nullptr;
   amgt_csr     a{};
   bool         stats   = false; // plain statistics wanted (coarse: the row-wise pass)
   bool         coarse  = false;
   bool         fill    = false; // a fill sample wanted
};
int device_survey(const Context& ctx, const std::vector<SurveyItem>& items);
// value_stats of device arrays (synchronises: setup only).
// likely_tiny: a Galerkin coarse operator (range_device.h: the order of the passes only).
ValueStats device_value_stats(const Context& ctx, const amgt_csr& a, bool with_scaled = true,
                              bool likely_tiny = false);
// The exact largest |col - row| of a (rows_device.h max_span): one pass, a read-back.
int64_t    device_max_span(const Context& ctx, const amgt_csr& a);
// What a sample of a's 4x4 block rows shows (rows_device.h estimate_fill): stored entries per
// tile, the largest |col - row|, the variation of the rows' lengths. One kernel and a
// read-back (setup only).
// (FillSample: matrix_state.h)
FillSample device_fill_sample(const Context& ctx, const amgt_csr& a);

// The hooks (dispatch.cpp): ask the planner, run the plan. Both return 1 when the result was
// computed, 0 to run stock hypre; they may throw (the caller in glue.cpp catches).
// backend_spmv: y = alpha*A*x + beta*b (b == y: in place; nullptr means y). y is untouched
// when it returns 0.
int backend_spmv(const Context& ctx, MatrixState& state, const amgt_csr& A, double alpha,
                 const double* x, double beta, const double* b, double* y);
inline int backend_spmv(const Context& ctx, MatrixState& state, const amgt_csr& A, double alpha,
                        const double* x, double beta, double* y)
{
   return backend_spmv(ctx, state, A, alpha, x, beta, y, y);
}
int backend_spgemm(const Context& ctx, int level, MatrixState& state_a, const amgt_csr& A,
                   MatrixState& state_b, const amgt_csr& B, bool diag_first, amgt_csr_out& C);
// The smoother's l1-Jacobi sweep from u = 0 (smooth/jacobi.h) on host or device arrays of n
// entries; 1 when computed (counted in AMGT_STATS), 0 where the build has no GPU kernels for
// device arrays.
int backend_jacobi_from_zero(const Context& ctx, int64_t n, double w, const double* f, const double* l1,
                             double* u, double* vtemp, bool on_device);
// Extended+i's F-F weights (interp/twiaff.h) on device arrays, on the glue's stream: 1 when
// enqueued (counted in AMGT_STATS), 0 where the build has no GPU kernels.
int backend_interp_twiaff(const Context& ctx, const TwiaffRows& m);
// PMIS's sweep kernels (coarsen/pmis.h), likewise: which 0 the independent set (is_* the set
// markers), 1 the update (is_diag / is_offd the C/F markers, measure_diag rewritten).
int backend_pmis(const Context& ctx, int which, const PmisGraph& g, double* measure_diag,
                 const double* measure_offd, int32_t* is_diag, int32_t* is_offd, int32_t temp_mark);
// The strength counting pass (coarsen/strength.h), likewise.
int backend_strength_rowcount(const Context& ctx, const StrengthRows& m);
// A row sum of a CSR block (csr/row_sums.h), likewise; 0 for hypre's other types (squares).
int backend_row_sums(const Context& ctx, const RowSums& m);
// Extended+i's weak row sums (csr/row_sums.h), likewise.
int backend_weak_row_sums(const Context& ctx, const WeakRowSums& m);
// The diagonal of a CSR block, extracted or moved first (csr/diag.h), likewise.
int backend_csr_diag(const Context& ctx, const CsrDiag& m);
// The copy of a truncated interpolation matrix (interp/truncation.h), likewise.
int backend_trunc_copy(const Context& ctx, const TruncCopy& m);
// The entries of the block(s) a setup kernel reads, and whether the plugin's kernel takes a
// block of that many under `config` (setup_kernel_decision: AMGT_SETUP_KERNELS=large, the
// default, leaves blocks below the latency floor, AMGT_SMALL_MATRIX_ENTRIES, and every block of
// a small application's hierarchy to hypre's kernel). Host code, every build.
int64_t setup_kernel_entries(const TwiaffRows& m);
int64_t setup_kernel_entries(const PmisGraph& g);
int64_t setup_kernel_entries(const StrengthRows& m);
int64_t setup_kernel_entries(const RowSums& m);
int64_t setup_kernel_entries(const WeakRowSums& m);
int64_t setup_kernel_entries(const CsrDiag& m);
int64_t setup_kernel_entries(const TruncCopy& m);
enum class SetupKernelTake
{
   plugin,            // the plugin's kernel runs
   off,               // AMGT_SETUP_KERNELS=0
   below_floor,       // large: a block below AMGT_SMALL_MATRIX_ENTRIES
   small_application, // large: the application's matrix below kSetupKernelsApplicationEntries
};
// application_entries < 0: no matrix assembled through IJ seen (the block's size decides alone)
SetupKernelTake setup_kernel_decision(const Config& config, int64_t entries, int64_t application_entries);
// A device product left to hypre: whether hypre runs it in its binned mode (the planner's
// stock_spgemm_binned).
bool backend_stock_spgemm_binned(const Context& ctx, int64_t m, int64_t nnz_a, int64_t k, int64_t nnz_b);

} // namespace amgt::glue
