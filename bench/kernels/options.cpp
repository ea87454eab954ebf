#include "options.h"

#include "vendor_sparse.h"

#include <cerrno>
#include <cstdlib>
#include <string_view>

namespace amgt::kbench {

namespace {

int64_t parse_int(const std::string& opt, const std::string& v, int64_t lo, int64_t hi)
{
   errno            = 0;
   char*     end    = nullptr;
   long long parsed = std::strtoll(v.c_str(), &end, 10);
   if (v.empty() || *end != '\0' || errno != 0 || parsed < lo || parsed > hi)
   {
      throw UsageError(opt + " expects an integer in [" + std::to_string(lo) + ", " +
                       std::to_string(hi) + "], got '" + v + "'");
   }
   return parsed;
}

bool known_kind(const std::string& k)
{
   return k == "laplace7" || k == "laplace27" || k == "systems3" || k == "aniso7" || k == "jump7" || k == "block4" ||
          k == "band";
}

} // namespace

int64_t default_n(const std::string& kind)
{
   if (kind == "laplace7") return 160;
   if (kind == "laplace27" || kind == "aniso7" || kind == "jump7") return 100;
   if (kind == "block4") return 64; // 1M rows, 28M nonzeros, every tile full
   return 64; // systems3
}

Options parse_options(int argc, const char* const* argv)
{
   Options o;
   bool    problems_given = false;
   bool    problems_none  = false;
   bool    repeat_given = false, warmup_given = false, setup_given = false;

   for (int i = 1; i < argc; ++i)
   {
      const std::string a = argv[i];
      auto value = [&](void) -> std::string {
         if (i + 1 >= argc) throw UsageError(a + " needs a value");
         return argv[++i];
      };
      if (a == "--help" || a == "-h")
      {
         o.help = true;
      }
      else if (a == "--problem")
      {
         std::string v = value();
         problems_given = true;
         if (v == "none")
         {
            problems_none = true;
            continue;
         }
         ProblemSpec p;
         const auto  colon = v.find(':');
         p.kind            = v.substr(0, colon);
         if (!known_kind(p.kind))
         {
            throw UsageError("--problem: unknown problem '" + p.kind +
                             "' (laplace7, laplace27, systems3, aniso7, jump7, block4, band or none)");
         }
         if (p.kind == "band")
         {
            // band:ROWS:LEN (the SpMV cost table's synthetic operators, inputs.h band_input)
            const auto second = colon == std::string::npos ? std::string::npos : v.find(':', colon + 1);
            if (second == std::string::npos) throw UsageError("--problem band expects band:ROWS:LEN");
            p.n   = parse_int("--problem band rows", v.substr(colon + 1, second - colon - 1), 16, int64_t{1} << 28);
            p.len = static_cast<int32_t>(parse_int("--problem band length", v.substr(second + 1), 1, 125));
            o.problems.push_back(p);
            continue;
         }
         p.n = colon == std::string::npos ? default_n(p.kind)
                                          : parse_int("--problem " + p.kind, v.substr(colon + 1), 2, 1290);
         o.problems.push_back(p);
      }
      else if (a == "--n")
      {
         const std::string v = value();
         if (o.problems.empty()) throw UsageError("--n must follow a --problem");
         o.problems.back().n = parse_int("--n", v, 2, 1290);
      }
      else if (a == "--matrix")
      {
         o.matrices.push_back(value());
      }
      else if (a == "--num-functions")
      {
         o.num_functions = static_cast<int>(parse_int(a, value(), 1, 64));
      }
      else if (a == "--repeat")
      {
         o.repeat     = static_cast<int>(parse_int(a, value(), 1, 100000));
         repeat_given = true;
      }
      else if (a == "--warmup")
      {
         o.warmup     = static_cast<int>(parse_int(a, value(), 0, 100000));
         warmup_given = true;
      }
      else if (a == "--setup-products")
      {
         o.setup_products = parse_int(a, value(), 0, 1) != 0;
         setup_given      = true;
      }
      else if (a == "--hierarchy-order")
      {
         const std::string v = value();
         if (v == "sorted") o.sorted_hierarchy = true;
         else if (v == "hypre") o.sorted_hierarchy = false;
         else throw UsageError("--hierarchy-order takes sorted or hypre, not '" + v + "'");
      }
      else if (a == "--device-only")
      {
         o.device_only = true;
      }
      else if (a == "--only")
      {
         const std::string v = value();
         o.spmv     = v == "spmv";
         o.spgemm   = v == "spgemm";
         o.galerkin = v == "galerkin";
         if (!o.spmv && !o.spgemm && !o.galerkin) throw UsageError("--only expects spmv, spgemm or galerkin");
      }
      else if (a == "--alloc")
      {
         const std::string v = value();
         if (v == "pool") o.alloc = AllocMode::pool;
         else if (v == "cuda") o.alloc = AllocMode::cuda;
         else throw UsageError("--alloc expects pool or cuda");
      }
      else if (a == "--precision")
      {
         const std::string v = value();
         if (v == "fp64") o.precision = Precision::fp64;
         else if (v == "fp32") o.precision = Precision::fp32;
         else if (v == "fp16") o.precision = Precision::fp16;
         else throw UsageError("--precision expects fp64, fp32 or fp16");
      }
      else if (a == "--spgemm-path")
      {
         const std::string v     = value();
         bool              known = false;
         for (device::SpgemmPath p : {device::SpgemmPath::automatic, device::SpgemmPath::cuda_core,
                                      device::SpgemmPath::cuda_core_pairs,
                                      device::SpgemmPath::tensor_core})
         {
            if (v == device::to_string(p))
            {
               o.spgemm_path = p;
               known         = true;
            }
         }
         if (!known)
         {
            throw UsageError("--spgemm-path expects automatic, cuda_core, cuda_core_pairs or "
                             "tensor_core");
         }
      }
      else if (a == "--flush-l2")
      {
         o.flush_l2 = true;
      }
      else if (a == "--tile-lanes")
      {
         const int64_t v = parse_int(a, value(), 0, 32);
         if (v != 0 && v != 4 && v != 8 && v != 16 && v != 32)
            throw UsageError("--tile-lanes expects 0 (the plan's rule), 4, 8, 16 or 32");
         o.tile_lanes = static_cast<int>(v);
      }
      else if (a == "--rows-lanes-alt")
      {
         const std::string v = value();
         const size_t      c = v.find(',');
         if (c == std::string::npos) throw UsageError("--rows-lanes-alt expects A,B (powers of two, 1..32)");
         const int64_t l[2] = {parse_int(a, v.substr(0, c), 1, 32), parse_int(a, v.substr(c + 1), 1, 32)};
         for (int i = 0; i < 2; ++i)
         {
            if ((l[i] & (l[i] - 1)) != 0) throw UsageError("--rows-lanes-alt expects powers of two, 1..32");
            o.rows_alt[i] = static_cast<int>(l[i]);
         }
      }
      else if (a == "--json")
      {
         o.json = value();
      }
      else if (a == "--seed")
      {
         o.seed = static_cast<uint64_t>(parse_int(a, value(), 0, INT64_MAX));
      }
      else
      {
         throw UsageError("unknown option '" + a + "' (see --help)");
      }
   }
   if (problems_none && o.problems.size() > 0)
   {
      throw UsageError("--problem none cannot be combined with other --problem options");
   }
   if (!problems_given)
   {
      for (const char* k : {"laplace7", "laplace27", "systems3"}) o.problems.push_back({k, default_n(k)});
   }
   if (o.device_only)
   {
      // Quick mode: kernels only, fewer samples, no AMG hierarchy, no host reference.
      if (!repeat_given) o.repeat = 5;
      if (!warmup_given) o.warmup = 1;
      if (!setup_given) o.setup_products = false;
   }
   if (!o.help && o.problems.empty() && o.matrices.empty())
   {
      throw UsageError("nothing to measure: no --problem and no --matrix");
   }
   return o;
}

void print_usage(std::FILE* out)
{
   std::fprintf(out,
"usage: amgt-kernel-bench [options]\n"
"\n"
"Kernel-level SpMV and SpGEMM, side by side: AMGT's mBSR kernels (ours), %s (CSR,\n"
"fp64) and hypre's own device kernels; one MPI rank, one GPU.\n"
"\n"
"inputs (fine-level matrices; each also gives an AMG hierarchy with --setup-products 1)\n"
"  --problem KIND[:N]    laplace7 | laplace27 | systems3 | aniso7 | jump7 | block4 (repeatable);\n"
"                        'none': no generated problem (amgt-solve --help describes each).\n"
"                        Default problems: laplace7:160 laplace27:100 systems3:64.\n"
"                        block4: 7-point grid, 4 unknowns per node coupled by a dense 4x4\n"
"                        block (every mBSR tile full: the tensor-core paths' best case)\n"
"  --problem band:R:L    R rows on a cubic grid, L entries a row (1-125): the diagonal and the\n"
"                        L-1 nearest neighbours of a 5x5x5 cube (L=7: the 7-point stencil,\n"
"                        L=27: the 27-point one); diagonal L, neighbours -1 (an M-matrix).\n"
"                        The operators of the SpMV cost table (bench/spmv_cost_sweep.sh)\n"
"  --n N                 grid points per direction of the preceding --problem\n"
"  --matrix FILE         Matrix Market .mtx or .mtx.gz (repeatable), added to the problems\n"
"  --num-functions K     BoomerAMG's num_functions for --matrix inputs (default 1;\n"
"                        systems3 always uses 3)\n"
"\n"
"measurement\n"
"  --repeat K            timed samples per measurement, median reported (default 20)\n"
"  --warmup W            untimed runs first (default 3)\n"
"  --setup-products 0|1  also run the products and SpMVs of a BoomerAMG setup (default 1)\n"
"  --hierarchy-order sorted|hypre  the setup's matrices with each row's columns sorted\n"
"                        (default) or in the order hypre's setup left them (what the solve\n"
"                        reads: its products leave rows in hash order)\n"
"  --device-only         quick mode: --repeat 5 --warmup 1 --setup-products 0 unless given,\n"
"                        and no CPU reference (ours is still checked against %s)\n"
"  --only spmv|spgemm|galerkin  run one section (galerkin: the re-setup's numeric-only\n"
"                        Galerkin products on a plan, per level of the AMG hierarchy, or on a\n"
"                        synthetic level of each input without one)\n"
"  --alloc pool|cuda     device allocator shared by all three (default pool: stream-ordered\n"
"                        %sMallocAsync; cuda: %sMalloc/%sFree, stock hypre's default)\n"
"  --flush-l2            SpMV: overwrite L2 before every sample and time single calls\n"
"  --tile-lanes N        SpMV: lanes per block row of ours forced to cuda_core_tiles and to\n"
"                        cuda_core_entries (4, 8, 16, 32; default 0: the plans' rules)\n"
"  --rows-lanes-alt A,B  SpMV: the row-wise kernel's two other timings with A and B lanes per\n"
"                        row (default: half and twice the rule's; printed as G/2 and 2G)\n"
"  --spgemm-path P       automatic (default) | cuda_core | cuda_core_pairs | tensor_core:\n"
"                        amgt::device::SpgemmPath of ours' fp64 SpGEMM; the kernel it ran\n"
"                        (pairs or ordered) is printed per product\n"
"  --precision P         fp64 (default) | fp32 | fp16: storage precision of ours' SpMV (all\n"
"                        paths, checked against fp64 with a normwise tolerance of the\n"
"                        precision) and, for fp16, also ours' fp16 SpGEMM forced to\n"
"                        tensor_core and cuda_core; extra tables compare the paths\n"
"  --seed S              random x / y vectors\n"
"  --json FILE           one JSON object per line and measurement\n"
"  --help\n",
                vsp::name(), vsp::name(), dev::kApiPrefix, dev::kApiPrefix, dev::kApiPrefix);
}

} // namespace amgt::kbench
