// Command-line parsing for amgt-solve.
#include "options.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <string_view>
#include <vector>

namespace amgt::cli {

const char* name(SolverKind kind) { return kind == SolverKind::Pcg ? "pcg" : "amg"; }

const char* name(UpdateKind kind) { return kind == UpdateKind::Ij ? "ij" : "direct"; }

namespace {

[[noreturn]] void usage_error(const std::string& message) { throw UsageError(message); }

long long parse_integer(const std::string& option, const std::string& text, long long lo,
                        long long hi) {
  const char* s = text.c_str();
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s, &end, 10);
  if (text.empty() || end != s + text.size() || std::isspace(static_cast<unsigned char>(s[0]))) {
    usage_error("option " + option + " expects an integer, got '" + text + "'");
  }
  if (errno == ERANGE || v < lo || v > hi) {
    usage_error("option " + option + " must be in " + std::to_string(lo) + ".." +
                std::to_string(hi) + ", got '" + text + "'");
  }
  return v;
}

int parse_int(const std::string& option, const std::string& text, int lo, int hi) {
  return static_cast<int>(parse_integer(option, text, lo, hi));
}

// A finite number in [lo, hi] (open at lo when lo_open).
double parse_real(const std::string& option, const std::string& text, double lo, double hi,
                  bool lo_open = false) {
  const char* s = text.c_str();
  char* end = nullptr;
  const double v = std::strtod(s, &end);
  if (text.empty() || end != s + text.size() || std::isspace(static_cast<unsigned char>(s[0])) ||
      !std::isfinite(v)) {
    usage_error("option " + option + " expects a finite number, got '" + text + "'");
  }
  if (v > hi || v < lo || (lo_open && v == lo)) {
    char range[96];
    std::snprintf(range, sizeof range, "%s%g, %g]", lo_open ? "(" : "[", lo, hi);
    usage_error("option " + option + " must be in " + range + ", got '" + text + "'");
  }
  return v;
}

int parse_choice(const std::string& option, const std::string& text,
                 const std::vector<int>& allowed) {
  const int v = parse_int(option, text, -1000000, 1000000);
  if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
    std::string list;
    for (int a : allowed) list += (list.empty() ? "" : " ") + std::to_string(a);
    usage_error("option " + option + " must be one of: " + list + "; got '" + text + "'");
  }
  return v;
}

// hypre 2.32 documented values (HYPRE_parcsr_ls.h).
const std::vector<int> kCoarsenTypes = {0, 1, 3, 6, 7, 8, 9, 10, 11, 21, 22};
const std::vector<int> kRelaxTypes = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13,
                                      14, 15, 16, 17, 18, 19, 21, 29, 30, 88, 89, 98, 99, 199};

struct Spec {
  const char* name;
  bool takes_value;
  std::function<void(Options&, const std::string& option, const std::string& value)> apply;
};

const std::vector<Spec>& specs() {
  static const std::vector<Spec> table = {
      {"--help", false, [](Options& o, const std::string&, const std::string&) { o.help = true; }},
      {"-h", false, [](Options& o, const std::string&, const std::string&) { o.help = true; }},
      {"--problem", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         const auto kind = problems::parse_kind(v);
         if (!kind) {
           usage_error("unknown problem '" + v + "' for " + opt +
                       " (expected one of " + problems::kind_list() + ")");
         }
         o.problem = kind;
       }},
      {"--n", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         o.n = parse_integer(opt, v, 1, 1 << 20);
       }},
      {"--matrix", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         if (v.empty()) usage_error("option " + opt + " expects a file name");
         o.matrix = v;
       }},
      {"--solver", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         if (v == "amg") {
           o.solver = SolverKind::Amg;
         } else if (v == "pcg") {
           o.solver = SolverKind::Pcg;
         } else {
           usage_error("unknown solver '" + v + "' for " + opt + " (expected amg or pcg)");
         }
       }},
      {"--tol", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         o.tol = parse_real(opt, v, 0.0, 1.0);
       }},
      {"--max-iter", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         o.max_iter = parse_int(opt, v, 1, 1000000);
       }},
      {"--print-level", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         o.print_level = parse_int(opt, v, 0, 3);
       }},
      {"--num-functions", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         o.num_functions = parse_int(opt, v, 1, 64);
       }},
      {"--coarsen-type", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         o.amg.coarsen_type = parse_choice(opt, v, kCoarsenTypes);
       }},
      {"--strong-threshold", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         o.amg.strong_threshold = parse_real(opt, v, 0.0, 1.0);
       }},
      {"--max-row-sum", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         o.amg.max_row_sum = parse_real(opt, v, 0.0, 1.0, /*lo_open=*/true);
       }},
      {"--max-coarse-size", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         o.amg.max_coarse_size = parse_int(opt, v, 1, 1 << 30);
       }},
      {"--interp-type", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         o.amg.interp_type = parse_int(opt, v, 0, 18);
       }},
      {"--trunc-factor", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         o.amg.trunc_factor = parse_real(opt, v, 0.0, 1.0);
       }},
      {"--pmax", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         o.amg.pmax = parse_int(opt, v, 0, 1 << 20);
       }},
      {"--relax-type", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         o.amg.relax_type = parse_choice(opt, v, kRelaxTypes);
       }},
      {"--num-sweeps", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         o.amg.num_sweeps = parse_int(opt, v, 1, 1000);
       }},
      {"--max-levels", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         o.amg.max_levels = parse_int(opt, v, 1, 100);
       }},
      {"--agg-levels", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         o.amg.agg_levels = parse_int(opt, v, 0, 100);
       }},
      {"--cycle", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         if (v == "V" || v == "v" || v == "1") {
           o.amg.cycle_type = 1;
         } else if (v == "W" || v == "w" || v == "2") {
           o.amg.cycle_type = 2;
         } else {
           usage_error("option " + opt + " expects V or W, got '" + v + "'");
         }
       }},
      {"--vendor-spgemm", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         o.vendor_spgemm = parse_int(opt, v, 0, 1);
       }},
      {"--spgemm-binned", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         o.spgemm_binned = parse_int(opt, v, 0, 1);
       }},
      {"--vendor-spmv", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         o.vendor_spmv = parse_int(opt, v, 0, 1);
       }},
      {"--pool", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         o.pool = parse_int(opt, v, 0, 1);
       }},
      {"--repeat", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         o.repeat = parse_int(opt, v, 0, 100000);
       }},
      {"--solves", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         o.solves = parse_int(opt, v, 1, 100000);
       }},
      {"--steps", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         o.steps = parse_int(opt, v, 1, 100000);
       }},
      {"--drift", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         const auto kind = drift::parse_kind(v);
         if (!kind) usage_error("unknown drift '" + v + "' for " + opt + " (expected none, dt or jump)");
         o.drift = *kind;
         o.drift_given = true;
       }},
      {"--dt-shift", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         o.dt_shift = parse_real(opt, v, 0.0, 1e12, /*lo_open=*/true);
       }},
      {"--jump-speed", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         o.jump_speed = parse_int(opt, v, 0, 1 << 20);
       }},
      {"--frozen", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         o.frozen = parse_int(opt, v, 0, 1);
       }},
      {"--update", true,
       [](Options& o, const std::string& opt, const std::string& v) {
         if (v == "direct") {
           o.update = UpdateKind::Direct;
         } else if (v == "ij") {
           o.update = UpdateKind::Ij;
         } else {
           usage_error("unknown update '" + v + "' for " + opt + " (expected direct or ij)");
         }
       }},
      {"--json", false,
       [](Options& o, const std::string&, const std::string&) { o.json = true; }},
      {"--require-converged", false,
       [](Options& o, const std::string&, const std::string&) { o.require_converged = true; }},
      {"--true-residual", false,
       [](Options& o, const std::string&, const std::string&) { o.true_residual = true; }},
      {"--memory-report", false,
       [](Options& o, const std::string&, const std::string&) { o.memory_report = true; }},
      {"--galerkin-work", false,
       [](Options& o, const std::string&, const std::string&) { o.galerkin_work = true; }},
      {"--beside-stock", false,
       [](Options& o, const std::string&, const std::string&) { o.beside_stock = true; }},
  };
  return table;
}

}  // namespace

Options parse(int argc, const char* const* argv) {
  Options o;
  bool saw_n = false;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a] ? argv[a] : "";
    std::string key = arg;
    std::string value;
    bool inline_value = false;
    if (arg.rfind("--", 0) == 0) {
      const std::size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        key = arg.substr(0, eq);
        value = arg.substr(eq + 1);
        inline_value = true;
      }
    }
    const auto& table = specs();
    const auto it = std::find_if(table.begin(), table.end(),
                                 [&key](const Spec& s) { return key == s.name; });
    if (it == table.end()) {
      if (arg.empty() || arg[0] != '-') usage_error("unexpected argument '" + arg + "'");
      usage_error("unknown option '" + key + "'");
    }
    if (it->takes_value) {
      if (!inline_value) {
        if (a + 1 >= argc) usage_error("option " + key + " needs a value");
        value = argv[++a] ? argv[a] : "";
      }
    } else if (inline_value) {
      usage_error("option " + key + " takes no value");
    }
    if (key == "--n") saw_n = true;
    it->apply(o, key, value);
  }
  if (o.help) return o;

  if (o.problem && !o.matrix.empty()) {
    usage_error("give either --problem or --matrix, not both");
  }
  if (!o.problem && o.matrix.empty()) {
    usage_error(std::string("nothing to solve: give --problem ") + problems::kind_list() +
                " --n N, or --matrix FILE");
  }
  if (o.problem && !saw_n) usage_error("--problem needs --n N (grid points per direction)");
  if (!o.problem && saw_n) usage_error("--n applies to --problem only, not to --matrix");
  if (o.problem && *o.problem == problems::Kind::Systems3 && o.num_functions > 0 &&
      o.num_functions != 1 && o.num_functions != 3) {
    usage_error("--num-functions for systems3 must be 1 or 3");
  }
  // --steps and the options that only mean something with it.
  bool saw_dt_shift = false, saw_jump_speed = false, saw_frozen = false, saw_update = false;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a] ? argv[a] : "";
    saw_dt_shift |= arg == "--dt-shift" || arg.rfind("--dt-shift=", 0) == 0;
    saw_jump_speed |= arg == "--jump-speed" || arg.rfind("--jump-speed=", 0) == 0;
    saw_frozen |= arg == "--frozen" || arg.rfind("--frozen=", 0) == 0;
    saw_update |= arg == "--update" || arg.rfind("--update=", 0) == 0;
  }
  if (o.steps == 0) {
    if (o.drift_given) usage_error("--drift needs --steps K");
    if (saw_dt_shift) usage_error("--dt-shift needs --steps K");
    if (saw_jump_speed) usage_error("--jump-speed needs --steps K");
    if (saw_frozen) usage_error("--frozen needs --steps K");
    if (saw_update) usage_error("--update needs --steps K");
  } else {
    if (!o.problem) {
      usage_error("--steps needs a generated problem (--problem): the values of each step are "
                  "generated");
    }
    if (o.solves != 1) {
      usage_error("--steps and --solves cannot be combined: each step is one setup (none after "
                  "step 0 with --frozen 1) and one solve");
    }
    if (o.drift == drift::Kind::Jump && *o.problem != problems::Kind::Jump7) {
      usage_error(std::string("--drift jump moves jump7's coefficients; ") + problems::name(*o.problem) +
                  " has none (use --drift dt)");
    }
    if (saw_dt_shift && o.drift != drift::Kind::Dt) usage_error("--dt-shift applies to --drift dt only");
    if (saw_jump_speed && o.drift != drift::Kind::Jump) {
      usage_error("--jump-speed applies to --drift jump only");
    }
  }
  if (o.beside_stock && o.steps > 0) usage_error("--beside-stock and --steps cannot be combined");
  if (o.beside_stock && (o.repeat < 2 || o.repeat % 2 != 0)) {
    usage_error("--beside-stock needs an even --repeat of 2 or more (half the pairs stock first)");
  }
  if (o.problem && *o.problem != problems::Kind::Systems3 && o.num_functions > 1) {
    usage_error(std::string("--num-functions > 1 needs several unknowns per node; ") +
                problems::name(*o.problem) + " has one");
  }
  return o;
}

void print_usage(std::FILE* out, const char* program) {
  std::fprintf(out,
R"(Usage: %s (--problem KIND --n N | --matrix FILE) [options]

Solves A x = b with b = all ones and x0 = 0 by BoomerAMG (hypre's IJ/ParCSR interface).
The AMGT environment variable (read by the library) selects the sparse kernels; this
driver only reports it.

Problem (exactly one):
  --problem KIND        on an N^3 grid, Dirichlet boundary eliminated:
                        laplace7    7-point Laplacian
                        laplace27   27-point stencil
                        systems3    kron(7-point Laplacian, I3) + grad-div coupling
                                    (simplified elasticity), 3 unknowns per node
                                    (node-major)
                        aniso7      anisotropic diffusion -(u_xx + u_yy + 1e-3 u_zz)
                        jump7       diffusion -div(k grad u), k = 1 or 1e3 in a 4x4x4
                                    checkerboard of sub-cubes (harmonic face means)
  --n N                 grid points per direction (rows N^3, or 3 N^3 for systems3)
  --matrix FILE         Matrix Market coordinate file (.mtx or .mtx.gz): real, integer or
                        pattern; general, symmetric or skew-symmetric; square

Solver:
  --solver amg|pcg      amg: BoomerAMG as the solver; pcg: PCG (two-norm, relative
                        residual) with one BoomerAMG V-cycle as preconditioner   [amg]
  --tol T               relative residual tolerance                              [1e-8]
  --max-iter K          iteration limit                                          [100]
  --print-level L       hypre print level (0..3)                                 [0]
  --num-functions F     BoomerAMG SetNumFunctions       [3 for systems3, otherwise 1]

BoomerAMG (defaults = benchmark protocol):
  --coarsen-type C      8 = PMIS                                                 [8]
  --strong-threshold S                                                           [0.25]
  --max-row-sum R                                                                [0.8]
  --max-coarse-size M                                                            [3]
  --interp-type I       6 = extended+i                                           [6]
  --trunc-factor F                                                               [0.1]
  --pmax P              max elements per row of P                                [4]
  --relax-type R        18 = l1-Jacobi                                           [18]
  --num-sweeps K                                                                 [1]
  --max-levels L                                                                 [7]
  --agg-levels A        levels of aggressive coarsening                          [0]
  --cycle V|W                                                                    [V]

GPU builds (accepted and reported, without effect, on CPU builds):
  --vendor-spgemm 0|1   HYPRE_SetSpGemmUseVendor                                 [0]
  --vendor-spmv 0|1     HYPRE_SetSpMVUseVendor                                   [0]
  --spgemm-binned 0|1   hypre_SetSpGemmBinned: hypre's own SpGEMM in its binned
                        mode for every product (hypre's default: unbinned)       [0]
  --pool 0|1            hypre's device memory pool (builds with it, the default
                        build): 1 keeps it as built; 0 calls
                        HYPRE_SetGPUMemoryPoolSize(8, 1, 0, 0) right after
                        HYPRE_Initialize: nothing cached, every allocation a
                        device malloc of the exact size and every release a free,
                        as in a hypre built without the pool                     [1]

Timing and output:
  --repeat K            one warm-up run (timed apart: cold_* in the JSON), then K
                        timed runs (fresh solver each); medians of the max over
                        ranks. 0: a single timed run without warm-up. GPU builds:
                        hypre's device random numbers are reset before each run
                        (as hypre's ij does), so every run builds the first
                        run's hierarchy                                          [1]
  --solves S            solves per setup: each run is one setup, then S solves
                        with the same matrix and b, x = 0 before each (a time-
                        stepping code with a fixed matrix); solve time = median
                        per solve, solves total = their sum, total = setup +
                        solves total                                             [1]

Sequences of steps (a time-stepping code: one matrix pattern, new values every step):
  --steps K             each run is K steps on ONE IJ matrix and ONE solver: step 0
                        assembles and sets up, every later step writes new values
                        into the same IJ matrix (see --update),
                        sets up again (unless --frozen 1) and solves from x0 = 0,
                        b = 1. Per step: setup s, solve s, iterations, residual.
                        setup/solves/total are then sums over the K steps.
                        --problem only; not with --solves               [off]
  --drift none|dt|jump  how the values change: dt = A_k = K + (c/dt_k) I with
                        dt_k = dt_0 (1 + 0.5 sin k) (any problem); jump = jump7's
                        checkerboard moves in +x by --jump-speed cells per step;
                        none = the same values every step                  [dt]
  --dt-shift S          c / dt_0 added to the diagonal at step 0 (--drift dt)   [1]
  --jump-speed C        cells per step (--drift jump)                           [2]
  --frozen 0|1          1: setup at step 0 only, the first hierarchy kept for all
                        steps (the solves use the new matrix on level 0)        [0]
  --update direct|ij    how a step writes its values (untimed apart; the same
                        matrix either way): direct = generated on several threads
                        and written into the ParCSR matrix's value arrays in
                        place, then IJ Initialize + Assemble (no SetValues), so
                        the library sees the same Assemble; ij = Initialize,
                        SetValues of every row, Assemble              [direct]
  --json                end stdout with one line of JSON holding the results
  --true-residual       also compute ||b - A x|| / ||b|| after the last run (one
                        extra SpMV, outside the timings)
  --require-converged   exit 3 when the final relative residual is above --tol
  --memory-report       after the warm-up and every run, one stderr line (rank 0):
                        "memory run I device_used_bytes D rss_kib R" (D: the device
                        runtime's total - free memory after a device sync; 0 in
                        CPU builds)
  --galerkin-work       after the last run, count the work of each level's Galerkin
                        product P^T A P from the hierarchy's patterns, as two products
                        (A*P, then P^T*(AP)) and as one triple product (terms, nonzeros,
                        entries touched); one rank only (whole matrices), outside the
                        timings
  --beside-stock        every timed run also as stock hypre in this same process, the
                        AMGT library's hooks suspended (hypre_AMGTSuspend) for those
                        runs; the two interleaved (half the pairs stock first, in an
                        order each process draws: an even --repeat; one stock warm-up
                        after the mode's). Prints stock's medians and the mode's ratios
                        against them (> 1: the mode is faster); processes differ by
                        10-30%% on small systems, runs within one process by 1-3%%.
                        Needs the AMGT drop-in libHYPRE; not with --steps
  --help                this text

Exit status: 0 ran (converged or not), 1 bad arguments or input, 2 hypre reported an
error, 3 not converged with --require-converged.
)",
               program);
}

}  // namespace amgt::cli
