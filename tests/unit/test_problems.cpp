// The driver's generated problems (bench/amgt_solve/problems.cpp): structure, symmetry,
// diagonal dominance and the values of the parameterised kinds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "problems.h"
#include "row_block.h"

namespace {

using amgt::Range;
using amgt::RowBlock;
namespace problems = amgt::problems;

RowBlock whole(const problems::Problem& p) {
  RowBlock rb;
  problems::generate_rows(p, Range{0, p.global_rows()}, rb);
  return rb;
}

std::map<std::pair<std::int64_t, std::int64_t>, double> entries(const RowBlock& rb) {
  std::map<std::pair<std::int64_t, std::int64_t>, double> m;
  for (std::int64_t r = 0; r < rb.num_rows(); ++r) {
    for (std::int64_t q = rb.row_ptr[r]; q < rb.row_ptr[r + 1]; ++q) {
      m[{rb.first_row + r, rb.col[q]}] = rb.val[q];
    }
  }
  return m;
}

const problems::Kind kAll[] = {problems::Kind::Laplace7, problems::Kind::Laplace27,
                               problems::Kind::Systems3, problems::Kind::Aniso7,
                               problems::Kind::Jump7};

TEST(Problems, NamesRoundTrip) {
  for (problems::Kind k : kAll) {
    const auto parsed = problems::parse_kind(problems::name(k));
    ASSERT_TRUE(parsed.has_value()) << problems::name(k);
    EXPECT_EQ(*parsed, k);
    EXPECT_NE(std::string(problems::kind_list()).find(problems::name(k)), std::string::npos);
  }
  EXPECT_FALSE(problems::parse_kind("laplace5").has_value());
}

class EveryKind : public ::testing::TestWithParam<std::tuple<problems::Kind, int>> {};

TEST_P(EveryKind, SortedSymmetricDominantAndChunkInvariant) {
  const auto [kind, n] = GetParam();
  const problems::Problem p{kind, n};
  const RowBlock rb = whole(p);
  ASSERT_EQ(rb.num_rows(), p.global_rows());
  const auto m = entries(rb);
  for (std::int64_t r = 0; r < rb.num_rows(); ++r) {
    double diag = 0.0, off = 0.0;
    ASSERT_LE(rb.row_ptr[r + 1] - rb.row_ptr[r], p.max_row_entries());
    for (std::int64_t q = rb.row_ptr[r]; q < rb.row_ptr[r + 1]; ++q) {
      ASSERT_GE(rb.col[q], 0);
      ASSERT_LT(rb.col[q], p.global_rows());
      if (q > rb.row_ptr[r]) {
        ASSERT_LT(rb.col[q - 1], rb.col[q]) << "row " << r;
      }
      if (rb.col[q] == r) {
        diag = rb.val[q];
      } else {
        off += std::fabs(rb.val[q]);
      }
      const auto t = m.find({rb.col[q], r});
      ASSERT_NE(t, m.end()) << "no transpose entry of (" << r << ", " << rb.col[q] << ")";
      EXPECT_EQ(t->second, rb.val[q]) << "(" << r << ", " << rb.col[q] << ")";
    }
    EXPECT_GT(diag, 0.0) << "row " << r;
    if (kind != problems::Kind::Systems3) {
      EXPECT_GE(diag, off * (1 - 1e-14)) << "row " << r;
    }
  }
  // Generated in chunks of whole nodes: the same rows.
  const std::int64_t bs = p.block_size();
  RowBlock part;
  std::int64_t row = 0;
  for (std::int64_t begin = 0; begin < p.global_rows(); begin += 5 * bs) {
    const std::int64_t end = std::min(p.global_rows(), begin + 5 * bs);
    problems::generate_rows(p, Range{begin, end}, part);
    for (std::int64_t r = 0; r < part.num_rows(); ++r, ++row) {
      const std::int64_t len = part.row_ptr[r + 1] - part.row_ptr[r];
      ASSERT_EQ(len, rb.row_ptr[row + 1] - rb.row_ptr[row]);
      for (std::int64_t q = 0; q < len; ++q) {
        EXPECT_EQ(part.col[part.row_ptr[r] + q], rb.col[rb.row_ptr[row] + q]);
        EXPECT_EQ(part.val[part.row_ptr[r] + q], rb.val[rb.row_ptr[row] + q]);
      }
    }
  }
  EXPECT_EQ(row, p.global_rows());
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, EveryKind,
    ::testing::Combine(::testing::ValuesIn(kAll), ::testing::Values(1, 4, 7)),
    [](const ::testing::TestParamInfo<EveryKind::ParamType>& info) {
      return std::string(problems::name(std::get<0>(info.param))) + "_n" +
             std::to_string(std::get<1>(info.param));
    });

TEST(Problems, SevenPointKindsHaveTheLaplacianPattern) {
  for (int n : {3, 8}) {
    const std::int64_t expect = 7LL * n * n * n - 6LL * n * n;
    for (problems::Kind k :
         {problems::Kind::Laplace7, problems::Kind::Aniso7, problems::Kind::Jump7}) {
      EXPECT_EQ(whole(problems::Problem{k, n}).nnz(), expect) << problems::name(k);
    }
    EXPECT_EQ(whole(problems::Problem{problems::Kind::Laplace27, n}).nnz(),
              static_cast<std::int64_t>(3 * n - 2) * (3 * n - 2) * (3 * n - 2));
  }
}

TEST(Problems, AnisotropicValues) {
  const int n = 4;
  const auto m = entries(whole(problems::Problem{problems::Kind::Aniso7, n}));
  const double eps = problems::kAnisoEpsilon;
  std::set<double> offdiag;
  for (const auto& [ij, v] : m) {
    if (ij.first == ij.second) {
      EXPECT_DOUBLE_EQ(v, 2.0 * (2.0 + eps));
    } else {
      const std::int64_t d = std::llabs(ij.first - ij.second);
      EXPECT_EQ(v, d == n * n ? -eps : -1.0) << ij.first << "," << ij.second;
      offdiag.insert(v);
    }
  }
  EXPECT_EQ(offdiag.size(), 2u);
}

TEST(Problems, JumpValues) {
  constexpr int n = 8;  // cubes of 2 x 2 x 2 nodes (a constant: the lambda needs no capture of it)
  const auto m = entries(whole(problems::Problem{problems::Kind::Jump7, n}));
  const double big = problems::kJumpContrast;
  const double mixed = 2.0 * big / (1.0 + big);
  auto k_of = [big](std::int64_t node) {
    const std::int64_t i = node % n, j = (node / n) % n, k = node / (n * n);
    const int cubes = problems::kJumpCubes;
    return ((i * cubes / n) + (j * cubes / n) + (k * cubes / n)) % 2 ? big : 1.0;
  };
  int mixed_faces = 0;
  for (const auto& [ij, v] : m) {
    if (ij.first == ij.second) {
      EXPECT_GE(v, 6.0 * std::min(1.0, mixed) - 1e-12);
      EXPECT_LE(v, 6.0 * big);
      continue;
    }
    const double kp = k_of(ij.first), kq = k_of(ij.second);
    if (kp == kq) {
      EXPECT_EQ(v, -kp);
    } else {
      EXPECT_DOUBLE_EQ(v, -mixed);
      ++mixed_faces;
    }
  }
  EXPECT_GT(mixed_faces, 0);
  // Node 0 (k = 1, a corner): three boundary faces of 1 plus three interior faces of 1.
  EXPECT_EQ(m.at({0, 0}), 6.0);
}

}  // namespace
