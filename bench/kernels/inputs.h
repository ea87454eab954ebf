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

// A generated problem of --problem (block4, band or one of problems.h). band:R:L: R rows on an
// n x n x m grid (n = floor(cbrt(R)), the last layer partial), each row its grid point and the
// L-1 nearest points of the 5x5x5 cube around it (by distance, then by offset: L=7 gives the
// 7-point stencil, L=27 the 27-point one), fewer at the grid's boundary; diagonal L, the others
// -1 (diagonally dominant, SPD). Columns sorted.
Input generated_input(const ProblemSpec& spec);
// A Matrix Market file of --matrix; num_functions for its AMG setup.
Input file_input(const std::string& path, int num_functions);

// An interpolation-like P for a square A, for a Galerkin level without an AMG hierarchy (no
// hypre, or --setup-products 0): the coarse points a greedy independent set in A's row order
// (a row becomes coarse unless a column of its row already is), each coarse row the identity
// on its coarse point, each fine row up to max_per_row of the coarse points of its row
// (BoomerAMG's -Pmx), weights |a_ij| + 1e-3 normalised to sum 1. Columns sorted. On a 3-D
// 27-point stencil about one row in 8 becomes coarse, as with AMG's coarsening by 2 per axis.
HostCsr synthetic_interpolation(const HostCsr& A, int max_per_row = 4);

} // namespace amgt::kbench
