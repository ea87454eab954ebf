// Stencil generators; see problems.h for the problems and the numbering.
#include "problems.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

namespace amgt::problems {

namespace {

// systems3: a simplified Lame (linear elasticity) operator, displacement u = (u0, u1, u2)
// at every grid node,
//     -mu * Laplace(u) - (lambda + mu) * grad(div u)   with mu = 1, lambda + mu = 1,
// discretised as
//     A = kron(L7, I3) + B^T B.
// B is a forward-difference divergence: for every cell t in {-1..N-1}^3,
//     (B u)_t = sum_d ( u_d(t + e_d) - u_d(t) ),   nodes outside the grid being zero
// (Dirichlet). Row (node p, component c) of B^T B collects the two cells that contain
// u_c(p): t = p (coefficient -1) and t = p - e_c (coefficient +1). Its diagonal is 2, the
// other two unknowns of the same node get +1 (from cell p), and unknowns of neighbouring
// nodes get +-1.
//
// Why A is SPD: kron(L7, I3) is SPD (L7 is SPD: its eigenvalues are sums of
// 2 - 2cos(k pi/(N+1)) > 0) and B^T B is symmetric positive semidefinite
// (x^T B^T B x = |Bx|^2 >= 0); the sum of an SPD and an SPSD matrix is SPD.
//
// Why BoomerAMG needs num_functions = 3 on it: the near-null space is made of the
// translations (u_c = const for one component c), not the all-ones vector, and B^T B couples
// the components of a node and of neighbouring nodes with entries of both signs. Scalar AMG
// (num_functions = 1) lets those cross-component couplings into its strength graph and builds
// its interpolation around the all-ones vector: it converges slowly (measured: n = 20,
// BoomerAMG as solver, > 300 iterations). With num_functions = 3 (the "unknown" approach)
// strength and interpolation use only same-component connections, which are Laplacian-like,
// and the translations are interpolated exactly: about 50 iterations.
constexpr double kLameGradDiv = 1.0;  // lambda + mu
constexpr double kLameMu = 1.0;

struct Node {
  std::int64_t i, j, k;
};

Node node_of(std::int64_t index, std::int64_t n) {
  return Node{index % n, (index / n) % n, index / (n * n)};
}

// Appends the 7-point row of node `p` (sorted columns: z-, y-, x-, self, x+, y+, z+).
template <typename Emit>
void stencil7(const Node& p, std::int64_t n, Emit&& emit) {
  const std::int64_t self = p.i + n * (p.j + n * p.k);
  if (p.k > 0) emit(self - n * n, -1.0);
  if (p.j > 0) emit(self - n, -1.0);
  if (p.i > 0) emit(self - 1, -1.0);
  emit(self, 6.0);
  if (p.i < n - 1) emit(self + 1, -1.0);
  if (p.j < n - 1) emit(self + n, -1.0);
  if (p.k < n - 1) emit(self + n * n, -1.0);
}

// Appends the 7-point row of node `p` with face couplings coef(p, q) for the neighbours q
// inside the grid and the diagonal sum of all six faces; `boundary(p)` is the coupling
// of a face on the Dirichlet boundary (sorted columns, as stencil7).
template <typename Coef, typename Boundary, typename Emit>
void stencil7_variable(const Node& p, std::int64_t n, Coef&& coef, Boundary&& boundary,
                       Emit&& emit) {
  const std::int64_t self = p.i + n * (p.j + n * p.k);
  double diag = 0.0;
  double off[6] = {0, 0, 0, 0, 0, 0};  // z-, y-, x-, x+, y+, z+
  const Node q[6] = {{p.i, p.j, p.k - 1}, {p.i, p.j - 1, p.k}, {p.i - 1, p.j, p.k},
                     {p.i + 1, p.j, p.k}, {p.i, p.j + 1, p.k}, {p.i, p.j, p.k + 1}};
  const int axis[6] = {2, 1, 0, 0, 1, 2};
  bool inside[6];
  for (int f = 0; f < 6; ++f) {
    inside[f] = q[f].i >= 0 && q[f].j >= 0 && q[f].k >= 0 && q[f].i < n && q[f].j < n && q[f].k < n;
    const double c = inside[f] ? coef(p, q[f], axis[f]) : boundary(p, axis[f]);
    off[f] = -c;
    diag += c;
  }
  const std::int64_t step[6] = {-n * n, -n, -1, 1, n, n * n};
  for (int f = 0; f < 3; ++f) {
    if (inside[f]) emit(self + step[f], off[f]);
  }
  emit(self, diag);
  for (int f = 3; f < 6; ++f) {
    if (inside[f]) emit(self + step[f], off[f]);
  }
}

// aniso7: coupling 1 in x and y, kAnisoEpsilon in z (axis 2).
double aniso_coupling(int axis) { return axis == 2 ? kAnisoEpsilon : 1.0; }

// jump7: the coefficient of node p (checkerboard of kJumpCubes^3 sub-cubes).
double jump_coefficient(const Node& p, std::int64_t n, std::int64_t offset) {
  return problems::jump_coefficient(p.i, p.j, p.k, n, offset);
}

// Appends the 27-point row of node `p` (lexicographic loops give sorted columns).
template <typename Emit>
void stencil27(const Node& p, std::int64_t n, Emit&& emit) {
  for (int dk = -1; dk <= 1; ++dk) {
    const std::int64_t k = p.k + dk;
    if (k < 0 || k >= n) continue;
    for (int dj = -1; dj <= 1; ++dj) {
      const std::int64_t j = p.j + dj;
      if (j < 0 || j >= n) continue;
      for (int di = -1; di <= 1; ++di) {
        const std::int64_t i = p.i + di;
        if (i < 0 || i >= n) continue;
        const bool centre = di == 0 && dj == 0 && dk == 0;
        emit(i + n * (j + n * k), centre ? 26.0 : -1.0);
      }
    }
  }
}

// Row (node p, component c) of kron(mu L7, I3) + (lambda + mu) B^T B, columns sorted and
// merged. Unknown (node q, component d) is column 3 q + d.
void lame_row(const Node& p, int c, std::int64_t n,
              std::vector<std::pair<std::int64_t, double>>& row) {
  stencil7(p, n, [&](std::int64_t s, double l) { row.push_back({3 * s + c, kLameMu * l}); });
  auto inside = [n](const std::int64_t q[3]) {
    return q[0] >= 0 && q[1] >= 0 && q[2] >= 0 && q[0] < n && q[1] < n && q[2] < n;
  };
  auto column = [n](const std::int64_t q[3], int d) { return 3 * (q[0] + n * (q[1] + n * q[2])) + d; };
  // The two cells whose divergence contains u_c(p), with u_c(p)'s coefficient there.
  for (int which = 0; which < 2; ++which) {
    std::int64_t t[3] = {p.i, p.j, p.k};
    double a = -1.0;  // cell t = p: u_c(p) enters as -u_c(t)
    if (which == 1) {
      t[c] -= 1;      // cell t = p - e_c: u_c(p) enters as +u_c(t + e_c)
      a = 1.0;
    }
    for (int d = 0; d < 3; ++d) {
      if (inside(t)) row.push_back({column(t, d), -kLameGradDiv * a});
      std::int64_t u[3] = {t[0], t[1], t[2]};
      u[d] += 1;
      if (inside(u)) row.push_back({column(u, d), kLameGradDiv * a});
    }
  }
  std::sort(row.begin(), row.end());
  std::size_t out = 0;
  for (std::size_t q = 0; q < row.size(); ++q) {
    if (out > 0 && row[out - 1].first == row[q].first) {
      row[out - 1].second += row[q].second;
    } else {
      row[out++] = row[q];
    }
  }
  row.resize(out);
  // Drop couplings that cancelled to exactly zero.
  row.erase(std::remove_if(row.begin(), row.end(),
                           [](const std::pair<std::int64_t, double>& e) { return e.second == 0.0; }),
            row.end());
}

}  // namespace

std::optional<Kind> parse_kind(std::string_view name) {
  if (name == "laplace7") return Kind::Laplace7;
  if (name == "laplace27") return Kind::Laplace27;
  if (name == "systems3") return Kind::Systems3;
  if (name == "aniso7") return Kind::Aniso7;
  if (name == "jump7") return Kind::Jump7;
  return std::nullopt;
}

double jump_coefficient(std::int64_t i, std::int64_t j, std::int64_t k, std::int64_t n,
                        std::int64_t offset) {
  auto cube = [n](std::int64_t x) { return x * kJumpCubes / n; };
  std::int64_t x = offset == 0 ? i : (i - offset) % n;
  if (x < 0) x += n;
  return (cube(x) + cube(j) + cube(k)) % 2 ? kJumpContrast : 1.0;
}

const char* kind_list() { return "laplace7|laplace27|systems3|aniso7|jump7"; }

const char* name(Kind kind) {
  switch (kind) {
    case Kind::Laplace7: return "laplace7";
    case Kind::Laplace27: return "laplace27";
    case Kind::Systems3: return "systems3";
    case Kind::Aniso7: return "aniso7";
    case Kind::Jump7: return "jump7";
  }
  return "unknown";
}

int Problem::max_row_entries() const {
  switch (kind) {
    case Kind::Laplace7:
    case Kind::Aniso7:
    case Kind::Jump7: return 7;
    case Kind::Laplace27: return 27;
    case Kind::Systems3: return 7 + 12;  // L7 row + two cells of B^T B (before merging)
  }
  return 27;
}

std::int64_t max_n(Kind kind, std::int64_t max_rows) {
  const std::int64_t per_node = kind == Kind::Systems3 ? 3 : 1;
  std::int64_t n = static_cast<std::int64_t>(std::cbrt(static_cast<double>(max_rows / per_node)));
  while (n > 0 && n * n * n * per_node > max_rows) --n;
  while ((n + 1) * (n + 1) * (n + 1) * per_node <= max_rows) ++n;
  return n;
}

void generate_rows(const Problem& problem, Range rows, RowBlock& out) {
  const std::int64_t n = problem.n;
  const int bs = problem.block_size();
  if (rows.begin < 0 || rows.end > problem.global_rows() || rows.begin > rows.end ||
      rows.begin % bs != 0 || rows.end % bs != 0) {
    throw std::invalid_argument("generate_rows: row range does not cover whole nodes");
  }
  out.global_rows = problem.global_rows();
  out.clear(rows.begin);
  out.row_ptr.reserve(static_cast<std::size_t>(rows.size()) + 1);
  out.col.reserve(static_cast<std::size_t>(rows.size() * problem.max_row_entries()));
  out.val.reserve(out.col.capacity());
  auto end_row = [&out]() { out.row_ptr.push_back(static_cast<std::int64_t>(out.col.size())); };
  auto emit = [&out](std::int64_t c, double v) {
    out.col.push_back(c);
    out.val.push_back(v);
  };

  switch (problem.kind) {
    case Kind::Laplace7:
      for (std::int64_t r = rows.begin; r < rows.end; ++r) {
        stencil7(node_of(r, n), n, emit);
        end_row();
      }
      break;
    case Kind::Laplace27:
      for (std::int64_t r = rows.begin; r < rows.end; ++r) {
        stencil27(node_of(r, n), n, emit);
        end_row();
      }
      break;
    case Kind::Aniso7:
      for (std::int64_t r = rows.begin; r < rows.end; ++r) {
        stencil7_variable(
            node_of(r, n), n, [](const Node&, const Node&, int axis) { return aniso_coupling(axis); },
            [](const Node&, int axis) { return aniso_coupling(axis); }, emit);
        end_row();
      }
      break;
    case Kind::Jump7: {
      const std::int64_t off = problem.jump_offset;
      for (std::int64_t r = rows.begin; r < rows.end; ++r) {
        stencil7_variable(
            node_of(r, n), n,
            [n, off](const Node& p, const Node& q, int) {
              const double kp = jump_coefficient(p, n, off);
              const double kq = jump_coefficient(q, n, off);
              return 2.0 * kp * kq / (kp + kq);
            },
            [n, off](const Node& p, int) { return jump_coefficient(p, n, off); }, emit);
        end_row();
      }
      break;
    }
    case Kind::Systems3: {
      std::vector<std::pair<std::int64_t, double>> row;
      for (std::int64_t r = rows.begin; r < rows.end; ++r) {
        row.clear();
        lame_row(node_of(r / 3, n), static_cast<int>(r % 3), n, row);
        for (const auto& [col, v] : row) emit(col, v);
        end_row();
      }
      break;
    }
  }
  if (problem.diagonal_shift != 0.0) {
    for (std::int64_t r = 0; r < out.num_rows(); ++r) {
      const std::int64_t row = out.first_row + r;
      for (std::int64_t q = out.row_ptr[r]; q < out.row_ptr[r + 1]; ++q) {
        if (out.col[q] == row) out.val[q] += problem.diagonal_shift;
      }
    }
  }
}

}  // namespace amgt::problems
