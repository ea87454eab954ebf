// Generated test problems on an N x N x N grid (Dirichlet boundary eliminated, so only the
// N^3 interior nodes are unknowns). Grid node (i, j, k), 0 <= i, j, k < N, has the number
// i + N*(j + N*k).
//
//   laplace7   7-point Laplacian: 6 on the diagonal, -1 for each of the (up to) 6 face
//              neighbours.
//   laplace27  27-point stencil: 26 on the diagonal, -1 for each of the (up to) 26 face,
//              edge and corner neighbours.
//   systems3   3 unknowns per node, interleaved node-major (row 3*node + c for component
//              c = 0, 1, 2: the layout BoomerAMG's SetNumFunctions(3) assumes): a
//              simplified linear elasticity (Lame) operator
//              A = kron(L7, I3) + B^T B, B a forward-difference divergence (mu = 1,
//              lambda + mu = 1). See problems.cpp for the construction, why it is SPD and
//              why it needs num_functions = 3.
//   aniso7     anisotropic diffusion -(u_xx + u_yy + eps u_zz), eps = kAnisoEpsilon = 1e-3:
//              7-point stencil, 2 (2 + eps) on the diagonal, -1 for the x and y
//              neighbours, -eps for the z neighbours (the z couplings are weak for
//              BoomerAMG's strength threshold 0.25, so it coarsens in x and y only).
//   jump7      jump-coefficient diffusion -div(k grad u), 7-point finite volumes: k is 1 or
//              kJumpContrast = 1e3 in a 4 x 4 x 4 checkerboard of sub-cubes of the grid
//              (cube (bi, bj, bk) = (4i/N, 4j/N, 4k/N) has k = 1e3 when bi + bj + bk is
//              odd); the coupling across a face is the harmonic mean 2 k_p k_q / (k_p + k_q)
//              of the two nodes' coefficients (k_p across a boundary face), the diagonal is
//              the sum of the node's six face couplings. Symmetric, weakly diagonally
//              dominant, irreducible with Dirichlet rows: SPD.
//
// Rows are generated in any contiguous range, so each MPI rank builds only its own block.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "row_block.h"

namespace amgt::problems {

enum class Kind { Laplace7, Laplace27, Systems3, Aniso7, Jump7 };

// Parameters of aniso7 and jump7 (fixed, so a problem is named by kind and N alone).
constexpr double kAnisoEpsilon = 1e-3;
constexpr double kJumpContrast = 1e3;
constexpr int kJumpCubes = 4;  // checkerboard cubes per direction

// Every kind, in the order --help lists them, and "laplace7|laplace27|..." for messages.
const char* kind_list();

std::optional<Kind> parse_kind(std::string_view name);
const char* name(Kind kind);

struct Problem {
  Kind kind = Kind::Laplace7;
  std::int64_t n = 0;  // grid points per direction
  // Values that vary over the steps of a sequence (amgt-solve --steps; drift.h). The
  // defaults give the problem as described above, bit for bit.
  double diagonal_shift = 0.0;    // added to every diagonal entry (implicit time step: c / dt)
  std::int64_t jump_offset = 0;   // jump7: the checkerboard moved by this many cells in +x

  // Unknowns per grid node (3 for systems3, else 1).
  int block_size() const { return kind == Kind::Systems3 ? 3 : 1; }
  std::int64_t num_nodes() const { return n * n * n; }
  std::int64_t global_rows() const { return num_nodes() * block_size(); }
  // Largest number of entries in one row.
  int max_row_entries() const;
};

// jump7's coefficient at node (i, j, k) of an N^3 grid, the checkerboard moved by `offset`
// cells in +x (periodically): cube ((i - offset) mod N) * kJumpCubes / N in x.
double jump_coefficient(std::int64_t i, std::int64_t j, std::int64_t k, std::int64_t n,
                        std::int64_t offset = 0);

// Largest N for which the problem's global row count fits in `max_rows`.
std::int64_t max_n(Kind kind, std::int64_t max_rows);

// Fills `out` with rows [rows.begin, rows.end) of the problem (global column indices,
// sorted within each row; the pattern does not depend on diagonal_shift or jump_offset). For systems3 the range must cover whole nodes (multiples of 3).
void generate_rows(const Problem& problem, Range rows, RowBlock& out);

}  // namespace amgt::problems
