// The linear system (hypre IJ/ParCSR objects) and one timed setup + solve.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "HYPRE.h"
#include "HYPRE_IJ_mv.h"
#include "HYPRE_parcsr_ls.h"
#include "galerkin_work.h"
#include "options.h"
#include "row_block.h"
#include "step_result.h"

namespace amgt {

// The host's clock in seconds (the C++ steady clock, not MPI_Wtime: without MPI, hypre's
// sequential stub of MPI_Wtime returns 0). Reads nothing of the device.
double host_seconds();

// Feeds the local rows, possibly in several chunks, to `sink`, in increasing row order
// and covering exactly the rank's range. It is called twice (count, then fill).
using RowSource = std::function<void(const std::function<void(const RowBlock&)>& sink)>;

// The local rows on demand: generate(rows, out) fills `out` with rows [rows.begin, rows.end)
// of the rank's range (a multiple of `unit` rows each end, e.g. whole nodes of a system) and
// may be called from several threads at once for disjoint ranges.
struct RowRangeSource {
  std::function<void(Range rows, RowBlock& out)> generate;
  std::int64_t unit = 1;
};

// `source` over `local` as a RowSource: chunks of 2^16 units in increasing row order.
RowSource as_row_source(const RowRangeSource& source, Range local);

// A x = b on `comm`, rows [local.begin, local.end) owned by this rank; b = 1, x = 0.
// Owns its hypre objects; destroy it before HYPRE_Finalize.
class LinearSystem {
 public:
  LinearSystem(MPI_Comm comm, std::int64_t global_rows, Range local, const RowSource& source);
  ~LinearSystem();
  LinearSystem(const LinearSystem&) = delete;
  LinearSystem& operator=(const LinearSystem&) = delete;

  HYPRE_ParCSRMatrix A() const { return A_; }
  HYPRE_ParVector b() const { return b_; }
  HYPRE_ParVector x() const { return x_; }
  std::int64_t global_rows() const { return global_rows_; }
  std::int64_t global_nnz() const { return global_nnz_; }

  // ||b - A x||_2 / ||b||_2 with the current x (one SpMV).
  double true_relative_residual() const;

  // New values for the same pattern, written into the existing matrix. The ParCSR object A()
  // stays the same object; GPU builds move A to host memory for the writing and back to the
  // device after. `source` must give columns the matrix stores (the constructor's pattern).
  //   Ij: as a time-stepping code does through the IJ interface: HYPRE_IJMatrixInitialize,
  //       HYPRE_IJMatrixSetValues of every row (each value found by its column),
  //       HYPRE_IJMatrixAssemble.
  //   Direct: the rows generated on `threads` threads (chunks of `chunk_units` units; 0: 2^14)
  //       and each value written into A's diag or offd value array at the entry of its
  //       column: the entry positions are found once by their columns and kept, and checked
  //       against the stored columns at every update (a position that no longer matches is
  //       found again). Then HYPRE_IJMatrixInitialize and HYPRE_IJMatrixAssemble without
  //       SetValues: the library's Assemble hook sees the new values as after the IJ path,
  //       and the matrix equals the IJ path's entry for entry.
  void update_values(const RowRangeSource& source, cli::UpdateKind kind, int threads = 1,
                     std::int64_t chunk_units = 0);

 private:
  HYPRE_Int set_values(const RowSource& source);  // SetValues of every local row
  // Writes the values of `source` into A's host arrays (Direct).
  void write_values_direct(const RowRangeSource& source, int threads, std::int64_t chunk_units);

  MPI_Comm comm_;
  Range local_;
  std::int64_t global_rows_ = 0;
  std::int64_t global_nnz_ = 0;
  HYPRE_IJMatrix ij_A_ = nullptr;
  HYPRE_IJVector ij_b_ = nullptr;
  HYPRE_IJVector ij_x_ = nullptr;
  HYPRE_IJVector ij_r_ = nullptr;
  HYPRE_ParCSRMatrix A_ = nullptr;
  HYPRE_ParVector b_ = nullptr;
  HYPRE_ParVector x_ = nullptr;
  HYPRE_ParVector r_ = nullptr;
  // Direct updates: per entry of the generated rows (row r's q-th entry at
  // diag_i[r] + offd_i[r] + q), its position in diag_data, or diag_nnz + its position in
  // offd_data; -1 until found.
  std::vector<HYPRE_Int> slot_;
};

struct RunResult {
  double setup_s = 0.0;               // max over ranks
  std::vector<double> solve_s;        // each solve of the run, max over ranks
  std::vector<int> solve_iterations;  // each solve of the run
  int iterations = 0;                 // the last solve's
  double rel_residual = 0.0;          // the last solve's, as reported by the solver
  int levels = 0;
  int hypre_error = 0;        // hypre error flags other than HYPRE_ERROR_CONV, OR over ranks
  int setup_error = 0;        // the part raised by the setup
  int solve_error = 0;        // the part raised by the solve
  bool hit_conv_error = false;  // hypre raised HYPRE_ERROR_CONV (did not converge)
  std::vector<std::int64_t> level_rows;  // only when collect_levels
  std::vector<std::int64_t> level_nnz;
  // only when collect_levels and options.galerkin_work: per level with a P (galerkin_work.h),
  // or why nothing was counted
  std::vector<work::GalerkinWork> galerkin;
  std::string galerkin_note;
  std::vector<StepResult> steps;  // --steps: each step (setup_s = their sum, solve_s each)
};

// Creates a fresh solver, times its setup, then options.solves solves of the same system,
// each from x = 0 (reset outside the timings), separately (device sync + barrier before each
// clock read); reads the results, destroys the solver.
// --steps: a sequence of options.steps steps on one solver: load_values(k) puts step k's
// values into `system` (untimed apart: update_s; step 0's may already be there), then a
// setup (every step, or step 0 only with --frozen 1) and one solve from x = 0. setup_s is
// the sum of the step setups, solve_s and solve_iterations hold each step's solve.
RunResult run_steps(LinearSystem& system, const cli::Options& options, MPI_Comm comm,
                    bool collect_levels, const std::function<void(int step)>& load_values);

RunResult run_once(const LinearSystem& system, const cli::Options& options, MPI_Comm comm,
                   bool collect_levels);

}  // namespace amgt
