// amgt-steps-update-check: the two ways amgt-solve --steps writes a step's values into its
// matrix (bench/amgt_solve/solver.h, LinearSystem::update_values: --update direct and ij)
// give the same matrix, entry for entry in hypre's stored order (row pointers, columns,
// col_map_offd, values bit for bit), and that matrix is the one a fresh assembly of the
// step's values builds. Every generated problem under the drifts that apply to it (dt, jump,
// none), several steps and back to step 0 (as each repeat of a sequence does), the direct
// update on three threads in small chunks. Also: entries reordered inside a row are found
// again by their columns, and rows with a column the matrix does not store are refused.
// Run by test_steps_update on one and two MPI ranks; prints "PASS: ..." on rank 0 and exits
// 0, or says what differs and exits 1.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "HYPRE.h"
#include "drift.h"
#include "hypre_backend.h"
#include "mpi_compat.h"
#include "options.h"
#include "problems.h"
#include "row_block.h"
#include "solver.h"

namespace {

using namespace amgt;

struct Case {
  problems::Kind kind;
  std::int64_t n;
  drift::Kind drift;
  double shift;
  int speed;
};

RowRangeSource rows_of(const problems::Problem& p) {
  return RowRangeSource{[p](Range rows, RowBlock& out) { problems::generate_rows(p, rows, out); },
                        p.block_size()};
}

problems::Problem at(const Case& c, int step) {
  return drift::at_step(problems::Problem{c.kind, c.n}, c.drift, step, c.shift, c.speed);
}

template <typename T>
bool same(const T* a, const T* b, std::int64_t n) {
  if (n == 0) return true;
  if (!a || !b) return false;
  return std::memcmp(a, b, static_cast<std::size_t>(n) * sizeof(T)) == 0;
}

// Empty when the stored matrices are equal entry for entry, else what differs.
std::string compare(LinearSystem& x, LinearSystem& y) {
  backend::migrate_to_host(x.A());
  backend::migrate_to_host(y.A());
  const backend::HostCsr a = backend::host_csr(x.A());
  const backend::HostCsr b = backend::host_csr(y.A());
  std::string why;
  if (a.num_rows != b.num_rows || a.first_row != b.first_row || a.first_col != b.first_col ||
      a.last_col != b.last_col) {
    why = "row or column range";
  } else if (a.diag_nnz != b.diag_nnz || a.offd_nnz != b.offd_nnz || a.num_cols_offd != b.num_cols_offd) {
    why = "entry counts";
  } else if (!same(a.diag_i, b.diag_i, a.num_rows + 1) || !same(a.offd_i, b.offd_i, a.num_rows + 1)) {
    why = "row pointers";
  } else if (!same(a.diag_j, b.diag_j, a.diag_nnz) || !same(a.offd_j, b.offd_j, a.offd_nnz) ||
             !same(a.col_map_offd, b.col_map_offd, a.num_cols_offd)) {
    why = "columns (stored order)";
  } else if (!same(a.diag_data, b.diag_data, a.diag_nnz)) {
    why = "diag values";
  } else if (!same(a.offd_data, b.offd_data, a.offd_nnz)) {
    why = "offd values";
  }
  backend::migrate_to_device(x.A());
  backend::migrate_to_device(y.A());
  return why;
}

// The stored values of A (diag, then offd), copied.
std::vector<double> values_of(LinearSystem& s) {
  backend::migrate_to_host(s.A());
  const backend::HostCsr m = backend::host_csr(s.A());
  std::vector<double> v(m.diag_data, m.diag_data + m.diag_nnz);
  v.insert(v.end(), m.offd_data, m.offd_data + m.offd_nnz);
  backend::migrate_to_device(s.A());
  return v;
}

// Swaps the 2nd and 3rd stored diag entries of every local row with at least three (columns
// and values together): the same matrix in another stored order.
void reorder_rows(LinearSystem& s) {
  backend::migrate_to_host(s.A());
  const backend::HostCsr m = backend::host_csr(s.A());
  auto* j = const_cast<HYPRE_Int*>(m.diag_j);
  for (std::int64_t r = 0; r < m.num_rows; ++r) {
    const std::int64_t p = m.diag_i[r];
    if (m.diag_i[r + 1] - p >= 3) {
      std::swap(j[p + 1], j[p + 2]);
      std::swap(m.diag_data[p + 1], m.diag_data[p + 2]);
    }
  }
  backend::migrate_to_device(s.A());
}

int check(MPI_Comm comm, int rank, int size) {
  const std::vector<Case> cases = {
      {problems::Kind::Laplace7, 9, drift::Kind::Dt, 1.0, 2},
      {problems::Kind::Laplace27, 7, drift::Kind::Dt, 3.0, 2},
      {problems::Kind::Systems3, 5, drift::Kind::Dt, 1.0, 2},
      {problems::Kind::Aniso7, 8, drift::Kind::Dt, 1.0, 2},
      {problems::Kind::Jump7, 12, drift::Kind::Dt, 1.0, 2},
      {problems::Kind::Jump7, 12, drift::Kind::Jump, 1.0, 2},
      {problems::Kind::Jump7, 10, drift::Kind::Jump, 1.0, 3},
      {problems::Kind::Laplace7, 8, drift::Kind::None, 1.0, 2},
  };
  constexpr int kThreads = 3;
  constexpr std::int64_t kChunkUnits = 37;  // many chunks, the last one short
  int failures = 0;
  int compared = 0;
  auto expect = [&](bool ok, const std::string& what) {
    int mine = ok ? 0 : 1;
    int bad = 0;
    MPI_Allreduce(&mine, &bad, 1, MPI_INT, MPI_MAX, comm);
    if (!ok) std::fprintf(stderr, "FAIL (rank %d): %s\n", rank, what.c_str());
    if (bad) ++failures;
    ++compared;
  };

  for (const Case& c : cases) {
    const problems::Problem p0 = at(c, 0);
    const int bs = p0.block_size();
    const Range nodes = block_partition(p0.num_nodes(), rank, size);
    const Range local{nodes.begin * bs, nodes.end * bs};
    const std::string name = std::string(problems::name(c.kind)) + " n=" + std::to_string(c.n) +
                             " drift " + drift::name(c.drift);
    LinearSystem ij(comm, p0.global_rows(), local, as_row_source(rows_of(p0), local));
    LinearSystem direct(comm, p0.global_rows(), local, as_row_source(rows_of(p0), local));
    std::vector<double> before = values_of(direct);
    int changes = 0;
    for (int step : {1, 2, 3, 4, 5, 0, 1}) {
      const problems::Problem pk = at(c, step);
      ij.update_values(rows_of(pk), cli::UpdateKind::Ij);
      direct.update_values(rows_of(pk), cli::UpdateKind::Direct, kThreads, kChunkUnits);
      const std::string label = name + " step " + std::to_string(step);
      const std::string d = compare(direct, ij);
      expect(d.empty(), label + ": direct against ij: " + d);
      LinearSystem fresh(comm, pk.global_rows(), local, as_row_source(rows_of(pk), local));
      const std::string f = compare(direct, fresh);
      expect(f.empty(), label + ": direct against a fresh assembly: " + f);
      // steps whose values differ from the step before (on any rank)
      const std::vector<double> now = values_of(direct);
      int mine = now != before ? 1 : 0;
      int any = 0;
      MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm);
      changes += any;
      before = now;
    }
    // dt and jump change the values (a step may repeat an earlier one: jump7 n=10 moved by 5
    // cells is its step 0 again), none never does
    expect((changes >= 5) == (c.drift != drift::Kind::None) && (changes == 0) == (c.drift == drift::Kind::None),
           name + ": " + std::to_string(changes) + " of 7 steps changed the values");
    // the same matrix in another stored order: both paths find every value by its column
    reorder_rows(ij);
    reorder_rows(direct);
    for (int step : {2, 3}) {
      const problems::Problem pk = at(c, step);
      ij.update_values(rows_of(pk), cli::UpdateKind::Ij);
      direct.update_values(rows_of(pk), cli::UpdateKind::Direct, kThreads, kChunkUnits);
      const std::string d = compare(direct, ij);
      expect(d.empty(), name + " reordered, step " + std::to_string(step) + ": direct against ij: " + d);
    }
    if (rank == 0) std::printf("ok %s\n", name.c_str());
  }

  // rows the matrix cannot take: a column it does not store (laplace7's y- neighbour moved to
  // the xy-diagonal one), or more entries than its rows hold (laplace27's into laplace7's)
  {
    const problems::Problem p7{problems::Kind::Laplace7, 6};
    const problems::Problem p27{problems::Kind::Laplace27, 6};
    const Range local = block_partition(p7.global_rows(), rank, size);
    const std::int64_t n = p7.n;
    RowRangeSource moved{[p7, n](Range rows, RowBlock& out) {
                           problems::generate_rows(p7, rows, out);
                           for (std::int64_t r = 0; r < out.num_rows(); ++r) {
                             const std::int64_t row = out.first_row + r;
                             for (std::int64_t q = out.row_ptr[r]; q < out.row_ptr[r + 1]; ++q) {
                               if (out.col[q] == row - n && row % n < n - 1) out.col[q] = row - n + 1;
                             }
                           }
                         },
                         1};
    struct Refusal {
      const char* what;
      RowRangeSource source;
      const char* message;
    };
    for (const Refusal& bad : {Refusal{"a column not stored", moved, "is not stored"},
                               Refusal{"longer rows", rows_of(p27), "more entries than the matrix stores"}}) {
      LinearSystem s(comm, p7.global_rows(), local, as_row_source(rows_of(p7), local));
      std::string message;
      try {
        s.update_values(bad.source, cli::UpdateKind::Direct, kThreads, kChunkUnits);
      } catch (const std::logic_error& e) {
        message = e.what();
      }
      expect(message.find("direct update of the matrix values") != std::string::npos &&
                 message.find(bad.message) != std::string::npos,
             std::string(bad.what) + " refused: '" + message + "'");
      backend::migrate_to_device(s.A());
    }
    if (rank == 0) std::printf("ok refusals\n");
  }

  if (failures == 0 && rank == 0) {
    std::printf("PASS: steps update check, %zu cases, %d comparisons, np %d\n", cases.size(), compared, size);
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  amgt::backend::bind_device(comm);
  HYPRE_Initialize();
  amgt::backend::configure_library(0, 0, 0);
  int status = 1;
  try {
    status = check(comm, rank, size);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: fatal: %s\n", rank, e.what());
    MPI_Abort(comm, 2);
  }
  HYPRE_Finalize();
  MPI_Finalize();
  return status;
}
