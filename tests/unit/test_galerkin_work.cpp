// amgt-solve --galerkin-work's counts (bench/amgt_solve/galerkin_work.cpp) against a brute-force
// count over dense patterns, on a hand-checked example and on random patterns; bad input throws.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "galerkin_work.h"

namespace {

using amgt::work::GalerkinWork;
using amgt::work::Pattern;

struct Csr {
  std::int64_t nrows = 0, ncols = 0;
  std::vector<std::int32_t> row_ptr{0}, col;
  Pattern view() const { return Pattern{nrows, ncols, row_ptr.data(), col.data()}; }
};

Csr from_dense(const std::vector<std::vector<bool>>& d, std::int64_t ncols) {
  Csr m;
  m.nrows = static_cast<std::int64_t>(d.size());
  m.ncols = ncols;
  for (const auto& row : d) {
    for (std::int64_t j = 0; j < ncols; ++j)
      if (row[static_cast<size_t>(j)]) m.col.push_back(static_cast<std::int32_t>(j));
    m.row_ptr.push_back(static_cast<std::int32_t>(m.col.size()));
  }
  return m;
}

// The definitions, term by term.
GalerkinWork brute(const std::vector<std::vector<bool>>& A, const std::vector<std::vector<bool>>& P) {
  const size_t n = A.size(), nc = P.empty() ? 0 : P[0].size();
  auto len = [](const std::vector<bool>& r) { std::int64_t c = 0; for (bool b : r) c += b; return c; };
  GalerkinWork w;
  w.n = static_cast<std::int64_t>(n);
  w.nc = static_cast<std::int64_t>(nc);
  std::vector<std::vector<bool>> ap(n, std::vector<bool>(nc, false));
  for (size_t i = 0; i < n; ++i) {
    w.nnz_a += len(A[i]);
    w.nnz_p += len(P[i]);
    for (size_t j = 0; j < n; ++j)
      if (A[i][j]) {
        w.terms_ap += len(P[j]);
        for (size_t J = 0; J < nc; ++J) ap[i][J] = ap[i][J] || P[j][J];
      }
  }
  for (size_t i = 0; i < n; ++i) w.nnz_ap += len(ap[i]);
  std::vector<std::vector<bool>> c(nc, std::vector<bool>(nc, false));
  for (size_t I = 0; I < nc; ++I)
    for (size_t i = 0; i < n; ++i) {
      if (!P[i][I]) continue;
      w.terms_ptap += len(ap[i]);
      w.a_reads_fused += len(A[i]);
      for (size_t J = 0; J < nc; ++J) c[I][J] = c[I][J] || ap[i][J];
      for (size_t j = 0; j < n; ++j)
        if (A[i][j]) w.terms_fused += len(P[j]);
    }
  for (size_t I = 0; I < nc; ++I) w.nnz_c += len(c[I]);
  return w;
}

void expect_same(const GalerkinWork& a, const GalerkinWork& b) {
  EXPECT_EQ(a.n, b.n);
  EXPECT_EQ(a.nc, b.nc);
  EXPECT_EQ(a.nnz_a, b.nnz_a);
  EXPECT_EQ(a.nnz_p, b.nnz_p);
  EXPECT_EQ(a.terms_ap, b.terms_ap);
  EXPECT_EQ(a.nnz_ap, b.nnz_ap);
  EXPECT_EQ(a.terms_ptap, b.terms_ptap);
  EXPECT_EQ(a.nnz_c, b.nnz_c);
  EXPECT_EQ(a.terms_fused, b.terms_fused);
  EXPECT_EQ(a.a_reads_fused, b.a_reads_fused);
}

// 1D Laplacian on 5 points, points 0, 2, 4 coarse; points 1 and 3 interpolate from both
// neighbours.
TEST(GalerkinWork, OneDimensionalExampleByHand) {
  std::vector<std::vector<bool>> A(5, std::vector<bool>(5, false));
  for (int i = 0; i < 5; ++i)
    for (int j = i - 1; j <= i + 1; ++j)
      if (j >= 0 && j < 5) A[i][j] = true;
  const std::vector<std::vector<bool>> P = {{1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 1, 1}, {0, 0, 1}};
  const Csr a = from_dense(A, 5), p = from_dense(P, 3);
  const GalerkinWork w = amgt::work::galerkin_work(a.view(), p.view());
  // A*P: row i of A meets P's rows i-1..i+1, of 1, 2, 1, 2, 1 entries: 3, 4, 5, 4, 3 terms
  EXPECT_EQ(w.terms_ap, 19);
  // AP's rows: {0,1}, {0,1}, {0,1,2}, {1,2}, {1,2}
  EXPECT_EQ(w.nnz_ap, 11);
  // P^T*(AP): |P(i)| * |AP(i)| = 1*2 + 2*2 + 1*3 + 2*2 + 1*2
  EXPECT_EQ(w.terms_ptap, 15);
  // C is tridiagonal 3x3
  EXPECT_EQ(w.nnz_c, 7);
  // fused: |P(i)| * terms of AP's row i = 1*3 + 2*4 + 1*5 + 2*4 + 1*3
  EXPECT_EQ(w.terms_fused, 27);
  EXPECT_EQ(w.a_reads_fused, 1 * 2 + 2 * 3 + 1 * 3 + 2 * 3 + 1 * 2);
  EXPECT_EQ(w.touched_two_products(), 13 + 19 + 11 + 7 + 15 + 7);
  EXPECT_EQ(w.touched_fused(), 7 + 19 + 27 + 7);
  expect_same(w, brute(A, P));
}

TEST(GalerkinWork, RandomPatternsMatchTheDefinitions) {
  std::mt19937 rng(20261127);
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 30), nc = 1 + static_cast<int>(rng() % 12);
    std::bernoulli_distribution pa(0.05 + 0.3 * (trial % 4) / 3.0), pp(0.1 + 0.2 * (trial % 3) / 2.0);
    std::vector<std::vector<bool>> A(static_cast<size_t>(n), std::vector<bool>(static_cast<size_t>(n)));
    std::vector<std::vector<bool>> P(static_cast<size_t>(n), std::vector<bool>(static_cast<size_t>(nc)));
    for (auto& r : A) for (size_t j = 0; j < r.size(); ++j) r[j] = pa(rng);
    for (auto& r : P) for (size_t j = 0; j < r.size(); ++j) r[j] = pp(rng);
    if (trial % 5 == 0) P[rng() % n].assign(static_cast<size_t>(nc), false);  // an empty row of P
    const Csr a = from_dense(A, n), p = from_dense(P, nc);
    SCOPED_TRACE(trial);
    expect_same(amgt::work::galerkin_work(a.view(), p.view()), brute(A, P));
  }
}

TEST(GalerkinWork, EmptyAndBadInput) {
  const Csr empty;
  const GalerkinWork w = amgt::work::galerkin_work(empty.view(), empty.view());
  EXPECT_EQ(w.terms_fused, 0);
  EXPECT_EQ(w.nnz_c, 0);
  Csr a = from_dense({{true, true}, {true, true}}, 2);
  Csr p = from_dense({{true}, {false}}, 1);
  EXPECT_NO_THROW(amgt::work::galerkin_work(a.view(), p.view()));
  Csr rect = from_dense({{true, false, true}}, 3);
  EXPECT_THROW(amgt::work::galerkin_work(rect.view(), p.view()), std::invalid_argument);  // A not square
  Csr p3 = from_dense({{true}, {false}, {true}}, 1);
  EXPECT_THROW(amgt::work::galerkin_work(a.view(), p3.view()), std::invalid_argument);  // P's rows
  Csr bad = a;
  bad.col[1] = 7;  // column out of range
  EXPECT_THROW(amgt::work::galerkin_work(bad.view(), p.view()), std::invalid_argument);
  bad = a;
  bad.row_ptr[1] = 3;
  bad.row_ptr[2] = 2;  // decreasing
  EXPECT_THROW(amgt::work::galerkin_work(bad.view(), p.view()), std::invalid_argument);
  bad = a;
  bad.row_ptr[0] = 1;
  EXPECT_THROW(amgt::work::galerkin_work(bad.view(), p.view()), std::invalid_argument);
}

// product_terms (the kernel bench's work table): the terms of A*P agree with galerkin_work's,
// and on rectangular random patterns with the definition, sum over a_ij of |B(j,:)|.
TEST(ProductTerms, MatchTheDefinitionAndGalerkinWork) {
  std::mt19937 rng(20261128);
  for (int trial = 0; trial < 30; ++trial) {
    const int m = 1 + static_cast<int>(rng() % 20), k = 1 + static_cast<int>(rng() % 20),
              n = 1 + static_cast<int>(rng() % 20);
    std::bernoulli_distribution pa(0.05 + 0.4 * (trial % 3) / 2.0), pb(0.1 + 0.3 * (trial % 4) / 3.0);
    std::vector<std::vector<bool>> A(static_cast<size_t>(m), std::vector<bool>(static_cast<size_t>(k)));
    std::vector<std::vector<bool>> B(static_cast<size_t>(k), std::vector<bool>(static_cast<size_t>(n)));
    for (auto& r : A) for (size_t j = 0; j < r.size(); ++j) r[j] = pa(rng);
    for (auto& r : B) for (size_t j = 0; j < r.size(); ++j) r[j] = pb(rng);
    std::int64_t want = 0;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < k; ++j)
        if (A[i][j])
          for (int l = 0; l < n; ++l) want += B[j][l];
    SCOPED_TRACE(trial);
    EXPECT_EQ(amgt::work::product_terms(from_dense(A, k).view(), from_dense(B, n).view()), want);
  }
  const std::vector<std::vector<bool>> A = {{1, 1, 0}, {1, 1, 1}, {0, 1, 1}};
  const std::vector<std::vector<bool>> P = {{1, 0}, {1, 1}, {0, 1}};
  const Csr a = from_dense(A, 3), p = from_dense(P, 2);
  EXPECT_EQ(amgt::work::product_terms(a.view(), p.view()), amgt::work::galerkin_work(a.view(), p.view()).terms_ap);
  EXPECT_EQ(amgt::work::product_terms(a.view(), p.view()), 3 + 4 + 3);  // |P(j,:)| = 1, 2, 1
  // A's columns are not B's rows; a bad pattern
  EXPECT_THROW(amgt::work::product_terms(p.view(), p.view()), std::invalid_argument);
  Csr bad = a;
  bad.col[0] = 5;
  EXPECT_THROW(amgt::work::product_terms(bad.view(), p.view()), std::invalid_argument);
  const Csr empty;
  EXPECT_EQ(amgt::work::product_terms(empty.view(), empty.view()), 0);
}

}  // namespace
