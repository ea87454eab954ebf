// The l1-Jacobi sweep of hypre's smoother (relax types 7 and 18 on the GPU) when it starts
// from u = 0, as one pass: hypre's Relax7 then copies f into its work vector, scales it by the
// weight and adds work ./ l1 to u (three kernels, one of them a copy). With u = 0 that is
//   vtemp_i = w * f_i,   u_i = 0 + vtemp_i / l1_i
// which this pass writes directly (vtemp too: hypre leaves it so). The `0 +` keeps hypre's
// rounding to the bit, sign of zero included: hypre adds the quotient to a zero u. Every
// BoomerAMG V-cycle starts each coarse level from zero, and Krylov preconditioning starts the
// finest level from zero too, so this is the first sweep of every level of every cycle.
//
// jacobi_from_zero_ref is the CPU reference of the device pass (smooth/jacobi_device.h): the
// same IEEE operations (a product, a quotient, a sum), so the results are equal bit for bit.
#pragma once

#include <cstdint>

namespace amgt {

// n >= 0 entries each; f, l1, u and vtemp must not overlap (u and vtemp are written).
// n > 0 with a null pointer throws amgt::Error. A zero l1_i gives what hypre gives (Inf/NaN).
void jacobi_from_zero_ref(int64_t n, double w, const double* f, const double* l1, double* u,
                          double* vtemp);

} // namespace amgt
