// Command line of amgt-kernel-bench (a pure function of argv; see print_usage).
#pragma once

#include "bench_common.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace amgt::kbench {

struct ProblemSpec
{
   std::string kind; // laplace7 | laplace27 | systems3
   int64_t     n = 0;
};

struct Options
{
   std::vector<ProblemSpec> problems; // generated inputs
   std::vector<std::string> matrices; // Matrix Market files
   int         num_functions = 1;     // BoomerAMG for --matrix inputs
   int         repeat        = 20;    // timed samples per measurement
   int         warmup        = 3;     // untimed runs (SpMV: batches) before them
   bool        setup_products = true;
   bool        device_only    = false;
   bool        spmv           = true;
   bool        spgemm         = true;
   bool        flush_l2       = false;
   AllocMode   alloc          = AllocMode::pool;
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

// Default grid size of a generated problem (the BRIEF's fine-level sizes).
int64_t default_n(const std::string& kind);

} // namespace amgt::kbench
