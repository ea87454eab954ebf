// Results of a driver run: the readable summary and the one-line JSON record.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "galerkin_work.h"
#include "options.h"
#include "step_result.h"

namespace amgt {

struct Report {
  // What ran.
  std::string mode;                            // env AMGT, or "off"
  std::optional<std::string> levels_schedule;  // env AMGT_LEVELS
  std::string problem;                         // generator name, or the file's stem
  std::optional<std::string> matrix;           // path for --matrix
  std::optional<std::int64_t> n;               // grid size for --problem
  int np = 1;
  std::string device;  // "gpu" | "cpu"
  // GPU builds: each rank's device ("GPU <id> (<PCI bus id>)"), rank by rank
  std::vector<std::string> rank_devices;
  std::string hypre_version;
  std::string products;  // backend::products_description()
  bool module_rap2 = false;
  bool keep_transpose = false;
  bool device_pool_built = false;  // hypre built with its device pool (CUDA)
  bool device_pool = false;        // the pool caches in this run (built with it, --pool 1)
  cli::Options options;

  // The system.
  std::int64_t rows = 0;
  std::int64_t nnz = 0;
  std::int64_t empty_rows = 0;

  // Results (iterations, residual and levels from the last run).
  int levels = 0;
  int iterations = 0;
  double rel_residual = 0.0;
  std::optional<double> true_rel_residual;
  bool converged = false;
  int hypre_error = 0;        // OR of the flags below
  int hypre_setup_error = 0;  // hypre error flags (HYPRE_ERROR_CONV excluded), any run
  int hypre_solve_error = 0;
  bool warmup = false;
  // Timed runs: one setup, then options.solves solves each.
  std::vector<double> setup_all;         // per run
  std::vector<double> solve_all;         // every solve, run after run
  std::vector<double> solves_total_all;  // per run: the sum of its solves
  std::vector<int> iterations_all;       // every solve, run after run
  // The first run of the process (the warm-up; with --repeat 0 the timed run): the first
  // setup pays one-time costs (CUDA's lazy module loading, the first allocations).
  std::optional<double> cold_setup_s;
  std::optional<double> cold_solve_s;  // its first solve
  std::optional<double> cold_total_s;  // its setup + all its solves
  // What the process did before its first run, by the host's clock (the slowest rank's):
  // reading or preparing the input (before HYPRE_Initialize, the same code in every mode),
  // HYPRE_Initialize and the library's configuration, the linear system's assembly. A
  // process's speed moves its cold and warm runs together (bench/RESULTS.md, record
  // 2026-11-29g); these are the candidates for a measure of it that the mode cannot change.
  std::optional<double> input_s;
  std::optional<double> init_s;
  std::optional<double> assemble_s;
  // The host-speed probes before HYPRE_Initialize (the slowest rank's): a fixed chain of
  // integer operations, and (GPU builds) a fixed number of device runtime calls. Kernel
  // traces of cold processes showed each process running its host code at one of two speeds
  // throughout, whatever the mode (bench/RESULTS.md, record 2026-11-29j).
  std::optional<double> probe_cpu_s;
  std::optional<double> probe_api_s;
  std::vector<std::int64_t> level_rows;
  std::vector<std::int64_t> level_nnz;
  bool galerkin_asked = false;                // --galerkin-work
  std::vector<work::GalerkinWork> galerkin;  // per level with a P
  std::string galerkin_note;                 // why nothing was counted ("" when counted)
  // --steps: each timed run's steps (setup_all / solves_total_all then hold each run's sums
  // over its steps, solve_all and iterations_all each step's solve).
  std::vector<std::vector<StepResult>> step_runs;
  // each run began with hypre's device random numbers reset (GPU builds with cuRAND/rocRAND)
  bool random_reset = false;
  // --beside-stock: the same runs with the plugin suspended, interleaved with the mode's.
  bool beside_stock = false;
  std::string beside_order;  // per pair: SM (stock first) or MS
  std::vector<double> stock_setup_all;
  std::vector<double> stock_solve_all;
  std::vector<double> stock_solves_total_all;
  std::vector<int> stock_iterations_all;

  std::vector<double> total_all() const;  // per run: setup + solves total
  std::vector<double> stock_total_all() const;  // --beside-stock: stock's, per run
  double setup_median() const;
  double solve_median() const;         // per solve
  double solves_total_median() const;  // per run
  double total_median() const;
  double operator_complexity() const;  // sum of level nnz / nnz of level 0
  // --steps: per step, the medians over the timed runs of update, setup and solve times, and
  // the last run's iterations, residual and whether it set up.
  std::vector<StepResult> step_table() const;
};

double median(std::vector<double> values);

void print_summary(std::FILE* out, const Report& report);

// One line of JSON (no trailing newline); NaN and Inf are written as null.
std::string to_json(const Report& report);

}  // namespace amgt
