// The results of one step of a sequence (amgt-solve --steps).
#pragma once

namespace amgt {

// One step of a sequence (--steps).
struct StepResult {
  double update_s = 0.0;  // writing the new values into the IJ matrix (0 at step 0), max over ranks
  double setup_s = 0.0;   // 0 when no setup was called (--frozen 1, steps >= 1)
  double solve_s = 0.0;
  int iterations = 0;
  double rel_residual = 0.0;
  bool setup_called = false;
};

}  // namespace amgt
