// amgt-solve: a hypre client that solves one linear system with BoomerAMG (as the solver or
// as PCG's preconditioner), with the benchmark settings, and reports timings and results.
//
//   1. MPI_Init; parse the options (every rank, same result).
//   2. Every rank builds its contiguous row block: a generated problem, or the rows of a
//      Matrix Market file that every rank reads. Errors are agreed on by all ranks, reported
//      once, and end the run with status 1 (no MPI_Abort).
//   3. Bind a GPU (GPU builds), HYPRE_Initialize, configure hypre's memory/execution/vendor
//      switches, build the IJ matrix (b = 1, x0 = 0).
//   4. One warm-up run (unless --repeat 0; its times are reported as the cold ones), then
//      the timed runs: fresh solver, one setup, then --solves solves from x = 0, each timed.
//      With --steps K a run is a sequence instead: one solver, K steps, each writing the
//      step's values (drift.h) into the same matrix (--update), then a setup (every step, or step 0
//      only with --frozen 1) and one solve from x = 0 (solver.h, run_steps).
//      Each run begins with hypre's device random numbers reset (hypre_backend.h,
//      reset_device_random): every run builds the hierarchy of the process's first setup.
//      With --beside-stock every timed run is also made as stock hypre in the same process
//      (the AMGT library's hooks suspended), interleaved with the mode's runs.
//   5. Summary on rank 0, HYPRE_Finalize (where the AMGT library prints its statistics),
//      then, with --json, one JSON line as the very last line of stdout.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <dlfcn.h>
#include <sched.h>
#include <unistd.h>

#include "HYPRE.h"
#include "HYPRE_config.h"
#include "drift.h"
#include "errors.h"
#include "hypre_backend.h"
#include "mpi_compat.h"
#include "mtx_reader.h"
#include "options.h"
#include "problems.h"
#include "report.h"
#include "row_block.h"
#include "solver.h"

namespace amgt {
namespace {

constexpr const char* kProgram = "amgt-solve";

// The host-speed probes (Report::probe_cpu_s, probe_api_s): about a millisecond each.
constexpr int kCpuProbeSteps = 1 << 19;
constexpr int kRuntimeProbeCalls = 4096;

// Seconds of a fixed chain of dependent integer operations (each step needs the last: no
// instruction-level parallelism or vectorisation to hide a slower core); the result is kept.
double cpu_probe_s() {
  volatile std::uint64_t sink = 0;
  const auto t0 = std::chrono::steady_clock::now();
  std::uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int k = 0; k < kCpuProbeSteps; ++k) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    x ^= x >> 29;
  }
  sink = x;
  (void)sink;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// --memory-report: device memory in use and this process's resident set, after run `run`
// (0: the warm-up), for leak checks over many setup/solve/destroy cycles.
void report_memory(int rank, int run) {
  const unsigned long long device = backend::device_used_bytes();  // collective-free
  long rss_kib = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    long size = 0, resident = 0;
    if (std::fscanf(f, "%ld %ld", &size, &resident) == 2) rss_kib = resident * (sysconf(_SC_PAGESIZE) / 1024);
    std::fclose(f);
  }
  if (rank == 0) {
    std::fprintf(stderr, "memory run %d device_used_bytes %llu rss_kib %ld\n", run, device, rss_kib);
  }
}

// The rank's share of the system, before hypre is involved.
struct Input {
  std::string problem;
  std::int64_t global_rows = 0;
  Range local;
  RowSource source;
  std::int64_t empty_rows = 0;         // matrix files: over the whole matrix
  std::int64_t empty_cols = 0;         // matrix files: over the whole matrix
  std::int64_t duplicates_summed = 0;  // matrix files: this rank's rows
  std::vector<std::string> notes;      // warnings to print once (rank 0)
};

std::string file_stem(const std::string& path) {
  std::string base = path.substr(path.find_last_of('/') == std::string::npos
                                     ? 0
                                     : path.find_last_of('/') + 1);
  for (const char* ext : {".gz", ".mtx"}) {
    const std::string e(ext);
    if (base.size() > e.size() && base.compare(base.size() - e.size(), e.size(), e) == 0) {
      base.erase(base.size() - e.size());
    }
  }
  return base;
}

// The rows of problem p on demand (whole nodes; generate_rows is a pure function of the
// problem and the range, so disjoint ranges can be generated at once).
RowRangeSource generated_rows(const problems::Problem& p) {
  return RowRangeSource{[p](Range rows, RowBlock& out) { problems::generate_rows(p, rows, out); },
                        p.block_size()};
}

// Rows `local` of problem p, in chunks of 2^16 nodes.
RowSource generated_source(const problems::Problem& p, Range local) {
  return as_row_source(generated_rows(p), local);
}

// Threads for --update direct: the cores this process may run on (its affinity mask); when
// that is every online core (not bound), this rank's share of them among the node's ranks.
// A rank that mpirun bound to one core gets one thread.
int update_thread_count(int node_ranks) {
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  long usable = online;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) usable = CPU_COUNT(&set);
  if (usable <= 0) usable = static_cast<long>(std::max(1u, std::thread::hardware_concurrency()));
  if (usable >= online) usable /= std::max(1, node_ranks);
  return static_cast<int>(std::max(1L, usable));
}

// The problem of step k (--steps), or the plain problem.
problems::Problem problem_at(const cli::Options& o, int step) {
  const problems::Problem base{*o.problem, o.n};
  if (o.steps == 0) return base;
  return drift::at_step(base, o.drift, step, o.dt_shift, o.jump_speed);
}

Input generated_input(const cli::Options& o, int rank, int size) {
  problems::Problem p = problem_at(o, 0);
  const long long big_max = static_cast<long long>(std::numeric_limits<HYPRE_BigInt>::max());
  if (p.global_rows() > big_max) {
    throw InputError(std::string(problems::name(p.kind)) + " with n = " + std::to_string(o.n) +
                     " has " + std::to_string(p.global_rows()) +
                     " rows, more than HYPRE_BigInt holds (largest n: " +
                     std::to_string(problems::max_n(p.kind, big_max)) + ")");
  }
  if (p.num_nodes() < size) {
    throw InputError("n = " + std::to_string(o.n) + " gives " + std::to_string(p.num_nodes()) +
                     " grid nodes, fewer than the " + std::to_string(size) + " MPI ranks");
  }
  const int bs = p.block_size();
  const Range nodes = block_partition(p.num_nodes(), rank, size);
  Input in;
  in.problem = problems::name(p.kind);
  in.global_rows = p.global_rows();
  in.local = Range{nodes.begin * bs, nodes.end * bs};
  in.source = generated_source(p, in.local);
  return in;
}

Input matrix_input(const cli::Options& o, int rank, int size) {
  const int nf = o.effective_num_functions();
  io::MtxReadOptions ro;
  ro.select_rows = [nf, rank, size](std::int64_t rows) {
    // Whole blocks of num_functions rows per rank when they divide the matrix.
    const std::int64_t unit = (nf > 1 && rows % nf == 0) ? nf : 1;
    const Range r = block_partition(rows / unit, rank, size);
    return Range{r.begin * unit, r.end * unit};
  };
  auto m = std::make_shared<io::MtxMatrix>(io::read_matrix_market(o.matrix, ro));
  const std::int64_t rows = m->info.rows;
  if (nf > 1 && rows % nf != 0) {
    throw InputError(std::to_string(rows) + " rows are not a multiple of --num-functions " +
                     std::to_string(nf));
  }
  if (rows < static_cast<std::int64_t>(size) * nf) {
    throw InputError(std::to_string(rows) + " rows are too few for " + std::to_string(size) +
                     " MPI ranks");
  }
  const long long big_max = static_cast<long long>(std::numeric_limits<HYPRE_BigInt>::max());
  if (rows > big_max) {
    throw InputError(std::to_string(rows) + " rows do not fit HYPRE_BigInt");
  }
  Input in;
  in.problem = file_stem(o.matrix);
  in.global_rows = rows;
  in.local = Range{m->rows.first_row, m->rows.first_row + m->rows.num_rows()};
  in.empty_rows = m->info.empty_rows;
  in.empty_cols = m->info.empty_cols;
  in.duplicates_summed = m->info.duplicates_summed;
  if (m->info.upper_entries > 0) {
    in.notes.push_back(std::to_string(m->info.upper_entries) + " entries of the " +
                       io::to_string(m->info.symmetry) +
                       " storage lie above the diagonal; mirrored like lower ones");
  }
  in.source = [m](const std::function<void(const RowBlock&)>& sink) { sink(m->rows); };
  return in;
}

// True when no rank failed. Otherwise the lowest failing rank prints its message.
bool all_ok(bool ok, const std::string& message, MPI_Comm comm, int rank, int size) {
  int mine = ok ? size : rank;  // not const: hypre's MPI stubs take void*
  int first_bad = size;
  MPI_Allreduce(&mine, &first_bad, 1, MPI_INT, MPI_MIN, comm);
  if (first_bad == size) return true;
  if (rank == first_bad) {
    std::fprintf(stderr, "%s: error: %s\n", kProgram, message.c_str());
    std::fflush(stderr);
  }
  return false;
}

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

int drive(int argc, char** argv) {
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);

  cli::Options o;
  try {
    o = cli::parse(argc, argv);
  } catch (const cli::UsageError& e) {
    if (rank == 0) {
      std::fprintf(stderr, "%s: error: %s\nTry '%s --help'.\n", kProgram, e.what(), kProgram);
    }
    return 1;
  }
  if (o.help) {
    if (rank == 0) cli::print_usage(stdout, kProgram);
    return 0;
  }

  // ---- Input (no hypre yet) -------------------------------------------------------------
  // the phases before the first run, by the host's clock (Report::input_s and after)
  double phase_mark = host_seconds();
  double phase_times[3] = {0.0, 0.0, 0.0}; // input, init, assembly
  const auto phase_done = [&](int k) {
    const double t = host_seconds();
    phase_times[k] = t - phase_mark;
    phase_mark = t;
  };
  Input input;
  {
    std::string error;
    try {
      input = o.problem ? generated_input(o, rank, size) : matrix_input(o, rank, size);
    } catch (const io::MtxError& e) {
      error = e.what();  // "<path>: line <n>: <what is wrong>"
    } catch (const InputError& e) {
      error = e.what();
    } catch (const std::bad_alloc&) {
      error = "out of memory while loading the input";
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (!all_ok(error.empty(), error, comm, rank, size)) return 1;
  }
  {
    long long mine = input.duplicates_summed;
    long long dups = 0;
    MPI_Allreduce(&mine, &dups, 1, MPI_LONG_LONG_INT, MPI_SUM, comm);
    if (rank == 0) {
      if (input.empty_rows > 0) {
        std::fprintf(stderr, "%s: warning: %lld of %lld rows are empty; AMG may fail on them\n",
                     kProgram, static_cast<long long>(input.empty_rows),
                     static_cast<long long>(input.global_rows));
      }
      if (input.empty_cols > 0) {
        std::fprintf(stderr,
                     "%s: warning: %lld of %lld columns are empty: the matrix is singular and "
                     "AMG cannot converge unless b lies in its range\n",
                     kProgram, static_cast<long long>(input.empty_cols),
                     static_cast<long long>(input.global_rows));
      }
      if (dups > 0) {
        std::fprintf(stderr, "%s: warning: summed %lld duplicate entries\n", kProgram, dups);
      }
      for (const std::string& note : input.notes) {
        std::fprintf(stderr, "%s: warning: %s\n", kProgram, note.c_str());
      }
      std::fflush(stderr);
    }
  }

  // ---- hypre ----------------------------------------------------------------------------
  phase_done(0);
  backend::bind_device(comm);  // before HYPRE_Initialize
  // The process's host speed, before the library does anything a mode could change: a fixed
  // chain of integer operations and, in GPU builds, a fixed number of device runtime calls
  // (bench/cold_pairs.py --covariate). The probes' own loops are no phase's time; the device
  // runtime's start-up that the first call may do stays in init_s, as without them.
  const double probe_cpu = cpu_probe_s();
  const double probe_api = backend::runtime_probe_s(kRuntimeProbeCalls);
  phase_mark += probe_cpu + std::max(0.0, probe_api);
  HYPRE_Initialize();
  // --pool 0: hypre as built without its device pool (HYPRE_ENABLE_DEVICE_POOL off, hypre's
  // default), from the same library. max_cached_bytes = 0: no released block is kept, every
  // allocation is a cudaMalloc and every release a cudaFree. max_bin = 0: every request lies
  // above the largest bin, so it is allocated at its exact size, as cudaMalloc is called
  // without the pool; with max_bin unlimited ((8, 1, -1, 0)) the pool would still round
  // each request up to the next power of 8 bytes (a 1.7 GB array would take 8.6 GB) and
  // cudaMalloc that. Public API, in every build (a no-op without CUDA or without the pool);
  // effective only before the first device allocation, hence right after HYPRE_Initialize.
  if (o.pool == 0) HYPRE_SetGPUMemoryPoolSize(8, 1, 0, 0);
  backend::configure_library(o.vendor_spgemm, o.vendor_spmv, o.spgemm_binned);
  phase_done(1);

  Report rep;
  rep.mode = env_or("AMGT", "off");
  if (const char* lv = std::getenv("AMGT_LEVELS"); lv && *lv) rep.levels_schedule = lv;
  rep.problem = input.problem;
  if (!o.matrix.empty()) rep.matrix = o.matrix;
  if (o.problem) rep.n = o.n;
  rep.np = size;
  rep.device = backend::device_name();
  {
    // which GPU each rank runs on (one GPU per rank, or ranks sharing one): gathered once
    constexpr int kLabel = 64;
    char mine[kLabel] = {0};
    std::snprintf(mine, sizeof(mine), "%s", backend::device_label().c_str());
    std::vector<char> all(static_cast<std::size_t>(kLabel) * static_cast<std::size_t>(size));
    MPI_Allgather(mine, kLabel, MPI_CHAR, all.data(), kLabel, MPI_CHAR, comm);
    if (mine[0]) {
      for (int r = 0; r < size; ++r) rep.rank_devices.emplace_back(&all[static_cast<std::size_t>(r) * kLabel]);
    }
  }
  rep.hypre_version = HYPRE_RELEASE_VERSION;
  rep.products = backend::products_description();
  rep.module_rap2 = backend::sets_module_rap2();
  rep.keep_transpose = backend::sets_keep_transpose();
  rep.device_pool_built = backend::device_pool_build();
  rep.device_pool = rep.device_pool_built && o.pool != 0;
  rep.options = o;
  rep.empty_rows = input.empty_rows;

  int status = 0;
  try {
    LinearSystem system(comm, input.global_rows, input.local, input.source);
    input.source = nullptr;  // frees the rows read from a file
    phase_done(2);
    {
      double slowest[3];
      MPI_Allreduce(phase_times, slowest, 3, MPI_DOUBLE, MPI_MAX, comm);
      rep.input_s    = slowest[0];
      rep.init_s     = slowest[1];
      rep.assemble_s = slowest[2];
      double mine[2] = {probe_cpu, probe_api};
      double probes[2];
      MPI_Allreduce(mine, probes, 2, MPI_DOUBLE, MPI_MAX, comm);
      rep.probe_cpu_s = probes[0];
      if (probes[1] >= 0.0) rep.probe_api_s = probes[1];
    }
    rep.rows = system.global_rows();
    rep.nnz = system.global_nnz();

    // The first run of the process, warm-up or not, is the cold one (with --steps: its
    // step 0, the first setup and solve).
    auto record_cold = [&rep](const RunResult& r) {
      if (!r.steps.empty()) {
        rep.cold_setup_s = r.steps.front().setup_s;
        rep.cold_solve_s = r.steps.front().solve_s;
        rep.cold_total_s = r.steps.front().setup_s + r.steps.front().solve_s;
        return;
      }
      rep.cold_setup_s = r.setup_s;
      rep.cold_solve_s = r.solve_s.front();
      double sum = r.setup_s;
      for (double t : r.solve_s) sum += t;
      rep.cold_total_s = sum;
    };
    // --steps: the matrix holds the values of step `loaded` (0 after the constructor). The
    // direct update generates rows on the cores of this rank's share of the node.
    int loaded = 0;
    const int update_threads = update_thread_count(backend::node_ranks(comm));
    auto load_values = [&](int step) {
      if (step == loaded) return;
      system.update_values(generated_rows(problem_at(o, step)), o.update, update_threads);
      loaded = step;
    };
    // hypre's device coarsening draws its random numbers from one generator whose offset
    // advances with every setup: without the reset a process's setups alternate between
    // hierarchies (laplace27 n=31: 7.4 and 9.0 ms in a sequence every process repeats), so
    // runs, and stock's runs beside the mode's, would time different work
    auto run = [&](bool collect_levels) {
      rep.random_reset = backend::reset_device_random();
      return o.steps > 0 ? run_steps(system, o, comm, collect_levels, load_values)
                         : run_once(system, o, comm, collect_levels);
    };
    if (o.repeat >= 1) {
      // warm-up: its errors count, and its times are reported as the cold ones only
      const RunResult w = run(false);
      if (o.memory_report) report_memory(rank, 0);
      rep.warmup = true;
      record_cold(w);
      rep.hypre_error |= w.hypre_error;
      rep.hypre_setup_error |= w.setup_error;
      rep.hypre_solve_error |= w.solve_error;
    }
    // --beside-stock: hypre_AMGTSuspend of the drop-in (looked up, so that this driver also
    // runs against a stock libHYPRE without the option).
    using SuspendFn = void (*)(HYPRE_Int);
    SuspendFn suspend = nullptr;
    if (o.beside_stock) {
      suspend = reinterpret_cast<SuspendFn>(dlsym(RTLD_DEFAULT, "hypre_AMGTSuspend"));
      if (!suspend) {
        throw InputError("--beside-stock needs the AMGT drop-in libHYPRE (hypre_AMGTSuspend not found)");
      }
      rep.beside_stock = true;
    }
    auto run_stock = [&]() {
      suspend(1);
      RunResult s = run(false);
      suspend(0);
      return s;
    };
    if (suspend) run_stock();  // stock's own warm-up, untimed
    const int runs = o.repeat >= 1 ? o.repeat : 1;
    // Which of each pair runs first: half the pairs stock first, in an order drawn anew by each
    // process (rank 0's draw on every rank). A fixed order aliases with what changes from setup
    // to setup in a process in the same way in every process (hypre's random numbers of the
    // coarsening advance with each setup: laplace27 n=31's setups alternate between 7.4 and
    // 9.0 ms in one sequence every process repeats), a drawn one averages it out over processes.
    std::vector<char> stock_first(static_cast<std::size_t>(runs), 0);
    if (suspend) {
      int seed = static_cast<int>(std::random_device{}() & 0x7fffffffu);
      MPI_Bcast(&seed, 1, MPI_INT, 0, comm);  // MPI_INT: hypre's stubs of a build without MPI have it
      std::mt19937 gen(static_cast<unsigned>(seed));
      for (int i = 0; i < runs; ++i) stock_first[static_cast<std::size_t>(i)] = i % 2 == 0;
      std::shuffle(stock_first.begin(), stock_first.end(), gen);
      for (char f : stock_first) rep.beside_order += f ? "SM " : "MS ";
      if (!rep.beside_order.empty()) rep.beside_order.pop_back();
    }
    // One timed run's times, iterations and errors into the mode's lists or stock's.
    auto record = [&rep](const RunResult& r, std::vector<double>& setup_all, std::vector<double>& solve_all,
                         std::vector<double>& solves_total_all, std::vector<int>& iterations_all) {
      setup_all.push_back(r.setup_s);
      double solves_total = 0.0;
      for (double t : r.solve_s) solves_total += t;
      solve_all.insert(solve_all.end(), r.solve_s.begin(), r.solve_s.end());
      solves_total_all.push_back(solves_total);
      iterations_all.insert(iterations_all.end(), r.solve_iterations.begin(), r.solve_iterations.end());
      rep.hypre_error |= r.hypre_error;
      rep.hypre_setup_error |= r.setup_error;
      rep.hypre_solve_error |= r.solve_error;
    };
    auto record_stock = [&](const RunResult& s) {
      record(s, rep.stock_setup_all, rep.stock_solve_all, rep.stock_solves_total_all, rep.stock_iterations_all);
    };
    for (int i = 0; i < runs; ++i) {
      const bool last = i == runs - 1;
      const bool first = stock_first[static_cast<std::size_t>(i)] != 0;
      if (suspend && first) record_stock(run_stock());
      RunResult r = run(last);
      if (suspend && !first) record_stock(run_stock());
      if (o.memory_report) report_memory(rank, i + 1);
      if (i == 0 && !rep.warmup) record_cold(r);
      record(r, rep.setup_all, rep.solve_all, rep.solves_total_all, rep.iterations_all);
      if (o.steps > 0) rep.step_runs.push_back(r.steps);
      if (last) {
        rep.levels = r.levels;
        rep.iterations = r.iterations;
        rep.rel_residual = r.rel_residual;
        rep.level_rows = std::move(r.level_rows);
        rep.level_nnz = std::move(r.level_nnz);
        rep.galerkin_asked = o.galerkin_work;
        rep.galerkin = std::move(r.galerkin);
        rep.galerkin_note = std::move(r.galerkin_note);
      }
    }
    // BoomerAMG with tol 0 reports no residual: measure it (one SpMV, untimed).
    const bool amg_without_residual = o.solver == cli::SolverKind::Amg && o.tol <= 0.0;
    if (o.true_residual || amg_without_residual) {
      rep.true_rel_residual = system.true_relative_residual();
      if (amg_without_residual) rep.rel_residual = *rep.true_rel_residual;
    }
    // false for NaN, and whenever hypre flagged an error: a PCG that stops on a NaN reports
    // 0 iterations and a residual of 0.
    rep.converged = rep.rel_residual <= o.tol && !rep.hypre_setup_error && !rep.hypre_solve_error;
  } catch (const InputError& e) {
    // Raised identically on every rank (collective checks).
    if (rank == 0) std::fprintf(stderr, "%s: error: %s\n", kProgram, e.what());
    status = 1;
  } catch (const std::exception& e) {
    // May be on one rank only: the others could wait in a collective forever.
    std::fprintf(stderr, "%s: rank %d: fatal: %s\n", kProgram, rank, e.what());
    std::fflush(stderr);
    MPI_Abort(comm, 2);
  }

  if (status == 0) {
    if (rank == 0) {
      print_summary(stdout, rep);
      if (rep.hypre_setup_error) {
        std::fprintf(stderr, "%s: error: hypre reported an error in the setup: %s\n", kProgram,
                     describe_hypre_error(rep.hypre_setup_error).c_str());
      }
      if (rep.hypre_solve_error) {
        std::fprintf(stderr, "%s: error: hypre reported an error in the solve: %s\n", kProgram,
                     describe_hypre_error(rep.hypre_solve_error).c_str());
      }
      if (!rep.converged) {
        std::fprintf(stderr, "%s: warning: not converged: relative residual %.3e > tol %g after %d iterations\n",
                     kProgram, rep.rel_residual, o.tol, rep.iterations);
      }
    }
    if (rep.hypre_error) {
      status = 2;
    } else if (!rep.converged && o.require_converged) {
      status = 3;
    }
  }
  std::fflush(stdout);
  std::fflush(stderr);

  HYPRE_Finalize();  // the AMGT library prints its statistics here

  if (o.json && (status == 0 || status == 2 || status == 3)) {
    // Everything else is out before the JSON line: flush on every rank, then barrier.
    std::fflush(stdout);
    MPI_Barrier(comm);
    if (rank == 0) {
      std::printf("%s\n", to_json(rep).c_str());
      std::fflush(stdout);
    }
  }
  return status;
}

}  // namespace
}  // namespace amgt

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int status = amgt::drive(argc, argv);
  MPI_Finalize();
  return status;
}
