// amg-lifecycle: a small hypre client (IJ interface, BoomerAMG with the benchmark settings,
// as bench/amgt_solve builds it) that the reliability tests run as a child process, once per
// AMGT mode (the library reads AMGT once per process). It prints `key value...` lines that
// the tests compare between processes.
//
//   amg-lifecycle memory  [--cycles 200] [--warmup 20] [--n 10] [--sample 10]
//       cycles of create IJ matrix + vectors + solver / setup / solve / destroy all (even
//       cycles BoomerAMG as the solver, odd ones PCG + BoomerAMG); resident memory from
//       /proc/self/statm after the warm-up cycles and every `sample` cycles after that
//   amg-lifecycle cache   [--n 10] [--references]
//       setup + solve; new values in the user's matrix (same structure) through
//       IJMatrixInitialize / SetValues / Assemble; solve with the old setup; setup again
//       (same solver, then a fresh one) and solve; then two solvers on two matrices, alive
//       together, with interleaved setups and solves. --references: each of those matrices
//       alone, built with its final values from the start (fresh_* keys)
//   amg-lifecycle resetup [--n 10] [--steps 6] [--structure-step S] [--pcg] [--frozen-check]
//                         [--device] [--rss-every R] [--diag-jump S]
//       one solver, one IJ matrix: every step writes new values (same structure) and calls
//       the setup again (the situation of AMGT_RESETUP), then solves; at step S the matrix
//       gains two symmetric couplings (a new structure: a full setup is due). --frozen-check:
//       after each setup, each coarse operator against hypre's own P^T A P of the hierarchy's
//       P and A (the Galerkin products of a full setup with C/F splitting and P frozen),
//       printed as `frozen level L entries_equal 0|1 max_rel_diff X`. --rss-every R: resident
//       memory and the C heap in use every R steps (the re-setup's own memory must not grow). --diag-jump S: from step
//       S on the first half of the rows have 10x their diagonals. --device: device
//       memory and execution (GPU builds)
//   amg-lifecycle history [--n 12] [--cycles 12]
//       one V-cycle per BoomerAMGSolve call, the relative residual after each printed in
//       hex (%a: every bit), then a hash of the solution's bits; then a PCG solve
//
// Works on any number of MPI ranks (contiguous row blocks).
#include "HYPRE_config.h"
#include "HYPRE_utilities.h"
#if defined(HYPRE_SEQUENTIAL)
#include "_hypre_utilities.h" // hypre's MPI stubs (a build without MPI)
#else
#include <mpi.h>
#endif

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <tuple>
#include <vector>

#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "HYPRE.h"
#include "HYPRE_IJ_mv.h"
#include "HYPRE_krylov.h"
#include "HYPRE_parcsr_ls.h"
// the hierarchy's matrices, for the re-setup's frozen check (hypre's own internal headers)
#include "_hypre_parcsr_ls.h"
#include "par_amg.h"

namespace {

int  g_rank   = 0;
int  g_size   = 1;
bool g_device = false; // --device: device memory and execution (GPU builds)
bool g_extra  = false; // resetup --structure-step: set_rows adds two couplings (a new structure)
int  g_n      = 0;     // resetup: the grid's n

[[noreturn]] void die(const std::string& what)
{
   std::fprintf(stderr, "amg-lifecycle: rank %d: %s\n", g_rank, what.c_str());
   MPI_Abort(MPI_COMM_WORLD, 2);
   std::abort();
}

void check(HYPRE_Int err, const char* what)
{
   if (err != 0) die(std::string(what) + " returned hypre error " + std::to_string(err));
}

// The user's matrix is assembled in host memory and, with --device, moved to the device after
// each assembly (as hypre's ij driver and amgt-solve do: IJ SetValues takes host arrays here).
void initialize_on_host(HYPRE_IJMatrix ij, const char* what)
{
   check(HYPRE_IJMatrixInitialize_v2(ij, HYPRE_MEMORY_HOST), what);
}

void to_host(HYPRE_IJMatrix ij)
{
   void* obj = nullptr;
   if (!g_device || HYPRE_IJMatrixGetObject(ij, &obj) != 0 || !obj) return;
   hypre_ParCSRMatrixMigrate(static_cast<hypre_ParCSRMatrix*>(obj), HYPRE_MEMORY_HOST);
}

void to_device(HYPRE_IJMatrix ij)
{
   void* obj = nullptr;
   if (!g_device || HYPRE_IJMatrixGetObject(ij, &obj) != 0 || !obj) return;
   hypre_ParCSRMatrixMigrate(static_cast<hypre_ParCSRMatrix*>(obj), HYPRE_MEMORY_DEVICE);
}

// 7-point Laplacian on an n^3 grid (Dirichlet boundary eliminated), rows split in contiguous
// blocks. diag(i) gives the diagonal of global row i; off-diagonals are -1.
struct Problem
{
   int    n = 10;
   double (*diag)(HYPRE_BigInt row) = [](HYPRE_BigInt) { return 6.0; };
};

// A changed diagonal: 6 + (0..3), irregular in i, so convergence really changes (a uniform
// scaling would leave every AMG iterate the same, and a stale copy could pass unnoticed).
double shifted_diag(HYPRE_BigInt i)
{
   return 6.0 + 3.0 * static_cast<double>((i * 7919) % 101) / 100.0;
}

struct System
{
   HYPRE_IJMatrix     ij_A = nullptr;
   HYPRE_IJVector     ij_b = nullptr, ij_x = nullptr;
   HYPRE_ParCSRMatrix A    = nullptr;
   HYPRE_ParVector    b = nullptr, x = nullptr;
   HYPRE_BigInt       lo = 0, hi = -1;
   int                n  = 0;
};

void local_range(HYPRE_BigInt rows, HYPRE_BigInt& lo, HYPRE_BigInt& hi)
{
   const HYPRE_BigInt base = rows / g_size, extra = rows % g_size;
   lo = g_rank * base + (g_rank < extra ? g_rank : extra);
   hi = lo + base + (g_rank < extra ? 1 : 0) - 1;
}

// Writes rows lo..hi with diagonal values from diag(); structure is always the full stencil.
void set_rows(System& s, double (*diag)(HYPRE_BigInt))
{
   const int          n = s.n;
   std::vector<HYPRE_BigInt> cols;
   std::vector<double>       vals;
   for (HYPRE_BigInt row = s.lo; row <= s.hi; ++row)
   {
      cols.clear();
      vals.clear();
      const HYPRE_BigInt i = row % n, j = (row / n) % n, k = row / (static_cast<HYPRE_BigInt>(n) * n);
      cols.push_back(row);
      vals.push_back(diag(row));
      const HYPRE_BigInt nb[6][3] = {{i - 1, j, k}, {i + 1, j, k}, {i, j - 1, k},
                                     {i, j + 1, k}, {i, j, k - 1}, {i, j, k + 1}};
      for (const auto& p : nb)
      {
         if (p[0] < 0 || p[0] >= n || p[1] < 0 || p[1] >= n || p[2] < 0 || p[2] >= n) continue;
         cols.push_back(p[0] + n * (p[1] + static_cast<HYPRE_BigInt>(n) * p[2]));
         vals.push_back(-1.0);
      }
      const HYPRE_BigInt last = static_cast<HYPRE_BigInt>(n) * n * n - 1;
      if (g_extra && (row == 0 || row == last) && last > 0)
      {
         cols.push_back(row == 0 ? last : 0);
         vals.push_back(-0.5);
         vals[0] += 0.5;
      }
      HYPRE_Int    nc = static_cast<HYPRE_Int>(cols.size());
      HYPRE_BigInt r  = row;
      check(HYPRE_IJMatrixSetValues(s.ij_A, 1, &nc, &r, cols.data(), vals.data()), "IJMatrixSetValues");
   }
}

System make_system(const Problem& p)
{
   System s;
   s.n = p.n;
   local_range(static_cast<HYPRE_BigInt>(p.n) * p.n * p.n, s.lo, s.hi);
   check(HYPRE_IJMatrixCreate(MPI_COMM_WORLD, s.lo, s.hi, s.lo, s.hi, &s.ij_A), "IJMatrixCreate");
   check(HYPRE_IJMatrixSetObjectType(s.ij_A, HYPRE_PARCSR), "IJMatrixSetObjectType");
   initialize_on_host(s.ij_A, "IJMatrixInitialize");
   set_rows(s, p.diag);
   check(HYPRE_IJMatrixAssemble(s.ij_A), "IJMatrixAssemble");
   to_device(s.ij_A);
   void* obj = nullptr;
   check(HYPRE_IJMatrixGetObject(s.ij_A, &obj), "IJMatrixGetObject");
   s.A = static_cast<HYPRE_ParCSRMatrix>(obj);
   for (auto [ij, par, value] : {std::tuple<HYPRE_IJVector*, HYPRE_ParVector*, double>{&s.ij_b, &s.b, 1.0},
                                 std::tuple<HYPRE_IJVector*, HYPRE_ParVector*, double>{&s.ij_x, &s.x, 0.0}})
   {
      check(HYPRE_IJVectorCreate(MPI_COMM_WORLD, s.lo, s.hi, ij), "IJVectorCreate");
      check(HYPRE_IJVectorSetObjectType(*ij, HYPRE_PARCSR), "IJVectorSetObjectType");
      check(HYPRE_IJVectorInitialize(*ij), "IJVectorInitialize");
      check(HYPRE_IJVectorAssemble(*ij), "IJVectorAssemble");
      void* v = nullptr;
      check(HYPRE_IJVectorGetObject(*ij, &v), "IJVectorGetObject");
      *par = static_cast<HYPRE_ParVector>(v);
      check(HYPRE_ParVectorSetConstantValues(*par, value), "ParVectorSetConstantValues");
   }
   return s;
}

// New values for the existing entries: re-initialize the assembled matrix, set, assemble.
void change_values(System& s, double (*diag)(HYPRE_BigInt))
{
   check(HYPRE_IJMatrixInitialize(s.ij_A), "IJMatrixInitialize (again)");
   set_rows(s, diag);
   check(HYPRE_IJMatrixAssemble(s.ij_A), "IJMatrixAssemble (again)");
   void* obj = nullptr;
   check(HYPRE_IJMatrixGetObject(s.ij_A, &obj), "IJMatrixGetObject");
   s.A = static_cast<HYPRE_ParCSRMatrix>(obj);
}

void destroy(System& s)
{
   HYPRE_IJVectorDestroy(s.ij_x);
   HYPRE_IJVectorDestroy(s.ij_b);
   HYPRE_IJMatrixDestroy(s.ij_A);
   s = System{};
}

// The benchmark settings of bench/amgt_solve (PMIS, theta 0.25, max row sum 0.8, ext+i
// with trunc 0.1 / 4 per row, l1-Jacobi, 7 levels) and, as its CPU build does, the modular
// RAP with a kept transpose so that the setup products go through hypre's host SpGEMM,
// where the plugin hooks in.
HYPRE_Solver make_amg(bool as_preconditioner)
{
   HYPRE_Solver amg = nullptr;
   check(HYPRE_BoomerAMGCreate(&amg), "BoomerAMGCreate");
   HYPRE_BoomerAMGSetCoarsenType(amg, 8);
   HYPRE_BoomerAMGSetStrongThreshold(amg, 0.25);
   HYPRE_BoomerAMGSetMaxRowSum(amg, 0.8);
   HYPRE_BoomerAMGSetMaxCoarseSize(amg, 3);
   HYPRE_BoomerAMGSetInterpType(amg, 6);
   HYPRE_BoomerAMGSetTruncFactor(amg, 0.1);
   HYPRE_BoomerAMGSetPMaxElmts(amg, 4);
   HYPRE_BoomerAMGSetRelaxType(amg, 18);
   HYPRE_BoomerAMGSetNumSweeps(amg, 1);
   HYPRE_BoomerAMGSetMaxLevels(amg, 7);
   HYPRE_BoomerAMGSetPrintLevel(amg, 0);
   if (!g_device) HYPRE_BoomerAMGSetModuleRAP2(amg, 1);
   HYPRE_BoomerAMGSetKeepTranspose(amg, 1);
   if (as_preconditioner)
   {
      HYPRE_BoomerAMGSetTol(amg, 0.0);
      HYPRE_BoomerAMGSetMaxIter(amg, 1);
   }
   else
   {
      HYPRE_BoomerAMGSetTol(amg, 1e-8);
      HYPRE_BoomerAMGSetMaxIter(amg, 100);
   }
   return amg;
}

struct Result
{
   int    iterations = 0;
   double residual   = 0.0;
};

Result amg_solve(HYPRE_Solver amg, System& s)
{
   check(HYPRE_ParVectorSetConstantValues(s.x, 0.0), "ParVectorSetConstantValues");
   HYPRE_ClearAllErrors();
   HYPRE_BoomerAMGSolve(amg, s.A, s.b, s.x);
   const HYPRE_Int err = HYPRE_GetError();
   if (err & ~HYPRE_ERROR_CONV) die("BoomerAMGSolve: hypre error " + std::to_string(err));
   HYPRE_ClearAllErrors();
   Result    r;
   HYPRE_Int it = 0;
   HYPRE_BoomerAMGGetNumIterations(amg, &it);
   HYPRE_BoomerAMGGetFinalRelativeResidualNorm(amg, &r.residual);
   r.iterations = static_cast<int>(it);
   return r;
}

void amg_setup(HYPRE_Solver amg, System& s)
{
   HYPRE_ClearAllErrors();
   HYPRE_BoomerAMGSetup(amg, s.A, s.b, s.x);
   const HYPRE_Int err = HYPRE_GetError();
   if (err) die("BoomerAMGSetup: hypre error " + std::to_string(err));
}

void print_result(const char* key, const Result& r)
{
   if (g_rank == 0) std::printf("%s iterations %d residual %.17g\n", key, r.iterations, r.residual);
}

long arg_int(int argc, char** argv, const char* name, long fallback)
{
   for (int a = 2; a + 1 < argc; ++a)
      if (std::strcmp(argv[a], name) == 0) return std::strtol(argv[a + 1], nullptr, 10);
   return fallback;
}

// ---- memory ---------------------------------------------------------------------------

// The bytes the C heap holds for the program (small blocks in use + mmapped blocks): beside
// the resident set, it separates a heap that grows (memory allocated and kept) from pages
// that the GPU driver or the allocator map outside the heap.
long heap_in_use_kib()
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
   const struct mallinfo2 m = mallinfo2();
   return static_cast<long>((m.uordblks + m.hblkhd) / 1024);
#else
   return -1;
#endif
}

long resident_kib()
{
   // Free heap pages go back to the system first (glibc: also free pages inside the heap),
   // so the figure follows live memory rather than what the allocator keeps cached.
#if defined(__GLIBC__)
   malloc_trim(0);
#endif
   // /proc/self/statm: size resident shared text lib data dt, in pages
   std::FILE* f = std::fopen("/proc/self/statm", "r");
   if (!f) die("cannot read /proc/self/statm");
   long size = 0, resident = 0;
   if (std::fscanf(f, "%ld %ld", &size, &resident) != 2) die("cannot parse /proc/self/statm");
   std::fclose(f);
   return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

void one_cycle(int n, bool pcg)
{
   Problem p;
   p.n      = n;
   System s = make_system(p);
   HYPRE_Solver amg = make_amg(pcg);
   if (pcg)
   {
      HYPRE_Solver solver = nullptr;
      check(HYPRE_ParCSRPCGCreate(MPI_COMM_WORLD, &solver), "ParCSRPCGCreate");
      HYPRE_PCGSetMaxIter(solver, 100);
      HYPRE_PCGSetTol(solver, 1e-8);
      HYPRE_PCGSetTwoNorm(solver, 1);
      HYPRE_PCGSetPrecond(solver, reinterpret_cast<HYPRE_PtrToSolverFcn>(HYPRE_BoomerAMGSolve),
                          reinterpret_cast<HYPRE_PtrToSolverFcn>(HYPRE_BoomerAMGSetup), amg);
      HYPRE_ParCSRPCGSetup(solver, s.A, s.b, s.x);
      HYPRE_ParCSRPCGSolve(solver, s.A, s.b, s.x);
      HYPRE_Real res = 1.0;
      HYPRE_ParCSRPCGGetFinalRelativeResidualNorm(solver, &res);
      if (!(res <= 1e-8)) die("PCG did not converge in a memory cycle: " + std::to_string(res));
      HYPRE_ParCSRPCGDestroy(solver);
   }
   else
   {
      amg_setup(amg, s);
      const Result r = amg_solve(amg, s);
      if (!(r.residual <= 1e-8)) die("BoomerAMG did not converge in a memory cycle");
   }
   HYPRE_BoomerAMGDestroy(amg);
   destroy(s);
}

int cmd_memory(int argc, char** argv)
{
   const long cycles = arg_int(argc, argv, "--cycles", 200);
   const long warmup = arg_int(argc, argv, "--warmup", 20);
   const int  n      = static_cast<int>(arg_int(argc, argv, "--n", 10));
   const long sample = arg_int(argc, argv, "--sample", 10);
   if (g_rank == 0) std::printf("rss_start_kib %ld\n", resident_kib());
   for (long c = 0; c < cycles; ++c)
   {
      one_cycle(n, c % 2 == 1);
      const long done = c + 1;
      if (g_rank == 0 && done == warmup) std::printf("rss_after_warmup_kib %ld cycle %ld\n", resident_kib(), done);
      if (g_rank == 0 && done > warmup && sample > 0 && done % sample == 0)
         std::printf("rss_sample_kib %ld cycle %ld\n", resident_kib(), done);
   }
   if (g_rank == 0) std::printf("rss_final_kib %ld cycles %ld\n", resident_kib(), cycles);
   return 0;
}

// ---- cache validity ------------------------------------------------------------------

// A milder change, for solving with the old setup: the old hierarchy still converges on it.
double mildly_shifted_diag(HYPRE_BigInt i)
{
   return 6.0 + 0.6 * static_cast<double>((i * 7919) % 101) / 100.0;
}

bool has_flag(int argc, char** argv, const char* name)
{
   for (int a = 2; a < argc; ++a)
      if (std::strcmp(argv[a], name) == 0) return true;
   return false;
}

// Every matrix of `cache`, each in a solver of its own, set up once on values that never
// change: the reference that the results of `cache` must equal bit for bit (same mode).
void cache_references(int n)
{
   const struct
   {
      const char* key;
      int         n;
      double (*diag)(HYPRE_BigInt);
   } cases[] = {{"fresh_original", n, [](HYPRE_BigInt) { return 6.0; }},
                {"fresh_mild", n, mildly_shifted_diag},
                {"fresh_changed", n, shifted_diag},
                {"fresh_s2", n - 1, shifted_diag}};
   for (const auto& c : cases)
   {
      Problem p;
      p.n              = c.n;
      p.diag           = c.diag;
      System       s   = make_system(p);
      HYPRE_Solver amg = make_amg(false);
      amg_setup(amg, s);
      print_result(c.key, amg_solve(amg, s));
      HYPRE_BoomerAMGDestroy(amg);
      destroy(s);
   }
}

int cmd_cache(int argc, char** argv)
{
   const int n = static_cast<int>(arg_int(argc, argv, "--n", 10));
   if (has_flag(argc, argv, "--references"))
   {
      cache_references(n);
      return 0;
   }
   Problem p;
   p.n = n;

   // 1. one matrix, values changed under the same hypre objects
   {
      System       s   = make_system(p);
      HYPRE_Solver amg = make_amg(false);
      amg_setup(amg, s);
      print_result("original", amg_solve(amg, s));

      change_values(s, mildly_shifted_diag);
      // hypre's semantics: the fine level is the user's (now changed) matrix, the coarse
      // levels are still those of the old setup
      print_result("mild_old_setup", amg_solve(amg, s));
      amg_setup(amg, s);
      print_result("mild_resetup", amg_solve(amg, s));

      change_values(s, shifted_diag);
      amg_setup(amg, s); // the same solver object, set up again
      print_result("changed_resetup", amg_solve(amg, s));
      HYPRE_BoomerAMGDestroy(amg);

      amg = make_amg(false); // a fresh solver on the changed matrix
      amg_setup(amg, s);
      print_result("changed_fresh_solver", amg_solve(amg, s));
      HYPRE_BoomerAMGDestroy(amg);
      destroy(s);
   }

   // 2. two solvers alive at once on two different matrices; setups and solves interleaved
   {
      Problem p2;
      p2.n      = n - 1;
      p2.diag   = shifted_diag;
      System       s1 = make_system(p);
      System       s2 = make_system(p2);
      HYPRE_Solver a1 = make_amg(false);
      HYPRE_Solver a2 = make_amg(false);
      amg_setup(a1, s1);
      print_result("two_s1_first", amg_solve(a1, s1));
      amg_setup(a2, s2); // a setup of another solver while the first one is alive
      print_result("two_s2_first", amg_solve(a2, s2));
      print_result("two_s1_second", amg_solve(a1, s1));
      print_result("two_s2_second", amg_solve(a2, s2));
      amg_setup(a1, s1); // and the first one set up again while the second is alive
      print_result("two_s2_third", amg_solve(a2, s2));
      print_result("two_s1_third", amg_solve(a1, s1));
      HYPRE_BoomerAMGDestroy(a1);
      print_result("two_s2_after_s1_destroyed", amg_solve(a2, s2));
      HYPRE_BoomerAMGDestroy(a2);
      destroy(s2);
      destroy(s1);
   }
   return 0;
}

// ---- determinism -----------------------------------------------------------------------

double relative_residual(System& s, HYPRE_ParVector r)
{
   HYPRE_ParVectorCopy(s.b, r);
   HYPRE_ParCSRMatrixMatvec(-1.0, s.A, s.x, 1.0, r);
   double rr = 0.0, bb = 0.0;
   HYPRE_ParVectorInnerProd(r, r, &rr);
   HYPRE_ParVectorInnerProd(s.b, s.b, &bb);
   return std::sqrt(rr / bb);
}

int cmd_history(int argc, char** argv)
{
   Problem p;
   p.n               = static_cast<int>(arg_int(argc, argv, "--n", 12));
   const long cycles = arg_int(argc, argv, "--cycles", 12);
   System     s      = make_system(p);

   HYPRE_IJVector  ij_r = nullptr;
   HYPRE_ParVector r    = nullptr;
   check(HYPRE_IJVectorCreate(MPI_COMM_WORLD, s.lo, s.hi, &ij_r), "IJVectorCreate");
   check(HYPRE_IJVectorSetObjectType(ij_r, HYPRE_PARCSR), "IJVectorSetObjectType");
   check(HYPRE_IJVectorInitialize(ij_r), "IJVectorInitialize");
   check(HYPRE_IJVectorAssemble(ij_r), "IJVectorAssemble");
   void* obj = nullptr;
   HYPRE_IJVectorGetObject(ij_r, &obj);
   r = static_cast<HYPRE_ParVector>(obj);

   HYPRE_Solver amg = make_amg(true); // one V-cycle per call, x carried over
   amg_setup(amg, s);
   HYPRE_ParVectorSetConstantValues(s.x, 0.0);
   for (long c = 1; c <= cycles; ++c)
   {
      HYPRE_BoomerAMGSolve(amg, s.A, s.b, s.x);
      const double rel = relative_residual(s, r);
      if (g_rank == 0) std::printf("amg_cycle %ld %a %.17g\n", c, rel, rel);
   }
   // every bit of the local solution, folded (FNV-1a), then combined over ranks in order
   std::vector<HYPRE_BigInt> idx;
   for (HYPRE_BigInt i = s.lo; i <= s.hi; ++i) idx.push_back(i);
   std::vector<double> xs(idx.size());
   HYPRE_IJVectorGetValues(s.ij_x, static_cast<HYPRE_Int>(idx.size()), idx.data(), xs.data());
   uint64_t h = 1469598103934665603ull;
   for (double v : xs)
   {
      uint64_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      for (int k = 0; k < 8; ++k) h = (h ^ ((bits >> (8 * k)) & 0xff)) * 1099511628211ull;
   }
   std::vector<unsigned long long> all(static_cast<size_t>(g_size));
   unsigned long long              mine = h;
   MPI_Gather(&mine, 1, MPI_UNSIGNED_LONG_LONG, all.data(), 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
   if (g_rank == 0)
   {
      std::printf("x_hash");
      for (unsigned long long v : all) std::printf(" %016llx", v);
      std::printf("\n");
   }
   HYPRE_BoomerAMGDestroy(amg);

   // PCG + BoomerAMG: iterations and the final residual, every bit
   HYPRE_Solver pcg = nullptr;
   amg              = make_amg(true);
   check(HYPRE_ParCSRPCGCreate(MPI_COMM_WORLD, &pcg), "ParCSRPCGCreate");
   HYPRE_PCGSetMaxIter(pcg, 100);
   HYPRE_PCGSetTol(pcg, 1e-10);
   HYPRE_PCGSetTwoNorm(pcg, 1);
   HYPRE_PCGSetPrecond(pcg, reinterpret_cast<HYPRE_PtrToSolverFcn>(HYPRE_BoomerAMGSolve),
                       reinterpret_cast<HYPRE_PtrToSolverFcn>(HYPRE_BoomerAMGSetup), amg);
   HYPRE_ParVectorSetConstantValues(s.x, 0.0);
   HYPRE_ParCSRPCGSetup(pcg, s.A, s.b, s.x);
   HYPRE_ParCSRPCGSolve(pcg, s.A, s.b, s.x);
   HYPRE_Int  it  = 0;
   HYPRE_Real res = 0.0;
   HYPRE_ParCSRPCGGetNumIterations(pcg, &it);
   HYPRE_ParCSRPCGGetFinalRelativeResidualNorm(pcg, &res);
   if (g_rank == 0) std::printf("pcg iterations %d residual %a\n", static_cast<int>(it), res);
   HYPRE_ParCSRPCGDestroy(pcg);
   HYPRE_BoomerAMGDestroy(amg);
   HYPRE_IJVectorDestroy(ij_r);
   destroy(s);
   return 0;
}

// ---- re-setup (AMGT_RESETUP) ------------------------------------------------------------

int g_step      = 0;  // the step whose values set_rows writes
int g_diag_jump = -1; // --diag-jump S: from step S on, the first half's diagonals are 10x

// Seconds on a wall clock, after the device has finished what was enqueued (hypre's setup and
// solve return with work in flight on its compute stream).
double now()
{
#if defined(HYPRE_USING_GPU)
   if (g_device) hypre_SyncComputeStream(hypre_handle());
#endif
   return MPI_Wtime();
}

// Values that drift with the step: the diagonal moves irregularly in the row and the step.
double drifting_diag(HYPRE_BigInt i)
{
   const double d = 6.0 + 3.0 * static_cast<double>((i * 7919 + 577 * g_step) % 101) / 100.0 + 0.25 * g_step;
   const HYPRE_BigInt half = static_cast<HYPRE_BigInt>(g_n) * g_n * g_n / 2;
   return g_diag_jump >= 0 && g_step >= g_diag_jump && i < half ? 10.0 * d : d;
}

// From a step S on (--structure-step): two symmetric couplings between the first and the last
// row (set_rows writes them), a new structure, in a new IJ matrix as an application would make
// it (hypre's IJ interface adds no entry to an assembled matrix).
void rebuild_with_extra_couplings(System& s)
{
   HYPRE_IJMatrixDestroy(s.ij_A);
   g_extra = true;
   check(HYPRE_IJMatrixCreate(MPI_COMM_WORLD, s.lo, s.hi, s.lo, s.hi, &s.ij_A), "IJMatrixCreate");
   check(HYPRE_IJMatrixSetObjectType(s.ij_A, HYPRE_PARCSR), "IJMatrixSetObjectType");
   initialize_on_host(s.ij_A, "IJMatrixInitialize");
}

// Coarse operator L+1 against hypre's own P^T A P of level L's P and A, on the host:
// entries_equal (the same (row, global column) set) and the largest |difference| over the
// largest |reference value|.
void frozen_check(HYPRE_Solver solver)
{
   hypre_ParAMGData*    d      = reinterpret_cast<hypre_ParAMGData*>(solver);
   const int            levels = hypre_ParAMGDataNumLevels(d);
   hypre_ParCSRMatrix** A      = hypre_ParAMGDataAArray(d);
   hypre_ParCSRMatrix** P      = hypre_ParAMGDataPArray(d);
   for (int l = 0; l + 1 < levels; ++l)
   {
      hypre_ParCSRMatrix* ref_dev = hypre_ParCSRMatrixRAPKT(P[l], A[l], P[l], 0);
      hypre_ParCSRMatrix* ref     = hypre_ParCSRMatrixClone_v2(ref_dev, 1, HYPRE_MEMORY_HOST);
      hypre_ParCSRMatrix* got     = hypre_ParCSRMatrixClone_v2(A[l + 1], 1, HYPRE_MEMORY_HOST);
      int    equal = 1;
      double diff = 0.0, scale = 0.0;
      // both blocks of each row as (global column -> value)
      auto row_map = [](hypre_ParCSRMatrix* M, HYPRE_Int i) {
         std::vector<std::pair<HYPRE_BigInt, double>> r;
         hypre_CSRMatrix* dg = hypre_ParCSRMatrixDiag(M);
         hypre_CSRMatrix* od = hypre_ParCSRMatrixOffd(M);
         for (HYPRE_Int k = hypre_CSRMatrixI(dg)[i]; k < hypre_CSRMatrixI(dg)[i + 1]; ++k)
            r.emplace_back(hypre_ParCSRMatrixFirstColDiag(M) + hypre_CSRMatrixJ(dg)[k], hypre_CSRMatrixData(dg)[k]);
         if (hypre_CSRMatrixNumCols(od) > 0)
            for (HYPRE_Int k = hypre_CSRMatrixI(od)[i]; k < hypre_CSRMatrixI(od)[i + 1]; ++k)
               r.emplace_back(hypre_ParCSRMatrixColMapOffd(M)[hypre_CSRMatrixJ(od)[k]], hypre_CSRMatrixData(od)[k]);
         std::sort(r.begin(), r.end());
         return r;
      };
      const HYPRE_Int rows = hypre_CSRMatrixNumRows(hypre_ParCSRMatrixDiag(ref));
      if (rows != hypre_CSRMatrixNumRows(hypre_ParCSRMatrixDiag(got))) equal = 0;
      for (HYPRE_Int i = 0; equal && i < rows; ++i)
      {
         const auto a = row_map(ref, i), b = row_map(got, i);
         if (a.size() != b.size()) { equal = 0; break; }
         for (size_t k = 0; k < a.size(); ++k)
         {
            if (a[k].first != b[k].first) { equal = 0; break; }
            diff  = std::max(diff, std::fabs(a[k].second - b[k].second));
            scale = std::max(scale, std::fabs(a[k].second));
         }
      }
      int    all_equal = 0;
      double all_diff = 0.0, all_scale = 0.0;
      MPI_Allreduce(&equal, &all_equal, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      MPI_Allreduce(&diff, &all_diff, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      MPI_Allreduce(&scale, &all_scale, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (g_rank == 0)
         std::printf("frozen level %d entries_equal %d max_rel_diff %.3e\n", l, all_equal,
                     all_scale > 0 ? all_diff / all_scale : all_diff);
      hypre_ParCSRMatrixDestroy(got);
      hypre_ParCSRMatrixDestroy(ref);
      hypre_ParCSRMatrixDestroy(ref_dev);
   }
}

int cmd_resetup(int argc, char** argv)
{
   const int  n         = static_cast<int>(arg_int(argc, argv, "--n", 10));
   const long steps     = arg_int(argc, argv, "--steps", 6);
   const long structure = arg_int(argc, argv, "--structure-step", -1);
   const long rss_every = arg_int(argc, argv, "--rss-every", 0);
   const bool pcg       = has_flag(argc, argv, "--pcg");
   const bool frozen    = has_flag(argc, argv, "--frozen-check");
   g_diag_jump          = static_cast<int>(arg_int(argc, argv, "--diag-jump", -1));
   g_n                  = n;
   Problem    p;
   p.n      = n;
   g_step   = 0;
   p.diag   = drifting_diag;
   System s = make_system(p);
   HYPRE_Solver amg = make_amg(pcg);
   HYPRE_Solver krylov = nullptr;
   if (pcg)
   {
      check(HYPRE_ParCSRPCGCreate(MPI_COMM_WORLD, &krylov), "ParCSRPCGCreate");
      HYPRE_PCGSetMaxIter(krylov, 100);
      HYPRE_PCGSetTol(krylov, 1e-8);
      HYPRE_PCGSetTwoNorm(krylov, 1);
      HYPRE_PCGSetPrecond(krylov, reinterpret_cast<HYPRE_PtrToSolverFcn>(HYPRE_BoomerAMGSolve),
                          reinterpret_cast<HYPRE_PtrToSolverFcn>(HYPRE_BoomerAMGSetup), amg);
   }
   for (long k = 0; k < steps; ++k)
   {
      g_step = static_cast<int>(k);
      if (k > 0)
      {
         if (k == structure) { rebuild_with_extra_couplings(s); }
         else
         {
            to_host(s.ij_A);
            initialize_on_host(s.ij_A, "IJMatrixInitialize (again)");
         }
         set_rows(s, drifting_diag);
         check(HYPRE_IJMatrixAssemble(s.ij_A), "IJMatrixAssemble (again)");
         to_device(s.ij_A);
         void* obj = nullptr;
         check(HYPRE_IJMatrixGetObject(s.ij_A, &obj), "IJMatrixGetObject");
         s.A = static_cast<HYPRE_ParCSRMatrix>(obj);
      }
      Result r;
      check(HYPRE_ParVectorSetConstantValues(s.x, 0.0), "ParVectorSetConstantValues");
      double setup_s = 0.0, solve_s = 0.0;
      if (pcg)
      {
         HYPRE_ClearAllErrors();
         setup_s = -now();
         HYPRE_ParCSRPCGSetup(krylov, s.A, s.b, s.x);
         setup_s += now();
         if (HYPRE_GetError()) die("PCG setup failed");
         if (frozen) frozen_check(amg);
         solve_s = -now();
         HYPRE_ParCSRPCGSolve(krylov, s.A, s.b, s.x);
         solve_s += now();
         HYPRE_Int it = 0;
         HYPRE_ParCSRPCGGetNumIterations(krylov, &it);
         HYPRE_ParCSRPCGGetFinalRelativeResidualNorm(krylov, &r.residual);
         r.iterations = static_cast<int>(it);
      }
      else
      {
         setup_s = -now();
         amg_setup(amg, s);
         setup_s += now();
         if (frozen) frozen_check(amg);
         solve_s = -now();
         r = amg_solve(amg, s);
         solve_s += now();
      }
      const std::string key = "step" + std::to_string(k);
      print_result(key.c_str(), r);
      if (g_rank == 0) std::printf("time %s setup_s %.6f solve_s %.6f\n", key.c_str(), setup_s, solve_s);
      if (rss_every > 0 && (k + 1) % rss_every == 0 && g_rank == 0)
      {
         const long rss = resident_kib();
         std::printf("rss_sample_kib %ld step %ld heap_kib %ld\n", rss, k + 1, heap_in_use_kib());
      }
   }
   if (krylov) HYPRE_ParCSRPCGDestroy(krylov);
   HYPRE_BoomerAMGDestroy(amg);
   destroy(s);
   return 0;
}

} // namespace

int main(int argc, char** argv)
{
   MPI_Init(&argc, &argv);
   MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
   MPI_Comm_size(MPI_COMM_WORLD, &g_size);
   const std::string cmd = argc > 1 ? argv[1] : "";
   g_device = has_flag(argc, argv, "--device");
#if defined(HYPRE_USING_GPU)
   // a GPU per rank, as hypre's ij driver binds it (before HYPRE_Initialize)
   if (g_device) hypre_bind_device(g_rank, g_size, MPI_COMM_WORLD);
#endif
   HYPRE_Initialize();
#if defined(HYPRE_USING_GPU)
   if (g_device)
   {
      HYPRE_DeviceInitialize();
      // hypre's own kernels, as the honest stock of the benchmarks
      HYPRE_SetSpGemmUseVendor(0);
      HYPRE_SetSpMVUseVendor(0);
   }
#endif
   HYPRE_SetMemoryLocation(g_device ? HYPRE_MEMORY_DEVICE : HYPRE_MEMORY_HOST);
   HYPRE_SetExecutionPolicy(g_device ? HYPRE_EXEC_DEVICE : HYPRE_EXEC_HOST);
   int status = 0;
   if (cmd == "memory") { status = cmd_memory(argc, argv); }
   else if (cmd == "cache") { status = cmd_cache(argc, argv); }
   else if (cmd == "history") { status = cmd_history(argc, argv); }
   else if (cmd == "resetup") { status = cmd_resetup(argc, argv); }
   else
   {
      if (g_rank == 0) std::fprintf(stderr, "usage: amg-lifecycle memory|cache|history|resetup [options]\n");
      status = 1;
   }
   std::fflush(stdout);
   HYPRE_Finalize();
   MPI_Finalize();
   return status;
}
