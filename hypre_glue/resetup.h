// AMGT_RESETUP: a new BoomerAMG setup of a matrix with the structure the hierarchy was built
// from keeps the hierarchy (C/F splitting, P and R, the coarse operators' patterns, their
// communication packages) and recomputes only what depends on values: the coarse operators by
// numeric-only Galerkin products on a plan built once (plugin/resetup), then hypre's own
// value-dependent setup (smoother norms, the coarsest level's solver) and the plugin's copies.
//
// Who decides: hypre's side (amgt_hypre.c) fingerprints the new fine matrix on the device,
// asks resetup_propose for this rank's answer, reduces the answers over the communicator (any
// rank's full setup makes every rank's full) and reports the outcome (resetup_begin). The
// record of a hierarchy lives in the plugin state of its level-1 operator's diagonal block,
// so it dies with the hierarchy; a coarse operator's plan lives in its own state.
#pragma once

#include "amgt_glue.h"
#include "backend.h"
#include "precision/schedule.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace amgt::glue {

// What a hierarchy remembers between setups.
struct ResetupRecord
{
   bool     have_fingerprint = false;
   uint64_t fingerprint      = 0;     // of the fine matrix its last full setup was built from
   bool     last_full        = true;  // the last setup was a full one
   long     cycles           = 0;     // V-cycles since the last setup
   long     full_cycles      = -1;    // V-cycles between the last full setup and the next setup
   // AMGT_RESETUP=auto: |a_ii| of the fine matrix of the last full setup, on the host or the
   // device like its arrays (device_diag owns the device array); empty: none kept
   int64_t               diag_n = -1;
   std::vector<double>   host_diag;
   std::shared_ptr<void> device_diag;
   const double*         device_diag_ptr = nullptr;
};

// AMGT_RESETUP=auto: a row whose |a_ii| moved by more than this factor (either way) since the
// last full setup makes the next setup a full one: the kept interpolation was built for values
// that are no longer there (a coefficient jump that moved, a material that changed), and a
// re-setup would lose the step before the cycle rule could see it. A varying time step in an
// implicit diffusion step moves the diagonals by far less.
constexpr double kResetupDiagonalFactor = 2.0;

// This rank's answer for a new setup: AMGT_SETUP_RESETUP or the reason for a full one.
// Pure (unit-tested): the rule of AMGT_RESETUP=auto is here.
// diagonal_drift: the largest ratio of a row's |a_ii| to its value at the last full setup
// (diagonal_drift below; 1 where none is known).
int resetup_propose(ResetupMode mode, const ResetupRecord* record, bool fingerprint_ok, uint64_t fingerprint,
                    bool supported, double diagonal_drift = 1.0);
// The setup that all ranks agreed on begins (reason as resetup_propose's); record may be null.
void resetup_begin(ResetupRecord* record, int reason);
// A full setup ended: the new hierarchy's record.
ResetupRecord resetup_record_after_full(uint64_t fingerprint);
// Words for a reason (AMGT_STATS).
const char* setup_reason_name(int reason);

// The largest ratio of a row's |a_ii| in `a` (the fine matrix's diagonal block) to the record's
// (1 when the record keeps none of this size), and keeping `a`'s in the record.
double diagonal_drift(const Context& ctx, const ResetupRecord& record, const amgt_csr& a);
void   remember_diagonal(const Context& ctx, ResetupRecord& record, const amgt_csr& a);

// The structure fingerprint of a CSR matrix where its arrays are (resetup/galerkin.h).
uint64_t structure_fingerprint(const Context& ctx, const amgt_csr& a);

// c_val = R*A*P on the plan kept in c_state (built at its first call, on the host or the
// device like the arrays). Returns false when the matrices do not fit the plan (the plan is
// dropped; the caller runs hypre's full product). Throws as the plugin's kernels do.
bool galerkin_numeric(const Context& ctx, MatrixState& c_state, const amgt_csr& R, const amgt_csr& A,
                      const amgt_csr& P, const amgt_csr& C, double* c_val);

} // namespace amgt::glue
