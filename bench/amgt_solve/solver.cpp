// Building the hypre system and running BoomerAMG / PCG-BoomerAMG once, timed.
#include "solver.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "errors.h"
#include "mpi_compat.h"
#include "hypre_backend.h"
#include "HYPRE_krylov.h"

namespace amgt {

double host_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

namespace {

// Makes sure a solver is destroyed on every path out of run_once.
struct SolverGuard {
  HYPRE_Solver amg = nullptr;
  HYPRE_Solver pcg = nullptr;
  ~SolverGuard() {
    if (pcg) HYPRE_ParCSRPCGDestroy(pcg);
    if (amg) HYPRE_BoomerAMGDestroy(amg);
  }
};

// Device sync, then barrier, then the clock (host_seconds): all ranks read it after all work
// is done.
double synced_time(MPI_Comm comm) {
  backend::device_sync();
  MPI_Barrier(comm);
  return host_seconds();
}

void configure_amg(HYPRE_Solver amg, const cli::Options& o, bool as_preconditioner) {
  const cli::AmgSettings& s = o.amg;
  HYPRE_BoomerAMGSetCoarsenType(amg, s.coarsen_type);
  HYPRE_BoomerAMGSetStrongThreshold(amg, s.strong_threshold);
  HYPRE_BoomerAMGSetMaxRowSum(amg, s.max_row_sum);
  HYPRE_BoomerAMGSetMaxCoarseSize(amg, s.max_coarse_size);
  HYPRE_BoomerAMGSetInterpType(amg, s.interp_type);
  HYPRE_BoomerAMGSetTruncFactor(amg, s.trunc_factor);
  HYPRE_BoomerAMGSetPMaxElmts(amg, s.pmax);
  HYPRE_BoomerAMGSetRelaxType(amg, s.relax_type);  // all levels but the coarsest (GE)
  HYPRE_BoomerAMGSetNumSweeps(amg, s.num_sweeps);
  HYPRE_BoomerAMGSetMaxLevels(amg, s.max_levels);
  HYPRE_BoomerAMGSetAggNumLevels(amg, s.agg_levels);
  HYPRE_BoomerAMGSetCycleType(amg, s.cycle_type);
  HYPRE_BoomerAMGSetNumFunctions(amg, o.effective_num_functions());
  if (as_preconditioner) {
    // One V-cycle per PCG iteration.
    HYPRE_BoomerAMGSetTol(amg, 0.0);
    HYPRE_BoomerAMGSetMaxIter(amg, 1);
    HYPRE_BoomerAMGSetPrintLevel(amg, o.print_level > 0 ? 1 : 0);
  } else {
    HYPRE_BoomerAMGSetTol(amg, o.tol);
    HYPRE_BoomerAMGSetMaxIter(amg, o.max_iter);
    HYPRE_BoomerAMGSetPrintLevel(amg, o.print_level);
  }
  backend::configure_products(amg);
}

// A configured BoomerAMG (and PCG around it with --solver pcg) in `g`; a hypre error in the
// settings is an InputError on every rank.
void create_solver(SolverGuard& g, const cli::Options& o, MPI_Comm comm) {
  const bool pcg = o.solver == cli::SolverKind::Pcg;
  HYPRE_BoomerAMGCreate(&g.amg);
  configure_amg(g.amg, o, pcg);
  if (pcg) {
    HYPRE_ParCSRPCGCreate(comm, &g.pcg);
    HYPRE_PCGSetMaxIter(g.pcg, o.max_iter);
    HYPRE_PCGSetTol(g.pcg, o.tol);          // relative: ||r|| / ||b|| <= tol
    HYPRE_PCGSetAbsoluteTol(g.pcg, 0.0);
    HYPRE_PCGSetTwoNorm(g.pcg, 1);
    HYPRE_PCGSetRelChange(g.pcg, 0);
    HYPRE_PCGSetPrintLevel(g.pcg, o.print_level);
    HYPRE_PCGSetLogging(g.pcg, 1);
    HYPRE_PCGSetPrecond(g.pcg, reinterpret_cast<HYPRE_PtrToSolverFcn>(HYPRE_BoomerAMGSolve),
                        reinterpret_cast<HYPRE_PtrToSolverFcn>(HYPRE_BoomerAMGSetup), g.amg);
  }
  int config_err = 0;
  int my_config_err = HYPRE_GetError();
  MPI_Allreduce(&my_config_err, &config_err, 1, MPI_INT, MPI_BOR, comm);
  if (config_err != 0) {
    throw InputError("hypre rejected the solver settings (" + describe_hypre_error(config_err) + ")");
  }
}

HYPRE_Int checked(HYPRE_Int ierr, const char* what) {
  if (ierr != 0) throw std::runtime_error(std::string(what) + " failed: " + describe_hypre_error(ierr));
  return ierr;
}

}  // namespace

std::string describe_hypre_error(int code) {
  if (code == 0) return "no error";
  std::string s;
  auto add = [&s](const std::string& part) { s += (s.empty() ? "" : ", ") + part; };
  if (code & HYPRE_ERROR_GENERIC) add("generic error");
  if (code & HYPRE_ERROR_MEMORY) add("memory error");
  if (code & HYPRE_ERROR_ARG) add("error in argument " + std::to_string((code >> 3) & 31));
  if (code & HYPRE_ERROR_CONV) add("method did not converge");
  const int known = HYPRE_ERROR_GENERIC | HYPRE_ERROR_MEMORY | HYPRE_ERROR_ARG | (31 << 3) |
                    HYPRE_ERROR_CONV;
  if (code & ~known) add("code " + std::to_string(code));
  return s;
}

// ---------------------------------------------------------------------------------------

LinearSystem::LinearSystem(MPI_Comm comm, std::int64_t global_rows, Range local,
                           const RowSource& source)
    : comm_(comm), local_(local), global_rows_(global_rows) {
  using Int = HYPRE_Int;
  using BigInt = HYPRE_BigInt;
  const std::int64_t nlocal = local.size();

  // Pass 1: nonzeros per row in the diagonal block (own columns) and elsewhere.
  std::vector<Int> diag(static_cast<std::size_t>(nlocal), 0);
  std::vector<Int> offd(static_cast<std::size_t>(nlocal), 0);
  std::int64_t local_nnz = 0;
  std::int64_t next_row = local.begin;
  bool in_order = true;
  source([&](const RowBlock& blk) {
    if (blk.first_row != next_row) in_order = false;
    for (std::int64_t r = 0; r < blk.num_rows() && in_order; ++r) {
      const std::int64_t lr = blk.first_row + r - local.begin;
      if (lr < 0 || lr >= nlocal) {
        in_order = false;
        break;
      }
      for (std::int64_t p = blk.row_ptr[r]; p < blk.row_ptr[r + 1]; ++p) {
        const std::int64_t c = blk.col[p];
        if (c >= local.begin && c < local.end) {
          ++diag[lr];
        } else {
          ++offd[lr];
        }
      }
    }
    local_nnz += blk.nnz();
    next_row = blk.first_row + blk.num_rows();
  });
  if (!in_order || next_row != local.end) {
    throw std::logic_error("row source does not cover the local rows in order");
  }

  // Sizes must fit hypre's integer types; all ranks decide together.
  const long long int_max = static_cast<long long>(std::numeric_limits<Int>::max());
  const long long big_max = static_cast<long long>(std::numeric_limits<BigInt>::max());
  long long mine[2] = {local_nnz, local_nnz > int_max ? 1 : 0};
  long long sums[2] = {0, 0};
  MPI_Allreduce(mine, sums, 2, MPI_LONG_LONG_INT, MPI_SUM, comm);
  global_nnz_ = sums[0];
  if (sums[1] > 0) {
    throw InputError("a rank holds more than " + std::to_string(int_max) +
                     " nonzeros (HYPRE_Int); use more MPI ranks or a bigint build of hypre");
  }
  if (global_rows > big_max) {
    throw InputError(std::to_string(global_rows) + " rows do not fit HYPRE_BigInt (max " +
                     std::to_string(big_max) + "); use a bigint build of hypre");
  }

  const BigInt lo = static_cast<BigInt>(local.begin);
  const BigInt hi = static_cast<BigInt>(local.end - 1);
  checked(HYPRE_IJMatrixCreate(comm, lo, hi, lo, hi, &ij_A_), "HYPRE_IJMatrixCreate");
  checked(HYPRE_IJMatrixSetObjectType(ij_A_, HYPRE_PARCSR), "HYPRE_IJMatrixSetObjectType");
  checked(HYPRE_IJMatrixSetDiagOffdSizes(ij_A_, diag.data(), offd.data()),
          "HYPRE_IJMatrixSetDiagOffdSizes");
  // Assembled in host memory, then moved to the device on GPU builds (as hypre's ij does).
  checked(HYPRE_IJMatrixInitialize_v2(ij_A_, HYPRE_MEMORY_HOST), "HYPRE_IJMatrixInitialize");
  std::vector<Int>().swap(diag);
  std::vector<Int>().swap(offd);

  checked(set_values(source), "HYPRE_IJMatrixSetValues");
  checked(HYPRE_IJMatrixAssemble(ij_A_), "HYPRE_IJMatrixAssemble");
  void* object = nullptr;
  checked(HYPRE_IJMatrixGetObject(ij_A_, &object), "HYPRE_IJMatrixGetObject");
  A_ = static_cast<HYPRE_ParCSRMatrix>(object);
  backend::migrate_to_device(A_);

  // Vectors in hypre's default memory location (the device on GPU builds).
  auto make_vector = [&](HYPRE_IJVector& ij, HYPRE_ParVector& par, double value) {
    checked(HYPRE_IJVectorCreate(comm, lo, hi, &ij), "HYPRE_IJVectorCreate");
    checked(HYPRE_IJVectorSetObjectType(ij, HYPRE_PARCSR), "HYPRE_IJVectorSetObjectType");
    checked(HYPRE_IJVectorInitialize(ij), "HYPRE_IJVectorInitialize");
    checked(HYPRE_IJVectorAssemble(ij), "HYPRE_IJVectorAssemble");
    void* obj = nullptr;
    checked(HYPRE_IJVectorGetObject(ij, &obj), "HYPRE_IJVectorGetObject");
    par = static_cast<HYPRE_ParVector>(obj);
    checked(HYPRE_ParVectorSetConstantValues(par, value), "HYPRE_ParVectorSetConstantValues");
  };
  make_vector(ij_b_, b_, 1.0);  // b = all ones
  make_vector(ij_x_, x_, 0.0);  // x0 = 0 (reset before every run)
  make_vector(ij_r_, r_, 0.0);  // work vector for the true residual
}

// Values, chunk by chunk. Each row is passed with its diagonal entry first and
// the others in increasing column order. hypre stores rows in the order given, except
// that it moves the diagonal to the front; given sorted rows it would swap the diagonal
// with the first entry, and the order of entries decides ties in P's truncation (-Pmx),
// so the hierarchy would differ from that of hypre's ij driver on the same matrix.
HYPRE_Int LinearSystem::set_values(const RowSource& source) {
  using Int = HYPRE_Int;
  using BigInt = HYPRE_BigInt;
  std::vector<Int> ncols;
  std::vector<BigInt> rows;
  std::vector<BigInt> cols;
  std::vector<HYPRE_Real> vals;
  HYPRE_Int set_err = 0;
  source([&](const RowBlock& blk) {
    const std::int64_t nr = blk.num_rows();
    ncols.resize(static_cast<std::size_t>(nr));
    rows.resize(static_cast<std::size_t>(nr));
    cols.resize(blk.col.size());
    vals.resize(blk.val.size());
    for (std::int64_t r = 0; r < nr; ++r) {
      const std::int64_t row = blk.first_row + r;
      const std::int64_t begin = blk.row_ptr[r];
      const std::int64_t end = blk.row_ptr[r + 1];
      ncols[r] = static_cast<Int>(end - begin);
      rows[r] = static_cast<BigInt>(row);
      std::int64_t out = begin;
      for (std::int64_t p = begin; p < end; ++p) {
        if (blk.col[p] == row) {
          cols[out] = static_cast<BigInt>(row);
          vals[out] = blk.val[p];
          ++out;
        }
      }
      for (std::int64_t p = begin; p < end; ++p) {
        if (blk.col[p] != row) {
          cols[out] = static_cast<BigInt>(blk.col[p]);
          vals[out] = blk.val[p];
          ++out;
        }
      }
    }
    if (nr > 0) {
      set_err |= HYPRE_IJMatrixSetValues(ij_A_, static_cast<Int>(nr), ncols.data(), rows.data(),
                                         cols.data(), vals.data());
    }
  });
  return set_err;
}

RowSource as_row_source(const RowRangeSource& source, Range local) {
  return [source, local](const std::function<void(const RowBlock&)>& sink) {
    const std::int64_t chunk = (std::int64_t{1} << 16) * source.unit;
    RowBlock blk;
    for (std::int64_t r = local.begin; r < local.end; r += chunk) {
      source.generate(Range{r, std::min(local.end, r + chunk)}, blk);
      sink(blk);
    }
  };
}

void LinearSystem::write_values_direct(const RowRangeSource& source, int threads,
                                       std::int64_t chunk_units) {
  const backend::HostCsr m = backend::host_csr(A_);
  if (m.num_rows != local_.size() || m.first_row != local_.begin) {
    throw std::logic_error("direct update: the matrix does not hold the local rows");
  }
  const std::int64_t stored = m.diag_nnz + m.offd_nnz;
  if (static_cast<std::int64_t>(slot_.size()) != stored) slot_.assign(static_cast<std::size_t>(stored), -1);
  HYPRE_Int* slot = slot_.data();
  const std::int64_t dn = m.diag_nnz;

  // Row r of `blk` (global row `row`) into A, each value at the stored entry of its column
  // (the first one, as SetValues finds it). False, with the reason in `why`, when a column is
  // not stored in the row.
  auto write_row = [&m, slot, dn](std::int64_t row, const RowBlock& blk, std::int64_t r,
                                  std::string& why) {
    const std::int64_t lr = row - m.first_row;
    const std::int64_t p0 = blk.row_ptr[r];
    const std::int64_t n = blk.row_ptr[r + 1] - p0;
    const std::int64_t d0 = m.diag_i[lr], d1 = m.diag_i[lr + 1];
    const std::int64_t o0 = m.offd_i[lr], o1 = m.offd_i[lr + 1];
    if (n > (d1 - d0) + (o1 - o0)) {
      why = "row " + std::to_string(row) + " has more entries than the matrix stores";
      return false;
    }
    HYPRE_Int* s = slot + (d0 + o0);
    for (std::int64_t q = 0; q < n; ++q) {
      const std::int64_t c = blk.col[p0 + q];
      const double v = blk.val[p0 + q];
      const bool in_diag = c >= m.first_col && c <= m.last_col;
      // slots number diag's entries 0..dn-1, then offd's; the kept slot if it still holds column
      // c, else the first entry of the row's block that does
      const std::int64_t base = in_diag ? 0 : dn;
      const std::int64_t lo = in_diag ? d0 : o0, hi = in_diag ? d1 : o1;
      auto holds = [&](std::int64_t x) {
        return in_diag ? m.diag_j[x] == static_cast<HYPRE_Int>(c - m.first_col)
                       : static_cast<std::int64_t>(m.col_map_offd[m.offd_j[x]]) == c;
      };
      std::int64_t x = s[q] - base;
      if (s[q] < base || x < lo || x >= hi || !holds(x)) {
        x = lo;
        while (x < hi && !holds(x)) ++x;
        if (x == hi) {
          why = "entry (" + std::to_string(row) + ", " + std::to_string(c) + ") is not stored";
          return false;
        }
        s[q] = static_cast<HYPRE_Int>(base + x);
      }
      (in_diag ? m.diag_data : m.offd_data)[x] = v;
    }
    return true;
  };

  // Chunks of rows handed out in order to the threads; each chunk's rows are disjoint from
  // every other's, and so are the entries they write.
  const std::int64_t unit = std::max<std::int64_t>(1, source.unit);
  const std::int64_t chunk = (chunk_units > 0 ? chunk_units : std::int64_t{1} << 14) * unit;
  const std::int64_t chunks = (local_.size() + chunk - 1) / chunk;
  std::atomic<std::int64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  std::string error;
  auto fail = [&](const std::string& why) {
    std::lock_guard<std::mutex> lock(error_mutex);
    if (error.empty()) error = why;
    failed = true;
  };
  auto work = [&]() {
    try {
      RowBlock blk;
      std::string why;
      for (std::int64_t c = next++; c < chunks && !failed; c = next++) {
        const std::int64_t begin = local_.begin + c * chunk;
        const std::int64_t end = std::min(local_.end, begin + chunk);
        source.generate(Range{begin, end}, blk);
        if (blk.first_row != begin || blk.num_rows() != end - begin) {
          fail("the row source gave other rows than asked");
          return;
        }
        for (std::int64_t r = 0; r < blk.num_rows(); ++r) {
          if (!write_row(begin + r, blk, r, why)) {
            fail(why);
            return;
          }
        }
      }
    } catch (const std::exception& e) {
      fail(e.what());
    } catch (...) {
      fail("unknown exception");
    }
  };
  const int helpers = static_cast<int>(std::min<std::int64_t>(std::max(1, threads), chunks)) - 1;
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(std::max(0, helpers)));
  for (int t = 0; t < helpers; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (failed) throw std::logic_error("direct update of the matrix values: " + error);
}

void LinearSystem::update_values(const RowRangeSource& source, cli::UpdateKind kind, int threads,
                                 std::int64_t chunk_units) {
  backend::migrate_to_host(A_);
  // Initialize and Assemble around the new values on both paths: the library's Assemble hook
  // then drops what it derived from the old values
  checked(HYPRE_IJMatrixInitialize_v2(ij_A_, HYPRE_MEMORY_HOST), "HYPRE_IJMatrixInitialize");
  if (kind == cli::UpdateKind::Direct) {
    write_values_direct(source, threads, chunk_units);
  } else {
    checked(set_values(as_row_source(source, local_)), "HYPRE_IJMatrixSetValues");
  }
  checked(HYPRE_IJMatrixAssemble(ij_A_), "HYPRE_IJMatrixAssemble");
  void* object = nullptr;
  checked(HYPRE_IJMatrixGetObject(ij_A_, &object), "HYPRE_IJMatrixGetObject");
  if (static_cast<HYPRE_ParCSRMatrix>(object) != A_) {
    throw std::logic_error("HYPRE_IJMatrixAssemble replaced the ParCSR object");
  }
  backend::migrate_to_device(A_);
}

LinearSystem::~LinearSystem() {
  if (ij_r_) HYPRE_IJVectorDestroy(ij_r_);
  if (ij_x_) HYPRE_IJVectorDestroy(ij_x_);
  if (ij_b_) HYPRE_IJVectorDestroy(ij_b_);
  if (ij_A_) HYPRE_IJMatrixDestroy(ij_A_);
}

double LinearSystem::true_relative_residual() const {
  HYPRE_ParVectorCopy(b_, r_);
  HYPRE_ParCSRMatrixMatvec(-1.0, A_, x_, 1.0, r_);
  HYPRE_Real rr = 0.0;
  HYPRE_Real bb = 0.0;
  HYPRE_ParVectorInnerProd(r_, r_, &rr);
  HYPRE_ParVectorInnerProd(b_, b_, &bb);
  return bb > 0.0 ? std::sqrt(rr / bb) : std::sqrt(rr);
}

// ---------------------------------------------------------------------------------------

RunResult run_once(const LinearSystem& system, const cli::Options& o, MPI_Comm comm,
                   bool collect_levels) {
  RunResult res;
  HYPRE_ParVectorSetConstantValues(system.x(), 0.0);
  const bool pcg = o.solver == cli::SolverKind::Pcg;
  const int solves = o.solves >= 1 ? o.solves : 1;

  HYPRE_ClearAllErrors();
  SolverGuard g;
  create_solver(g, o, comm);

  // my_times[0]: the setup, my_times[1 + k]: solve k; the max over ranks of each at the end
  std::vector<double> my_times(static_cast<std::size_t>(1 + solves), 0.0);
  const double t0 = synced_time(comm);
  if (pcg) {
    HYPRE_ParCSRPCGSetup(g.pcg, system.A(), system.b(), system.x());
  } else {
    HYPRE_BoomerAMGSetup(g.amg, system.A(), system.b(), system.x());
  }
  const double t1 = synced_time(comm);
  my_times[0] = t1 - t0;
  int setup_err = HYPRE_GetError();
  HYPRE_ClearAllErrors();

  // The same system each time, from the same x0 (a time-stepping code with a fixed matrix
  // whose steps do the same work): x is reset before each solve, outside the timings.
  int solve_err = 0;
  for (int k = 0; k < solves; ++k) {
    if (k > 0) HYPRE_ParVectorSetConstantValues(system.x(), 0.0);
    const double t2 = synced_time(comm);
    if (pcg) {
      HYPRE_ParCSRPCGSolve(g.pcg, system.A(), system.b(), system.x());
    } else {
      HYPRE_BoomerAMGSolve(g.amg, system.A(), system.b(), system.x());
    }
    const double t3 = synced_time(comm);
    my_times[static_cast<std::size_t>(1 + k)] = t3 - t2;
    solve_err |= HYPRE_GetError();
    HYPRE_ClearAllErrors();
    HYPRE_Int iters = 0;
    if (pcg) {
      HYPRE_ParCSRPCGGetNumIterations(g.pcg, &iters);
    } else {
      HYPRE_BoomerAMGGetNumIterations(g.amg, &iters);
    }
    HYPRE_ClearAllErrors();
    res.solve_iterations.push_back(static_cast<int>(iters));
  }

  std::vector<double> times(my_times.size(), 0.0);
  MPI_Allreduce(my_times.data(), times.data(), static_cast<int>(times.size()), MPI_DOUBLE, MPI_MAX,
                comm);
  res.setup_s = times[0];
  res.solve_s.assign(times.begin() + 1, times.end());

  // HYPRE_ERROR_CONV only says "did not converge": reported through the residual instead.
  int my_errs[3] = {setup_err & ~HYPRE_ERROR_CONV, solve_err & ~HYPRE_ERROR_CONV,
                    ((setup_err | solve_err) & HYPRE_ERROR_CONV) ? 1 : 0};
  int errs[3] = {0, 0, 0};
  MPI_Allreduce(my_errs, errs, 3, MPI_INT, MPI_BOR, comm);
  res.setup_error = errs[0];
  res.solve_error = errs[1];
  res.hypre_error = errs[0] | errs[1];
  res.hit_conv_error = errs[2] != 0;

  HYPRE_Real rel = 0.0;
  if (pcg) {
    HYPRE_ParCSRPCGGetFinalRelativeResidualNorm(g.pcg, &rel);
  } else {
    HYPRE_BoomerAMGGetFinalRelativeResidualNorm(g.amg, &rel);
    // With tol = 0 BoomerAMG computes no residual; the caller measures it.
    if (o.tol <= 0.0) rel = std::numeric_limits<double>::quiet_NaN();
  }
  HYPRE_ClearAllErrors();
  res.iterations = res.solve_iterations.back();
  res.rel_residual = static_cast<double>(rel);
  res.levels = backend::amg_num_levels(g.amg);
  if (collect_levels) backend::amg_level_sizes(g.amg, res.level_rows, res.level_nnz);
  if (collect_levels && o.galerkin_work) res.galerkin_note = backend::amg_galerkin_work(g.amg, res.galerkin);
  return res;
}

// ---------------------------------------------------------------------------------------

RunResult run_steps(LinearSystem& system, const cli::Options& o, MPI_Comm comm,
                    bool collect_levels, const std::function<void(int step)>& load_values) {
  RunResult res;
  const bool pcg = o.solver == cli::SolverKind::Pcg;
  const int steps = std::max(1, o.steps);

  HYPRE_ClearAllErrors();
  SolverGuard g;
  int setup_err = 0;
  int solve_err = 0;
  for (int k = 0; k < steps; ++k) {
    StepResult st;
    // New values into the same IJ matrix (untimed apart from the step's setup and solve).
    const double u0 = synced_time(comm);
    load_values(k);
    const double u1 = synced_time(comm);
    HYPRE_ParVectorSetConstantValues(system.x(), 0.0);
    if (k == 0) create_solver(g, o, comm);  // one solver object for the whole sequence
    HYPRE_ClearAllErrors();

    double my_times[3] = {u1 - u0, 0.0, 0.0};  // update, setup, solve
    st.setup_called = k == 0 || o.frozen == 0;
    if (st.setup_called) {
      const double t0 = synced_time(comm);
      if (pcg) {
        HYPRE_ParCSRPCGSetup(g.pcg, system.A(), system.b(), system.x());
      } else {
        HYPRE_BoomerAMGSetup(g.amg, system.A(), system.b(), system.x());
      }
      const double t1 = synced_time(comm);
      my_times[1] = t1 - t0;
      setup_err |= HYPRE_GetError();
      HYPRE_ClearAllErrors();
    }

    const double t2 = synced_time(comm);
    if (pcg) {
      HYPRE_ParCSRPCGSolve(g.pcg, system.A(), system.b(), system.x());
    } else {
      HYPRE_BoomerAMGSolve(g.amg, system.A(), system.b(), system.x());
    }
    const double t3 = synced_time(comm);
    my_times[2] = t3 - t2;
    solve_err |= HYPRE_GetError();
    HYPRE_ClearAllErrors();

    HYPRE_Int iters = 0;
    HYPRE_Real rel = 0.0;
    if (pcg) {
      HYPRE_ParCSRPCGGetNumIterations(g.pcg, &iters);
      HYPRE_ParCSRPCGGetFinalRelativeResidualNorm(g.pcg, &rel);
    } else {
      HYPRE_BoomerAMGGetNumIterations(g.amg, &iters);
      HYPRE_BoomerAMGGetFinalRelativeResidualNorm(g.amg, &rel);
    }
    HYPRE_ClearAllErrors();
    // BoomerAMG with tol 0 computes no residual: measure it (one SpMV, untimed).
    if (!pcg && o.tol <= 0.0) rel = system.true_relative_residual();

    double times[3] = {0.0, 0.0, 0.0};
    MPI_Allreduce(my_times, times, 3, MPI_DOUBLE, MPI_MAX, comm);
    st.update_s = k == 0 ? 0.0 : times[0];
    st.setup_s = times[1];
    st.solve_s = times[2];
    st.iterations = static_cast<int>(iters);
    st.rel_residual = static_cast<double>(rel);
    res.setup_s += st.setup_s;
    res.solve_s.push_back(st.solve_s);
    res.solve_iterations.push_back(st.iterations);
    res.steps.push_back(st);
  }

  int my_errs[3] = {setup_err & ~HYPRE_ERROR_CONV, solve_err & ~HYPRE_ERROR_CONV,
                    ((setup_err | solve_err) & HYPRE_ERROR_CONV) ? 1 : 0};
  int errs[3] = {0, 0, 0};
  MPI_Allreduce(my_errs, errs, 3, MPI_INT, MPI_BOR, comm);
  res.setup_error = errs[0];
  res.solve_error = errs[1];
  res.hypre_error = errs[0] | errs[1];
  res.hit_conv_error = errs[2] != 0;

  // iterations: the last step's; the residual: the worst step's (NaN wins)
  res.iterations = res.steps.back().iterations;
  res.rel_residual = 0.0;
  for (const StepResult& st : res.steps) {
    if (std::isnan(st.rel_residual) || st.rel_residual > res.rel_residual) res.rel_residual = st.rel_residual;
    if (std::isnan(res.rel_residual)) break;
  }
  res.levels = backend::amg_num_levels(g.amg);
  if (collect_levels) backend::amg_level_sizes(g.amg, res.level_rows, res.level_nnz);
  if (collect_levels && o.galerkin_work) res.galerkin_note = backend::amg_galerkin_work(g.amg, res.galerkin);
  return res;
}

}  // namespace amgt
