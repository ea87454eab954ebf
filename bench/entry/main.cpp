// amgt-entry-bench: the host time of the glue's C entry points (hypre_glue/amgt_glue.h) on
// calls the plugin declines, as hypre's hooks make them thousands of times a process on small
// systems. The glue alone, through its C API: no hypre, no solver. Every path runs in a child
// process of its own, because the glue reads its configuration (the AMGT* variables) once per
// process; the parent only forks, waits and prints the header. See README.md beside this file.
#include "amgt_glue.h"

#include "mbsr/mbsr.h"

#include "device/backend.h"

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

#if defined(AMGT_DEVICE_RUNTIME)
constexpr bool kGpuBuild = true;
#else
constexpr bool kGpuBuild = false;
#endif

// A path: one entry point called on a case the plugin leaves to hypre, under the environment
// that makes it decline (set in the child, over whatever the caller exported).
struct Path
{
   const char* name;
   const char* entry;   // what is called, on what
   const char* outcome; // why the plugin declines it (the fallback reason, or what is counted)
   std::vector<std::pair<const char*, const char*>> env;
   const char* unavailable; // non-null: why this build cannot run it
};

std::vector<Path> all_paths()
{
   const char* no_device = kGpuBuild ? nullptr : "needs a GPU build (a device matrix)";
   return {
      {"spmv-model", "amgt_glue_spmv, device A (level 0, 1000 rows)",
       "fallback spmv-model-declined (cost model)", {{"AMGT", "fp64"}, {"AMGT_SPMV", "auto"}}, no_device},
      {"spmv-stock", kGpuBuild ? "amgt_glue_spmv, device A (level 0, 1000 rows)" : "amgt_glue_spmv, host A (level 0, 1000 rows)",
       "fallback AMGT_SPMV=stock", {{"AMGT", "fp64"}, {"AMGT_SPMV", "stock"}}, nullptr},
      {"spmv-outside-cycle", "amgt_glue_spmv, host A (level 0, 1000 rows)",
       "fallback spmv-outside-cycle-fp64", {{"AMGT", "mixed"}, {"AMGT_LEVELS", "s"}, {"AMGT_SPMV", "auto"}}, nullptr},
      {"setup-kernel-small", "amgt_glue_row_sums (2998 entries)",
       "left to hypre below AMGT_SETUP_KERNELS=large's size floor", {{"AMGT", "fp64"}, {"AMGT_SETUP_KERNELS", "large"}},
       nullptr},
      {"count-fallback", "amgt_glue_count_fallback (A's state, \"transposed\")", "fallback transposed",
       {{"AMGT", "fp64"}}, nullptr},
      {"count-sweep", "amgt_glue_count_sweep", "a sweep counted", {{"AMGT", "fp64"}}, nullptr},
   };
}

// The tridiagonal n x n operator (2, -1): a small level-0 matrix, far below every size floor.
amgt::CsrMatrix tridiagonal(int n)
{
   amgt::CsrMatrix a;
   a.nrows = a.ncols = n;
   a.row_ptr.push_back(0);
   for (int i = 0; i < n; ++i)
   {
      for (int j = std::max(0, i - 1); j <= std::min(n - 1, i + 1); ++j)
      {
         a.col.push_back(j);
         a.val.push_back(j == i ? 2.0 : -1.0);
      }
      a.row_ptr.push_back(static_cast<int32_t>(a.col.size()));
   }
   return a;
}

// hypre's allocator as amgt_hypre.c hands it over, reduced to what a declined call may touch.
void* bench_alloc(size_t bytes, int on_device)
{
#if defined(AMGT_DEVICE_RUNTIME)
   if (on_device)
   {
      void* p = nullptr;
      return amgt::device::device_malloc(&p, bytes) == amgt::device::kSuccess ? p : nullptr;
   }
#endif
   return on_device ? nullptr : std::malloc(bytes);
}

void bench_release(void* p, int on_device)
{
#if defined(AMGT_DEVICE_RUNTIME)
   if (on_device)
   {
      amgt::device::device_free(p);
      return;
   }
#endif
   if (!on_device) std::free(p);
}

// hypre's own matvec: its presence (with a matrix's owner) is what lets the cost model and the
// small-matrix rule send a device matrix to hypre. Never called on the paths measured; it says
// it failed should that change.
int bench_stock_spmv(void*, const double*, double*)
{
   return 0;
}

// The arrays of A and its vectors, where the path wants them (device or host).
struct Operands
{
   amgt::CsrMatrix host;
   amgt_csr    A{};
   double*     x = nullptr;
   double*     y = nullptr;
   bool        on_device = false;
   std::vector<void*> device_blocks;

   bool make(int n, bool device)
   {
      host      = tridiagonal(n);
      on_device = device;
      static int owner_tag = 0; // any non-null owner: hypre's CSR matrix stands behind A
      A.nrows = A.ncols = n;
      A.nnz             = static_cast<int>(host.col.size());
      A.owner           = &owner_tag;
      A.on_device       = device ? 1 : 0;
      if (!device)
      {
         host_x.assign(n, 1.0);
         host_y.assign(n, 0.0);
         A.row_ptr = host.row_ptr.data();
         A.col     = host.col.data();
         A.val     = host.val.data();
         x         = host_x.data();
         y         = host_y.data();
         return true;
      }
#if defined(AMGT_DEVICE_RUNTIME)
      std::vector<double> ones(n, 1.0);
      A.row_ptr = static_cast<const int*>(to_device(host.row_ptr.data(), host.row_ptr.size() * sizeof(int)));
      A.col     = static_cast<const int*>(to_device(host.col.data(), host.col.size() * sizeof(int)));
      A.val     = static_cast<const double*>(to_device(host.val.data(), host.val.size() * sizeof(double)));
      x         = static_cast<double*>(to_device(ones.data(), ones.size() * sizeof(double)));
      y         = static_cast<double*>(to_device(ones.data(), ones.size() * sizeof(double)));
      return A.row_ptr && A.col && A.val && x && y;
#else
      return false;
#endif
   }

   ~Operands()
   {
#if defined(AMGT_DEVICE_RUNTIME)
      for (void* p : device_blocks) amgt::device::device_free(p);
#endif
   }

private:
   std::vector<double> host_x, host_y;

#if defined(AMGT_DEVICE_RUNTIME)
   void* to_device(const void* src, size_t bytes)
   {
      void* p = nullptr;
      if (amgt::device::device_malloc(&p, bytes) != amgt::device::kSuccess) return nullptr;
      device_blocks.push_back(p);
      if (amgt::device::memcpy_blocking(p, src, bytes, amgt::device::Copy::to_device) != amgt::device::kSuccess)
      {
         return nullptr;
      }
      return p;
   }
#endif
};

int64_t ns_between(Clock::time_point a, Clock::time_point b)
{
   return std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count();
}

double median_of(std::vector<int64_t>& v)
{
   if (v.empty()) return 0.0;
   const size_t m = v.size() / 2;
   std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(m), v.end());
   double hi = static_cast<double>(v[m]);
   if (v.size() % 2) return hi;
   const double lo = static_cast<double>(*std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(m)));
   return 0.5 * (lo + hi);
}

// The median cost of one clock read pair (what the per-call timings of the median carry).
double clock_pair_ns()
{
   std::vector<int64_t> t(20001);
   for (int64_t& d : t)
   {
      const Clock::time_point a = Clock::now();
      const Clock::time_point b = Clock::now();
      d                         = ns_between(a, b);
   }
   return median_of(t);
}

struct Timing
{
   int64_t first_ns  = 0;
   double  mean_ns   = 0.0; // of calls 2..N, one clock pair around them all
   double  median_ns = 0.0; // of N-1 more calls, each timed, less a clock pair's cost
   bool    declined  = true; // every call returned 0 (hypre's code runs)
};

// The first call, then N-1 calls timed together (the mean), then N-1 more each timed (the
// median): 2N-1 calls in all.
template <class Call>
Timing time_calls(long n, double clock_ns, Call&& call)
{
   Timing t;
   int    any = 0;
   Clock::time_point a = Clock::now();
   any |= call();
   t.first_ns = ns_between(a, Clock::now());
   const long rest = std::max(1L, n - 1);
   a               = Clock::now();
   for (long i = 0; i < rest; ++i) any |= call();
   t.mean_ns = static_cast<double>(ns_between(a, Clock::now())) / static_cast<double>(rest);
   std::vector<int64_t> each(static_cast<size_t>(rest));
   for (int64_t& d : each)
   {
      const Clock::time_point b = Clock::now();
      any |= call();
      d = ns_between(b, Clock::now());
   }
   t.median_ns = std::max(0.0, median_of(each) - clock_ns);
   t.declined  = any == 0;
   return t;
}

// One path, in the child: returns the exit status (0: measured; 1: the plugin did not decline
// or the operands could not be made).
int run_path(const Path& p, long n, double clock_ns)
{
   for (const auto& [name, value] : p.env) setenv(name, value, 1);
   amgt_allocator alloc{};
   alloc.alloc      = bench_alloc;
   alloc.release    = bench_release;
   alloc.stock_spmv = bench_stock_spmv;
   amgt_glue_set_allocator(&alloc);
   amgt_glue_setup_begin(); // as hypre's setup does before it tags the hierarchy

   const bool device = kGpuBuild && (std::strcmp(p.name, "spmv-model") == 0 || std::strcmp(p.name, "spmv-stock") == 0);
   Operands   ops;
   if (!ops.make(1000, device))
   {
      std::fprintf(stderr, "amgt-entry-bench: %s: cannot place the operands in device memory\n", p.name);
      return 1;
   }
   void* slot = nullptr;
   amgt_glue_matrix_tag(&slot, 0, AMGT_ROLE_A);

   amgt_row_sums sums{};
   std::vector<double> sums_out(static_cast<size_t>(ops.A.nrows));
   sums.nrows = ops.A.nrows;
   sums.ncols = ops.A.ncols;
   sums.nnz   = ops.A.nnz;
   sums.ia    = ops.A.row_ptr;
   sums.ja    = ops.A.col;
   sums.a     = ops.A.val;
   sums.type  = 0;
   sums.scal  = 1.0;
   sums.set   = 1;
   sums.out   = sums_out.data(); // never written: the call is declined before any kernel

   Timing t;
   if (std::strncmp(p.name, "spmv-", 5) == 0)
   {
      t = time_calls(n, clock_ns, [&] { return amgt_glue_spmv(&slot, &ops.A, 1.0, ops.x, 0.0, ops.y); });
   }
   else if (std::strcmp(p.name, "setup-kernel-small") == 0)
   {
      t = time_calls(n, clock_ns, [&] { return amgt_glue_row_sums(&sums); });
   }
   else if (std::strcmp(p.name, "count-fallback") == 0)
   {
      t = time_calls(n, clock_ns, [&] {
         amgt_glue_count_fallback(slot, "transposed");
         return 0;
      });
   }
   else
   {
      t = time_calls(n, clock_ns, [&] {
         amgt_glue_count_sweep();
         return 0;
      });
   }
   std::printf("%-19s %10lld %9.1f %9.1f  %s -> %s\n", p.name, static_cast<long long>(t.first_ns), t.mean_ns,
               t.median_ns, p.entry, p.outcome);
   std::fflush(stdout);
   // AMGT_STATS: the table, with the counts of these calls (stderr, or AMGT_STATS_FILE)
   amgt_glue_print_stats(0, 1);
   amgt_glue_matrix_release(slot);
   amgt_glue_finalize();
   if (!t.declined)
   {
      std::fprintf(stderr, "amgt-entry-bench: %s: the plugin computed a call it should decline\n", p.name);
      return 1;
   }
   return 0;
}

void usage(std::FILE* out)
{
   std::fprintf(out,
                "usage: amgt-entry-bench [--calls N] [--path NAME]... [--list]\n"
                "  the host time of the glue's C entry points on calls the plugin declines: per path\n"
                "  the first call, the mean of the next N-1 (timed together) and the median of N-1\n"
                "  more (each timed, less a clock read pair), in ns a call. Default: every path this\n"
                "  build can run, N = 100000. AMGT_STATS from the environment applies to every path.\n");
}

} // namespace

int main(int argc, char** argv)
{
   long                     n = 100000;
   std::vector<std::string> chosen;
   bool                     list = false;
   for (int i = 1; i < argc; ++i)
   {
      const std::string a = argv[i];
      if (a == "--calls" && i + 1 < argc) { n = std::atol(argv[++i]); }
      else if (a == "--path" && i + 1 < argc) { chosen.emplace_back(argv[++i]); }
      else if (a == "--list") { list = true; }
      else if (a == "--help" || a == "-h")
      {
         usage(stdout);
         return 0;
      }
      else
      {
         usage(stderr);
         return 2;
      }
   }
   if (n < 2)
   {
      std::fprintf(stderr, "amgt-entry-bench: --calls needs at least 2\n");
      return 2;
   }
   const std::vector<Path> paths = all_paths();
   if (list)
   {
      for (const Path& p : paths)
      {
         std::printf("%-19s %s -> %s%s%s\n", p.name, p.entry, p.outcome, p.unavailable ? "; not here: " : "",
                     p.unavailable ? p.unavailable : "");
      }
      return 0;
   }
   for (const std::string& c : chosen)
   {
      if (std::none_of(paths.begin(), paths.end(), [&](const Path& p) { return c == p.name; }))
      {
         std::fprintf(stderr, "amgt-entry-bench: no path %s (--list names them)\n", c.c_str());
         return 2;
      }
   }

   const char*  stats    = std::getenv("AMGT_STATS");
   const double clock_ns = clock_pair_ns();
   std::printf("amgt-entry-bench: %s build; AMGT_STATS %s%s; %ld calls a path (then %ld more for the median); "
               "a clock read pair %.0f ns (taken off the median)\n",
               kGpuBuild ? "GPU" : "CPU", stats && *stats ? "=" : "unset", stats && *stats ? stats : "", n, n - 1,
               clock_ns);
   std::printf("%-19s %10s %9s %9s  %s\n", "path", "first_ns", "mean_ns", "median_ns", "entry -> outcome");
   std::fflush(stdout);

   int status = 0;
   for (const Path& p : paths)
   {
      if (!chosen.empty() && std::find(chosen.begin(), chosen.end(), p.name) == chosen.end()) continue;
      if (p.unavailable)
      {
         std::printf("%-19s %10s %9s %9s  %s -> not measured: %s\n", p.name, "-", "-", "-", p.entry, p.unavailable);
         std::fflush(stdout);
         continue;
      }
      // the glue's configuration is read once per process: a child per path
      const pid_t child = fork();
      if (child < 0)
      {
         std::perror("amgt-entry-bench: fork");
         return 1;
      }
      if (child == 0) return run_path(p, n, clock_ns); // main's locals freed, buffers flushed
      int wstatus = 0;
      if (waitpid(child, &wstatus, 0) != child || !WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0)
      {
         std::printf("%-19s failed (see above)\n", p.name);
         status = 1;
      }
   }
   return status;
}
