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
//
// Rows are generated in any contiguous range, so each MPI rank builds only its own block.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "row_block.h"

namespace amgt::problems {

enum class Kind { Laplace7, Laplace27, Systems3 };

std::optional<Kind> parse_kind(std::string_view name);
const char* name(Kind kind);

struct Problem {
  Kind kind = Kind::Laplace7;
  std::int64_t n = 0;  // grid points per direction

  // Unknowns per grid node (3 for systems3, else 1).
  int block_size() const { return kind == Kind::Systems3 ? 3 : 1; }
  std::int64_t num_nodes() const { return n * n * n; }
  std::int64_t global_rows() const { return num_nodes() * block_size(); }
  // Largest number of entries in one row.
  int max_row_entries() const;
};

// Largest N for which the problem's global row count fits in `max_rows`.
std::int64_t max_n(Kind kind, std::int64_t max_rows);

// Fills `out` with rows [rows.begin, rows.end) of the problem (global column indices,
// sorted within each row). For systems3 the range must cover whole nodes (multiples of 3).
void generate_rows(const Problem& problem, Range rows, RowBlock& out);

}  // namespace amgt::problems
