// The inputs of amgt-kernel-bench: generated problems (bench/amgt_solve/problems.h, and
// block4, the bench's own full-tile case) and Matrix Market files, as sorted host CSR.
#pragma once

#include "bench_common.h"
#include "options.h"

#include <string>

namespace amgt::kbench {

struct Input
{
   std::string name;
   HostCsr     A;
   int         num_functions = 1;
};

// A generated problem of --problem (block4 or one of problems.h).
Input generated_input(const ProblemSpec& spec);
// A Matrix Market file of --matrix; num_functions for its AMG setup.
Input file_input(const std::string& path, int num_functions);

} // namespace amgt::kbench
