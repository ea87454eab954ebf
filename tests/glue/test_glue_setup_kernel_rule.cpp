// AMGT_SETUP_KERNELS=large through the C API as hypre's hooks call it: a block of the plugin's
// size is left to hypre where the application's latest assembled matrix has fewer entries on the
// process than the preload's bound (backend.h setup_kernel_decision), counted apart on the
// table's line of calls left to hypre; a larger application matrix, or AMGT_SETUP_KERNELS=1,
// leaves the block to the plugin (which, in this CPU build, has no kernel and declines it
// uncounted). The configuration is read once per process: each case runs in a child (a death
// test) with its own environment.
#include "amgt_glue.h"
#include "glue/glue_test_util.h"
#include "backend.h"
#include "preload_rule.h"
#include "stats.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace {

using amgt::glue::process_config;
using amgt::glue::process_stats;
using amgt::test::in_child;
using ::testing::ExitedWithCode;

// One diagonal extraction's entry with a block of `nnz` entries (nothing else is read before
// the decision)
int diag_call(long long nnz)
{
   amgt_csr_diag d{};
   d.nnz = nnz;
   return amgt_glue_csr_diag(&d);
}

// A small application's block of the plugin's size, one below the size floor, then a large
// application's block of the plugin's size; the table on stderr. True (what the calls did is
// read from the table).
bool calls()
{
   amgt_glue_matrix_assembled(amgt::glue::kSetupKernelsApplicationEntries - 1);
   diag_call(AMGT_SMALL_MATRIX_ENTRIES);
   diag_call(AMGT_SMALL_MATRIX_ENTRIES - 1);
   amgt_glue_matrix_assembled(amgt::glue::kSetupKernelsApplicationEntries);
   diag_call(AMGT_SMALL_MATRIX_ENTRIES);
   amgt_glue_print_stats(0, 1);
   return true;
}

const std::string kLeft = "AMGT: hypre's setup kernels left to hypre below the size floor \\(AMGT_SETUP_KERNELS=large\\): ";

TEST(GlueSetupKernelRuleDeathTest, SmallApplicationsHierarchyLeftToHypre)
{
   EXPECT_EXIT(in_child({{"AMGT", "fp64"}, {"AMGT_STATS", "1"}}, calls), ExitedWithCode(0),
               "\n" + kLeft +
                  "2 calls \\(1 of them of blocks above it, in the hierarchy of an application's matrix of fewer "
                  "than 400000 entries on this process\\)\n");
}

// AMGT_SETUP_KERNELS=1: the same calls all go to the plugin, none is left to hypre by the rule
TEST(GlueSetupKernelRuleDeathTest, EverySizeTakenWithSetupKernelsOn)
{
   EXPECT_EXIT(in_child({{"AMGT", "fp64"}, {"AMGT_STATS", "1"}, {"AMGT_SETUP_KERNELS", "1"}},
                        [] {
                           calls();
                           const std::string t = process_stats().format(process_config(), 0, 1);
                           std::fprintf(stderr, "left: %s\n",
                                        t.find("left to hypre below the size floor") == std::string::npos ? "none"
                                                                                                        : "some");
                           return true;
                        }),
               ExitedWithCode(0), "\nleft: none\n$");
}

} // namespace
