// AMGT_STATS_FILE through the glue's C API: the table goes to the named file (".rankN"
// appended with several ranks), not to the application's stdout nor to stderr; set without
// AMGT_STATS, it turns the statistics on; a file that cannot be written leaves the table on
// stderr with a message. Its own process: the configuration is read once per process.
#include "amgt_glue.h"
#include "glue/glue_test_util.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;

const std::string& stats_path()
{
   static const std::string path =
      (fs::temp_directory_path() / ("amgt_stats_file_" + std::to_string(getpid()) + ".txt")).string();
   return path;
}

const bool g_environment_set = [] {
   setenv("AMGT", "fp64", 1);
   unsetenv("AMGT_STATS");
   unsetenv("AMGT_LEVELS");
   setenv("AMGT_STATS_FILE", stats_path().c_str(), 1);
   return true;
}();

std::string slurp(const std::string& path)
{
   std::ifstream     f(path);
   std::stringstream s;
   s << f.rdbuf();
   return s.str();
}

// amgt_glue_print_stats(rank, nranks) with stdout and stderr captured.
struct Printed
{
   std::string out, err;
};
Printed print_stats(int rank, int nranks)
{
   Printed p;
   ::testing::internal::CaptureStdout();
   ::testing::internal::CaptureStderr();
   amgt_glue_print_stats(rank, nranks);
   p.err = ::testing::internal::GetCapturedStderr();
   p.out = ::testing::internal::GetCapturedStdout();
   return p;
}

class StatsFile : public amgt::test::GlueInCycle
{
protected:
   void SetUp() override
   {
      GlueInCycle::SetUp();
      // some plugin work on level 0, so that the table has a row
      a_ = amgt::test::tridiag(40, 2.0, -1.0);
      amgt_glue_matrix_tag(&state_, 0, AMGT_ROLE_A);
      amgt_csr            v = amgt::test::host_view(a_);
      std::vector<double> x(40, 1.0), y(40, 0.0);
      ASSERT_EQ(amgt_glue_spmv(&state_, &v, 1.0, x.data(), 0.0, y.data()), 1);
      for (const std::string& p : {stats_path(), stats_path() + ".rank0", stats_path() + ".rank1"})
      {
         std::error_code ec;
         fs::remove_all(p, ec);
      }
   }
   void TearDown() override
   {
      amgt_glue_matrix_release(state_);
      GlueInCycle::TearDown();
   }
   amgt::CsrMatrix a_;
   void*           state_ = nullptr;
};

TEST_F(StatsFile, SetAloneItTurnsTheStatisticsOn)
{
   EXPECT_EQ(amgt_glue_mode(), AMGT_MODE_FP64);
   EXPECT_EQ(amgt_glue_stats_enabled(), 1);
}

TEST_F(StatsFile, TheTableGoesToTheFileOnly)
{
   const Printed p = print_stats(0, 1);
   EXPECT_EQ(p.out.find("AMGT statistics"), std::string::npos) << p.out;
   EXPECT_EQ(p.err.find("AMGT statistics"), std::string::npos) << p.err;
   ASSERT_TRUE(fs::exists(stats_path()));
   const std::string t = slurp(stats_path());
   EXPECT_EQ(t.rfind("AMGT statistics (rank 0 of 1): mode fp64\n", 0), 0u) << t;
   EXPECT_NE(t.find("cpu-ref"), std::string::npos) << "no level row:\n" << t;
}

TEST_F(StatsFile, SeveralRanksAppendTheRank)
{
   print_stats(0, 2);
   EXPECT_TRUE(fs::exists(stats_path() + ".rank0"));
   EXPECT_FALSE(fs::exists(stats_path()));
   EXPECT_NE(slurp(stats_path() + ".rank0").find("AMGT statistics (rank 0 of 2)"), std::string::npos);
   // AMGT_STATS=1 (here implied): rank 0's table only; AMGT_STATS=all would write every rank's
   print_stats(1, 2);
   EXPECT_FALSE(fs::exists(stats_path() + ".rank1"));
}

TEST_F(StatsFile, AnUnwritableFileLeavesTheTableOnStderr)
{
   fs::create_directory(stats_path()); // a directory cannot be opened for writing
   const Printed p = print_stats(0, 1);
   EXPECT_NE(p.err.find("AMGT: cannot write the statistics to " + stats_path()), std::string::npos) << p.err;
   EXPECT_NE(p.err.find("AMGT statistics (rank 0 of 1): mode fp64"), std::string::npos) << p.err;
   EXPECT_EQ(p.out.find("AMGT statistics"), std::string::npos) << p.out;
   fs::remove(stats_path());
}

} // namespace
