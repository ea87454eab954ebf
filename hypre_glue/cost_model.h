// The planner's cost model: whether the plugin's work on a device matrix pays within the
// solves it serves. The plugin's SpMV saves gain = t_hypre - t_plugin a matvec and costs its
// one-time work (the value survey, the conversion or row-wise build, the SpMV plan) once per
// matrix and setup; it takes a matrix when gain x matvecs > one-time. Both come from a table
// measured on the H100 (spmv_cost_table.inc: 2^14-2^26 entries, 4-100 entries a row, fp64,
// fp32, fp16), interpolated in log2(entries) and row length.
//
// The matvecs a setup's matrix will serve are not known when it is prepared: the model takes
// those that the same level's operator served after the previous setup of the process
// (SpmvModel), kDefaultMatvecs before any. A matrix it declined is looked at again as its
// matvecs go to hypre: once those served would have repaid the one-time work, it is taken
// (so a solve that runs far longer than expected loses at most the one-time work again).
//
// Pure host code, no device: the planner (planner.cpp) applies it, tests/glue check it.
#pragma once

#include "amgt_glue.h" // AMGT_SMALL_MATRIX_ENTRIES
#include "common/precision.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>

namespace amgt::glue::cost {

// The matvecs a level's operator is expected to serve after a setup, before this process has
// seen a solve: ~10 PCG iterations of a V(1,1)-cycle, 3 matvecs a level each (the pre-smoother
// from zero takes none: amgt_glue_jacobi_from_zero). A short guess declines more: under it the
// plugin loses at most gain x (actual - guess) until the re-check takes the matrix.
constexpr double kDefaultMatvecs = 30.0;

// The survey's share of a matrix's one-time work (its value statistics and fill sample, in
// the setup's batched pass), beside the table's conversion and plan.
constexpr double kSurveyUs = 15.0;

struct Prediction
{
   double hypre_us  = 0.0; // hypre's own kernel, one matvec
   double plugin_us = 0.0; // the plugin's SpMV in its chosen layout, one matvec
   double once_us   = 0.0; // the plugin's one-time work: survey, conversion or build, plan
   double gain_us() const { return hypre_us - plugin_us; }
};

// The table interpolated at a matrix of nnz entries in nrows rows stored in p. Below the
// smallest size measured the smallest's times (the launch-latency floor), above the largest
// they grow with the entries.
Prediction predict(Precision p, int64_t nnz, int64_t nrows);

// Below this many entries both kernels sit at the launch-latency floor (4-7 us a call on the
// H100, each faster about as often: the table's gains there are its noise), so the model
// declines without weighing them: the size floor of the rule without the model (amgt_glue.h).
constexpr int64_t kLatencyFloorEntries = AMGT_SMALL_MATRIX_ENTRIES;

struct Decision
{
   bool   take       = false;
   bool   floor      = false; // below kLatencyFloorEntries: declined whatever the matvecs
   double gain_us    = 0.0; // a matvec
   double once_us    = 0.0;
   double matvecs    = 0.0; // expected
   double break_even = 0.0; // matvecs that repay the one-time work (infinite when gain <= 0)
   bool   lent       = false; // lent_pays for the same matrix, decided once with the rest
};

Decision decide(Precision p, int64_t nnz, int64_t nrows, double expected_matvecs);

// After `served` matvecs went to hypre: whether they would have repaid the one-time work.
bool repaid(const Decision& d, long served);

// An fp64 matvec lent to the plugin's row-wise kernel on hypre's own arrays (planner.h
// SpmvPlan::lent): nothing converted, so it pays where the fp64 kernel is faster, with a
// margin for reading 32-bit columns (the table's fp64 copies mostly hold 16-bit offsets).
bool lent_pays(int64_t nnz, int64_t nrows);

// Per process: the matvecs each level's operator served since the last setup began (counted
// by the SpMV hook), and, from the setup before, the expectation decide() is given.
class SpmvModel
{
public:
   static constexpr int kLevels = 64;

   void count(int level)
   {
      if (level >= 0 && level < kLevels) calls_[level].fetch_add(1, std::memory_order_relaxed);
   }
   // a setup begins: what each level served since the previous one becomes its expectation
   // (levels that served nothing keep theirs: a setup without a solve in between)
   void setup_begins()
   {
      std::lock_guard<std::mutex> lock(mutex_);
      for (int l = 0; l < kLevels; ++l)
      {
         const long n = calls_[l].exchange(0, std::memory_order_relaxed);
         if (n > 0) expected_[l] = static_cast<double>(n);
      }
   }
   // the expectation for a level, and whether it was learned (false: kDefaultMatvecs)
   double expected(int level, bool* learned = nullptr) const
   {
      std::lock_guard<std::mutex> lock(mutex_);
      const double e = level >= 0 && level < kLevels ? expected_[level] : 0.0;
      if (learned) *learned = e > 0.0;
      return e > 0.0 ? e : kDefaultMatvecs;
   }
   // What the model decided for a level's operator in a setup (epoch): its transfer operators
   // follow it (planner.cpp). -1: not decided in that setup, 0: taken, 1: declined.
   void set_level(int level, long epoch, bool declined)
   {
      if (level < 0 || level >= kLevels) return;
      std::lock_guard<std::mutex> lock(mutex_);
      level_epoch_[level]    = epoch;
      level_declined_[level] = declined;
   }
   int level_decision(int level, long epoch) const
   {
      if (level < 0 || level >= kLevels) return -1;
      std::lock_guard<std::mutex> lock(mutex_);
      return level_epoch_[level] != epoch ? -1 : level_declined_[level] ? 1 : 0;
   }
private:
   mutable std::mutex                    mutex_;
   std::array<std::atomic<long>, kLevels> calls_{};
   std::array<double, kLevels>            expected_{};
   std::array<long, kLevels>              level_epoch_{};
   std::array<bool, kLevels>              level_declined_{};
};

} // namespace amgt::glue::cost
