// amgt-kernel-bench: the plugin's SpMV and SpGEMM kernels against the vendor's sparse library
// (cuSPARSE, or rocSPARSE in the HIP build) and hypre's own device kernels, on fine-level
// matrices and on the actual operators of a BoomerAMG setup.
// See bench/kernels/README.md for what each number means.
//
//   1. MPI_Init (one rank), AMGT forced off (libHYPRE's hooks hand every call to stock
//      hypre), HYPRE_Initialize with device memory/execution and hypre's own kernels.
//   2. Per input: SpMV with A and SpGEMM A*A; then, with --setup-products 1, a BoomerAMG
//      setup by stock hypre and, per level l, SpMV with A_l (l >= 1), P_l, P_l^T and the
//      Galerkin products A_l*P_l and P_l^T*(A_l*P_l).
//      With the Galerkin section (default; --only galerkin), per level also the re-setup's
//      numeric-only Galerkin products on a plan (bench_galerkin.cpp); without a hierarchy (no
//      hypre, --setup-products 0) on a synthetic level of each input.
//   3. Every result is checked before anything is timed: a wrong result gets a FAIL line and
//      no time. Tables, geometric means and failures are printed at the end.
//
// Files: bench.{h,cpp} (the Bench and its per-input walk), bench_spmv.cpp, bench_spgemm.cpp,
// bench_galerkin.cpp (one operand, product or Galerkin level each), checks.{h,cpp} (oracles
// and comparisons), inputs.{h,cpp} (generated problems, Matrix Market files, the synthetic
// interpolation), vendor_sparse (cuSPARSE or rocSPARSE),
// hypre_bridge (hypre_bridge_none without hypre), report, options.
#include "bench.h"
#include "hypre_bridge.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace amgt::kbench {
namespace {

std::string device_description()
{
   int device = 0;
   KB_DEV(dev::current_device(&device));
   dev::DeviceProp p{};
   KB_DEV(dev::device_properties(&p, device));
   int runtime = 0, driver = 0;
   (void)dev::runtime_version(&runtime);
   (void)dev::driver_version(&driver);
   char arch[64];
   dev::arch_name(p, arch, sizeof arch);
   char buf[512];
   std::snprintf(buf, sizeof buf, "%s (%s, %d %s, %.1f GiB, L2 %.0f MiB), %s runtime %d, driver %d", p.name, arch,
                 p.multiProcessorCount, dev::kMultiprocessors, static_cast<double>(p.totalGlobalMem) / (1ull << 30),
                 static_cast<double>(p.l2CacheSize) / (1 << 20), dev::kRuntimeName, runtime, driver);
   return buf;
}

int run(int argc, char** argv)
{
   Options o;
   try
   {
      o = parse_options(argc, argv);
   }
   catch (const UsageError& e)
   {
      std::fprintf(stderr, "amgt-kernel-bench: %s\n", e.what());
      print_usage(stderr);
      return 2;
   }
   if (o.help)
   {
      print_usage(stdout);
      return 0;
   }
   if (hyp::mpi_size() != 1)
   {
      std::fprintf(stderr, "amgt-kernel-bench: run it on one MPI rank (it measures one GPU)\n");
      return 2;
   }

   KB_DEV(dev::set_device(0));
   set_alloc_mode(o.alloc);
   hyp::initialize(o.alloc == AllocMode::pool);

   std::vector<SpmvRecord>   spmv_done;
   std::vector<SpgemmRecord> spgemm_done;
   std::vector<GalerkinRecord> galerkin_done;
   int                       status = 0;
   {
      vsp::Handle vendor;
      const int   vendor_version = vendor.version();
      JsonLines json_off;
      std::unique_ptr<JsonLines> json_file;
      if (!o.json.empty()) json_file = std::make_unique<JsonLines>(o.json);
      JsonLines& json = json_file ? *json_file : json_off;

      RunInfo info;
      info.device   = device_description();
      info.versions = std::string("hypre ") + hyp::version() + ", " + vsp::name() + " " + std::to_string(vendor_version) +
                      ", AMGT plugin (this tree)";
      // the runtime's names: cudaMallocAsync, ... (hipMallocAsync, ... in the HIP build)
      const std::string api = dev::kApiPrefix;
      info.alloc    = o.alloc == AllocMode::pool
                         ? "pool: " + api + "MallocAsync/" + api + "FreeAsync from the default pool, release threshold max; "
                           "shared by ours, " + vsp::name() + " and hypre (hypre_SetUserDeviceMalloc)"
                         : "cuda: " + api + "Malloc/" + api + "Free for ours, " + vsp::name() + " and hypre (stock hypre's default)";
      info.hypre    = hyp::available();
      if (!info.hypre) o.setup_products = false; // the AMG setup is hypre's
      info.settings = o.setup_products ? "PMIS, theta 0.25, max row sum 0.8, max coarse 3, interp 6, trunc 0.1, "
                                         "Pmax 4, relax 18 x1, max levels 7, keep transpose; stock hypre (AMGT off)"
                      : info.hypre     ? "not run (--setup-products 0)"
                                       : "not run (no hypre in this build)";
      info.repeat         = o.repeat;
      info.warmup         = o.warmup;
      info.flush_l2       = o.flush_l2;
      info.host_reference = !o.device_only;
      info.precision      = amgt::to_string(o.precision);
      print_header(stdout, info);
      std::fflush(stdout);
      json.write_info(info);

      Bench b{o, vendor, json, DevBuf<char>(), {}, {}, {}, 0};
      if (o.flush_l2)
      {
         int device = 0, l2 = 0;
         KB_DEV(dev::current_device(&device));
         KB_DEV(dev::l2_cache_bytes(&l2, device));
         b.l2_scratch = DevBuf<char>(static_cast<size_t>(std::max(l2, 1 << 20)) * 2);
      }

      std::vector<std::function<Input()>> inputs;
      for (const ProblemSpec& p : o.problems) inputs.push_back([p] { return generated_input(p); });
      for (const std::string& f : o.matrices) inputs.push_back([f, &o] { return file_input(f, o.num_functions); });

      try
      {
         for (auto& make : inputs)
         {
            Input in;
            try
            {
               in = make();
            }
            catch (const std::exception& e)
            {
               std::printf("ERROR input: %s\n", e.what());
               status = 3;
               continue;
            }
            std::fprintf(stderr, "== %s: %d x %d, %lld nonzeros\n", in.name.c_str(), in.A.nrows, in.A.ncols,
                         static_cast<long long>(in.A.nnz()));
            b.fine_level(in);
            if (o.setup_products) b.attempt("setup products of " + in.name, [&] { b.setup_levels(in); });
            // no AMG hierarchy (no hypre, or --setup-products 0): the Galerkin products on a
            // synthetic level of the input
            if (o.galerkin && !o.setup_products)
            {
               b.attempt("galerkin of " + in.name, [&] { b.synthetic_galerkin(in); });
            }
            trim_pool();
         }
      }
      catch (const std::exception& e)
      {
         std::printf("FATAL: %s\n(printing the measurements made so far)\n\n", e.what());
         status = 1;
      }
      spmv_done   = std::move(b.spmv);
      spgemm_done = std::move(b.spgemm);
      galerkin_done = std::move(b.galerkin);
      if (b.errors > 0 && status == 0) status = 3;
   }

   std::printf("\n");
   if (o.spmv) print_spmv_table(stdout, spmv_done);
   if (o.spmv) print_spmv_paths_table(stdout, spmv_done);
   if (o.spmv) print_conversion_table(stdout, spmv_done);
   if (o.spmv) print_layout_table(stdout, spmv_done);
   if (o.spgemm) print_spgemm_table(stdout, spgemm_done);
   if (o.spgemm) print_spgemm_half_table(stdout, spgemm_done);
   if (o.spgemm) print_spgemm_layout_table(stdout, spgemm_done);
   if (o.spgemm) print_spgemm_work_table(stdout, spgemm_done);
   if (o.galerkin) print_galerkin_table(stdout, galerkin_done);
   print_geomeans(stdout, spmv_done, spgemm_done);
   const int failures = print_failures(stdout, spmv_done, spgemm_done, galerkin_done);
   if (failures > 0 && status == 0) status = 3;
   if (free_errors() > 0)
   {
      std::printf("note: %d device frees reported an error\n", free_errors());
      if (status == 0) status = 3;
   }
   std::fflush(stdout);
   if (status != 1) hyp::finalize(); // after a fatal device error hypre's own cleanup would fail too
   return status;
}

} // namespace
} // namespace amgt::kbench

int main(int argc, char** argv)
{
   // The library reads AMGT once per process, at its first hook: set before anything runs,
   // so every hypre call measured (and the AMG setup) is stock hypre.
   const char* previous = std::getenv("AMGT");
   if (previous && std::string(previous) != "off")
   {
      std::fprintf(stderr, "amgt-kernel-bench: AMGT=%s in the environment; forcing AMGT=off (stock hypre "
                           "is the baseline, ours is called directly)\n", previous);
   }
   setenv("AMGT", "off", 1);

   amgt::kbench::hyp::mpi_init(&argc, &argv);
   int status = 1;
   try
   {
      status = amgt::kbench::run(argc, argv);
   }
   catch (const std::exception& e)
   {
      std::fprintf(stderr, "amgt-kernel-bench: error: %s\n", e.what());
      status = 1;
   }
   amgt::kbench::hyp::mpi_finalize();
   return status;
}
