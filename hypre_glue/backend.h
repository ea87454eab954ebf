// Dispatch from the C boundary to the kernels: host arrays go to the CPU reference
// kernels, device arrays to the CUDA kernels (backend_device.h).
#pragma once

#include "amgt_glue.h"
#include "matrix_state.h"
#include "stats.h"

#include "common/half.h"
#include "mbsr/mbsr.h"
#include "precision/policy.h"
#include "precision/schedule.h"

#include <atomic>
#include <map>
#include <mutex>
#include <string>

namespace amgt::glue {

inline CsrView view_of(const amgt_csr& a)
{
   return CsrView{a.nrows, a.ncols, a.nnz, a.row_ptr, a.col, a.val};
}

// Calls f with a value of the storage type of precision p (double, float or half_t).
template <class F>
auto with_precision(Precision p, F&& f)
{
   switch (p)
   {
   case Precision::fp32: return f(float{});
   case Precision::fp16: return f(half_t{});
   default: return f(double{});
   }
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
   // Inside a BoomerAMG V-cycle (amgt_glue_cycle_begin), and the first of its solve call.
   // Outside a cycle an SpMV whose matrix is stored below fp64 goes to hypre (fp64): Krylov
   // matvecs and residual checks keep fp64; so does the finest level's operator in later
   // cycles of a solve (see amgt_glue.h).
   bool                  in_cycle      = false;
   bool                  first_cycle   = false;
};

// The process's configuration, read from the environment at the first call (glue.cpp).
const Config& process_config();

// One line on stderr per distinct text (glue.cpp), for problems worth telling once.
void report_once(const std::string& what);

// AMGT=auto: a product computed in p on `level` held NaN/Inf. Says so once, counts the
// fallback "non-finite-product" and returns the precision to recompute it in (backend_host.cpp).
Precision after_nonfinite_product(const Context& ctx, int level, Precision p);

// The storage precision of a matrix for one use at `level`. Not auto: the schedule's entry,
// unscaled. AMGT=auto: the policy (precision/policy.h) applied to the statistics of the
// matrix's values, computed once per arrays and setup epoch (on the device for device
// arrays: setup only, it synchronises). for_product: an operand of a SpGEMM, whose floor is
// at least fp32 and which is never scaled (product_precision). SpMV choices are recorded
// in the statistics table, with a note under AMGT_STATS giving the facts behind them.
PrecisionChoice choose_for(const Context& ctx, MatrixState& state, const amgt_csr& a, int level,
                           bool for_product);

// The storage precision of a matrix's SpMV: choose_for(..., false), recorded in the
// statistics, made once per arrays, setup epoch and level-floor generation and then served
// from the state, so that a solve-loop call costs two key comparisons (no lock, no string).
PrecisionChoice spmv_choice(const Context& ctx, MatrixState& state, const amgt_csr& a, int level);

// value_stats of device arrays (backend_device.cpp; throws in CPU builds).
ValueStats device_value_stats(const Context& ctx, const amgt_csr& a);

// Both return 1 when the result was computed, 0 to run stock hypre; they may throw (the
// caller in glue.cpp catches).
int backend_spmv(const Context& ctx, MatrixState& state, const amgt_csr& A, double alpha,
                 const double* x, double beta, double* y);
int backend_spgemm(const Context& ctx, int level, MatrixState& state_a, const amgt_csr& A,
                   MatrixState& state_b, const amgt_csr& B, bool diag_first, amgt_csr_out& C);

// Device side, implemented in backend_device.cpp. CPU-only builds never see device arrays;
// should one arrive anyway, those functions report once and decline.
// HYPRE_Finalize: gives the plugin's cached device blocks back to hypre.
void device_finalize();
void device_prepare(const Context& ctx, MatrixState& state, const amgt_csr& A);
// choice: the matrix's SpMV precision, as backend_spmv found it (spmv_choice)
int device_spmv(const Context& ctx, MatrixState& state, const amgt_csr& A,
                const PrecisionChoice& choice, double alpha, const double* x, double beta, double* y);
int device_spgemm(const Context& ctx, int level, MatrixState& state_a, const amgt_csr& A,
                  MatrixState& state_b, const amgt_csr& B, amgt_csr_out& C);

} // namespace amgt::glue
