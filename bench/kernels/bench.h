// The measurements of amgt-kernel-bench. One Bench per run holds the options, the vendor
// sparse library's handle (cuSPARSE or rocSPARSE: vendor_sparse.h), the JSON output and the
// records; measure_spmv (bench_spmv.cpp) and measure_spgemm (bench_spgemm.cpp) measure one
// operand or product each against the vendor library and hypre's own kernel; fine_level and
// setup_levels (bench.cpp) walk an input and its AMG hierarchy.
// Every result is checked before anything is timed.
#pragma once

#include "bench_common.h"
#include "vendor_sparse.h"
#include "inputs.h"
#include "options.h"
#include "report.h"

#include "device/runtime.h"
#include "mbsr/mbsr.h"
#include "rows/rows.h"
#include "rows/rows_device.h"

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace amgt::kbench {

// An error that leaves the device context unusable: stop measuring, print what we have.
class FatalError : public BenchError
{
public:
   using BenchError::BenchError;
};

// After a caught exception: if the context took a sticky error, nothing after it is valid.
void guard_context(const std::string& where);

// The plugin's device allocator: the bench's (dev_alloc_nothrow / dev_free), shared with
// the vendor library and hypre.
dev::Allocator plugin_allocator();

// The plugin's view of a device CSR (throws beyond 2^31-1 nonzeros).
amgt::CsrView plugin_view(const DeviceCsr& a);

// What the library's planner measures to pick a's SpMV layout in precision p: the fill sample
// and, where the rule's pick hangs on the 16-bit offsets, the exact span. in.narrow is then
// exact where it matters; choose_layout(in) is the library's pick.
struct LayoutPick
{
   LayoutInputs      in;
   dev::FillEstimate sample;
};
LayoutPick layout_pick(const amgt::CsrView& a, Precision p, const dev::Allocator& alloc);

// One timed quantity: `sample` runs it once and returns milliseconds (per call for SpMV).
struct Timed
{
   Timed(std::string n, std::function<double()> f, Meas* m, Stats* st = nullptr)
       : name(std::move(n)), sample(std::move(f)), meas(m), stats(st)
   {}
   std::string             name;
   std::function<double()> sample;
   Meas*                   meas  = nullptr; // time and status go here,
   Stats*                  stats = nullptr; // or only the time (conversions)
   bool                    failed = false;
   std::vector<double>     ms;
};

struct Bench
{
   const Options&            opt;
   vsp::Handle&             vendor;
   JsonLines&                json;
   DevBuf<char>              l2_scratch;
   std::vector<SpmvRecord>   spmv;
   std::vector<SpgemmRecord> spgemm;
   std::vector<GalerkinRecord> galerkin;

   int                       errors = 0; // measurements that could not be made at all

   bool host_reference() const { return !opt.device_only; }

   // Runs one measurement step; an error is reported and counted, the run goes on (unless
   // the device context is gone).
   template <class F>
   void attempt(const std::string& what, F&& f)
   {
      try
      {
         f();
      }
      catch (const FatalError&)
      {
         throw;
      }
      catch (const std::exception& e)
      {
         std::printf("ERROR %s: %s\n", what.c_str(), e.what());
         std::fflush(stdout);
         ++errors;
         guard_context(what);
      }
   }

   void report_problem(const char* section, const std::string& what, const char* impl, const Meas& m);

   // opt.warmup rounds, then opt.repeat rounds in which every quantity takes one sample in
   // turn: a transient slowdown of the machine (clocks, a neighbour) then hits all of them
   // alike rather than whichever happened to be running.
   void time_interleaved(std::vector<Timed>& ts, const char* where);

   // bench_spmv.cpp: y = alpha A x + beta y by the vendor library, hypre and ours (every
   // path) on one operand; conversion and plan costs of ours.
   void measure_spmv(const std::string& matrix, const std::string& group, int level, const std::string& op,
                     const HostCsr& hA, const DeviceCsr& dA);
   // Calls per timed SpMV sample: about kSampleTargetMs of calls, a multiple of nx (1 with
   // --flush-l2).
   int choose_batch(const std::function<void(int)>& call, int nx);

   // bench_spgemm.cpp: C = A * B three ways. Returns the reference product (the vendor library's, else
   // hypre's) for a product that feeds on it, or nothing.
   std::optional<DeviceCsr> measure_spgemm(const std::string& matrix, const std::string& group, int level,
                                           const std::string& product, const DeviceCsr& A, const DeviceCsr& B);

   // bench_galerkin.cpp: one level's C = R*(A*P) (R = P^T, dPT) recomputed on a plan over C's
   // arrays (hC: the coarse operator; c_has_values: its values are hypre's product, checked
   // against), each product alone, and hypre's A*P and P^T*(A*P); checked first against the
   // CPU reference. synthetic_galerkin: the same on the input's A and synthetic_interpolation(A)
   // (inputs.h), C's pattern computed on the host, when there is no AMG hierarchy.
   void measure_galerkin(const std::string& matrix, const std::string& group, int level, const HostCsr& hA,
                         const HostCsr& hP, const HostCsr& hC, bool c_has_values, const DeviceCsr& dA,
                         const DeviceCsr& dP, const DeviceCsr& dPT);
   void synthetic_galerkin(const Input& in);

   // bench.cpp: the fine-level operand (SpMV with A, SpGEMM A*A), then the operators and
   // products of a stock BoomerAMG setup level by level.
   void fine_level(const Input& in);
   void setup_levels(const Input& in);
};

} // namespace amgt::kbench
