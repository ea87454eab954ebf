// Per-matrix plugin state, hung off hypre's hypre_CSRMatrix (amgt_data) and freed with it.
#pragma once

#include "amgt_glue.h"
#include "cost_model.h"

#include "common/half.h"
#include "common/precision.h"
#include "mbsr/mbsr.h"
#include "precision/policy.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <variant>
#include <vector>

namespace amgt::glue {

// What identifies the CSR arrays a cached conversion was made from. hypre has no version
// counter on values, so the epoch (bumped at every BoomerAMG setup) stands in for one: a
// setup on new values of the same matrix object never reuses an older conversion.
struct CsrKey
{
   const void* row_ptr = nullptr;
   const void* col     = nullptr;
   const void* val     = nullptr;
   int         nrows   = -1;
   int         ncols   = -1;
   int         nnz     = -1;
   long        epoch   = 0;

   bool operator==(const CsrKey& o) const
   {
      return row_ptr == o.row_ptr && col == o.col && val == o.val && nrows == o.nrows &&
             ncols == o.ncols && nnz == o.nnz && epoch == o.epoch;
   }
};

inline CsrKey key_of(const amgt_csr& a, long epoch)
{
   return CsrKey{a.row_ptr, a.col, a.val, a.nrows, a.ncols, a.nnz, epoch};
}

// The same arrays and shape, made at some setup (any epoch but the empty key's).
inline bool same_arrays(const CsrKey& k, const CsrKey& now)
{
   return k.epoch != 0 && k.row_ptr == now.row_ptr && k.col == now.col && k.val == now.val &&
          k.nrows == now.nrows && k.ncols == now.ncols && k.nnz == now.nnz;
}

struct LevelShape
{
   bool    known = false;
   int64_t rows  = 0;
   int64_t nnz   = 0;
   int64_t tiles = 0;
   double  fill  = 0.0;
};

// What a sample of a device matrix's 4x4 block rows showed (backend.h device_fill_sample):
// stored entries per tile, the largest |col - row|, the variation of the rows' lengths.
struct FillSample
{
   double  fill     = 0.0;
   int64_t max_span = 0;
   double  row_cv   = 0.0;
};

using HostMbsr = std::variant<std::monostate, Mbsr<double>, Mbsr<float>, Mbsr<half_t>>;

// The device copy (mBSR in device memory and its SpMV plan), defined in backend_device.cpp
// so that this header needs no CUDA. Freed with the state (hypre_CSRMatrixDestroy).
struct DeviceCache;
struct DeviceCacheDeleter
{
   void operator()(DeviceCache* c) const noexcept;
};
// AMGT_RESETUP: the copy's values are out of date, its structure is kept (invalidate with
// keep_structure); and the copy made from the arrays of `now` (any epoch) carried into the
// current setup: as it is (values unchanged) or marked for a refresh of its values in place
// (backend_device.cpp). Returns whether the copy was made from those arrays.
void device_cache_stale(DeviceCache& c) noexcept;
bool device_cache_carry(DeviceCache& c, const CsrKey& now, bool values_changed) noexcept;

// AMGT_RESETUP (resetup.h): a hierarchy's record and a coarse operator's Galerkin plan,
// defined in resetup.cpp; freed with the state, never by invalidate (values change, the
// structure they describe does not).
struct ResetupRecord;
struct GalerkinPlans;
struct ResetupRecordDeleter
{
   void operator()(ResetupRecord* r) const noexcept;
};
struct GalerkinPlansDeleter
{
   void operator()(GalerkinPlans* p) const noexcept;
};

struct MatrixState
{
   int       level = -1;
   int       role  = AMGT_ROLE_NONE;
   bool      offd  = false; // an off-diagonal block (columns of other ranks): AMGT_STATS counts it apart
   CsrKey    key;
   HostMbsr  host; // valid when key matches the current arrays and epoch
   Precision precision = Precision::fp64;
   // AMGT=auto. host_scaled: `host` holds D^-1/2 A D^-1/2 and host_unscale = sqrt|a_ii| (the
   // SpMV's unscale argument); the statistics of the values are computed once per key
   // (stats_key) and serve every later choice for these arrays (SpMV and products).
   bool                host_scaled = false;
   std::vector<double> host_unscale;
   CsrKey              stats_key;
   ValueStats          value_stats;
   CsrKey              choice_key; // the SpMV choice for these arrays is in the statistics
   // The fill sample of these arrays (fill_key), taken by the setup survey for plan_layout
   CsrKey              fill_key;
   FillSample          fill_sample;
   // The SpMV's precision choice (spmv_choice in planner.h) for spmv_choice_key, made at
   // level-floor generation spmv_choice_generation.
   PrecisionChoice     spmv_choice{};
   CsrKey              spmv_choice_key;
   long                spmv_choice_generation = -1;
   // AMGT_SPMV=race on the device (the planner's remembered_for_stock): race_checked, the
   // arrays for which the race memory (race_memory.h) was consulted; remembered_stock, arrays
   // it sent to stock hypre without a conversion
   CsrKey              race_checked;
   CsrKey              remembered_stock;
   CsrKey              remembered_plugin; // arrays an earlier race's outcome gives to the plugin
   // The cost model's decision for these arrays (planner.cpp model_declines): declined, the
   // numbers behind it, and the matvecs hypre has served since (the re-check).
   CsrKey              model_key;
   bool                model_declined = false;
   cost::Decision      model_decision{};
   long                model_served   = 0;

   std::unique_ptr<DeviceCache, DeviceCacheDeleter> device;
   std::unique_ptr<ResetupRecord, ResetupRecordDeleter> resetup_record;
   std::unique_ptr<GalerkinPlans, GalerkinPlansDeleter> galerkin;
   LevelShape                                       device_shape; // of the device copy

   // The end-of-setup preparation (amgt_glue_matrix_prepare*) was made or queued for these
   // arrays: the end of the setup does not prepare them again.
   CsrKey prepared_key;
   // Set while the queue's thread prepares this state (device_prepare_beside): the glue's
   // entry points on hypre's thread wait for the queue before touching it (glue.cpp, settle).
   struct PendingFlag
   {
      std::atomic<bool> on{false};
      PendingFlag() = default;
      // a state is moved only before it is shared (tests build states by value)
      PendingFlag(PendingFlag&& o) noexcept : on(o.on.load()) {}
      PendingFlag& operator=(PendingFlag&& o) noexcept
      {
         on.store(o.on.load());
         return *this;
      }
   } pending;

   // Drops every cached conversion (host and device) and the kernel choices made for them.
   // keep_structure (AMGT_RESETUP on): the device copy stays, its values marked out of date:
   // a re-setup that proves the structure unchanged (carry, below) refreshes its values in
   // place; any other use converts the matrix again (the copy's key is of an older setup).
   void invalidate(bool keep_structure = false) noexcept
   {
      key  = CsrKey{};
      host = std::monostate{};
      host_scaled = false;
      host_unscale.clear();
      host_unscale.shrink_to_fit();
      stats_key = CsrKey{};
      choice_key = CsrKey{};
      fill_key   = CsrKey{};
      spmv_choice_key  = CsrKey{};
      race_checked     = CsrKey{};
      remembered_stock = CsrKey{};
      remembered_plugin = CsrKey{};
      model_key         = CsrKey{};
      if (keep_structure && device) { device_cache_stale(*device); }
      else
      {
         device.reset();
         device_shape = LevelShape{};
      }
      prepared_key = CsrKey{};
   }

   // AMGT_RESETUP: a re-setup kept these arrays' structure (the fingerprint proved it for the
   // fine matrix; a coarse operator's pattern, P and R are the hierarchy's own). What was
   // cached for them at an earlier setup moves to the current one (epoch): everything when
   // the values did not change either (P, R), else only what depends on the structure alone
   // (the fill sample; the device copy, marked for a refresh of its values in place). The
   // end-of-setup preparation runs as always (prepared_key stays): it makes the precision
   // choice for the new values and finds the copy. Returns whether a device copy was carried.
   bool carry(const CsrKey& now, bool values_changed) noexcept
   {
      auto move = [&](CsrKey& k) {
         if (same_arrays(k, now)) k.epoch = now.epoch;
      };
      move(fill_key);
      if (!values_changed)
      {
         for (CsrKey* k : {&key, &stats_key, &choice_key, &spmv_choice_key, &race_checked, &remembered_stock,
                           &remembered_plugin})
         {
            move(*k);
         }
      }
      return device && device_cache_carry(*device, now, values_changed);
   }

   LevelShape shape() const
   {
      if (device && device_shape.known) { return device_shape; }
      LevelShape s;
      std::visit(
         [&](const auto& m) {
            using M = std::decay_t<decltype(m)>;
            if constexpr (!std::is_same_v<M, std::monostate>)
            {
               MbsrStats st = mbsr_stats(m);
               s.known      = true;
               s.rows       = m.nrows;
               s.nnz        = st.nnz;
               s.tiles      = st.tiles;
               s.fill       = st.fill;
            }
         },
         host);
      return s;
   }
};

} // namespace amgt::glue
