// amgt-solve --steps writes each step's values straight into the ParCSR matrix's value
// arrays (--update direct, the default) or through the IJ interface (--update ij): the same
// matrix, entry for entry (amgt-steps-update-check, on one and two MPI ranks), and the same
// sequences end to end (every step's iterations and residual, with and without --frozen 1,
// stock and the plugin).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/driver_run.h"
#include "common/subprocess.h"

#ifndef AMGT_STEPS_UPDATE_CHECK_EXE
#error "AMGT_STEPS_UPDATE_CHECK_EXE must name the amgt-steps-update-check binary"
#endif

namespace {

using amgt::test::ProcResult;
using amgt::test::ProcSpec;
using amgt::test::SolveRun;

std::vector<std::string> words(const std::string& text)
{
   std::vector<std::string> out;
   size_t                   at = 0;
   while (at < text.size())
   {
      const size_t end = text.find(' ', at);
      const size_t stop = end == std::string::npos ? text.size() : end;
      if (stop > at) out.push_back(text.substr(at, stop - at));
      at = stop + 1;
   }
   return out;
}

ProcResult run_check(int np)
{
   ProcSpec spec;
   if (np > 0) spec.argv = amgt::test::mpirun_prefix(np);
   spec.argv.push_back(AMGT_STEPS_UPDATE_CHECK_EXE);
   spec.timeout_s = 600;
   return amgt::test::run_process(spec);
}

TEST(StepsUpdate, DirectEqualsIjEntryForEntry)
{
   const ProcResult r = run_check(0);
   EXPECT_TRUE(r.exited && r.exit_code == 0) << r.describe();
   EXPECT_NE(r.out.find("PASS: steps update check, 8 cases"), std::string::npos) << r.describe();
   EXPECT_NE(r.out.find("np 1"), std::string::npos) << r.describe();
}

TEST(StepsUpdate, DirectEqualsIjEntryForEntryOnTwoRanks)
{
#if defined(AMGT_TEST_WITH_MPI) && !AMGT_TEST_WITH_MPI
   GTEST_SKIP() << "a build without MPI";
#endif
   const ProcResult r = run_check(2);
   EXPECT_TRUE(r.exited && r.exit_code == 0) << r.describe();
   EXPECT_NE(r.out.find("PASS: steps update check, 8 cases"), std::string::npos) << r.describe();
   EXPECT_NE(r.out.find("np 2"), std::string::npos) << r.describe();
}

// The per-step results of the same sequence written both ways: on a CPU bit for bit (the
// same matrix gives the same setup and solve); hypre's device setup is not reproducible from
// run to run, so on GPU builds the iterations within one and the residuals under the tolerance.
void expect_same_sequence(const std::string& mode, const std::string& args, int np = 0)
{
   SCOPED_TRACE(mode + " " + args + " np " + std::to_string(np));
   const SolveRun ij     = amgt::test::run_solve(mode, words(args + " --update ij"), np);
   const SolveRun direct = amgt::test::run_solve(mode, words(args), np);
   const SolveRun named  = amgt::test::run_solve(mode, words(args + " --update direct"), np);
   for (const SolveRun* r : {&ij, &direct, &named})
   {
      ASSERT_TRUE(r->proc.exited && r->proc.exit_code == 0) << r->proc.describe();
      ASSERT_TRUE(r->has("step_iterations")) << r->proc.describe();
   }
   if (!AMGT_TEST_GPU_BUILD)
   {
      EXPECT_EQ(ij.str("step_iterations"), direct.str("step_iterations"));
      EXPECT_EQ(ij.str("step_rel_residual"), direct.str("step_rel_residual"));
      EXPECT_EQ(ij.str("iterations_all"), direct.str("iterations_all"));
      EXPECT_EQ(ij.str("true_rel_residual"), direct.str("true_rel_residual"));
      EXPECT_EQ(named.str("step_rel_residual"), direct.str("step_rel_residual"));
      EXPECT_TRUE(direct.converged()) << direct.proc.describe();
   }
   else
   {
      // every step of each way under the tolerance, its iterations within one of the direct
      // sequence's (3% where that is more, as stock differs from itself)
      const std::vector<double> its = direct.numbers("step_iterations");
      ASSERT_FALSE(its.empty()) << direct.proc.describe();
      for (const SolveRun* r : {&ij, &direct, &named})
      {
         EXPECT_TRUE(r->converged()) << r->proc.describe();
         const std::vector<double> mine = r->numbers("step_iterations");
         const std::vector<double> res  = r->numbers("step_rel_residual");
         ASSERT_EQ(mine.size(), its.size()) << r->proc.describe();
         ASSERT_EQ(res.size(), its.size()) << r->proc.describe();
         for (size_t k = 0; k < its.size(); ++k)
         {
            EXPECT_NEAR(mine[k], its[k], amgt::test::gpu_iteration_slack(its[k])) << "step " << k;
            EXPECT_LE(res[k], r->num("tol")) << "step " << k;
         }
      }
   }
   EXPECT_EQ(ij.str("setup_calls"), direct.str("setup_calls"));
   EXPECT_EQ(ij.str("converged"), direct.str("converged"));
   // the update is reported as before: one time per step, 0 at step 0
   EXPECT_TRUE(direct.has("step_update_s"));
   EXPECT_EQ(direct.str("step_update_s").rfind("[0,", 0), 0u) << direct.str("step_update_s");
}

TEST(StepsUpdate, SequencesAreTheSameEitherWay)
{
   for (const std::string m : {"off", "fp64"})
   {
      expect_same_sequence(m, "--problem laplace7 --n 10 --solver pcg --steps 4 --drift dt --repeat 1 --true-residual");
      expect_same_sequence(m, "--problem jump7 --n 12 --solver pcg --steps 4 --drift jump --repeat 1 --true-residual");
      expect_same_sequence(m, "--problem systems3 --n 5 --solver pcg --steps 3 --drift dt --repeat 0 --true-residual");
      // --frozen 1: no setup after step 0, the solves use the new values of level 0
      expect_same_sequence(m, "--problem laplace7 --n 10 --solver pcg --steps 4 --drift dt --frozen 1 --repeat 1 --true-residual");
      expect_same_sequence(m, "--problem jump7 --n 12 --steps 4 --drift dt --frozen 1 --repeat 0 --true-residual");
   }
}

TEST(StepsUpdate, SequencesAreTheSameEitherWayOnTwoRanks)
{
#if defined(AMGT_TEST_WITH_MPI) && !AMGT_TEST_WITH_MPI
   GTEST_SKIP() << "a build without MPI";
#endif
   expect_same_sequence("fp64", "--problem jump7 --n 12 --solver pcg --steps 3 --drift jump --repeat 0 --true-residual", 2);
   expect_same_sequence("", "--problem laplace27 --n 10 --solver pcg --steps 3 --drift dt --frozen 1 --repeat 0 --true-residual", 2);
}

TEST(StepsUpdate, BadUpdateOptionsAreRefused)
{
   struct Bad
   {
      std::string args, message;
   };
   for (const Bad& b : {Bad{"--problem laplace7 --n 8 --update ij", "--update needs --steps K"},
                        Bad{"--problem laplace7 --n 8 --steps 2 --update fast",
                            "unknown update 'fast' for --update (expected direct or ij)"}})
   {
      SCOPED_TRACE(b.args);
      const SolveRun r = amgt::test::run_solve("", words(b.args));
      EXPECT_TRUE(r.proc.exited && r.proc.exit_code == 1) << r.proc.describe();
      EXPECT_NE(r.proc.err.find("amgt-solve: error: " + b.message), std::string::npos) << r.proc.describe();
   }
}

} // namespace
