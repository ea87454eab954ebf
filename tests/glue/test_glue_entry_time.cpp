// AMGT_STATS' time in the plugin's C entry points, through the C API as hypre's hooks call it
// (host arrays): each timed call counted once, in the setup slot it falls in, and printed as
// one line of the table; nothing counted without AMGT_STATS. The configuration is read once
// per process, so every case runs in a child (a death test) with its own environment; this
// process never reads it.
#include "amgt_glue.h"
#include "glue/glue_test_util.h"
#include "stats.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

namespace {

using amgt::test::host_alloc;
using amgt::test::host_release;
using amgt::test::host_view;
using amgt::test::in_child;
using amgt::test::tridiag;
using ::testing::ExitedWithCode;

// The timed calls the process counted, over every setup slot.
long timed_calls()
{
   long calls = 0;
   for (size_t k = 0; k < 16; ++k) calls += amgt::glue::process_stats().entry_slot(k).calls;
   return calls;
}

// A run's calls: 1 timed before the first setup; in setup 1 (and its solve) 4 -- the setup's
// begin, a tag, a matvec (amgt_glue_spmv reaches amgt_glue_spmv_b: once) and the matrix's
// release; 1 in setup 2; 2 in setup 3. Between them the untimed ones (the mode, the allocator,
// a V-cycle's begin and end). True when the plugin computed the matvec.
bool run_calls()
{
   const amgt::CsrMatrix a = tridiag(40, 2.0, -1.0);
   const amgt_csr        v = host_view(a);
   std::vector<double>   x(40, 1.0), y(40, 0.0);
   void*                 state = nullptr;
   amgt_allocator        al{host_alloc, host_release, nullptr, nullptr};
   if (amgt_glue_mode() != AMGT_MODE_FP64) return false;
   amgt_glue_set_allocator(&al);
   amgt_glue_count_fallback(nullptr, "before-setup");
   amgt_glue_setup_begin();
   amgt_glue_matrix_tag(&state, 0, AMGT_ROLE_A);
   amgt_glue_cycle_begin(0);
   const bool computed = amgt_glue_spmv(&state, &v, 1.0, x.data(), 0.0, y.data()) == 1;
   amgt_glue_cycle_end();
   amgt_glue_matrix_release(state);
   amgt_glue_setup_begin();
   amgt_glue_setup_begin();
   amgt_glue_count_sweep();
   return computed && y[0] == 1.0 && y[20] == 0.0;
}

TEST(GlueEntryTimeDeathTest, EachCallInItsSetupOnTheTable)
{
   EXPECT_EXIT(in_child({{"AMGT", "fp64"}, {"AMGT_STATS", "1"}},
                        [] {
                           const bool computed = run_calls();
                           amgt_glue_print_stats(0, 1); // the table on stderr
                           return computed;
                        }),
               ExitedWithCode(0),
               "\nAMGT: plugin entry points \\(host\\): before setup 1: 1 call, [0-9]+\\.[0-9]{3} ms; "
               "setup 1 and its solves: 4 calls, [0-9]+\\.[0-9]{3} ms; later setups and their solves: "
               "mean [0-9]+\\.[0-9]{3} ms over 2 \\(3 calls in all\\)\n");
}

TEST(GlueEntryTimeDeathTest, NothingCountedWithoutStats)
{
   EXPECT_EXIT(in_child({{"AMGT", "fp64"}},
                        [] {
                           const bool computed = run_calls();
                           std::fprintf(stderr, "timed calls: %ld\n", timed_calls());
                           return computed;
                        }),
               ExitedWithCode(0), "^timed calls: 0\n$");
}

// hypre's allocator, which may come back into the glue (here: a fallback counted from inside
// each allocation the plugin makes)
void* calling_back_alloc(size_t bytes, int on_device)
{
   amgt_glue_count_fallback(nullptr, "from-allocator");
   return host_alloc(bytes, on_device);
}

// An entry reached from inside another on the same thread lies in the outer call's time: the
// product counts once, however often the allocator called back for its output arrays.
TEST(GlueEntryTimeDeathTest, AnEntryInsideAnotherCountsOnce)
{
   EXPECT_EXIT(in_child({{"AMGT", "fp64"}, {"AMGT_STATS", "1"}},
                        [] {
                           const amgt::CsrMatrix a  = tridiag(40, 2.0, -1.0);
                           const amgt_csr        v  = host_view(a);
                           void*                 sa = nullptr;
                           amgt_csr_out          c{};
                           amgt_allocator        al{calling_back_alloc, host_release, nullptr, nullptr};
                           amgt_glue_set_allocator(&al);
                           amgt_glue_setup_begin();
                           const long before   = timed_calls();
                           const bool computed = amgt_glue_spgemm(&sa, &v, &sa, &v, 0, &c) == 1;
                           const long calls    = timed_calls() - before;
                           std::fprintf(stderr, "product: %ld timed, %ld calls back from the allocator\n", calls,
                                        amgt::glue::process_stats().total_fallbacks("from-allocator"));
                           return computed && c.nnz == 5 * 40 - 6; // A^2 of a tridiagonal A: five bands
                        }),
               ExitedWithCode(0), "^product: 1 timed, [1-9][0-9]* calls back from the allocator\n$");
}

} // namespace
