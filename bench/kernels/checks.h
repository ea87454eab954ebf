// Result checks of amgt-kernel-bench: the CPU oracle of an SpMV, normwise and row-relative
// comparisons, and the tolerance of ours by storage precision.
#pragma once

#include "bench_common.h"

#include "common/precision.h"
#include "mbsr/mbsr.h"

#include <cstdint>
#include <string>
#include <vector>

namespace amgt::kbench {

// Normwise check of ours against the fp64 reference (the vendor library or the CPU), by storage
// precision: a sanity check that a kernel is not broken (the unit tests hold the rounding
// contract with derived bounds). Values rounded to V and float/half sums give a normwise
// error of a few u_s times || |A||x| || / ||A x|| (about 2 for the generated problems);
// fp32: u_s = 6e-8; fp16: u_s = 4.9e-4 (and the tensor_core path rounds x to half too).
double spmv_check_tolerance(Precision p);

// v in %.2e.
std::string sci(double v);

// --precision fp16 SpGEMM: the tensor-core product against the CUDA-core one (the unit tests
// compare both with the CPU reference). Same structure, and the fp64 product's tile count
// when there is one (tiles_c >= 0); finite values; normwise difference below 1e-2 (both add
// the same exact products in fp32 and round once to half: they differ by about u_half).
std::string half_products_differ(const amgt::Mbsr<amgt::half_t>& tc, const amgt::Mbsr<amgt::half_t>& cc,
                                 int64_t tiles_c, double* rel);

// ||a - b||_2 / ||b||_2 in long double; NaN if a holds a NaN/Inf.
double rel_err(const std::vector<double>& a, const std::vector<double>& b);

// y = alpha * A * x + beta * y0 on the CPU, in long double (the oracle for every SpMV).
std::vector<double> host_spmv(const HostCsr& A, const std::vector<double>& x, double alpha, double beta,
                              const std::vector<double>& y0);

// Same pattern (sorted rows) and values within tol of the reference, relative to the largest
// |value| of the reference row: an entry that cancels to ~0 in exact arithmetic is then not
// failed for rounding noise. Returns an empty string when equal; `max_err` gets the largest
// row-relative difference.
std::string compare_csr(const HostCsr& a, const HostCsr& ref, double tol, double* max_err);

} // namespace amgt::kbench
