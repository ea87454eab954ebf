// Command line of amgt-kernel-bench (a pure function of argv; see print_usage).
#pragma once

#include "bench_common.h"
#include "common/precision.h"
#include "spgemm/spgemm_device.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace amgt::kbench {

struct ProblemSpec
{
   std::string kind; // laplace7 | laplace27 | systems3 | block4 | band (bench-only, see inputs.h)
   int64_t     n = 0; // grid size; band: rows
   int32_t     len = 0; // band: entries a row (inner rows)
};

struct Options
{
   std::vector<ProblemSpec> problems; // generated inputs
   std::vector<std::string> matrices; // Matrix Market files
   int         num_functions = 1;     // BoomerAMG for --matrix inputs
   int         repeat        = 20;    // timed samples per measurement
   int         warmup        = 3;     // untimed runs (SpMV: batches) before them
   bool        setup_products = true;
   // The hierarchy's matrices as hypre left them (false: each row's columns sorted, as the
   // bench did before --hierarchy-order; hypre's SpGEMM leaves a coarse A's rows in hash order,
   // and that order is what the solve reads)
   bool        sorted_hierarchy = true;
   bool        device_only    = false;
   bool        spmv           = true;
   bool        spgemm         = true;
   // The re-setup's numeric-only Galerkin products on a plan (bench_galerkin.cpp): on every
   // level of the AMG hierarchy, or on a synthetic level of each input without one
   bool        galerkin       = true;
   bool        flush_l2       = false;
   int         tile_lanes     = 0;     // SpMV cuda_core_tiles: lanes per block row (0: rule)
   int         rows_alt[2]    = {0, 0}; // SpMV rows: the two other lane counts timed (0: G/2, 2G)
   AllocMode   alloc          = AllocMode::pool;
   // Storage precision of ours (SpMV: every path; SpGEMM: fp16 adds the fp16 tensor-core and
   // CUDA-core products). The vendor library and hypre stay fp64 CSR. fp64 = the original output.
   Precision   precision      = Precision::fp64;
   // Numeric kernel / tile paths of ours' fp64 SpGEMM (checked and timed); the --precision
   // fp16 products keep their forced cuda_core / tensor_core pair.
   device::SpgemmPath spgemm_path = device::SpgemmPath::automatic;
   std::string json;
   uint64_t    seed = 20240611;
   bool        help = false;
};

class UsageError : public std::runtime_error
{
public:
   using std::runtime_error::runtime_error;
};

Options parse_options(int argc, const char* const* argv);
void    print_usage(std::FILE* out);

// Default grid size of a generated problem: the benchmark's fine levels (laplace7 160,
// laplace27 100, systems3 64; docs/architecture.md), and block4 64.
int64_t default_n(const std::string& kind);

} // namespace amgt::kbench
