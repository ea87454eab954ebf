// Command line of amgt-solve. Parsing is a pure function of argv: every rank parses the same
// arguments and reaches the same result or the same UsageError.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>

#include "drift.h"
#include "problems.h"

namespace amgt::cli {

// BoomerAMG settings. Defaults are the benchmark protocol (docs/BRIEF.md, section 6).
struct AmgSettings {
  int coarsen_type = 8;            // PMIS
  double strong_threshold = 0.25;
  double max_row_sum = 0.8;
  int max_coarse_size = 3;
  int interp_type = 6;             // extended+i
  double trunc_factor = 0.1;
  int pmax = 4;                    // max elements per row of P
  int relax_type = 18;             // l1-Jacobi
  int num_sweeps = 1;
  int max_levels = 7;
  int agg_levels = 0;              // levels of aggressive coarsening
  int cycle_type = 1;              // 1 = V, 2 = W
};

enum class SolverKind { Amg, Pcg };
const char* name(SolverKind kind);

// How --steps writes a step's values into the assembled matrix (solver.h,
// LinearSystem::update_values): straight into the ParCSR matrix's value arrays, or through
// the IJ interface (Initialize, SetValues of every row, Assemble). The same matrix either way.
enum class UpdateKind { Direct, Ij };
const char* name(UpdateKind kind);

struct Options {
  // Exactly one of problem / matrix.
  std::optional<problems::Kind> problem;
  std::int64_t n = 0;
  std::string matrix;

  SolverKind solver = SolverKind::Amg;
  double tol = 1e-8;
  int max_iter = 100;
  int print_level = 0;
  int num_functions = 0;  // 0: automatic (3 for systems3, 1 otherwise)
  AmgSettings amg;

  int vendor_spgemm = 0;  // GPU builds: HYPRE_SetSpGemmUseVendor
  int vendor_spmv = 0;    // GPU builds: HYPRE_SetSpMVUseVendor
  int spgemm_binned = 0;  // GPU builds: hypre_SetSpGemmBinned (hypre's own SpGEMM, binned mode)
  int pool = 1;           // 0: HYPRE_SetGPUMemoryPoolSize(8, 1, 0, 0) (exact sizes, nothing cached)
  int repeat = 1;         // timed runs after one warm-up; 0: a single run, no warm-up
  int solves = 1;         // solves per setup (same matrix and rhs, x0 = 0 each)
  // --steps K (0: off): each run is a sequence of K steps on one IJ matrix and one solver,
  // the values changing by `drift` every step (drift.h), a setup (unless frozen) and a
  // solve each step.
  int steps = 0;
  drift::Kind drift = drift::Kind::Dt;
  bool drift_given = false;
  double dt_shift = drift::kDefaultDtShift;
  int jump_speed = drift::kDefaultJumpSpeed;
  int frozen = 0;         // 1: setup at step 0 only, the first hierarchy kept for every step
  UpdateKind update = UpdateKind::Direct;  // how a step's values are written (untimed)
  bool json = false;
  bool require_converged = false;
  bool true_residual = false;
  bool memory_report = false;  // a stderr line per run: device memory in use, resident set
  bool galerkin_work = false;  // count each level's Galerkin product work (galerkin_work.h)
  bool beside_stock = false;   // each timed run beside the same run with the plugin suspended
  bool help = false;

  int effective_num_functions() const {
    if (num_functions > 0) return num_functions;
    return problem && *problem == problems::Kind::Systems3 ? 3 : 1;
  }
};

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws UsageError on an unknown option, a missing or malformed value, a value out of
// range, or an inconsistent combination. `--help` sets help and skips the consistency checks.
Options parse(int argc, const char* const* argv);

void print_usage(std::FILE* out, const char* program);

}  // namespace amgt::cli
