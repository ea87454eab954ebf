// How the values of a generated problem change from step to step in a sequence
// (amgt-solve --steps K --drift KIND): pure functions of the step index, so every rank, every
// run and the tests compute the same matrices. The sparsity pattern never changes.
//
//   none   the same matrix every step (a control: a re-setup must then give the hierarchy
//          of a full setup).
//   dt     an implicit diffusion step with a varying time step: A_k = K + (c / dt_k) I with
//          dt_k = dt_0 * (1 + kDtAmplitude * sin(k)), c / dt_0 = --dt-shift (default 1, in
//          the units of the stencil's unit coupling: for laplace7, whose diagonal is 6,
//          the shift ranges over [0.67, 2]). Any generated problem. A diagonal shift
//          leaves BoomerAMG's strength graph (off-diagonal entries only) as it was, while
//          the interpolation weights and the coarse operators change.
//   jump   jump7's coefficients drifting in space and time: the checkerboard of
//          high-coefficient cubes moves by --jump-speed cells (default 2) per step in +x,
//          periodically. jump7 only.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>

#include "problems.h"

namespace amgt::drift {

enum class Kind { None, Dt, Jump };

constexpr double kDtAmplitude = 0.5;      // dt_k / dt_0 in [0.5, 1.5]
constexpr double kDefaultDtShift = 1.0;   // c / dt_0
constexpr int kDefaultJumpSpeed = 2;      // cells per step

inline std::optional<Kind> parse_kind(std::string_view name) {
  if (name == "none") return Kind::None;
  if (name == "dt") return Kind::Dt;
  if (name == "jump") return Kind::Jump;
  return std::nullopt;
}

inline const char* name(Kind kind) {
  switch (kind) {
    case Kind::None: return "none";
    case Kind::Dt: return "dt";
    case Kind::Jump: return "jump";
  }
  return "unknown";
}

// dt_k / dt_0.
inline double dt_factor(int step) { return 1.0 + kDtAmplitude * std::sin(static_cast<double>(step)); }

// c / dt_k, the diagonal shift of step k, given c / dt_0.
inline double diagonal_shift(int step, double shift0) { return shift0 / dt_factor(step); }

// jump7's checkerboard offset (cells in +x) at step k.
inline std::int64_t jump_offset(int step, int speed) {
  return static_cast<std::int64_t>(step) * static_cast<std::int64_t>(speed);
}

// The problem of step k of a sequence on `base`.
inline problems::Problem at_step(problems::Problem base, Kind kind, int step, double shift0,
                                 int speed) {
  switch (kind) {
    case Kind::None: break;
    case Kind::Dt: base.diagonal_shift = diagonal_shift(step, shift0); break;
    case Kind::Jump: base.jump_offset = jump_offset(step, speed); break;
  }
  return base;
}

// The step's parameter as reported: dt_k / dt_0 for dt, the offset for jump, 0 for none.
inline double parameter(Kind kind, int step, int speed) {
  switch (kind) {
    case Kind::None: return 0.0;
    case Kind::Dt: return dt_factor(step);
    case Kind::Jump: return static_cast<double>(jump_offset(step, speed));
  }
  return 0.0;
}

}  // namespace amgt::drift
