#include "resetup.h"

#include "common/error.h"
#include "resetup/galerkin.h"

#if defined(AMGT_WITH_DEVICE_KERNELS)
#include "backend_device_internal.h" // device_allocator, stream_of: the plugin's memory and stream
#include "resetup/galerkin_device.h"
#endif

#include <utility>

namespace amgt::glue {

struct GalerkinPlans
{
   std::unique_ptr<resetup::GalerkinPlan> host;
#if defined(AMGT_WITH_DEVICE_KERNELS)
   std::unique_ptr<device::DeviceGalerkinPlan> device;
#endif
};

void ResetupRecordDeleter::operator()(ResetupRecord* r) const noexcept { delete r; }
void GalerkinPlansDeleter::operator()(GalerkinPlans* p) const noexcept
{
   delete p; // device buffers release through hypre's allocator and do not throw
}

int resetup_propose(ResetupMode mode, const ResetupRecord* record, bool fingerprint_ok, uint64_t fingerprint,
                    bool supported, double diagonal_drift)
{
   if (!supported) { return AMGT_SETUP_UNSUPPORTED; }
   if (!record || !record->have_fingerprint) { return AMGT_SETUP_FIRST; }
   if (!fingerprint_ok) { return AMGT_SETUP_FAILED; }
   if (fingerprint != record->fingerprint) { return AMGT_SETUP_STRUCTURE; }
   if (mode == ResetupMode::automatic && !(diagonal_drift <= kResetupDiagonalFactor)) { return AMGT_SETUP_DRIFT; }
   // The interval that just ended followed a re-setup: compare its cycles with those that
   // followed the last full setup (known once a re-setup closed that interval).
   if (mode == ResetupMode::automatic && !record->last_full && record->full_cycles > 0 &&
       static_cast<double>(record->cycles) > kResetupCycleFactor * static_cast<double>(record->full_cycles))
   {
      return AMGT_SETUP_CYCLES;
   }
   return AMGT_SETUP_RESETUP;
}

void resetup_begin(ResetupRecord* record, int reason)
{
   if (!record || reason != AMGT_SETUP_RESETUP) { return; }
   if (record->last_full && record->cycles > 0) { record->full_cycles = record->cycles; }
   record->last_full = false;
   record->cycles    = 0;
}

ResetupRecord resetup_record_after_full(uint64_t fingerprint)
{
   ResetupRecord r;
   r.have_fingerprint = true;
   r.fingerprint      = fingerprint;
   return r;
}

const char* setup_reason_name(int reason)
{
   switch (reason)
   {
   case AMGT_SETUP_RESETUP: return "re-setup";
   case AMGT_SETUP_FIRST: return "no hierarchy to keep";
   case AMGT_SETUP_STRUCTURE: return "structure changed";
   case AMGT_SETUP_CYCLES: return "cycles grew";
   case AMGT_SETUP_UNSUPPORTED: return "settings not covered";
   case AMGT_SETUP_FAILED: return "no fingerprint or plan";
   case AMGT_SETUP_DRIFT: return "diagonal moved";
   }
   return "?";
}


double diagonal_drift(const Context& ctx, const ResetupRecord& record, const amgt_csr& a)
{
   if (record.diag_n != a.nrows || a.nrows <= 0 || !a.row_ptr) { return 1.0; }
   if (a.on_device)
   {
#if defined(AMGT_WITH_DEVICE_KERNELS)
      if (!record.device_diag_ptr) { return 1.0; }
      return device::max_diagonal_ratio(view_of(a), record.device_diag_ptr, stream_of(ctx), device_allocator(ctx));
#else
      (void) ctx;
      return 1.0;
#endif
   }
   if (record.host_diag.size() != static_cast<size_t>(a.nrows)) { return 1.0; }
   return resetup::max_diagonal_ratio(view_of(a), record.host_diag.data());
}

void remember_diagonal(const Context& ctx, ResetupRecord& record, const amgt_csr& a)
{
   record.diag_n = -1;
   record.host_diag.clear();
   record.device_diag.reset();
   record.device_diag_ptr = nullptr;
   if (a.nrows <= 0 || !a.row_ptr) { return; }
   if (a.on_device)
   {
#if defined(AMGT_WITH_DEVICE_KERNELS)
      auto buf = std::make_shared<device::Buffer<double>>(static_cast<size_t>(a.nrows), device_allocator(ctx));
      device::abs_diagonal(view_of(a), buf->get(), stream_of(ctx));
      record.device_diag_ptr = buf->get();
      record.device_diag     = buf;
#else
      (void) ctx;
      return;
#endif
   }
   else { record.host_diag = resetup::abs_diagonal(view_of(a)); }
   record.diag_n = a.nrows;
}

uint64_t structure_fingerprint(const Context& ctx, const amgt_csr& a)
{
   const CsrView v = view_of(a);
   if (!a.row_ptr) { return resetup::fingerprint_shape(a.nrows, a.ncols, a.nnz); }
   if (a.on_device)
   {
#if defined(AMGT_WITH_DEVICE_KERNELS)
      return device::structure_fingerprint(v, stream_of(ctx), device_allocator(ctx));
#else
      (void) ctx;
      AMGT_THROW("structure fingerprint of device arrays in a build without device kernels");
#endif
   }
   return resetup::structure_fingerprint(v);
}

bool galerkin_numeric(const Context& ctx, MatrixState& c_state, const amgt_csr& R, const amgt_csr& A,
                      const amgt_csr& P, const amgt_csr& C, double* c_val)
{
   AMGT_REQUIRE(R.on_device == A.on_device && A.on_device == P.on_device && P.on_device == C.on_device,
                "Galerkin product: the matrices are not all in one memory");
   (void) ctx; // the device's stream and allocator (a build without device kernels needs neither)
   if (!c_state.galerkin) { c_state.galerkin.reset(new GalerkinPlans()); }
   GalerkinPlans& plans = *c_state.galerkin;
   bool           ok    = false;
   if (C.on_device)
   {
#if defined(AMGT_WITH_DEVICE_KERNELS)
      const device::Stream s = stream_of(ctx);
      if (!plans.device)
      {
         plans.device = std::make_unique<device::DeviceGalerkinPlan>(device::make_galerkin_plan(
            view_of(R), view_of(A), view_of(P), C.row_ptr, C.col, C.nrows, s, device_allocator(ctx)));
      }
      ok = device::galerkin_numeric(*plans.device, view_of(R), view_of(A), view_of(P), c_val, s);
#else
      AMGT_THROW("Galerkin product of device arrays in a build without device kernels");
#endif
   }
   else
   {
      if (!plans.host)
      {
         plans.host = std::make_unique<resetup::GalerkinPlan>(
            resetup::make_galerkin_plan(view_of(R), view_of(A), view_of(P), C.row_ptr, C.col, C.nrows));
      }
      ok = resetup::galerkin_numeric(*plans.host, view_of(R), view_of(A), view_of(P), c_val);
   }
   if (!ok) { c_state.galerkin.reset(); }
   return ok;
}

} // namespace amgt::glue
