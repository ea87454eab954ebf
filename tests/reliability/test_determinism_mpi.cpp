// Determinism (the same run twice gives the same residual history, every bit) and agreement
// over MPI rank counts (np = 1, 2, 4 in modes off, fp64, mixed), on the CPU build.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "common/driver_run.h"
#include "lifecycle_run.h"
#include "scratch.h"

namespace {

namespace fs = std::filesystem;
using amgt::test::orderly;
using amgt::test::run_lifecycle;
using amgt::test::run_solve;
using amgt::test::SolveRun;

// Everything hypre prints with --print-level 3 before the driver's summary: per solve the
// setup report (level sizes, row sums, complexities) and the per-iteration residual table.
// No timings are in it, so two identical computations print identical text.
std::string hypre_block(const std::string& out)
{
   const size_t end = out.find("amgt-solve (hypre");
   return out.substr(0, end == std::string::npos ? out.size() : end);
}

// The block cut per solve (each starts with hypre's " Num MPI tasks" line).
std::vector<std::string> per_solve(const std::string& block)
{
   std::vector<std::string> parts;
   const std::string        mark = " Num MPI tasks";
   for (size_t at = block.find(mark); at != std::string::npos;)
   {
      const size_t next = block.find(mark, at + mark.size());
      std::string part = block.substr(at, next == std::string::npos ? std::string::npos : next - at);
      part.erase(part.find_last_not_of(" \n") + 1); // the blank lines before what follows vary
      parts.push_back(part);
      at = next;
   }
   return parts;
}

struct DriverCase
{
   std::string name;
   std::string mode;
   std::string solver;
};

void PrintTo(const DriverCase& c, std::ostream* os)
{
   *os << c.name;
}

class DriverDeterminism : public ::testing::TestWithParam<DriverCase>
{
};

// The plugin's own kernels, forced (in GPU builds AMGT_SPGEMM/AMGT_SPMV=auto may hand a
// product to hypre): the determinism asked for is the plugin's.
const std::map<std::string, std::string>& kForcePlugin = amgt::test::kPluginKernels;

// Two processes, each with a warm-up and two timed setups + solves (--repeat 2): all six
// residual histories are the same text, digit for digit (hypre prints %e), and the final
// relative residual (%.17g in the JSON) is the same double. Within a process this also shows
// that a second setup on the same matrix (new epoch, conversions redone) computes exactly
// what the first did.
//
// GPU builds: hypre's own device setup is not bit-reproducible between runs (measured on an
// H100 with AMGT=off and with the plugin: the coarse grids of one problem differ from run to
// run, e.g. 921, 953 or 956 rows on level 1 of laplace7 n=14: PMIS on the device, and hypre's
// device products accumulate with atomics). Two stock runs may still agree by chance, so the
// GPU bound does not depend on them agreeing: stock runs twice to show the spread, each
// plugin run converges with its iteration count within two of that range, and the solve
// phase is reproducible: solves of one process that ran on identical hierarchies (identical
// setup reports) print identical residual histories.
TEST_P(DriverDeterminism, SameHistoryEveryRunAndEveryProcess)
{
   const DriverCase&              c    = GetParam();
   const std::vector<std::string> args = {"--problem", "laplace7", "--n", "14", "--solver", c.solver,
                                          "--print-level", "3", "--repeat", "2"};
   if (AMGT_TEST_GPU_BUILD)
   {
      SolveRun s1 = run_solve("off", args), s2 = run_solve("off", args);
      ASSERT_TRUE(orderly(s1.proc) && s1.converged() && orderly(s2.proc) && s2.converged()) << s1.proc.out;
      const double lo = std::min(s1.num("iterations"), s2.num("iterations"));
      const double hi = std::max(s1.num("iterations"), s2.num("iterations"));
      int          same_setup_pairs = 0;
      for (int k = 0; k < 2; ++k)
      {
         SolveRun p = run_solve(c.mode, args, 0, kForcePlugin);
         ASSERT_TRUE(orderly(p.proc) && p.proc.exit_code == 0 && p.converged()) << p.proc.describe();
         EXPECT_GE(p.num("iterations"), lo - 2) << p.proc.out;
         EXPECT_LE(p.num("iterations"), hi + 2) << p.proc.out;
         const auto solves = per_solve(hypre_block(p.proc.out));
         ASSERT_EQ(solves.size(), 3u);
         const auto setup_of = [](const std::string& s) { return s.substr(0, s.find("BoomerAMG SOLVER PARAMETERS")); };
         for (int i = 1; i < 3; ++i)
         {
            if (setup_of(solves[i]) != setup_of(solves[0])) continue;
            ++same_setup_pairs;
            EXPECT_EQ(solves[i], solves[0]) << "same hierarchy, different solve";
         }
      }
      // the solves' check above runs only where two setups of a process agreed (none may)
      std::printf("[ determinism ] %s (GPU): stock %g..%g iterations, stock runs %s; plugin runs "
                  "within the bound; %d solve pairs on identical hierarchies%s\n",
                  c.name.c_str(), lo, hi,
                  hypre_block(s1.proc.out) == hypre_block(s2.proc.out) ? "agreed" : "differed",
                  same_setup_pairs,
                  same_setup_pairs > 0 ? ", identical histories" : " (the solve's reproducibility not checked)");
      return;
   }
   SolveRun a = run_solve(c.mode, args, 0, kForcePlugin);
   SolveRun b = run_solve(c.mode, args, 0, kForcePlugin);
   ASSERT_TRUE(orderly(a.proc) && a.proc.exit_code == 0) << a.proc.describe();
   ASSERT_TRUE(orderly(b.proc) && b.proc.exit_code == 0) << b.proc.describe();
   ASSERT_TRUE(a.converged() && b.converged()) << a.proc.out;

   const std::string ha = hypre_block(a.proc.out), hb = hypre_block(b.proc.out);
   const auto        solves = per_solve(ha);
   ASSERT_EQ(solves.size(), 3u) << "expected a warm-up and two timed solves:\n" << ha;
   const std::regex row(c.solver == "amg" ? R"(\n\s+Cycle\s+\d+\s+\S+)" : R"(\n\s+\d+\s+\d\.\d+e[-+]\d+\s)");
   EXPECT_GE(std::distance(std::sregex_iterator(solves[0].begin(), solves[0].end(), row), std::sregex_iterator()),
             5)
       << "no per-iteration residual table in:\n" << solves[0];
   EXPECT_EQ(solves[1], solves[0]) << "the second solve of one process differs from the first";
   EXPECT_EQ(solves[2], solves[0]) << "the third solve of one process differs from the first";
   EXPECT_EQ(ha, hb) << "two processes printed different histories";
   EXPECT_EQ(a.str("rel_residual"), b.str("rel_residual"));
   EXPECT_EQ(a.str("iterations"), b.str("iterations"));
   std::printf("[ determinism ] %s: %s iterations, final relative residual %s in both processes\n",
               c.name.c_str(), a.str("iterations").c_str(), a.str("rel_residual").c_str());
}

INSTANTIATE_TEST_SUITE_P(Driver, DriverDeterminism,
                         ::testing::Values(DriverCase{"fp64_amg", "fp64", "amg"},
                                           DriverCase{"fp64_pcg", "fp64", "pcg"},
                                           DriverCase{"mixed_amg", "mixed", "amg"}),
                         [](const auto& info) { return info.param.name; });

// The relative residual after each V-cycle, computed by amg-lifecycle with every bit (%a),
// and a hash of every bit of the solution, then a PCG solve: identical in two processes,
// on one rank and on two.
TEST(IjDeterminism, ResidualHistoryBitForBit)
{
   struct Run
   {
      std::string mode;
      int         np;
   };
   for (const Run& run : {Run{"fp64", 0}, Run{"fp64", 2}, Run{"mixed", 0}})
   {
#if defined(AMGT_TEST_WITH_MPI) && !AMGT_TEST_WITH_MPI
      if (run.np > 0) continue; // no mpirun in a build without MPI
#endif
      SCOPED_TRACE(run.mode + " np " + std::to_string(run.np));
      auto a = run_lifecycle(run.mode, {"history", "--n", "12", "--cycles", "12"}, run.np);
      auto b = run_lifecycle(run.mode, {"history", "--n", "12", "--cycles", "12"}, run.np);
      ASSERT_TRUE(amgt::test::orderly(a.proc) && a.proc.exit_code == 0) << a.proc.describe();
      ASSERT_TRUE(amgt::test::orderly(b.proc) && b.proc.exit_code == 0) << b.proc.describe();
      std::vector<std::string> la, lb;
      for (const std::string& l : a.lines)
         if (l.rfind("amg_cycle", 0) == 0 || l.rfind("x_hash", 0) == 0 || l.rfind("pcg", 0) == 0) la.push_back(l);
      for (const std::string& l : b.lines)
         if (l.rfind("amg_cycle", 0) == 0 || l.rfind("x_hash", 0) == 0 || l.rfind("pcg", 0) == 0) lb.push_back(l);
      ASSERT_EQ(la.size(), 14u) << a.proc.out; // 12 cycles, the hash, PCG
      EXPECT_EQ(la, lb);
      // the history is a real one: it falls by orders of magnitude
      double first = 0, last = 0;
      std::sscanf(la.front().c_str(), "amg_cycle %*d %*s %lf", &first);
      std::sscanf(la[11].c_str(), "amg_cycle %*d %*s %lf", &last);
      EXPECT_LT(last, 1e-3 * first) << la.front() << "\n" << la[11];
   }
}

// ---- MPI: np = 1, 2, 4 ---------------------------------------------------------------------

// One row of an AMGT statistics table.
struct StatsRow
{
   std::string precision;
   long        spgemm = 0;
   long        spmv   = 0;
};

// level -> row, from one rank's own stderr (mpirun --output-filename keeps ranks apart).
std::map<int, StatsRow> stats_table(const std::string& out)
{
   std::map<int, StatsRow> rows;
   static const std::regex row(
       R"(^\s*(\d+)\s+\S+\s+\S+\s+\S+\s+\S+\s+(fp64|fp32|fp16)\s+(\d+)\s+(\d+)\s+[\d.]+\s+(\d+)\s+[\d.]+\s+(\d+))");
   std::istringstream in(out);
   for (std::string line; std::getline(in, line);)
   {
      std::smatch m;
      if (!std::regex_search(line, m, row)) continue;
      rows[std::stoi(m[1])] = StatsRow{m[2], std::stol(m[4]), std::stol(m[5])};
   }
   return rows;
}

std::string slurp(const fs::path& p)
{
   std::ifstream     f(p);
   std::stringstream s;
   s << f.rdbuf();
   return s.str();
}

struct RankRun
{
   SolveRun                 run;
   std::vector<std::string> rank_out; // each rank's stdout
   std::vector<std::string> rank_err; // each rank's stderr (where AMGT_STATS writes its table)
   std::map<std::string, std::string> json; // rank 0's final JSON line
};

// amgt-solve under mpirun with one output file per rank; the JSON comes from rank 0's own
// stream (through mpirun, another rank's statistics may arrive after it).
RankRun run_ranks(const std::string& mode, int np, const std::vector<std::string>& args)
{
   const fs::path       dir = amgt::test::scratch_dir("mpi");
   RankRun              r;
   amgt::test::ProcSpec spec;
   spec.argv = amgt::test::mpirun_prefix(np);
   spec.argv.push_back("--output-filename"); // DIR/1/rank.N/stdout (Open MPI)
   spec.argv.push_back(dir.string());
   spec.argv.push_back(AMGT_SOLVE_EXE);
   spec.argv.insert(spec.argv.end(), args.begin(), args.end());
   spec.argv.push_back("--json");
   spec.set_env["AMGT"] = mode;
   if (mode != "off")
   {
      spec.set_env["AMGT_STATS"] = "all";
      for (const auto& [k, v] : kForcePlugin) spec.set_env[k] = v; // GPU builds: plugin kernels
   }
   spec.timeout_s = 300;
   r.run.proc     = amgt::test::run_process(spec);
   for (int rank = 0; rank < np; ++rank)
   {
      r.rank_out.push_back(slurp(dir / "1" / ("rank." + std::to_string(rank)) / "stdout"));
      r.rank_err.push_back(slurp(dir / "1" / ("rank." + std::to_string(rank)) / "stderr"));
   }
   const std::string& out0 = r.rank_out[0];
   const size_t       nl   = out0.rfind("\n{");
   if (nl != std::string::npos) r.json = amgt::test::json_scalars(out0.substr(nl + 1));
   std::error_code ec;
   fs::remove_all(dir, ec);
   return r;
}

class RankCounts : public ::testing::TestWithParam<std::string>
{
};

// PCG + BoomerAMG on a 7-point Laplacian (12^3 rows) on 1, 2 and 4 ranks. The hierarchy
// depends on the partition (PMIS, local measures), so iteration counts may differ by one;
// all converge. With the plugin on, every rank's own statistics show plugin SpMV on level
// 0, and the number per iteration about doubles from 1 rank to more: each ParCSR matvec is
// then a diag and an offd product, and both run on the plugin (offd blocks exercised on
// every rank: the slab partition gives every rank a neighbour). In mixed, every rank applies
// the schedule (fp32 on level 1, fp16 below), not only rank 0.
TEST_P(RankCounts, OneTwoFourAgree)
{
   AMGT_REQUIRE_MPIRUN();
   const std::string              mode = GetParam();
   const std::vector<std::string> args = {"--problem", "laplace7", "--n", "12", "--solver", "pcg", "--repeat", "0"};
   std::map<int, RankRun>         runs;
   for (int np : {1, 2, 4})
   {
      runs[np] = run_ranks(mode, np, args);
      const RankRun& r = runs[np];
      SCOPED_TRACE("np " + std::to_string(np));
      ASSERT_TRUE(orderly(r.run.proc) && r.run.proc.exit_code == 0) << r.run.proc.describe();
      ASSERT_FALSE(r.json.empty()) << r.rank_out[0];
      EXPECT_EQ(r.json.at("np"), std::to_string(np));
      EXPECT_EQ(r.json.at("converged"), "true") << r.rank_out[0];
   }
   const auto iters = [&](int np) { return std::stod(runs[np].json.at("iterations")); };
   EXPECT_NEAR(iters(2), iters(1), 1.0);
   EXPECT_NEAR(iters(4), iters(1), 1.0);
   std::printf("[ mpi ] AMGT=%s: iterations np1 %g, np2 %g, np4 %g; rel residual %s / %s / %s\n",
               mode.c_str(), iters(1), iters(2), iters(4), runs[1].json.at("rel_residual").c_str(),
               runs[2].json.at("rel_residual").c_str(), runs[4].json.at("rel_residual").c_str());
   if (mode == "off")
   {
      for (const auto& [np, r] : runs)
         for (const std::string& out : r.rank_out)
            EXPECT_EQ(out.find("AMGT statistics"), std::string::npos) << "stock mode printed statistics";
      for (const auto& [np, r] : runs)
         for (const std::string& out : r.rank_err)
            EXPECT_EQ(out.find("AMGT statistics"), std::string::npos) << "stock mode printed statistics";
      return;
   }

   const auto   one        = stats_table(runs[1].rank_err[0]);
   const double per_iter_1 = one.count(0) ? one.at(0).spmv / iters(1) : 0.0;
   ASSERT_GT(per_iter_1, 0) << runs[1].rank_err[0];
   for (int np : {2, 4})
   {
      for (int rank = 0; rank < np; ++rank)
      {
         SCOPED_TRACE("np " + std::to_string(np) + " rank " + std::to_string(rank));
         const std::string& out = runs[np].rank_err[rank];
         ASSERT_NE(out.find("AMGT statistics (rank " + std::to_string(rank) + " of " + std::to_string(np) + ")"),
                   std::string::npos)
             << out;
         const auto table = stats_table(out);
         ASSERT_TRUE(table.count(0) && table.count(1)) << out;
         EXPECT_GT(table.at(0).spgemm, 0) << out;
         const double per_iter = table.at(0).spmv / iters(np);
         std::printf("[ mpi ] AMGT=%s np %d rank %d: level-0 plugin SpMV per iteration %.2f (np 1: "
                     "%.2f); level 1 %s, %ld SpMV\n",
                     mode.c_str(), np, rank, per_iter, per_iter_1, table.at(1).precision.c_str(),
                     table.at(1).spmv);
         EXPECT_GE(per_iter, 1.5 * per_iter_1)
             << "level-0 plugin SpMV per iteration: " << per_iter << " on rank " << rank << " of " << np
             << " vs " << per_iter_1 << " on one rank: the offd products did not reach the plugin\n" << out;
         EXPECT_GT(table.at(1).spmv, 0) << out;
         if (mode == "mixed")
         {
            EXPECT_EQ(table.at(0).precision, "fp64") << out;
            EXPECT_EQ(table.at(1).precision, "fp32") << out;
            if (table.count(2) && table.at(2).spmv > 0) { EXPECT_EQ(table.at(2).precision, "fp16") << out; }
         }
      }
   }
}

INSTANTIATE_TEST_SUITE_P(Modes, RankCounts, ::testing::Values("off", "fp64", "mixed"),
                         [](const auto& info) { return info.param; });

} // namespace
