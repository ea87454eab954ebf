// The work of one Galerkin product C = P^T * A * P, counted from the patterns of A and P: as
// two general products (A*P, then P^T*(AP), what hypre and the plugin run) and as one triple
// product (each term p_iI a_ij p_jJ added into C[I][J] directly, no AP). It says where a one-pass
// triple product would touch fewer entries than two products (the SpGEMM issue's second
// design). Pure C++, no hypre: amgt-solve --galerkin-work feeds it each level's diag blocks.
#pragma once

#include <cstdint>

namespace amgt::work {

// A CSR pattern (values are not needed): row_ptr has nrows + 1 entries, col row_ptr[nrows].
struct Pattern {
  std::int64_t nrows = 0, ncols = 0;
  const std::int32_t* row_ptr = nullptr;
  const std::int32_t* col = nullptr;
};

// Counts of C = P^T A P with A n x n and P n x nc. A "term" is one multiply-add a product
// performs (one hash insert in hypre's and the plugin's kernels); duplicates within a row count
// once in the nnz figures.
struct GalerkinWork {
  std::int64_t n = 0, nc = 0;        // rows of A, columns of P
  std::int64_t nnz_a = 0, nnz_p = 0;
  std::int64_t terms_ap = 0;         // A*P: sum over A's entries a_ij of |P(j,:)|
  std::int64_t nnz_ap = 0;
  std::int64_t terms_ptap = 0;       // P^T*(AP): sum over i of |P(i,:)| * |AP(i,:)|
  std::int64_t nnz_c = 0;
  std::int64_t terms_fused = 0;      // P^T A P in one: sum over i of |P(i,:)| * terms of AP's row i
  std::int64_t a_reads_fused = 0;    // A's entries the fused product reads: sum over i of |P(i,:)| |A(i,:)|

  // Entries touched (read or written; a column and a value each), counted as if nothing were
  // cached: two products read A, P once per term, write AP, read R = P^T, AP once per term,
  // write C; the fused product reads R, A's row i once per entry of R's column i, P once per
  // term, writes C.
  std::int64_t touched_two_products() const {
    return nnz_a + terms_ap + nnz_ap + nnz_p + terms_ptap + nnz_c;
  }
  std::int64_t touched_fused() const { return nnz_p + a_reads_fused + terms_fused + nnz_c; }
};

// Throws std::invalid_argument when the shapes do not fit (A not square, P's rows not A's) or a
// pattern is malformed (row_ptr not non-decreasing from 0, a column out of range).
GalerkinWork galerkin_work(const Pattern& A, const Pattern& P);

// Terms of one general product C = A * B: sum over A's entries a_ij of |B(j,:)| (the hash
// inserts of a row-wise product; the kernel bench divides each kernel's time by it). Throws
// std::invalid_argument as galerkin_work does, and when A's columns are not B's rows.
std::int64_t product_terms(const Pattern& A, const Pattern& B);

}  // namespace amgt::work
