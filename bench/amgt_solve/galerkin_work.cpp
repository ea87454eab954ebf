#include "galerkin_work.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace amgt::work {
namespace {

void check(const Pattern& m, const char* name) {
  if (m.nrows < 0 || m.ncols < 0 || m.nrows > INT32_MAX || m.ncols > INT32_MAX) {
    throw std::invalid_argument(std::string(name) + ": bad dimensions");
  }
  if (m.nrows > 0 && (!m.row_ptr || (m.row_ptr[m.nrows] > 0 && !m.col))) {
    throw std::invalid_argument(std::string(name) + ": missing arrays");
  }
  if (m.nrows == 0) return;
  if (!m.row_ptr || m.row_ptr[0] != 0) throw std::invalid_argument(std::string(name) + ": row_ptr[0] != 0");
  for (std::int64_t i = 0; i < m.nrows; ++i) {
    if (m.row_ptr[i + 1] < m.row_ptr[i]) {
      throw std::invalid_argument(std::string(name) + ": row_ptr decreases at row " + std::to_string(i));
    }
    for (std::int32_t k = m.row_ptr[i]; k < m.row_ptr[i + 1]; ++k) {
      if (m.col[k] < 0 || m.col[k] >= m.ncols) {
        throw std::invalid_argument(std::string(name) + ": column out of range in row " + std::to_string(i));
      }
    }
  }
}

std::int64_t row_len(const Pattern& m, std::int64_t i) { return m.row_ptr[i + 1] - m.row_ptr[i]; }

}  // namespace

std::int64_t product_terms(const Pattern& A, const Pattern& B) {
  check(A, "A");
  check(B, "B");
  if (A.ncols != B.nrows) throw std::invalid_argument("A's columns are not B's rows");
  std::int64_t terms = 0;
  const std::int64_t nnz = A.nrows > 0 ? A.row_ptr[A.nrows] : 0;
  for (std::int64_t k = 0; k < nnz; ++k) terms += row_len(B, A.col[k]);
  return terms;
}

GalerkinWork galerkin_work(const Pattern& A, const Pattern& P) {
  check(A, "A");
  check(P, "P");
  if (A.nrows != A.ncols) throw std::invalid_argument("A is not square");
  if (P.nrows != A.nrows) throw std::invalid_argument("P's rows are not A's");
  GalerkinWork w;
  w.n = A.nrows;
  w.nc = P.ncols;
  w.nnz_a = A.nrows > 0 ? A.row_ptr[A.nrows] : 0;
  w.nnz_p = P.nrows > 0 ? P.row_ptr[P.nrows] : 0;

  // AP's pattern, row by row (a marker per column of P)
  std::vector<std::int64_t> ap_ptr(static_cast<size_t>(w.n) + 1, 0);
  std::vector<std::int32_t> ap_col;
  std::vector<std::int64_t> mark(static_cast<size_t>(w.nc), -1);
  for (std::int64_t i = 0; i < w.n; ++i) {
    std::int64_t terms = 0;
    for (std::int32_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      const std::int64_t j = A.col[k];
      terms += row_len(P, j);
      for (std::int32_t q = P.row_ptr[j]; q < P.row_ptr[j + 1]; ++q) {
        const std::int32_t J = P.col[q];
        if (mark[static_cast<size_t>(J)] != i) {
          mark[static_cast<size_t>(J)] = i;
          ap_col.push_back(J);
        }
      }
    }
    ap_ptr[static_cast<size_t>(i) + 1] = static_cast<std::int64_t>(ap_col.size());
    const std::int64_t pi = row_len(P, i);
    w.terms_ap += terms;
    w.terms_ptap += pi * (ap_ptr[static_cast<size_t>(i) + 1] - ap_ptr[static_cast<size_t>(i)]);
    w.terms_fused += pi * terms;
    w.a_reads_fused += pi * row_len(A, i);
  }
  w.nnz_ap = static_cast<std::int64_t>(ap_col.size());

  // C = P^T (AP): the rows i of each column I of P (P's transpose), then the union of their AP rows
  std::vector<std::int64_t> pt_ptr(static_cast<size_t>(w.nc) + 1, 0);
  for (std::int64_t k = 0; k < w.nnz_p; ++k) ++pt_ptr[static_cast<size_t>(P.col[k]) + 1];
  for (std::int64_t I = 0; I < w.nc; ++I) pt_ptr[static_cast<size_t>(I) + 1] += pt_ptr[static_cast<size_t>(I)];
  std::vector<std::int64_t> fill(pt_ptr.begin(), pt_ptr.end() - 1);
  std::vector<std::int32_t> pt_row(static_cast<size_t>(w.nnz_p));
  for (std::int64_t i = 0; i < w.n; ++i) {
    for (std::int32_t k = P.row_ptr[i]; k < P.row_ptr[i + 1]; ++k) {
      pt_row[static_cast<size_t>(fill[static_cast<size_t>(P.col[k])]++)] = static_cast<std::int32_t>(i);
    }
  }
  std::fill(mark.begin(), mark.end(), -1);
  for (std::int64_t I = 0; I < w.nc; ++I) {
    for (std::int64_t k = pt_ptr[static_cast<size_t>(I)]; k < pt_ptr[static_cast<size_t>(I) + 1]; ++k) {
      const size_t i = static_cast<size_t>(pt_row[static_cast<size_t>(k)]);
      for (std::int64_t q = ap_ptr[i]; q < ap_ptr[i + 1]; ++q) {
        const std::int32_t J = ap_col[static_cast<size_t>(q)];
        if (mark[static_cast<size_t>(J)] != I) {
          mark[static_cast<size_t>(J)] = I;
          ++w.nnz_c;
        }
      }
    }
  }
  return w;
}

}  // namespace amgt::work
