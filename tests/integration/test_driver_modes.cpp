// BoomerAMG through the plugin, end to end: the driver amgt-solve (a real hypre client) is
// run as a separate process per mode, because the library reads AMGT once per process.
#include <gtest/gtest.h>

#include "amgt_glue.h" // AMGT_SMALL_MATRIX_ENTRIES

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "common/driver_run.h"

namespace {

namespace fs = std::filesystem;

// One amgt-solve process (tests/common/driver_run.h: timeout, the library's variables unset
// unless set here), its stdout and stderr together in `output`, and its final JSON line.
struct DriverRun
{
   int                                exit_code = -1;
   std::string                        output;
   std::map<std::string, std::string> json; // flat keys of the final JSON line

   double num(const std::string& key) const
   {
      auto it = json.find(key);
      if (it == json.end()) { ADD_FAILURE() << "no key " << key << " in:\n" << output; return NAN; }
      // the driver writes a NaN or an infinity as null: NaN here, so that no check of a
      // residual or a time passes on it (strtod would read 0)
      if (it->second == "null") return NAN;
      return std::strtod(it->second.c_str(), nullptr);
   }
   std::string str(const std::string& key) const
   {
      auto it = json.find(key);
      return it == json.end() ? std::string() : it->second;
   }
};

std::vector<std::string> words(const std::string& text)
{
   std::istringstream       in(text);
   std::vector<std::string> out;
   for (std::string w; in >> w;) out.push_back(w);
   return out;
}

// env: "NAME=value ..." for the child; args: the driver's arguments (no quoting needed).
DriverRun run(const std::string& env, const std::string& args, int np = 0,
              bool expect_success = true)
{
   std::map<std::string, std::string> vars;
   for (const std::string& w : words(env))
   {
      const size_t eq = w.find('=');
      if (eq != std::string::npos) vars[w.substr(0, eq)] = w.substr(eq + 1);
   }
   const amgt::test::SolveRun s = amgt::test::run_solve("", words(args), np, vars, 600);
   DriverRun                  r;
   r.exit_code = s.proc.exited ? s.proc.exit_code : -1;
   r.output    = s.proc.out + s.proc.err;
   r.json      = s.json;
   if (expect_success)
   {
      EXPECT_EQ(r.exit_code, 0) << env << " amgt-solve " << args << "\n" << s.proc.describe();
   }
   return r;
}

fs::path datasets_dir()
{
   if (const char* d = std::getenv("AMGT_DATASETS")) return d;
   for (fs::path p : {fs::path(AMGT_SOURCE_DIR) / "datasets" / "matrices",
                      fs::path(AMGT_SOURCE_DIR) / ".." / "shared" / "datasets" / "matrices"})
   {
      if (fs::exists(p / "poisson10000.mtx.gz")) return p;
   }
   return {};
}

// AMGT=fp64, in GPU builds with the plugin's own kernels forced (amgt::test::kPluginKernels:
// else every one of these small problems would be stock's there too)
std::string fp64_on_plugin_kernels()
{
   std::string env = "AMGT=fp64";
   if (AMGT_TEST_GPU_BUILD)
   {
      for (const auto& [name, value] : amgt::test::kPluginKernels) env += " " + name + "=" + value;
   }
   return env;
}

// fp64 through the plugin reproduces stock hypre's convergence. The plugin sums in another
// order than hypre (tiles, FMA), so the iterates differ by rounding: the iteration counts
// agree within one, and with equal counts the final relative residuals agree within 1e-10;
// when the counts differ by one, each run's last residual is from a different iteration and
// both must be under the tolerance.
// GPU builds: hypre's own device setup is not reproducible from run to run (its PMIS and
// products give other coarse grids; measured on an H100: 921 to 956 level-1 rows for one
// problem, and 107 to 109 PCG iterations on amgmatch_anisotropic3d7816 with stock alone),
// so the two runs can differ by what stock differs from itself: 3% of the iterations, at
// least one.
void expect_same_convergence(const DriverRun& off, const DriverRun& fp64)
{
   const double its_tol = AMGT_TEST_GPU_BUILD ? amgt::test::gpu_iteration_slack(off.num("iterations")) : 1.0;
   ASSERT_FALSE(off.json.empty()) << off.output;
   ASSERT_FALSE(fp64.json.empty()) << fp64.output;
   if (AMGT_TEST_GPU_BUILD && off.str("converged") != "true")
   {
      // Stock itself missed the tolerance in this run (amgmatch_anisotropic3d7816 on an H200:
      // 200 iterations, relative residual 1.7e-7, where it has taken 107-109; the plugin's
      // fp64 run beside it 112, record 2026-11-30d): nothing to reproduce. The plugin's run
      // ends in order and claims no convergence it did not reach.
      std::printf("[ note ] stock did not converge in this run (%g iterations, relative residual %g)\n",
                  off.num("iterations"), off.num("rel_residual"));
      EXPECT_EQ(fp64.exit_code, 0) << fp64.output;
      if (fp64.str("converged") == "true") EXPECT_LE(fp64.num("rel_residual"), fp64.num("tol")) << fp64.output;
      return;
   }
   EXPECT_EQ(off.str("converged"), "true") << off.output;
   EXPECT_EQ(fp64.str("converged"), "true") << fp64.output;
   EXPECT_NEAR(off.num("iterations"), fp64.num("iterations"), its_tol);
   if (off.num("iterations") == fp64.num("iterations") && !AMGT_TEST_GPU_BUILD)
   {
      EXPECT_NEAR(off.num("rel_residual"), fp64.num("rel_residual"), 1e-10);
   }
   EXPECT_LE(fp64.num("rel_residual"), fp64.num("tol"));
   if (!AMGT_TEST_GPU_BUILD) { EXPECT_EQ(off.num("levels"), fp64.num("levels")); }
   else { EXPECT_NEAR(off.num("levels"), fp64.num("levels"), 1.0); }
   EXPECT_GE(off.num("levels"), 2) << "hierarchy too shallow to exercise the coarse levels";
}

struct Case
{
   std::string name;
   std::string args;
};

void PrintTo(const Case& c, std::ostream* os)
{
   *os << c.name;
}

class GeneratedProblems : public ::testing::TestWithParam<Case>
{
};

TEST_P(GeneratedProblems, Fp64MatchesStockAndMixedConverges)
{
   const Case& c    = GetParam();
   DriverRun         off  = run("AMGT=off", c.args);
   DriverRun         fp64 = run(fp64_on_plugin_kernels(), c.args);
   expect_same_convergence(off, fp64);
   DriverRun mixed = run("AMGT=mixed", c.args);
   EXPECT_EQ(mixed.str("converged"), "true") << mixed.output;
   EXPECT_TRUE(std::isfinite(mixed.num("rel_residual")));
   std::printf("[ result ] %s: off %g it, fp64 %g it, mixed %g it (rel res %.3g / %.3g / %.3g)\n",
               c.name.c_str(), off.num("iterations"), fp64.num("iterations"), mixed.num("iterations"),
               off.num("rel_residual"), fp64.num("rel_residual"), mixed.num("rel_residual"));
}

INSTANTIATE_TEST_SUITE_P(
   Driver, GeneratedProblems,
   ::testing::Values(Case{"laplace7_amg", "--problem laplace7 --n 16 --solver amg"},
                     Case{"laplace27_amg", "--problem laplace27 --n 12 --solver amg"},
                     Case{"systems3_amg", "--problem systems3 --n 8 --solver amg"},
                     Case{"laplace7_pcg", "--problem laplace7 --n 16 --solver pcg"}),
   [](const auto& info) { return info.param.name; });

// Real matrices of ../shared/datasets on which stock hypre converges with a hierarchy of at
// least two levels (PCG, benchmark settings). mixed_converges: whether the plain d,s,h
// schedule is expected to converge; where it is not (fp16 overflow on elasticity-like
// matrices: hypre detects the NaN and stops), the run must still end in an orderly way
// (exit 0 or hypre's error status 2, never a signal) and not claim convergence. That is the
// case the guarded automatic mode exists for.
struct DatasetCase
{
   std::string name;
   bool        mixed_converges;
};

void PrintTo(const DatasetCase& c, std::ostream* os)
{
   *os << c.name;
}

class DatasetMatrices : public ::testing::TestWithParam<DatasetCase>
{
};

TEST_P(DatasetMatrices, Fp64MatchesStockAndMixedAsRecorded)
{
   const DatasetCase& c   = GetParam();
   fs::path           dir = datasets_dir();
   if (dir.empty()) GTEST_SKIP() << "no datasets found (set AMGT_DATASETS or keep ../shared beside the repo)";
   fs::path file = dir / (c.name + ".mtx.gz");
   ASSERT_TRUE(fs::exists(file)) << file;
   std::string args = "--matrix " + file.string() + " --solver pcg --max-iter 200";
   DriverRun   off  = run("AMGT=off", args);
   DriverRun   fp64 = run(fp64_on_plugin_kernels(), args);
   expect_same_convergence(off, fp64);
   DriverRun mixed = run("AMGT=mixed", args, 0, /*expect_success=*/c.mixed_converges);
   if (c.mixed_converges)
   {
      EXPECT_EQ(mixed.str("converged"), "true") << mixed.output;
   }
   else
   {
      // recorded, not required: plain mixed may fail here (the CPU build: fp16 products
      // overflow), or converge (GPU builds, where hypre's fp64 kernel runs the products under
      // AMGT_SPGEMM=auto). Either way it ends in order and never claims a convergence it
      // did not reach.
      EXPECT_TRUE(mixed.exit_code == 0 || mixed.exit_code == 2) << mixed.output;
      if (mixed.str("converged") == "true")
      {
         EXPECT_LE(mixed.num("rel_residual"), mixed.num("tol")) << mixed.output;
      }
   }
   std::printf("[ result ] %s: off %g it, fp64 %g it, mixed %s after %g it\n", c.name.c_str(),
               off.num("iterations"), fp64.num("iterations"),
               mixed.str("converged") == "true" ? "converged" : "FAILED", mixed.num("iterations"));
}

INSTANTIATE_TEST_SUITE_P(
   Driver, DatasetMatrices,
   ::testing::Values(DatasetCase{"poisson10000", true}, DatasetCase{"fv1", true},
                     DatasetCase{"jnlbrng1", true}, DatasetCase{"minsurfo", true},
                     DatasetCase{"Dubcova1", true}, DatasetCase{"memplus", true},
                     DatasetCase{"ted_B", true},
                     // converges under mixed since fp16 kernels round x to fp32, not fp16
                     // (common/precision.h); it failed with NaN before
                     DatasetCase{"aft01", true},
                     DatasetCase{"amgmatch_anisotropic3d7816", false},
                     DatasetCase{"bcsstk16", false}),
   [](const auto& info) { return info.param.name; });

// AMGT=auto against fp64 on EVERY matrix of the datasets directory (listed when the test
// binary starts, so a matrix added there is covered without editing this file) and on the
// generated problems: PCG + BoomerAMG, the benchmark settings.
//   fp64 converged     -> auto converges with at most ceil(1.1 * fp64) iterations (at least
//                         fp64 + 1, for tiny counts), a finite residual and no hypre error;
//   fp64 not converged -> auto ends the same way: not converged, no crash, and no hypre error
//                         (a NaN is one) unless fp64 had one too.
// mixed's outcome is only recorded (it fails with NaN where fp16 overflows); the "[ auto ]"
// line gives the per-level choices of auto (the "AMGT: why level" lines of AMGT_STATS).
struct AutoCase
{
   std::string name;
   std::string args; // empty: no datasets found
};

void PrintTo(const AutoCase& c, std::ostream* os)
{
   *os << c.name;
}

std::vector<AutoCase> auto_cases()
{
   // GPU builds: finest operators of >= AMGT_SMALL_MATRIX_ENTRIES (2^18) entries (smaller ones
   // are hypre's whatever the mode), so that auto's choice for level 0 is made and checked
   std::vector<AutoCase> cases =
      AMGT_TEST_GPU_BUILD
         ? std::vector<AutoCase>{{"gen_laplace7", "--problem laplace7 --n 40"}, {"gen_laplace27", "--problem laplace27 --n 24"},
                                 {"gen_systems3", "--problem systems3 --n 20"}, {"gen_aniso7", "--problem aniso7 --n 40"},
                                 {"gen_jump7", "--problem jump7 --n 40"}}
         : std::vector<AutoCase>{{"gen_laplace7", "--problem laplace7 --n 20"}, {"gen_laplace27", "--problem laplace27 --n 14"},
                                 {"gen_systems3", "--problem systems3 --n 8"}, {"gen_aniso7", "--problem aniso7 --n 20"},
                                 {"gen_jump7", "--problem jump7 --n 20"}};
   std::vector<std::string> names;
   const fs::path           dir = datasets_dir();
   if (!dir.empty())
   {
      for (const auto& entry : fs::directory_iterator(dir))
      {
         const std::string file = entry.path().filename().string();
         const std::string ext  = ".mtx.gz";
         if (file.size() > ext.size() && file.compare(file.size() - ext.size(), ext.size(), ext) == 0)
         {
            names.push_back(file.substr(0, file.size() - ext.size()));
         }
      }
   }
   std::sort(names.begin(), names.end());
   for (const std::string& n : names)
   {
      std::string id;
      for (char ch : n) id += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
      cases.push_back({id, "--matrix " + (dir / (n + ".mtx.gz")).string()});
   }
   if (names.empty()) cases.push_back({"no_datasets", ""});
   return cases;
}

// " L<level>{<why>}" per "AMGT: why level" line of the statistics (AMGT=auto).
std::string auto_levels(const std::string& output)
{
   static const std::regex row(R"(^AMGT: why level (\d+): (.*)$)");
   std::string             out;
   std::istringstream      in(output);
   for (std::string line; std::getline(in, line);)
   {
      std::smatch m;
      if (std::regex_search(line, m, row)) out += " L" + m[1].str() + "{" + m[2].str() + "}";
   }
   return out;
}

class AutoVsFp64 : public ::testing::TestWithParam<AutoCase>
{
};

TEST_P(AutoVsFp64, AutoConvergesLikeFp64AndNeverNaN)
{
   const AutoCase& c = GetParam();
   if (c.args.empty()) GTEST_SKIP() << "no datasets found (set AMGT_DATASETS or keep ../shared beside the repo); the generated problems still ran";
   const std::string args = c.args + " --solver pcg --max-iter 200 --repeat 0";
   // AMGT_COST_MODEL=0: the plugin serves every level it can (the model would leave these
   // small hierarchies to hypre whole, and auto would then choose nothing to check)
   DriverRun fp64 = run("AMGT=fp64 AMGT_COST_MODEL=0", args, 0, /*expect_success=*/false);
   DriverRun au   = run("AMGT=auto AMGT_STATS=1 AMGT_COST_MODEL=0", args, 0, /*expect_success=*/false);
   DriverRun mx   = run("AMGT=mixed AMGT_COST_MODEL=0", args, 0, /*expect_success=*/false);
   for (const DriverRun* r : {&fp64, &au, &mx})
   {
      // exit 0, or hypre's error status 2; never a signal or a timeout
      EXPECT_TRUE(r->exit_code == 0 || r->exit_code == 2) << r->output;
      ASSERT_FALSE(r->json.empty()) << r->output;
   }
   EXPECT_NE(au.output.find("mode auto"), std::string::npos) << au.output;
   // the finest level's V-cycle copy: fp32 under auto's floor s,s,h, or fp64 where its values
   // need it (a reason of the values, never the floor's), or fp16 holding every value exactly
   // (lossless storage: the generated stencils, poisson10000, fv3); never below the floor
   static const std::regex level0(R"(AMGT: why level 0: A:(fp32/|fp16/exact-fp16\b|fp64/(non-finite|near-singular|level-near-singular|overflow|underflow)\b))");
   // on the GPU a finest operator under 2^18 entries (a small dataset matrix) is hypre's, and
   // the statistics say so instead
   const bool served = !AMGT_TEST_GPU_BUILD || au.num("nnz") >= AMGT_SMALL_MATRIX_ENTRIES;
   if (served) EXPECT_TRUE(std::regex_search(au.output, level0)) << au.output;
   else EXPECT_NE(au.output.find("spmv-small-matrix="), std::string::npos) << au.output;
   const bool   fp64_ok  = fp64.str("converged") == "true";
   const double it64     = fp64.num("iterations");
   const double it_auto  = au.num("iterations");
   const bool   auto_err = au.str("hypre_error") != "0";
   if (fp64_ok)
   {
      EXPECT_EQ(au.str("converged"), "true") << au.output;
      EXPECT_LE(it_auto, std::max(std::ceil(1.1 * it64), it64 + 1)) << au.output;
      EXPECT_TRUE(std::isfinite(au.num("rel_residual")));
      EXPECT_LE(au.num("rel_residual"), au.num("tol"));
      EXPECT_FALSE(auto_err) << au.output;
   }
   else
   {
      EXPECT_NE(au.str("converged"), "true") << "auto converged where fp64 did not:\n" << au.output;
      if (fp64.str("hypre_error") == "0") EXPECT_FALSE(auto_err) << au.output;
      if (std::isfinite(fp64.num("rel_residual")))
         EXPECT_TRUE(std::isfinite(au.num("rel_residual"))) << au.output;
   }
   const bool mixed_ok = mx.str("converged") == "true";
   std::printf("[ result ] %s: fp64 %s %g it; auto %s %g it (rel res %.3g); mixed %s %g it%s\n",
               c.name.c_str(), fp64_ok ? "converged" : "NOT converged", it64,
               au.str("converged") == "true" ? "converged" : "NOT converged", it_auto,
               au.num("rel_residual"), mixed_ok ? "converged" : "FAILED", mx.num("iterations"),
               mx.str("hypre_error") != "0" ? " (hypre error: NaN/breakdown)" : "");
   std::printf("[ auto   ] %s:%s\n", c.name.c_str(), auto_levels(au.output).c_str());
}

INSTANTIATE_TEST_SUITE_P(Driver, AutoVsFp64, ::testing::ValuesIn(auto_cases()),
                         [](const auto& info) { return info.param.name; });

// ---- Timing options: --solves, --pool, the cold run ----------------------------------------

// The numbers of a JSON array ("key":[...]) of the final JSON line.
std::vector<double> json_array(const std::string& output, const std::string& key)
{
   const size_t at = output.rfind("\"" + key + "\":[");
   if (at == std::string::npos)
   {
      ADD_FAILURE() << "no array " << key << " in:\n" << output;
      return {};
   }
   const size_t open = at + key.size() + 3;
   return amgt::test::json_numbers(output.substr(open, output.find(']', open) - open + 1));
}

double median_of(std::vector<double> v)
{
   std::sort(v.begin(), v.end());
   const size_t m = v.size() / 2;
   return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// Times are printed with 9 significant digits ("%.9g"): sums agree to that.
void expect_same_time(double a, double b, const std::string& what)
{
   EXPECT_NEAR(a, b, 2e-8 * std::max(std::fabs(a), std::fabs(b)) + 1e-12) << what;
}

TEST(Timing, SolvesPerSetupAreReportedConsistently)
{
   for (const char* mode : {"AMGT=off", "AMGT=fp64"})
   {
      SCOPED_TRACE(mode);
      // two timed runs: their median is their mean, so total = setup + solves total holds for
      // the medians too (not only per run)
      DriverRun r = run(mode, "--problem laplace7 --n 12 --solves 3 --repeat 2");
      ASSERT_FALSE(r.json.empty()) << r.output;
      EXPECT_EQ(r.str("solves"), "3");
      EXPECT_EQ(r.str("converged"), "true");
      const std::vector<double> setup = json_array(r.output, "setup_all");
      const std::vector<double> solve = json_array(r.output, "solve_all");
      const std::vector<double> solves_total = json_array(r.output, "solves_total_all");
      const std::vector<double> total = json_array(r.output, "total_all");
      const std::vector<double> iters = json_array(r.output, "iterations_all");
      ASSERT_EQ(setup.size(), 2u);
      ASSERT_EQ(solve.size(), 6u) << "every solve of every timed run";
      ASSERT_EQ(solves_total.size(), 2u);
      ASSERT_EQ(total.size(), 2u);
      ASSERT_EQ(iters.size(), 6u);
      for (size_t i = 0; i < 2; ++i)
      {
         expect_same_time(solves_total[i], solve[3 * i] + solve[3 * i + 1] + solve[3 * i + 2],
                          "run " + std::to_string(i) + ": solves total = sum of its solves");
         expect_same_time(total[i], setup[i] + solves_total[i],
                          "run " + std::to_string(i) + ": total = setup + solves total");
      }
      // the same system from the same x0: every solve does the same work
      for (double it : iters) EXPECT_EQ(it, iters[0]) << r.output;
      EXPECT_EQ(r.num("iterations"), iters[0]);
      expect_same_time(r.num("solve_s"), median_of(solve), "solve_s = median per solve");
      expect_same_time(r.num("solves_total_s"), median_of(solves_total), "solves_total_s = median of the sums");
      expect_same_time(r.num("total_s"), r.num("setup_s") + r.num("solves_total_s"),
                       "total = setup + solves total");
      EXPECT_GT(r.num("solves_total_s"), r.num("solve_s"));
      // the warm-up run is the cold one: its setup, its first solve, its setup + 3 solves
      EXPECT_EQ(r.str("warmup"), "true");
      EXPECT_GT(r.num("cold_setup_s"), 0.0);
      EXPECT_GT(r.num("cold_solve_s"), 0.0);
      EXPECT_GT(r.num("cold_total_s"), r.num("cold_setup_s") + r.num("cold_solve_s"));
      EXPECT_NE(r.output.find("3 per setup"), std::string::npos) << r.output;
      EXPECT_NE(r.output.find("cold [s]      setup"), std::string::npos) << r.output;
   }
}

TEST(Timing, OneSolveAndNoWarmupKeepTheirMeaning)
{
   // --solves 1 (the default): the solve is the run's only one
   DriverRun one = run("", "--problem laplace7 --n 10 --repeat 3");
   ASSERT_FALSE(one.json.empty()) << one.output;
   EXPECT_EQ(one.str("solves"), "1");
   EXPECT_EQ(json_array(one.output, "solve_all").size(), 3u);
   EXPECT_EQ(one.str("solves_total_s"), one.str("solve_s"));
   // --repeat 0: no warm-up; the single timed run is the process's first, so the cold one
   DriverRun single = run("", "--problem laplace7 --n 10 --repeat 0 --solves 2");
   ASSERT_FALSE(single.json.empty()) << single.output;
   EXPECT_EQ(single.str("warmup"), "false");
   EXPECT_EQ(single.str("cold_setup_s"), single.str("setup_s"));
   expect_same_time(single.num("cold_total_s"), single.num("total_s"), "cold total = the run's total");
}

// The phases before the first run (the input, HYPRE_Initialize and the library's configuration,
// the assembly), each by the host's clock: in the JSON line, each a time of its own (they
// cannot be the same reading), none of them part of the runs' times
TEST(Timing, PhasesBeforeTheFirstRunAreReported)
{
   DriverRun r = run("", "--problem laplace7 --n 14 --repeat 1");
   ASSERT_FALSE(r.json.empty()) << r.output;
   for (const char* key : {"input_s", "init_s", "assemble_s"})
   {
      const double t = r.num(key);
      EXPECT_TRUE(std::isfinite(t) && t >= 0.0 && t < 60.0) << key << " = " << t << "\n" << r.output;
   }
   // 2744 rows generated and assembled: a measurable time, and not the setup's
   EXPECT_GT(r.num("assemble_s"), 0.0) << r.output;
   EXPECT_NE(r.str("assemble_s"), r.str("cold_setup_s")) << r.output;
   // the host-speed probes before HYPRE_Initialize: 2^19 integer steps take time on any core,
   // and (GPU builds) 4096 device runtime calls; a CPU build has no runtime to probe
   const double cpu = r.num("probe_cpu_s");
   EXPECT_TRUE(cpu > 0.0 && cpu < 1.0) << "probe_cpu_s = " << cpu << "\n" << r.output;
   if (AMGT_TEST_GPU_BUILD)
   {
      const double api = r.num("probe_api_s");
      EXPECT_TRUE(api > 0.0 && api < 1.0) << "probe_api_s = " << api << "\n" << r.output;
   }
   else
   {
      EXPECT_EQ(r.str("probe_api_s"), "null") << r.output;
   }
}

TEST(Timing, PoolZeroIsAccepted)
{
   // hypre's default configuration: HYPRE_SetGPUMemoryPoolSize(8, 1, 0, 0) right after
   // HYPRE_Initialize (a no-op in CPU builds); the numbers do not change
   DriverRun with    = run("", "--problem laplace7 --n 12 --solver pcg");
   DriverRun without = run("", "--problem laplace7 --n 12 --solver pcg --pool 0 --vendor-spgemm 1 --vendor-spmv 1");
   ASSERT_FALSE(without.json.empty()) << without.output;
   EXPECT_EQ(with.str("pool"), "1");
   EXPECT_EQ(without.str("pool"), "0");
   EXPECT_EQ(without.str("device_pool"), "false") << "--pool 0 leaves nothing cached";
   EXPECT_EQ(without.str("converged"), "true");
   if (!AMGT_TEST_GPU_BUILD)
   {
      EXPECT_EQ(with.str("rel_residual"), without.str("rel_residual")) << "--pool changed the numbers";
      EXPECT_NE(without.output.find("device pool   0 (no effect on a CPU build)"), std::string::npos)
         << without.output;
   }
   else
   {
      EXPECT_NEAR(with.num("iterations"), without.num("iterations"),
                  std::max(1.0, std::ceil(0.03 * with.num("iterations"))));
   }
}

TEST(Timing, BadValuesAreRefusedClearly)
{
   // bad arguments: one message naming the option and the accepted values, no JSON, exit
   // status 1 (the driver's status for bad arguments; 2 is hypre's errors)
   struct Bad
   {
      std::string args, message;
   };
   for (const Bad& b : {Bad{"--solves 0", "option --solves must be in 1..100000, got '0'"},
                        Bad{"--solves -2", "option --solves must be in 1..100000, got '-2'"},
                        Bad{"--solves three", "option --solves expects an integer, got 'three'"},
                        Bad{"--solves 1.5", "option --solves expects an integer, got '1.5'"},
                        Bad{"--pool 2", "option --pool must be in 0..1, got '2'"},
                        Bad{"--pool=off", "option --pool expects an integer, got 'off'"}})
   {
      SCOPED_TRACE(b.args);
      DriverRun r = run("", "--problem laplace7 --n 8 " + b.args, 0, /*expect_success=*/false);
      EXPECT_EQ(r.exit_code, 1) << r.output;
      EXPECT_TRUE(r.json.empty()) << r.output;
      EXPECT_NE(r.output.find("amgt-solve: error: " + b.message), std::string::npos) << r.output;
   }
}

TEST(Selection, OffAndUnsetAndInvalidAreStockBitForBit)
{
   const std::string args  = "--problem laplace7 --n 12";
   DriverRun               unset = run("", args);
   DriverRun               off   = run("AMGT=off", args);
   DriverRun               bad   = run("AMGT=fp65", args);
   ASSERT_FALSE(unset.json.empty());
   // the residual printed with 17 digits: identical strings mean identical doubles
   EXPECT_EQ(unset.str("rel_residual"), off.str("rel_residual"));
   EXPECT_EQ(unset.str("rel_residual"), bad.str("rel_residual"));
   EXPECT_EQ(unset.str("iterations"), bad.str("iterations"));
   EXPECT_NE(bad.output.find("fp65"), std::string::npos) << "invalid value not named:\n" << bad.output;
   EXPECT_NE(bad.output.find("off, fp64, mixed, auto"), std::string::npos) << bad.output;
   EXPECT_EQ(off.output.find("AMGT:"), std::string::npos) << "stock mode printed plugin messages";
}

// AMGT_STRICT=1: a misconfiguration stops the job at the first hypre call that reads the
// configuration, with exit status 2 and the problem named; without it the same typo runs
// stock hypre and exits 0. Every variable is checked in every build (the device variables
// in CPU builds too), and so are unknown AMGT_* names.
TEST(Selection, StrictStopsOnInvalidSettingsWithStatus2)
{
   const std::string args    = "--problem laplace7 --n 12";
   DriverRun         lenient = run("AMGT=fp46", args);
   EXPECT_EQ(lenient.str("converged"), "true") << lenient.output;
   EXPECT_NE(lenient.output.find("AMGT=\"fp46\""), std::string::npos) << lenient.output;

   DriverRun strict = run("AMGT_STRICT=1 AMGT=fp46", args, 0, /*expect_success=*/false);
   EXPECT_EQ(strict.exit_code, 2) << strict.output;
   EXPECT_TRUE(strict.json.empty()) << "no solve after a strict stop:\n" << strict.output;
   EXPECT_NE(strict.output.find("AMGT=\"fp46\" is not a valid value (accepted: off, fp64, "
                                "mixed, auto)"),
             std::string::npos)
      << strict.output;
   EXPECT_NE(strict.output.find("AMGT: error: AMGT_STRICT"), std::string::npos) << strict.output;

   for (const char* env : {"AMGT_STRICT=1 AMGT=fp64 AMGT_DEVICE_MEMORY_LIMIT=-5",
                           "AMGT_STRICT=1 AMGT_DEVICE_CACHE=lots",
                           "AMGT_STRICT=1 AMGT=mixed AMGT_LEVEL=d,s"})
   {
      DriverRun r = run(env, args, 0, /*expect_success=*/false);
      EXPECT_EQ(r.exit_code, 2) << env << "\n" << r.output;
      const std::string var = words(env).back().substr(0, words(env).back().find('='));
      EXPECT_NE(r.output.find(var), std::string::npos) << env << "\n" << r.output;
   }

   // strict with a valid environment: an ordinary run, no message
   DriverRun clean = run("AMGT_STRICT=1 AMGT=fp64", args);
   EXPECT_EQ(clean.str("converged"), "true") << clean.output;
   EXPECT_EQ(clean.output.find("AMGT:"), std::string::npos) << clean.output;

#if !defined(AMGT_TEST_WITH_MPI) || AMGT_TEST_WITH_MPI
   // under mpirun every rank stops, and mpirun passes the status on
   DriverRun ranks = run("AMGT_STRICT=1 AMGT=fp46", args, 2, /*expect_success=*/false);
   EXPECT_EQ(ranks.exit_code, 2) << ranks.output;
   EXPECT_NE(ranks.output.find("AMGT=\"fp46\""), std::string::npos) << ranks.output;
#endif
}

// A row of the per-level statistics table (AMGT_STATS): 1 level, 2 rows, 3 nnz, 4 tiles, 5 fill,
// 6 precision, 7 conversions, 8 products, 9 matvecs, 10 fallbacks (the times not captured).
const char* const kStatsRow = R"(^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+(fp64|fp32|fp16)\s+(\d+)\s+(\d+)\s+[\d.]+\s+(\d+)\s+[\d.]+\s+(\d+))";

// The per-level counts of the statistics table (level, conversions, products, matvecs,
// fallbacks), the times left out.
std::vector<std::string> stats_counts(const std::string& output)
{
   const std::regex         row(kStatsRow);
   std::vector<std::string> rows;
   std::istringstream       in(output);
   for (std::string line; std::getline(in, line);)
   {
      std::smatch m;
      if (std::regex_search(line, m, row))
         rows.push_back(m[1].str() + " " + m[7].str() + " " + m[8].str() + " " + m[9].str() + " " + m[10].str());
   }
   return rows;
}

// --beside-stock: the stock runs interleaved with the mode's run hypre's own code with the
// plugin suspended (hypre_AMGTSuspend): the plugin counts exactly what the same command counts
// without them, and they take the iterations of a process with AMGT unset.
TEST(Selection, BesideStockRunsHypresCodeWithThePluginSuspended)
{
   const std::string env  = "AMGT=fp64 AMGT_SPGEMM=plugin AMGT_SPMV=plugin AMGT_STATS=1";
   const std::string args = "--problem laplace7 --n 12 --solver pcg --repeat 4";
   DriverRun         both  = run(env, args + " --beside-stock");
   DriverRun         alone = run(env, args);
   DriverRun         stock = run("", args);
   const std::vector<std::string> counted = stats_counts(both.output);
   ASSERT_GE(counted.size(), 2u) << both.output;
   EXPECT_EQ(counted, stats_counts(alone.output)) << both.output << alone.output;
   EXPECT_EQ(both.str("beside_stock"), "true") << both.output;
   EXPECT_EQ(both.str("stock_iterations_all"), stock.str("iterations_all")) << both.output << stock.output;
   EXPECT_EQ(both.str("iterations_all"), alone.str("iterations_all")) << both.output;
   EXPECT_GT(both.num("stock_setup_s"), 0.0);
   EXPECT_NE(both.output.find("vs stock      setup "), std::string::npos) << both.output;
   DriverRun none = run(env, "--problem laplace7 --n 12 --repeat 0 --beside-stock", 0, /*expect_success=*/false);
   EXPECT_EQ(none.exit_code, 1) << none.output;
   EXPECT_NE(none.output.find("--beside-stock needs an even --repeat"), std::string::npos) << none.output;
   DriverRun odd = run(env, "--problem laplace7 --n 12 --repeat 3 --beside-stock", 0, /*expect_success=*/false);
   EXPECT_EQ(odd.exit_code, 1) << odd.output;
}

// Every run of a process builds the hierarchy of its first setup: hypre's device random
// numbers (the coarsening's) are reset before each run, as hypre's ij does before its timed
// run. Without it the fourth setup of a GPU process coarsens laplace27 n=31 differently from
// the first (its coarse levels' entries differ from setup to setup).
TEST(Selection, EveryRunBuildsTheFirstRunsHierarchy)
{
   const std::string args = "--problem laplace27 --n 31 --solver pcg";
   DriverRun first = run("", args + " --repeat 0");
   DriverRun later = run("", args + " --repeat 3");  // the last of four setups
   ASSERT_FALSE(first.str("level_nnz").empty()) << first.output;
   EXPECT_EQ(later.str("level_nnz"), first.str("level_nnz")) << first.output << later.output;
   EXPECT_EQ(later.str("level_rows"), first.str("level_rows")) << later.output;
   EXPECT_EQ(later.str("random_reset"), AMGT_TEST_GPU_BUILD ? "true" : "false") << later.output;
}

// AMGT_SETUP_KERNELS=1 (every size; the default takes blocks from 2^18 entries only): the
// strength counts, PMIS's sweeps, extended+i's F-F
// weights, the row sums, the truncation's copy and the diagonal passes on the plugin's kernels
// (patches/0007-0009) give hypre's hierarchy and iterations (the kernels equal their CPU
// references exactly: tests/gpu/test_twiaff_device.cpp, test_strength_device.cpp,
// test_pmis_device.cpp, test_row_sums_device.cpp, test_truncation_device.cpp,
// test_diag_device.cpp), and AMGT_STATS counts the calls; with
// AMGT_SETUP_KERNELS=0 none is made. A scalar problem and a system of three functions (the
// strength's per-function test). CPU builds: hypre's host interpolation launches no device
// kernel, the hook is never reached.
void expect_setup_kernels_keep_hypres_hierarchy(const std::string& args)
{
   SCOPED_TRACE(args);
   DriverRun hypres  = run("AMGT=fp64 AMGT_SETUP_KERNELS=0 AMGT_STATS=1", args);
   DriverRun plugins = run("AMGT=fp64 AMGT_SETUP_KERNELS=1 AMGT_STATS=1", args);
   EXPECT_EQ(hypres.output.find("setup kernels run by the plugin"), std::string::npos) << hypres.output;
   ASSERT_FALSE(hypres.str("level_nnz").empty()) << hypres.output;
   EXPECT_EQ(plugins.str("level_nnz"), hypres.str("level_nnz")) << plugins.output << hypres.output;
   EXPECT_EQ(plugins.str("level_rows"), hypres.str("level_rows")) << plugins.output;
   EXPECT_EQ(plugins.str("iterations_all"), hypres.str("iterations_all")) << plugins.output;
   EXPECT_EQ(plugins.str("converged"), "true") << plugins.output;
   std::cout << "[ residual ] " << args << ": hypre's kernels " << hypres.str("rel_residual") << ", the plugin's "
             << plugins.str("rel_residual") << "\n";
   // the names in the table's (byte) order
   const std::regex counted("setup kernels run by the plugin \\(AMGT_SETUP_KERNELS\\): PMIS independent set ([0-9]+) "
                            "PMIS update ([0-9]+) diagonal extraction ([0-9]+) diagonal first ([0-9]+) "
                            "extended\\+i F-F weights ([0-9]+) row sums ([0-9]+) "
                            "strength counts ([0-9]+) truncation copy ([0-9]+) weak row sums ([0-9]+)");
   std::smatch      m;
   ASSERT_TRUE(std::regex_search(plugins.output, m, counted)) << plugins.output;
   for (int k = 1; k <= 9; ++k) EXPECT_GE(std::stol(m[k]), 2L) << "at least one call a coarsening level, two setups";
}

TEST(Selection, SetupKernelsKeepHypresHierarchy)
{
   if (!AMGT_TEST_GPU_BUILD) GTEST_SKIP() << "CPU build: hypre's host interpolation has no device kernel";
   expect_setup_kernels_keep_hypres_hierarchy("--problem laplace27 --n 24 --solver pcg --repeat 1");
}

TEST(Selection, SetupKernelsKeepHypresHierarchyOfASystem)
{
   if (!AMGT_TEST_GPU_BUILD) GTEST_SKIP() << "CPU build: hypre's host interpolation has no device kernel";
   expect_setup_kernels_keep_hypres_hierarchy("--problem systems3 --n 16 --num-functions 3 --solver pcg --repeat 1");
}

// AMGT_SETUP_KERNELS=large (the default): blocks of fewer than 2^18 entries stay on hypre's
// setup kernels (counted), larger ones on the plugin's; the hierarchy and iterations are hypre's
// either way. laplace7 n=20 (8,000 rows, ~54k entries): every block below the floor, none on the
// plugin's; laplace7 n=70 (343,000 rows, ~2.4M entries): the fine levels' on the plugin's, the
// coarse ones' on hypre's, where AMGT_SETUP_KERNELS=1 takes every level.
TEST(Selection, SetupKernelsLargeLeaveSmallBlocksToHypre)
{
   if (!AMGT_TEST_GPU_BUILD) GTEST_SKIP() << "CPU build: hypre's host interpolation has no device kernel";
   const std::string small_args = "--problem laplace7 --n 20 --solver pcg --repeat 1";
   DriverRun hypres = run("AMGT=fp64 AMGT_SETUP_KERNELS=0 AMGT_STATS=1", small_args);
   DriverRun large  = run("AMGT=fp64 AMGT_STATS=1", small_args);
   EXPECT_EQ(large.output.find("setup kernels run by the plugin"), std::string::npos) << large.output;
   const std::regex left("left to hypre below the size floor \\(AMGT_SETUP_KERNELS=large\\): ([0-9]+) calls");
   std::smatch      m;
   ASSERT_TRUE(std::regex_search(large.output, m, left)) << large.output;
   EXPECT_GE(std::stol(m[1]), 10L) << "every setup kernel's calls of two setups";
   EXPECT_EQ(large.str("level_nnz"), hypres.str("level_nnz")) << large.output;
   EXPECT_EQ(large.str("iterations_all"), hypres.str("iterations_all")) << large.output;

   const std::string big_args = "--problem laplace7 --n 70 --solver pcg --repeat 1";
   DriverRun on  = run("AMGT=fp64 AMGT_SETUP_KERNELS=1 AMGT_STATS=1", big_args);
   DriverRun big = run("AMGT=fp64 AMGT_SETUP_KERNELS=large AMGT_STATS=1", big_args);
   EXPECT_NE(big.output.find("setup kernels run by the plugin"), std::string::npos) << "the fine levels\n" << big.output;
   EXPECT_NE(big.output.find("left to hypre below the size floor"), std::string::npos) << "the coarse levels\n"
                                                                                      << big.output;
   EXPECT_NE(on.output.find("setup kernels run by the plugin"), std::string::npos) << on.output;
   EXPECT_EQ(on.output.find("left to hypre below the size floor"), std::string::npos) << "every size with 1";
   EXPECT_EQ(big.str("level_nnz"), on.str("level_nnz")) << big.output;
   EXPECT_EQ(big.str("iterations_all"), on.str("iterations_all")) << big.output;
}

TEST(Selection, StatsTableShowsPluginWorkOnEveryLevel)
{
   // the plugin's kernels forced: in GPU builds auto may hand a product to hypre
   DriverRun r = run("AMGT=fp64 AMGT_SPGEMM=plugin AMGT_SPMV=plugin AMGT_STATS=1", "--problem laplace7 --n 16");
   ASSERT_NE(r.output.find("AMGT statistics (rank 0 of 1): mode fp64"), std::string::npos) << r.output;
   int levels = static_cast<int>(r.num("levels"));
   ASSERT_GE(levels, 3);
   // every level but the coarsest runs SpMV through the plugin; every coarsening level
   // issues SpGEMM (modular RAP on the host): columns 8 (spgemm) and 10 (spmv)
   std::regex row(kStatsRow);
   int         rows_seen = 0;
   std::string line;
   for (size_t pos = 0; pos < r.output.size();)
   {
      size_t end = r.output.find('\n', pos);
      line       = r.output.substr(pos, end - pos);
      pos        = end == std::string::npos ? r.output.size() : end + 1;
      std::smatch m;
      if (!std::regex_search(line, m, row)) continue;
      int level = std::stoi(m[1]);
      ++rows_seen;
      EXPECT_EQ(m[6].str(), "fp64");
      if (level < levels - 1)
      {
         EXPECT_GT(std::stol(m[9]), 0) << "no plugin SpMV on level " << level << ": " << line;
         EXPECT_GT(std::stol(m[8]), 0) << "no plugin SpGEMM on level " << level << ": " << line;
      }
   }
   EXPECT_GE(rows_seen, levels - 1) << r.output;
}

TEST(Selection, StatsGoToStderrOrTheirFileAndNotWhenOff)
{
   // AMGT=off with AMGT_STATS=1: one line saying the plugin was off, no table
   amgt::test::SolveRun off = amgt::test::run_solve("off", {"--problem", "laplace7", "--n", "10"}, 0,
                                                     {{"AMGT_STATS", "1"}});
   EXPECT_EQ(off.proc.exit_code, 0) << off.proc.describe();
   EXPECT_NE(off.proc.err.find("AMGT statistics: none, the plugin was off"), std::string::npos)
      << off.proc.err;
   EXPECT_EQ((off.proc.out + off.proc.err).find(" level "), std::string::npos) << "a table header";
   // the plugin on: the table on stderr, the application's stdout without it
   amgt::test::SolveRun on = amgt::test::run_solve("fp64", {"--problem", "laplace7", "--n", "10"}, 0,
                                                    {{"AMGT_STATS", "1"}});
   EXPECT_NE(on.proc.err.find("AMGT statistics (rank 0 of 1): mode fp64"), std::string::npos) << on.proc.err;
   EXPECT_EQ(on.proc.out.find("AMGT statistics"), std::string::npos) << on.proc.out;
   EXPECT_TRUE(on.converged());
   // AMGT_STATS_FILE alone: the table in the file, nowhere else
   const fs::path file = fs::temp_directory_path() / ("amgt_stats_" + std::to_string(getpid()) + ".txt");
   fs::remove(file);
   amgt::test::SolveRun f = amgt::test::run_solve("fp64", {"--problem", "laplace7", "--n", "10"}, 0,
                                                   {{"AMGT_STATS_FILE", file.string()}});
   EXPECT_EQ(f.proc.exit_code, 0) << f.proc.describe();
   EXPECT_EQ((f.proc.out + f.proc.err).find("AMGT statistics"), std::string::npos) << f.proc.out << f.proc.err;
   ASSERT_TRUE(fs::exists(file));
   std::ifstream     in(file);
   std::stringstream text;
   text << in.rdbuf();
   EXPECT_EQ(text.str().rfind("AMGT statistics (rank 0 of 1): mode fp64", 0), 0u) << text.str();
   fs::remove(file);
}

TEST(Selection, ForcedStockKernelsAreHonouredAndCounted)
{
   DriverRun r = run("AMGT=fp64 AMGT_SPGEMM=stock AMGT_SPMV=plugin AMGT_STATS=1", "--problem laplace7 --n 16");
   EXPECT_EQ(r.str("converged"), "true");
   // every product went back to hypre and was counted; the matvecs still ran in the plugin
   EXPECT_NE(r.output.find("AMGT_SPGEMM=stock="), std::string::npos) << r.output;
   std::regex  level0(R"(^\s*0\s+\d+\s+\d+\s+\d+\s+[\d.]+\s+fp64\s+\d+\s+(\d+)\s+[\d.]+\s+(\d+))");
   std::smatch m;
   bool        found = false;
   for (size_t pos = 0; pos < r.output.size();)
   {
      size_t      end  = r.output.find('\n', pos);
      std::string line = r.output.substr(pos, end - pos);
      pos              = end == std::string::npos ? r.output.size() : end + 1;
      if (std::regex_search(line, m, level0))
      {
         found = true;
         EXPECT_EQ(std::stol(m[1]), 0) << line;
         EXPECT_GT(std::stol(m[2]), 0) << line;
      }
   }
   EXPECT_TRUE(found) << r.output;
   DriverRun bad = run("AMGT=fp64 AMGT_SPMV=sometimes", "--problem laplace7 --n 12");
   EXPECT_NE(bad.output.find("AMGT_SPMV=\"sometimes\" is not a valid value"), std::string::npos)
      << bad.output;
}

// Under an AMGT mode what hypre computes itself runs on the faster of its own kernel and the
// vendor's by rule (patches/0003, hypre_glue/amgt_hypre.c), whatever the application chose:
// products on hypre's own kernel even with --vendor-spgemm 1; with AMGT off the application's
// choice stands and nothing is counted. Device products exist in GPU builds only.
TEST(Selection, StockKernelRuleOverridesTheVendorSwitch)
{
   if (!AMGT_TEST_GPU_BUILD) GTEST_SKIP() << "CPU build: hypre's host products have no vendor kernel";
   DriverRun r = run("AMGT=fp64 AMGT_STATS=1", "--problem laplace7 --n 24 --vendor-spgemm 1 --vendor-spmv 1");
   EXPECT_EQ(r.str("converged"), "true");
   std::smatch m;
   ASSERT_TRUE(std::regex_search(r.output, m,
                                 std::regex(R"(SpGEMM (\d+) own \((\d+) in its binned mode\), (\d+) vendor; SpMV (\d+) own \(< 2\^22 entries\), (\d+) vendor)")))
      << r.output;
   EXPECT_GT(std::stol(m[1]), 0) << "no product reached hypre's own kernel";
   EXPECT_EQ(std::stol(m[2]), 0) << "products of 14k rows are below the binned mode's rule";
   EXPECT_EQ(std::stol(m[3]), 0) << "a product ran on the vendor's kernel under AMGT=fp64";
   DriverRun off = run("AMGT_STATS=1", "--problem laplace7 --n 24 --vendor-spgemm 1 --vendor-spmv 1");
   EXPECT_EQ(off.str("converged"), "true");
   EXPECT_EQ(off.output.find("hypre's kernels for what it computed itself"), std::string::npos) << off.output;
}

// AMGT_SPGEMM=auto leaves a fine level's products of many short rows (1M rows here) to hypre in
// its binned mode (csr_spgemm::hypre_binned_wins), the smaller ones in its default mode; with
// AMGT_SPGEMM=stock none runs binned. The answer converges in the same iterations (+-1: the
// modes sum in different orders).
TEST(Selection, AutoRunsHypresBinnedModeOnLargeLightProducts)
{
   if (!AMGT_TEST_GPU_BUILD) GTEST_SKIP() << "CPU build: hypre's host products have no binned mode";
   const std::string args = "--problem laplace7 --n 100 --solver pcg";
   DriverRun         au   = run("AMGT=fp64 AMGT_STATS=1", args);
   DriverRun         st   = run("AMGT=fp64 AMGT_SPGEMM=stock AMGT_STATS=1", args);
   ASSERT_EQ(au.str("converged"), "true") << au.output;
   ASSERT_EQ(st.str("converged"), "true") << st.output;
   EXPECT_LE(std::fabs(au.num("iterations") - st.num("iterations")), 1.0) << au.output << st.output;
   const std::regex binned(R"(SpGEMM (\d+) own \((\d+) in its binned mode\))");
   std::smatch      m;
   ASSERT_TRUE(std::regex_search(au.output, m, binned)) << au.output;
   EXPECT_GT(std::stol(m[2]), 0) << au.output;
   EXPECT_LT(std::stol(m[2]), std::stol(m[1])) << "coarse products stay in the default mode\n" << au.output;
   ASSERT_TRUE(std::regex_search(st.output, m, binned)) << st.output;
   EXPECT_EQ(std::stol(m[2]), 0) << st.output;
}

// The SpMV path AMGT_STATS reports for level 0 (the last column of its row), "" without one.
std::string level0_path(const std::string& output)
{
   std::istringstream in(output);
   std::string        line;
   // rows, nnz, tiles and fill are "-" on a level with nothing converted (AMGT_SPMV=stock)
   static const std::regex row(R"(^\s*0\s+(\d+|-)\s+(\d+|-)\s+(\d+|-)\s+([\d.]+|-)\s+fp\d\d\s.*\s(\S+)\s*$)");
   while (std::getline(in, line))
   {
      std::smatch m;
      if (std::regex_match(line, m, row)) return m[5];
   }
   return "";
}

// AMGT_SPGEMM=rows: on the GPU the row-wise CSR SpGEMM builds every one of the setup's products
// (level 0's path gpu-rows: matvecs are left to hypre so that the path stays the product's)
// and none is left to hypre by auto's rule; CPU builds run their reference kernel as with
// plugin. The solve converges as with the defaults, within the iteration bound of the
// low-precision modes (1.1x): the row-wise kernel adds a row's products in the order its
// hash table receives them, so its last bits, and through PMIS and P's truncation the
// hierarchy, vary from run to run. Measured on the H100 (laplace7 n=24, AMG as the solver, six
// processes each): the defaults 31 31 31 31 31 31, AMGT_SPGEMM=rows 32 31 31 30 31 31, and 33 in
// an earlier run; a bound of one iteration failed there.
TEST(Selection, RowWiseSpgemmOnRequest)
{
   const std::string args = "--problem laplace7 --n 24";
   DriverRun         base = run("AMGT=fp64 AMGT_STATS=1", args);
   DriverRun         rows = run("AMGT=fp64 AMGT_SPGEMM=rows AMGT_SPMV=stock AMGT_STATS=1", args);
   EXPECT_EQ(base.str("converged"), "true") << base.output;
   EXPECT_EQ(rows.str("converged"), "true") << rows.output;
   const double its = base.num("iterations");
   EXPECT_LE(std::fabs(rows.num("iterations") - its), std::max(1.0, std::ceil(0.1 * its))) << rows.output;
   EXPECT_EQ(level0_path(rows.output), AMGT_TEST_GPU_BUILD ? "gpu-rows" : "cpu-ref") << rows.output;
   EXPECT_EQ(rows.output.find("spgemm-stock-faster"), std::string::npos) << rows.output;
}

// The layout of each matrix's SpMV (plugin/rows/rows.h): on the 7-point fine operator (about
// 4 entries per 4x4 tile, every entry within 1600 columns of its row) the tiles save less than
// 10% of the bytes, so AMGT_LAYOUT=auto takes the row-wise layout with 16-bit offsets;
// AMGT_LAYOUT=mbsr and rows force either; the answer is the same. Device layouts exist in GPU
// builds only (the CPU backend runs the mBSR reference).
TEST(Selection, LayoutPerMatrixAndItsOverride)
{
   if (!AMGT_TEST_GPU_BUILD) GTEST_SKIP() << "CPU build: the host backend has one layout";
   // AMGT_COST_MODEL=0: a 448k-entry operator the cost model would leave to hypre (it is the
   // layouts that are checked here)
   const std::string args = "--problem laplace7 --n 40";
   DriverRun automatic = run("AMGT=fp64 AMGT_STATS=1 AMGT_COST_MODEL=0", args);
   DriverRun mbsr      = run("AMGT=fp64 AMGT_STATS=1 AMGT_COST_MODEL=0 AMGT_LAYOUT=mbsr", args);
   DriverRun rows      = run("AMGT=fp64 AMGT_STATS=1 AMGT_COST_MODEL=0 AMGT_LAYOUT=rows", args);
   for (DriverRun* r : {&automatic, &mbsr, &rows})
   {
      EXPECT_EQ(r->str("converged"), "true") << r->output;
      EXPECT_EQ(r->num("iterations"), automatic.num("iterations")) << r->output;
   }
   EXPECT_EQ(level0_path(automatic.output), "rows16") << automatic.output;
   EXPECT_EQ(level0_path(rows.output), "rows16") << rows.output;
   const std::string m = level0_path(mbsr.output);
   EXPECT_EQ(m.rfind("cuda_core", 0), 0u) << "level 0 path '" << m << "' under AMGT_LAYOUT=mbsr\n" << mbsr.output;
}

// AMGT=auto's floor s,s,h on the GPU: the V-cycle reads the finest operator in fp32, and the
// Krylov method's matvecs of it (fp64) run on hypre's own arrays through the row-wise kernel:
// none goes to hypre ("spmv-outside-cycle-fp64"), iterations as in fp64. aniso7's 1e-3
// couplings are not fp16 numbers (laplace7's are: see the next test).
TEST(Selection, KrylovMatvecsOfAnFp32FinestLevelRunFp64OnHypresArrays)
{
   if (!AMGT_TEST_GPU_BUILD) GTEST_SKIP() << "CPU build: outside the cycle the host backend leaves fp64 to hypre";
   const std::string args = "--problem aniso7 --n 40 --solver pcg";
   DriverRun         fp64 = run("AMGT=fp64", args);
   DriverRun         au   = run("AMGT=auto AMGT_STATS=1 AMGT_COST_MODEL=0", args); // the plugin serves it
   EXPECT_EQ(au.str("converged"), "true") << au.output;
   EXPECT_EQ(au.num("iterations"), fp64.num("iterations")) << au.output;
   EXPECT_NE(au.output.find("AMGT: why level 0: A:fp32/"), std::string::npos) << au.output;
   EXPECT_NE(au.output.find("fp64 matvecs outside the V-cycle"), std::string::npos) << au.output;
   EXPECT_EQ(au.output.find("spmv-outside-cycle-fp64="), std::string::npos) << au.output;
}

// laplace7's values (6, -1) are fp16 numbers: under AMGT=auto the finest operator is stored in
// fp16 without a change of value (lossless_storage, precision/policy.h), so that one copy
// serves the V-cycle and the Krylov method's fp64 matvecs alike (none lent, none to hypre);
// iterations and the final residual as in fp64 (the same products in double, summed in the
// copy's order).
TEST(Selection, AFinestLevelOfFp16NumbersIsStoredInFp16AndServesTheKrylovMatvecs)
{
   const std::string args = "--problem laplace7 --n 40 --solver pcg";
   DriverRun         fp64 = run("AMGT=fp64", args);
   DriverRun         au   = run("AMGT=auto AMGT_STATS=1 AMGT_COST_MODEL=0", args); // the plugin serves it
   EXPECT_EQ(au.str("converged"), "true") << au.output;
   EXPECT_EQ(au.num("iterations"), fp64.num("iterations")) << au.output;
   EXPECT_LE(std::fabs(au.num("rel_residual") - fp64.num("rel_residual")), 1e-3 * fp64.num("rel_residual"))
      << au.output;
   EXPECT_NE(au.output.find("AMGT: why level 0: A:fp16/exact-fp16"), std::string::npos) << au.output;
   EXPECT_EQ(au.output.find("fp64 matvecs outside the V-cycle"), std::string::npos) << au.output;
   EXPECT_EQ(au.output.find("spmv-outside-cycle-fp64="), std::string::npos) << au.output;
}

// AMGT_SETUP_OVERLAP=1: the matrices of each finished level are prepared by the
// plugin's second thread and stream while hypre builds the next level. The hierarchy and
// the answer are those of the preparation at the end of the setup (the default), in
// fp64 and under auto (whose value checks run there too), over two setups of one process;
// every matrix queued was prepared without an error, and the solve found them ready.
TEST(Selection, SetupWorkBesideHypresSetup)
{
   if (!AMGT_TEST_GPU_BUILD) GTEST_SKIP() << "CPU build: host matrices are not prepared (nothing to overlap)";
   const std::string args = "--problem laplace7 --n 64 --solver pcg --repeat 2";
   for (const char* mode : {"fp64", "auto"})
   {
      SCOPED_TRACE(mode);
      // every level prepared (AMGT_COST_MODEL=0): the overlap is what is checked
      DriverRun at_end = run(std::string("AMGT=") + mode + " AMGT_STATS=1 AMGT_COST_MODEL=0", args);
      DriverRun beside =
         run(std::string("AMGT=") + mode + " AMGT_STATS=1 AMGT_COST_MODEL=0 AMGT_SETUP_OVERLAP=1", args);
      expect_same_convergence(at_end, beside);
      EXPECT_EQ(at_end.output.find("prepared beside"), std::string::npos) << at_end.output;
      const std::string key = "AMGT: ";
      const size_t      at  = beside.output.find(" matrices prepared beside hypre's setup");
      ASSERT_NE(at, std::string::npos) << beside.output;
      const size_t line = beside.output.rfind(key, at);
      ASSERT_NE(line, std::string::npos);
      const long queued = std::strtol(beside.output.c_str() + line + key.size(), nullptr, 10);
      // level 0's A and P at least, in each of the two setups and the driver's warm-up
      EXPECT_GE(queued, 4) << beside.output;
      EXPECT_EQ(beside.output.find("prepare-beside"), std::string::npos) << "a queued preparation failed:\n" << beside.output;
      EXPECT_EQ(beside.output.find("out-of-memory"), std::string::npos) << beside.output;
      EXPECT_EQ(beside.output.find("error="), std::string::npos) << beside.output;
   }
}

// AMGT_PRELOAD (default on): HYPRE_Initialize starts loading libHYPRE's kernels (hypre's and
// the plugin's) and running the plugin's on a second thread. It finishes without an error
// (AMGT_STATS reports its time and counts), and the answer is that of a process without it;
// AMGT_PRELOAD=plugin runs the plugin's kernels only.
TEST(Selection, KernelsPreloadedFromInitialize)
{
   if (!AMGT_TEST_GPU_BUILD) GTEST_SKIP() << "CPU build: no GPU kernels to load";
   const std::string args = "--problem laplace27 --n 40 --solver pcg --repeat 1";
   for (const char* mode : {"fp64", "auto"})
   {
      SCOPED_TRACE(mode);
      DriverRun off = run(std::string("AMGT=") + mode + " AMGT_STATS=1 AMGT_PRELOAD=0", args);
      DriverRun on  = run(std::string("AMGT=") + mode + " AMGT_STATS=1", args);
      expect_same_convergence(off, on);
      EXPECT_EQ(off.output.find("AMGT_PRELOAD"), std::string::npos) << off.output;
      const size_t at = on.output.find("AMGT: the plugin's kernels were loaded on a second thread");
      ASSERT_NE(at, std::string::npos) << on.output;
      const std::string line = on.output.substr(at, on.output.find('\n', at) - at);
      EXPECT_EQ(line.find("failed"), std::string::npos) << line;
      EXPECT_EQ(line.find("stopped"), std::string::npos) << line;
      // hypre's kernels and the plugin's, from libHYPRE's device images (kernel_images.h)
      const size_t lib = on.output.find("AMGT: the library's kernels were loaded on a second thread");
      ASSERT_NE(lib, std::string::npos) << on.output;
      const std::string images = on.output.substr(lib, on.output.find('\n', lib) - lib);
      EXPECT_EQ(images.find("refused"), std::string::npos) << images;
      if (images.find("began before") == std::string::npos) // not cut short by the first setup
      {
         const std::regex counts(R"((\d+) of (\d+) kernels of (\d+) device images)");
         std::smatch      m;
         ASSERT_TRUE(std::regex_search(images, m, counts)) << images;
         EXPECT_EQ(m[1].str(), m[2].str()) << "every kernel loaded: " << images;
         EXPECT_GE(std::stol(m[3].str()), 50) << "hypre's CUDA sources and the plugin's: " << images;
      }
      DriverRun plugin_only = run(std::string("AMGT=") + mode + " AMGT_STATS=1 AMGT_PRELOAD=plugin", args);
      expect_same_convergence(off, plugin_only);
      EXPECT_EQ(plugin_only.output.find("AMGT: the library's kernels"), std::string::npos) << plugin_only.output;
      EXPECT_NE(plugin_only.output.find("AMGT: the plugin's kernels were loaded"), std::string::npos);
   }
   DriverRun stock = run("AMGT_STATS=1", args);
   EXPECT_EQ(stock.output.find("AMGT_PRELOAD"), std::string::npos) << "AMGT off: nothing preloaded\n" << stock.output;
}

// The preload stops at the application's first matrix when it has fewer than 400000 entries on
// the process (hypre_glue/preload_rule.h): a 7-point problem of 8000 rows (53,600 entries);
// AMGT_STATS says so with the count, AMGT_PRELOAD=always goes on, and the answer is that of a
// process without the preload. The large problem of Selection.KernelsPreloadedFromInitialize
// (laplace27 n=40, 1.7M entries) does not stop there.
TEST(Selection, PreloadStopsAtASmallFirstMatrix)
{
   if (!AMGT_TEST_GPU_BUILD) GTEST_SKIP() << "CPU build: no GPU kernels to load";
   const std::string args = "--problem laplace7 --n 20 --solver pcg --repeat 1";
   DriverRun off    = run("AMGT=fp64 AMGT_STATS=1 AMGT_PRELOAD=0", args);
   DriverRun small  = run("AMGT=fp64 AMGT_STATS=1", args);
   DriverRun always = run("AMGT=fp64 AMGT_STATS=1 AMGT_PRELOAD=always", args);
   expect_same_convergence(off, small);
   expect_same_convergence(off, always);
   const size_t lib = small.output.find("AMGT: the library's kernels were loaded on a second thread");
   ASSERT_NE(lib, std::string::npos) << small.output;
   const std::string images = small.output.substr(lib, small.output.find('\n', lib) - lib);
   EXPECT_NE(images.find("stopped at the application's first matrix (53600 entries on this process, fewer than 400000"),
             std::string::npos)
      << images;
   EXPECT_EQ(always.output.find("stopped at the application's first matrix"), std::string::npos) << always.output;
   DriverRun large = run("AMGT=fp64 AMGT_STATS=1", "--problem laplace27 --n 40 --solver pcg --repeat 0");
   EXPECT_EQ(large.output.find("stopped at the application's first matrix"), std::string::npos) << large.output;
}

// hypre's l1-Jacobi sweeps under an AMGT mode skip hypre's copy f -> Vtemp: the sweeps from
// u = 0 run as one pass, the others as one out-of-place product (f read in place); both
// kinds occur in a PCG solve, none is refused, and convergence is stock's.
TEST(Selection, SmootherSweepsSkipHypresCopy)
{
   const std::string args = "--problem laplace7 --n 20 --solver pcg";
   DriverRun         off  = run("", args);
   DriverRun         fp64 = run("AMGT=fp64 AMGT_STATS=1", args);
   expect_same_convergence(off, fp64);
   const std::string key = "l1-Jacobi sweeps taken from hypre's Relax7: ";
   const size_t      at  = fp64.output.find(key);
   ASSERT_NE(at, std::string::npos) << fp64.output;
   long from_zero = 0, in_place = 0;
   ASSERT_EQ(std::sscanf(fp64.output.c_str() + at + key.size(), "%ld from u = 0 in one pass (no copy), %ld as one", &from_zero,
                         &in_place),
             2)
      << fp64.output;
   // every level but the coarsest sweeps down from zero and up from the down sweep's u, per cycle
   EXPECT_GE(from_zero, fp64.num("iterations")) << fp64.output;
   EXPECT_GE(in_place, fp64.num("iterations")) << fp64.output;
   EXPECT_EQ(fp64.output.find("relax-"), std::string::npos) << "a sweep went back to hypre:\n" << fp64.output;
   EXPECT_EQ(off.output.find(key), std::string::npos);
}

TEST(Selection, TraceListsEveryPluginCallInOrder)
{
   const fs::path trace = fs::temp_directory_path() / ("amgt_trace_" + std::to_string(getpid()) + ".csv");
   DriverRun r = run("AMGT=mixed AMGT_LEVELS=d,s AMGT_SPGEMM=plugin AMGT_SPMV=plugin AMGT_STATS=1 AMGT_TRACE=" + trace.string(),
                     "--problem laplace7 --n 12 --repeat 0");
   ASSERT_TRUE(fs::exists(trace)) << r.output;
   FILE* f = std::fopen(trace.c_str(), "r");
   ASSERT_NE(f, nullptr);
   char        buf[512];
   long        spgemm = 0, spmv = 0, expect = 0;
   bool        header = false, precisions_ok = true;
   while (std::fgets(buf, sizeof buf, f))
   {
      std::string line(buf);
      if (!header) { header = line.rfind("call,kind,level,precision,seconds,path", 0) == 0; continue; }
      std::smatch m;
      static const std::regex row(R"(^(\d+),(spgemm|spmv),(-?\d+),(fp64|fp32|fp16),[-+0-9.eE]+,\S+)");
      ASSERT_TRUE(std::regex_search(line, m, row)) << line;
      EXPECT_EQ(std::stol(m[1]), expect++) << "calls out of order";
      (m[2] == "spgemm" ? spgemm : spmv)++;
      // schedule d,s: level 0 fp64, deeper levels fp32
      const int level = std::stoi(m[3]);
      if (level >= 0) precisions_ok &= m[4] == (level == 0 ? "fp64" : "fp32");
   }
   std::fclose(f);
   fs::remove(trace);
   EXPECT_TRUE(header);
   EXPECT_TRUE(precisions_ok);
   EXPECT_GT(spgemm, 0);
   EXPECT_GT(spmv, spgemm);
   // the per-level table counts the same calls
   long table_spgemm = 0, table_spmv = 0;
   std::regex row(R"(^\s*(\d+|other)\s+\S+\s+\S+\s+\S+\s+\S+\s+(fp64|fp32|fp16)\s+\d+\s+(\d+)\s+[\d.]+\s+(\d+)\s+[\d.]+)");
   for (size_t pos = 0; pos < r.output.size();)
   {
      size_t      end  = r.output.find('\n', pos);
      std::string line = r.output.substr(pos, end - pos);
      pos              = end == std::string::npos ? r.output.size() : end + 1;
      std::smatch m;
      if (std::regex_search(line, m, row))
      {
         table_spgemm += std::stol(m[3]);
         table_spmv += std::stol(m[4]);
      }
   }
   EXPECT_EQ(spgemm, table_spgemm) << r.output;
   EXPECT_EQ(spmv, table_spmv) << r.output;
}

TEST(Selection, MixedScheduleIsApplied)
{
   DriverRun r = run("AMGT=mixed AMGT_LEVELS=d,s AMGT_STATS=1", "--problem laplace7 --n 16");
   EXPECT_NE(r.output.find("schedule d,s"), std::string::npos) << r.output;
   EXPECT_NE(r.output.find(" fp32 "), std::string::npos) << r.output;
   EXPECT_EQ(r.output.find(" fp16 "), std::string::npos) << r.output;
   EXPECT_EQ(r.str("converged"), "true");
}

// --galerkin-work: one line per level with a P and a JSON object each, whose counts agree with
// the hierarchy the driver reports (C = P^T A P is the next level's operator), in every mode.
TEST(DriverOptions, GalerkinWorkCountsEveryLevelsProduct)
{
   for (const std::string& mode : {"off", "fp64"})
   {
      SCOPED_TRACE(mode);
      DriverRun r = run("AMGT=" + mode, "--problem laplace7 --n 20 --solver pcg --repeat 1 --galerkin-work", 1);
      ASSERT_FALSE(r.json.empty()) << r.output;
      EXPECT_EQ(r.str("galerkin_note"), "") << r.output;
      EXPECT_NE(r.output.find("galerkin work C = P^T A P per level"), std::string::npos) << r.output;
      const std::vector<double> rows = json_array(r.output, "level_rows");
      const std::vector<double> nnz  = json_array(r.output, "level_nnz");
      const size_t              at   = r.output.rfind("\"galerkin_work\":[");
      ASSERT_NE(at, std::string::npos) << r.output;
      const std::string   array = r.output.substr(at, r.output.find(']', at) - at);
      static const std::regex object(R"(\{[^{}]*\})");
      size_t              l = 0;
      for (auto it = std::sregex_iterator(array.begin(), array.end(), object); it != std::sregex_iterator(); ++it, ++l)
      {
         const auto w = amgt::test::json_scalars(it->str());
         auto       v = [&](const char* k) { return std::strtod(w.at(k).c_str(), nullptr); };
         ASSERT_LT(l + 1, rows.size()) << r.output;
         EXPECT_EQ(v("level"), static_cast<double>(l));
         EXPECT_EQ(v("rows_fine"), rows[l]);
         EXPECT_EQ(v("rows_coarse"), rows[l + 1]);
         EXPECT_EQ(v("nnz_a"), nnz[l]);
         EXPECT_EQ(v("nnz_c"), nnz[l + 1]) << "C = P^T A P is the next level's operator";
         EXPECT_GE(v("terms_ap"), v("nnz_ap"));
         EXPECT_GE(v("terms_ptap"), v("nnz_c"));
         EXPECT_EQ(v("touched_two_products"),
                   v("nnz_a") + v("terms_ap") + v("nnz_ap") + v("nnz_p") + v("terms_ptap") + v("nnz_c"));
         EXPECT_EQ(v("touched_fused"), v("nnz_p") + v("a_reads_fused") + v("terms_fused") + v("nnz_c"));
      }
      EXPECT_EQ(l + 1, rows.size()) << "one object per level with a P\n" << r.output;
   }
   DriverRun plain = run("", "--problem laplace7 --n 12 --solver pcg --repeat 0", 1);
   EXPECT_EQ(plain.output.find("galerkin"), std::string::npos) << "nothing without the option\n" << plain.output;
}

// It needs whole matrices: on two ranks it counts nothing and says why; the solve is unchanged.
TEST(Mpi, GalerkinWorkNeedsOneRank)
{
   DriverRun two = run("", "--problem laplace7 --n 16 --solver pcg --repeat 0 --galerkin-work", 2);
   ASSERT_FALSE(two.json.empty()) << two.output;
   EXPECT_EQ(two.str("converged"), "true");
   EXPECT_NE(two.str("galerkin_note").find("several ranks"), std::string::npos) << two.output;
   EXPECT_NE(two.output.find("\"galerkin_work\":[]"), std::string::npos) << two.output;
}

TEST(Mpi, TwoRanksAgreeWithOne)
{
   for (const std::string& mode : {"off", "fp64", "mixed"})
   {
      const std::string args = "--problem laplace7 --n 16 --solver pcg";
      DriverRun               one  = run("AMGT=" + mode + " AMGT_STATS=1", args, 1);
      DriverRun               two  = run("AMGT=" + mode + " AMGT_STATS=all", args, 2);
      ASSERT_FALSE(two.json.empty()) << two.output;
      EXPECT_EQ(two.num("np"), 2);
      EXPECT_NEAR(one.num("iterations"), two.num("iterations"), 1.0) << mode;
      EXPECT_EQ(two.str("converged"), "true") << mode;
      if (mode != "off")
      {
         // level tags reached the second rank: its own table shows plugin SpMV on level 1
         EXPECT_NE(two.output.find("AMGT statistics (rank 1 of 2)"), std::string::npos) << two.output;
         // the off-diagonal blocks' matvecs are counted on each rank: on the plugin, or on
         // hypre with the planner's reason (GPU: blocks of fewer than 2^18 entries, all of them
         // at this size); CPU builds run the plugin's reference kernel on every one. With one
         // rank there is no off-diagonal block, hence no such line.
         static const std::regex offd(R"(off-diagonal blocks \(columns of other ranks\): (\d+) matvecs on the plugin, (\d+) on hypre)");
         int lines = 0;
         for (auto it = std::sregex_iterator(two.output.begin(), two.output.end(), offd); it != std::sregex_iterator(); ++it)
         {
            ++lines;
            const long plugin = std::stol((*it)[1]), stock = std::stol((*it)[2]);
            EXPECT_GT(plugin + stock, 0) << two.output;
            if (!AMGT_TEST_GPU_BUILD) EXPECT_EQ(stock, 0) << two.output;
         }
         EXPECT_EQ(lines, 2) << two.output;
         EXPECT_EQ(one.output.find("off-diagonal blocks"), std::string::npos) << one.output;
      }
   }
}

// patches/0005: on two ranks the off-diagonal block of a matrix assembled in host memory has
// rownnz (the indices of its few nonzero rows), and hypre 2.32.0's hypre_CSRMatrixMigrate
// copied num_rows entries of it to the device instead of num_rownnz. At 8M rows (4M per rank,
// 40,000 nonzero offd rows) that read 16 MB from a 160 KB host array: a segmentation fault in
// cudaMemcpy on the H100, stock hypre included (smaller problems read garbage inside mapped
// memory and did not fail). This size failed before the patch; one iteration suffices.
TEST(Mpi, OffdBlockMovesToTheDeviceOnTwoRanks)
{
   if (!AMGT_TEST_GPU_BUILD) GTEST_SKIP() << "host-to-device migration exists in GPU builds only";
   for (const std::string& mode : {"off", "fp64"})
   {
      DriverRun two = run("AMGT=" + mode, "--problem laplace7 --n 200 --solver pcg --max-iter 1 --repeat 0", 2, false);
      EXPECT_EQ(two.exit_code, 0) << two.output;
      EXPECT_EQ(two.num("np"), 2) << two.output;
      EXPECT_EQ(two.num("rows"), 8000000) << two.output;
   }
}

// --steps: a sequence of steps on one IJ matrix and one solver, new values every step.
// Checks every step of `r` (`steps` of them): iterations > 0, the residual below tol, and the
// per-step arrays against the sums.
void expect_steps_converged(const DriverRun& r, size_t steps, double tol = 1e-8)
{
   ASSERT_FALSE(r.json.empty()) << r.output;
   EXPECT_EQ(r.num("steps"), static_cast<double>(steps));
   EXPECT_EQ(r.str("converged"), "true") << r.output;
   const std::vector<double> its   = json_array(r.output, "step_iterations");
   const std::vector<double> res   = json_array(r.output, "step_rel_residual");
   const std::vector<double> setup = json_array(r.output, "step_setup_s");
   const std::vector<double> solve = json_array(r.output, "step_solve_s");
   ASSERT_EQ(its.size(), steps) << r.output;
   ASSERT_EQ(res.size(), steps);
   ASSERT_EQ(setup.size(), steps);
   ASSERT_EQ(solve.size(), steps);
   double setups = 0.0, solves = 0.0;
   for (size_t k = 0; k < steps; ++k)
   {
      EXPECT_GT(its[k], 0) << "step " << k << "\n" << r.output;
      EXPECT_LE(res[k], tol) << "step " << k << "\n" << r.output;
      EXPECT_GT(solve[k], 0.0) << "step " << k;
      setups += setup[k];
      solves += solve[k];
   }
   expect_same_time(r.num("steps_setup_total_s"), setups, "steps_setup_total_s = sum of the step setups");
   expect_same_time(r.num("steps_solve_total_s"), solves, "steps_solve_total_s = sum of the step solves");
   EXPECT_EQ(r.num("iterations"), its.back()) << "iterations: the last step's";
   // the last step's x against the last step's matrix: the solves used the new values
   EXPECT_LE(r.num("true_rel_residual"), 10 * tol) << r.output;
   // the per-step table of the summary
   EXPECT_NE(r.output.find("  steps         " + std::to_string(steps) + ", drift "), std::string::npos) << r.output;
   EXPECT_NE(r.output.find("  steps sum     setup "), std::string::npos) << r.output;
}

TEST(Steps, DtAndJumpSequencesConvergeAtEveryStep)
{
   for (const char* mode : {"AMGT=off", "AMGT=fp64"})
   {
      for (const char* args : {"--problem laplace7 --n 10 --solver pcg --steps 4 --drift dt",
                               "--problem laplace27 --n 8 --steps 4 --drift dt --dt-shift 3",
                               "--problem jump7 --n 12 --solver pcg --steps 4 --drift jump",
                               "--problem jump7 --n 12 --steps 4 --drift jump --jump-speed 3"})
      {
         SCOPED_TRACE(std::string(mode) + " " + args);
         DriverRun r = run(mode, std::string(args) + " --repeat 1 --true-residual");
         expect_steps_converged(r, 4);
         EXPECT_EQ(r.num("setup_calls"), 4);
         EXPECT_EQ(r.num("frozen"), 0);
         const std::vector<double> setup  = json_array(r.output, "step_setup_s");
         const std::vector<double> called = json_array(r.output, "step_setup_called");
         for (size_t k = 0; k < setup.size(); ++k)
         {
            EXPECT_GT(setup[k], 0.0) << "step " << k;
            EXPECT_EQ(called[k], 1.0) << "step " << k;
         }
         // the values change: the steps' residuals differ
         const std::vector<double> res = json_array(r.output, "step_rel_residual");
         EXPECT_FALSE(res[0] == res[1] && res[1] == res[2] && res[2] == res[3]) << r.output;
         // one timed run: its setup is the sum of the step setups, its solves one per step
         expect_same_time(r.num("setup_s"), r.num("steps_setup_total_s"), "setup_s = the sequence's setups");
         EXPECT_EQ(json_array(r.output, "solve_all").size(), 4u);
         EXPECT_EQ(json_array(r.output, "iterations_all").size(), 4u);
      }
   }
}

TEST(Steps, TheSameValuesEveryStepGiveTheSameSolve)
{
   // --drift none: the same matrix written again every step; a full setup of the same values
   // gives the same hierarchy, so every step's solve is the same, bit for bit on a CPU. hypre's
   // device setup sums with atomics in no fixed order (its PMIS and products): on the GPU the
   // hierarchies differ by rounding and a solve may take one iteration more or less.
   DriverRun r = run("", "--problem jump7 --n 10 --solver pcg --steps 3 --drift none --repeat 0 --true-residual");
   expect_steps_converged(r, 3);
   const std::vector<double> its = json_array(r.output, "step_iterations");
   const double its_tol = AMGT_TEST_GPU_BUILD ? 1.0 : 0.0;
   EXPECT_NEAR(its[0], its[1], its_tol);
   EXPECT_NEAR(its[1], its[2], its_tol);
   if (!AMGT_TEST_GPU_BUILD)
   {
      const std::vector<double> res = json_array(r.output, "step_rel_residual");
      EXPECT_EQ(res[0], res[1]) << r.output;
      EXPECT_EQ(res[1], res[2]) << r.output;
   }
}

TEST(Steps, FrozenSetsUpOnlyAtStepZero)
{
   for (const char* args : {"--problem jump7 --n 12 --solver pcg --steps 4 --drift dt --frozen 1",
                            "--problem laplace7 --n 10 --solver pcg --steps 4 --drift dt --frozen 1",
                            "--problem laplace7 --n 10 --steps 4 --drift dt --frozen 1"})
   {
      SCOPED_TRACE(args);
      DriverRun r = run("", std::string(args) + " --repeat 2 --true-residual");
      expect_steps_converged(r, 4);
      EXPECT_EQ(r.num("setup_calls"), 1);
      EXPECT_EQ(r.num("frozen"), 1);
      const std::vector<double> setup  = json_array(r.output, "step_setup_s");
      const std::vector<double> called = json_array(r.output, "step_setup_called");
      EXPECT_GT(setup[0], 0.0);
      EXPECT_EQ(called[0], 1.0);
      for (size_t k = 1; k < setup.size(); ++k)
      {
         EXPECT_EQ(setup[k], 0.0) << "step " << k;
         EXPECT_EQ(called[k], 0.0) << "step " << k;
      }
      EXPECT_EQ(r.str("resetup_median_s"), "null") << "no re-setup when frozen";
      expect_same_time(r.num("first_setup_s"), setup[0], "first_setup_s");
      EXPECT_NE(r.output.find("frozen: setup at step 0 only"), std::string::npos) << r.output;
   }
}

TEST(Steps, AFrozenHierarchyOfMovedJumpsIsNoPreconditioner)
{
   // jump7's checkerboard moved by 2 cells: where the coefficient went from 1 to 1e3, the
   // l1-Jacobi norms of step 0's setup are 1e3 too small and the kept V-cycle is indefinite on
   // the new matrix: hypre's PCG stops on a negative gamma with the residual near 1 (reported
   // as not converged, exit status 0). n = 12: cubes of 3 cells, a period of 6 in x, so step 3
   // (offset 6) is step 0's matrix again and its solve is step 0's, bit for bit on a CPU.
   DriverRun r = run("", "--problem jump7 --n 12 --solver pcg --steps 4 --drift jump --frozen 1 --repeat 0");
   ASSERT_FALSE(r.json.empty()) << r.output;
   EXPECT_EQ(r.num("setup_calls"), 1);
   EXPECT_EQ(r.str("converged"), "false");
   EXPECT_EQ(r.num("hypre_error"), 0) << "non-convergence is no hypre error";
   const std::vector<double> res = json_array(r.output, "step_rel_residual");
   ASSERT_EQ(res.size(), 4u);
   EXPECT_LE(res[0], 1e-8);
   EXPECT_GT(res[1], 0.5) << r.output;
   EXPECT_GT(res[2], 0.5) << r.output;
   EXPECT_LE(res[3], 1e-8) << r.output;
   if (!AMGT_TEST_GPU_BUILD) EXPECT_EQ(res[3], res[0]) << r.output;
   EXPECT_NE(r.output.find("warning: not converged"), std::string::npos) << r.output;
   // with a setup every step the same sequence converges at every step
   DriverRun full = run("", "--problem jump7 --n 12 --solver pcg --steps 4 --drift jump --repeat 0 --true-residual");
   expect_steps_converged(full, 4);
}

TEST(Steps, BadOptionsAreRefusedClearly)
{
   struct Bad
   {
      std::string args, message;
   };
   for (const Bad& b :
        {Bad{"--problem laplace7 --n 8 --steps 0", "option --steps must be in 1..100000, got '0'"},
         Bad{"--problem laplace7 --n 8 --steps two", "option --steps expects an integer, got 'two'"},
         Bad{"--problem laplace7 --n 8 --steps 3 --drift wind", "unknown drift 'wind' for --drift (expected none, dt or jump)"},
         Bad{"--problem laplace7 --n 8 --drift dt", "--drift needs --steps K"},
         Bad{"--problem laplace7 --n 8 --frozen 1", "--frozen needs --steps K"},
         Bad{"--problem laplace7 --n 8 --steps 3 --frozen 2", "option --frozen must be in 0..1, got '2'"},
         Bad{"--problem laplace7 --n 8 --steps 3 --drift jump", "--drift jump moves jump7's coefficients; laplace7 has none (use --drift dt)"},
         Bad{"--problem laplace7 --n 8 --steps 3 --solves 2", "--steps and --solves cannot be combined"},
         Bad{"--problem jump7 --n 8 --steps 3 --drift jump --dt-shift 2", "--dt-shift applies to --drift dt only"},
         Bad{"--problem laplace7 --n 8 --steps 3 --dt-shift 0", "option --dt-shift must be in (0, 1e+12], got '0'"},
         Bad{"--problem laplace7 --n 8 --steps 3 --jump-speed 2", "--jump-speed applies to --drift jump only"},
         Bad{"--matrix none.mtx --steps 3", "--steps needs a generated problem (--problem)"}})
   {
      SCOPED_TRACE(b.args);
      DriverRun r = run("", b.args, 0, /*expect_success=*/false);
      EXPECT_EQ(r.exit_code, 1) << r.output;
      EXPECT_TRUE(r.json.empty()) << r.output;
      EXPECT_NE(r.output.find("amgt-solve: error: " + b.message), std::string::npos) << r.output;
   }
}

TEST(Steps, WithoutStepsTheOutputHasNoSequence)
{
   DriverRun r = run("", "--problem laplace7 --n 10 --solver pcg");
   ASSERT_FALSE(r.json.empty()) << r.output;
   for (const char* key : {"steps", "drift", "frozen", "setup_calls", "resetup_median_s"})
   {
      EXPECT_FALSE(r.json.count(key)) << key;
   }
   EXPECT_EQ(r.output.find("steps sum"), std::string::npos) << r.output;
}

TEST(Mpi, StepsOnTwoRanksWriteTheirOwnRows)
{
   // every rank writes new values into its own rows, off-diagonal block included
   for (const char* args : {"--problem jump7 --n 12 --solver pcg --steps 3 --drift jump",
                            "--problem laplace27 --n 10 --solver pcg --steps 3 --drift dt"})
   {
      SCOPED_TRACE(args);
      DriverRun one = run("AMGT=fp64", std::string(args) + " --repeat 0 --true-residual", 1);
      DriverRun two = run("AMGT=fp64", std::string(args) + " --repeat 0 --true-residual", 2);
      expect_steps_converged(two, 3);
      EXPECT_EQ(two.num("np"), 2);
      const std::vector<double> a = json_array(one.output, "step_iterations");
      const std::vector<double> b = json_array(two.output, "step_iterations");
      ASSERT_EQ(a.size(), b.size());
      for (size_t k = 0; k < a.size(); ++k) EXPECT_NEAR(a[k], b[k], 1.0) << "step " << k;
   }
}

} // namespace
