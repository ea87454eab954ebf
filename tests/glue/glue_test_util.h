// Shared by the glue's test binaries that drive it through its C API on host arrays.
#pragma once

#include "amgt_glue.h"

#include "mbsr/mbsr.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

extern char** environ; // POSIX

namespace amgt::test {

// Unsets every AMGT and AMGT_* variable (the glue reports unknown ones), so that a death
// test's child, which reads the configuration afresh, sees only what its case sets.
inline void clean_environment()
{
   std::vector<std::string> names;
   for (char** entry = environ; entry && *entry; ++entry)
   {
      const char* eq = std::strchr(*entry, '=');
      if (eq && (std::strncmp(*entry, "AMGT_", 5) == 0 || std::strncmp(*entry, "AMGT=", 5) == 0))
      {
         names.emplace_back(*entry, static_cast<size_t>(eq - *entry));
      }
   }
   for (const std::string& name : names) unsetenv(name.c_str());
}

// In a death test's child: no AMGT variable but the case's own (env).
inline void child_environment(std::initializer_list<std::pair<const char*, const char*>> env)
{
   clean_environment();
   for (const auto& [name, value] : env) setenv(name, value, 1);
}

// In a death test's child: the case's environment, then the case; exits with status 0 when
// run returns true (the case's own calls did what they should), 1 otherwise.
[[noreturn]] inline void in_child(std::initializer_list<std::pair<const char*, const char*>> env, bool (*run)())
{
   child_environment(env);
   std::exit(run() ? 0 : 1);
}

// Tridiagonal n x n: diag d, off-diagonals o; with neumann, the end rows get d + o so that
// every row sums to zero (the singular 1D Neumann Laplacian for d = 2, o = -1).
inline CsrMatrix tridiag(int n, double d, double o, bool neumann = false)
{
   CsrMatrix a;
   a.nrows = a.ncols = n;
   a.row_ptr.push_back(0);
   for (int i = 0; i < n; ++i)
   {
      a.col.push_back(i);
      a.val.push_back(neumann && (i == 0 || i == n - 1) ? d + o : d);
      if (i > 0) { a.col.push_back(i - 1); a.val.push_back(o); }
      if (i < n - 1) { a.col.push_back(i + 1); a.val.push_back(o); }
      a.row_ptr.push_back(static_cast<int>(a.col.size()));
   }
   return a;
}

// The glue's view of a host CSR matrix (no owner: nothing to race against).
inline amgt_csr host_view(const CsrMatrix& a)
{
   return amgt_csr{a.nrows, a.ncols, static_cast<int>(a.col.size()), a.row_ptr.data(),
                   a.col.data(), a.val.data(), 0, nullptr};
}

inline void* host_alloc(size_t bytes, int) { return std::malloc(bytes); }
inline void  host_release(void* p, int) { std::free(p); }

// The AMGT_STATS table as amgt_glue_print_stats prints it (to stderr without AMGT_STATS_FILE).
inline std::string stats_table()
{
   ::testing::internal::CaptureStderr();
   amgt_glue_print_stats(0, 1);
   return ::testing::internal::GetCapturedStderr();
}

// A fresh setup epoch with the host allocator; the test's matvecs run inside a V-cycle (the
// first of its solve) unless it steps out.
class GlueInCycle : public ::testing::Test
{
protected:
   void SetUp() override
   {
      amgt_allocator a{host_alloc, host_release, nullptr, nullptr};
      amgt_glue_set_allocator(&a);
      amgt_glue_setup_begin();
      amgt_glue_cycle_begin(0);
   }
   void TearDown() override { amgt_glue_cycle_end(); }
};

} // namespace amgt::test
